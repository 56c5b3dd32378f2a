"""Golden values of nn/parallel's SyncBatchNorm (syncbn_test.go): PyTorch
1.13.1's SyncBatchNorm under DistributedDataParallel on 2 Gloo processes.

    /usr/bin/python3 nn/parallel/testdata/syncbn.py   # writes syncbn.json beside it

The model (Conv2d, BatchNorm2d, ReLU, Flatten, Linear, BatchNorm1d, ReLU,
Linear) goes through nn.SyncBatchNorm.convert_sync_batchnorm and DDP; the
two ranks take batches of different sizes (6 and 4), so the statistics are
weighted by count; 3 SGD steps (momentum 0.9), then an evaluation forward
that uses the running statistics.

torch 1.13's SyncBatchNorm runs on CUDA only: its module's forward refuses
CPU input, and five kernels it calls (batch_norm_stats,
batch_norm_gather_stats_with_counts, batch_norm_elemt,
batch_norm_backward_reduce, batch_norm_backward_elemt) have no CPU
implementation. This script keeps 1.13's autograd Function
(torch.nn.modules._functions.SyncBatchNorm: the all_gather of each rank's
mean, invstd and count in forward, the all_reduce of sum_dy and sum_dy_xmu
in backward) and 1.13's convert_sync_batchnorm, and supplies CPU versions of
the five kernels, written from the formulas of their CUDA kernels
(aten/src/ATen/native/cuda/Normalization.cuh), and of the module's forward
without its device check (DDP's constructor has the same check; it is
skipped too) (the momentum and num_batches_tracked logic of
1.13's SyncBatchNorm.forward). As a check that these are right, the script
asserts that what the two ranks compute equals, to 1e-5, one process that
runs plain BatchNorm on the concatenated batch with the loss averaged over
the ranks (the definition of synchronized batch norm).
"""
import json
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.modules import _functions

WORLD = 2
SIZES = [6, 4]
STEPS = 3
LR, MOMENTUM = 0.1, 0.9


# --- CPU versions of the CUDA-only kernels (Normalization.cuh) -------------

def _dims(x):
    return [0] + list(range(2, x.dim()))


def _shape(x, v):
    return v.view([1, -1] + [1] * (x.dim() - 2))


def batch_norm_stats(x, eps):
    var, mean = torch.var_mean(x, _dims(x), unbiased=False)
    return mean, 1.0 / torch.sqrt(var + eps)


def batch_norm_gather_stats_with_counts(x, mean_all, invstd_all, running_mean, running_var, momentum, eps, counts):
    # batch_norm_reduce_statistics_kernel: Welford's merge, rank by rank.
    avg = torch.zeros_like(mean_all[0])
    var_n = torch.zeros_like(mean_all[0])
    n = 0.0
    for j in range(mean_all.shape[0]):
        cnt = float(counts[j])
        m = mean_all[j]
        v = 1.0 / invstd_all[j]
        v = (v * v - eps) * cnt
        factor = 1.0 / (n + cnt)
        d = avg - m
        var_n = var_n + v + d * d * (n * cnt * factor)
        avg = avg * (n * factor) + m * (cnt * factor)
        n += cnt
    invstd = 1.0 / torch.sqrt(var_n / n + eps)
    with torch.no_grad():
        if running_mean is not None:
            running_mean.copy_(running_mean * (1 - momentum) + avg * momentum)
        if running_var is not None:
            running_var.copy_(running_var * (1 - momentum) + (var_n / (n - 1)) * momentum)
    return avg, invstd


def batch_norm_elemt(x, weight, bias, mean, invstd, eps):
    if weight is not None:
        y = _shape(x, weight) * (x - _shape(x, mean)) * _shape(x, invstd)
    else:
        y = (x - _shape(x, mean)) * _shape(x, invstd)
    if bias is not None:
        y = y + _shape(x, bias)
    return y


def batch_norm_backward_reduce(dy, x, mean, invstd, weight, input_g, weight_g, bias_g):
    sum_dy = dy.sum(_dims(x))
    sum_dy_xmu = (dy * (x - _shape(x, mean))).sum(_dims(x))
    grad_weight = sum_dy_xmu * invstd if weight_g else None
    grad_bias = sum_dy if bias_g else None
    return sum_dy, sum_dy_xmu, grad_weight, grad_bias


def batch_norm_backward_elemt(dy, x, mean, invstd, weight, sum_dy, sum_dy_xmu, count):
    norm = 1.0 / float(count.sum())
    mean_dy = sum_dy * norm
    factor_1 = invstd * invstd * (sum_dy_xmu * norm)
    factor_2 = invstd if weight is None else weight * invstd
    return (dy - _shape(x, mean_dy) - (x - _shape(x, mean)) * _shape(x, factor_1)) * _shape(x, factor_2)


for _f in (batch_norm_stats, batch_norm_gather_stats_with_counts, batch_norm_elemt,
           batch_norm_backward_reduce, batch_norm_backward_elemt):
    setattr(torch, _f.__name__, _f)


def sync_bn_forward(self, input):
    # 1.13's SyncBatchNorm.forward without "expected input tensor to be on GPU".
    self._check_input_dim(input)
    self._check_non_zero_input_channels(input)
    if self.momentum is None:
        exponential_average_factor = 0.0
    else:
        exponential_average_factor = self.momentum
    if self.training and self.track_running_stats:
        self.num_batches_tracked.add_(1)
        if self.momentum is None:
            exponential_average_factor = 1.0 / float(self.num_batches_tracked)
        else:
            exponential_average_factor = self.momentum
    if self.training:
        bn_training = True
    else:
        bn_training = (self.running_mean is None) and (self.running_var is None)
    running_mean = self.running_mean if not self.training or self.track_running_stats else None
    running_var = self.running_var if not self.training or self.track_running_stats else None
    need_sync = bn_training and self.training
    if need_sync:
        process_group = self.process_group or dist.group.WORLD
        world_size = dist.get_world_size(process_group)
        need_sync = world_size > 1
    if not need_sync:
        return nn.functional.batch_norm(input, running_mean, running_var, self.weight, self.bias,
                                        bn_training, exponential_average_factor, self.eps)
    return _functions.SyncBatchNorm.apply(input, self.weight, self.bias, running_mean, running_var,
                                          self.eps, exponential_average_factor, process_group, world_size)


nn.SyncBatchNorm.forward = sync_bn_forward
# The Function asks whether a CUDA graph is being captured, which a
# CPU-only build cannot answer; none is.
torch.cuda.is_current_stream_capturing = lambda: False
# DDP's constructor refuses SyncBatchNorm on CPU modules; the check is all
# that its _passing_sync_batchnorm_handle does in 1.13.
nn.parallel.DistributedDataParallel._passing_sync_batchnorm_handle = lambda self, module: None


# --- the job ------------------------------------------------------------

def make_model():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
        nn.Linear(100, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 3))


def data():
    g = torch.Generator().manual_seed(1)
    xs = [[torch.randn(n, 3, 5, 5, generator=g) * 2 + 0.5 for n in SIZES] for _ in range(STEPS)]
    ys = [[torch.randn(n, 3, generator=g) for n in SIZES] for _ in range(STEPS)]
    ev = torch.randn(5, 3, 5, 5, generator=g)
    return xs, ys, ev


def state(m):
    return {k: v.detach().clone() for k, v in m.state_dict().items()}


def worker(rank, store_file, out_dir):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + store_file, rank=rank, world_size=WORLD)
    xs, ys, ev = data()
    model = nn.SyncBatchNorm.convert_sync_batchnorm(make_model())
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    losses, input_grads, outputs = [], [], []
    for s in range(STEPS):
        x = xs[s][rank].clone().requires_grad_(True)
        opt.zero_grad()
        out = ddp(x)
        loss = nn.functional.mse_loss(out, ys[s][rank])
        loss.backward()
        opt.step()
        losses.append(loss.item())
        outputs.append(out.detach().flatten().tolist())
        input_grads.append(x.grad.flatten().tolist())
    model.eval()
    with torch.no_grad():
        evaluated = model(ev).flatten().tolist()
    final = {k: v.flatten().tolist() for k, v in state(model).items()}
    with open(os.path.join(out_dir, "rank%d.json" % rank), "w") as f:
        json.dump({"losses": losses, "outputs": outputs, "input_grads": input_grads,
                   "eval": evaluated, "final": final}, f)
    dist.destroy_process_group()


def one_process():
    """Plain BatchNorm on the concatenated batch, the loss averaged over the ranks."""
    torch.set_num_threads(1)
    xs, ys, ev = data()
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    res = []
    for s in range(STEPS):
        x = torch.cat(xs[s]).requires_grad_(True)
        opt.zero_grad()
        out = model(x)
        parts = out.split(SIZES)
        losses = [nn.functional.mse_loss(p, y) for p, y in zip(parts, ys[s])]
        sum(losses).div(WORLD).backward()
        opt.step()
        res.append((losses, parts, x.grad.split(SIZES)))
    model.eval()
    with torch.no_grad():
        evaluated = model(ev)
    return res, evaluated, state(model)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        mp.spawn(worker, args=(os.path.join(tmp, "store"), tmp), nprocs=WORLD, join=True)
        ranks = [json.load(open(os.path.join(tmp, "rank%d.json" % r))) for r in range(WORLD)]

    ref, ref_eval, ref_state = one_process()
    close = lambda a, b: torch.allclose(torch.tensor(a, dtype=torch.float64),
                                        torch.as_tensor(b).flatten().double(), atol=1e-5, rtol=1e-5)
    for r in range(WORLD):
        for s in range(STEPS):
            losses, parts, grads = ref[s]
            # a rank's gradient is of its own mean loss; the reference's of the average over ranks
            assert close(ranks[r]["losses"][s], losses[r].item()), (r, s)
            assert close(ranks[r]["outputs"][s], parts[r].detach()), (r, s)
            assert close(ranks[r]["input_grads"][s], grads[r] * WORLD), (r, s)
        assert close(ranks[r]["eval"], ref_eval), r
        for k, v in ref_state.items():
            assert close(ranks[r]["final"][k], v), (r, k)

    torch.manual_seed(0)
    xs, ys, ev = data()
    init = state(make_model())
    golden = {
        "torch": torch.__version__,
        "sizes": SIZES, "steps": STEPS, "lr": LR, "momentum": MOMENTUM,
        "init": {k: {"shape": list(v.shape), "data": v.flatten().tolist()} for k, v in init.items()},
        "inputs": [[{"shape": list(x.shape), "data": x.flatten().tolist()} for x in step] for step in xs],
        "targets": [[{"shape": list(y.shape), "data": y.flatten().tolist()} for y in step] for step in ys],
        "eval_input": {"shape": list(ev.shape), "data": ev.flatten().tolist()},
        "ranks": ranks,
    }
    path = os.path.join(here, "syncbn.json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(golden, f)
    os.replace(tmp, path)
    print("wrote", path)


if __name__ == "__main__":
    main()
