#!/usr/bin/python3
"""The Python worker of the benchmark harness (go run ./bench): the
workloads in PyTorch, run with Debian's python3-torch (/usr/bin/python3),
which uses the same libtorch as GoTorch. It speaks the protocol described
in bench/internal/worker/worker.go:

    work.py serve              commands "JOB ITERS WARMUP REPS" on stdin
    work.py startup            one 4x4 add, then the wall clock
    work.py rss STEPS EVERY    MLP steps with RSS samples

The models part's jobs (ResNet-18, GPT-2 generation, BERT) are in
modeljobs.py beside this file.

The thread count comes from BENCH_THREADS (default 2), the device from
BENCH_DEVICE: cpu (the default) or cuda, for the GPU jobs (gadd4, gmm4,
gmlp, gcnn64, gcnn1024, gtrans) on cuda:0, whose answers carry
torch.cuda.max_memory_allocated() since the job began (peak_bytes).

BENCH_COUNT_ALLOC=1, with BENCH_COUNT_ALLOC_LIB naming the harness's
build of bench/cxx/countalloc.cc, counts live CPU tensor memory with the
same code as the other workers: the answers then carry the peak bytes of
tensor storage since the command was read (peak_bytes) and the process's
peak RSS (hwm_bytes).
"""
import json
import os
import sys
import time


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def threads():
    try:
        n = int(os.environ.get("BENCH_THREADS", "2"))
    except ValueError:
        n = 2
    return n if n > 0 else 2


if len(sys.argv) > 1 and sys.argv[1] == "startup":
    import torch

    torch.set_num_threads(threads())
    torch.manual_seed(1)
    x = torch.ones(4, 4)
    y = torch.add(x, x)
    emit({"first_op_unix_ns": time.time_ns()})
    sys.exit(0)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import modeljobs  # noqa: E402  (beside this file)


COUNT = None  # the counting allocator's library (ctypes), when installed


def install_count():
    global COUNT
    import ctypes

    lib = ctypes.CDLL(os.environ["BENCH_COUNT_ALLOC_LIB"], mode=ctypes.RTLD_GLOBAL)
    lib.bench_count_peak.restype = ctypes.c_int64
    lib.bench_count_live.restype = ctypes.c_int64
    lib.bench_count_install()
    COUNT = lib


def hwm_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return -1


def mlp():
    return nn.Sequential(
        nn.Linear(784, 512), nn.ReLU(),
        nn.Linear(512, 512), nn.ReLU(),
        nn.Linear(512, 10))


def cnn():
    """The model of examples/fashion_mnist_go (and its pytorch_twin.py)."""
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 7 * 7, 128), nn.ReLU(),
        nn.Dropout(0.5), nn.Linear(128, 10))


def on_cuda():
    return os.environ.get("BENCH_DEVICE", "") == "cuda"


def check_device():
    """None, or why the device BENCH_DEVICE names is not there."""
    d = os.environ.get("BENCH_DEVICE", "")
    if d in ("", "cpu"):
        return None
    if d != "cuda":
        return 'BENCH_DEVICE="%s": want cpu or cuda' % d
    if not torch.cuda.is_available():
        return "-device cuda: no CUDA device (torch.cuda.is_available() is False)"
    return None


def device():
    return torch.device("cuda", 0) if on_cuda() else torch.device("cpu")


def sync():
    if on_cuda():
        torch.cuda.synchronize()


def gpu_per_op(job, iters, warmup, reps):
    """gadd4, gmm4: a repetition is ITERS 4x4 ops between two synchronizations."""
    x = torch.randn(4, 4, device=device())
    y = torch.randn(4, 4, device=device())
    op = torch.mm if job == "gmm4" else torch.add
    ns = []
    for r in range(warmup + reps):
        sync()
        t0 = time.perf_counter_ns()
        for _ in range(iters):
            op(x, y)
        sync()
        t = time.perf_counter_ns() - t0
        if r >= warmup:
            ns.append(t)
    return ns


def gpu_train(job, iters, warmup, reps):
    """gmlp, gcnn64, gcnn1024 (Adam), gtrans (AdamW, MSE against a random
    target): every step ends with loss.item()."""
    dev = device()
    loss_fn = F.cross_entropy
    if job == "gmlp":
        net, x, y = mlp(), torch.randn(1024, 784, device=dev), torch.randint(10, (1024,), device=dev)
    elif job in ("gcnn64", "gcnn1024"):
        n = 64 if job == "gcnn64" else 1024
        net, x, y = cnn(), torch.randn(n, 1, 28, 28, device=dev), torch.randint(10, (n,), device=dev)
    else:
        net = nn.TransformerEncoder(nn.TransformerEncoderLayer(512, 8, 2048), 6)
        x, y = torch.randn(256, 32, 512, device=dev), torch.randn(256, 32, 512, device=dev)
        loss_fn = F.mse_loss
    net.to(dev)
    net.train()
    if job == "gtrans":
        opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
    else:
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    ns = []
    for r in range(warmup + reps):
        sync()
        t0 = time.perf_counter_ns()
        for _ in range(iters):
            p0 = time.perf_counter_ns()
            loss = loss_fn(net(x), y)
            p1 = time.perf_counter_ns()
            opt.zero_grad(set_to_none=True)
            p2 = time.perf_counter_ns()
            loss.backward()
            p3 = time.perf_counter_ns()
            opt.step()
            loss.item()
            if r >= warmup and not on_cuda():
                add_phases(p0, p1, p2, p3, time.perf_counter_ns())
        t = time.perf_counter_ns() - t0
        if r >= warmup:
            ns.append(t)
    return ns


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def timed_ops(op, x, y, iters, warmup, reps):
    ns = []
    for r in range(warmup + reps):
        t0 = time.perf_counter_ns()
        for _ in range(iters):
            op(x, y)
        t = time.perf_counter_ns() - t0
        if r >= warmup:
            ns.append(t)
    return ns


PHASES = None  # the training phases of the current command (phases_ns)


def add_phases(p0, p1, p2, p3, p4):
    """Adds one timed step's phases: forward with the loss, zero_grad,
    backward, optimizer step, as the C++ and Go workers time them."""
    global PHASES
    if PHASES is None:
        PHASES = [0, 0, 0, 0]
    for i, d in enumerate((p1 - p0, p2 - p1, p3 - p2, p4 - p3)):
        PHASES[i] += d


def timed_train(net, opt, x, y, iters, warmup, reps):
    ns = []
    for r in range(warmup + reps):
        t0 = time.perf_counter_ns()
        for _ in range(iters):
            p0 = time.perf_counter_ns()
            loss = F.cross_entropy(net(x), y)
            p1 = time.perf_counter_ns()
            opt.zero_grad(set_to_none=True)
            p2 = time.perf_counter_ns()
            loss.backward()
            p3 = time.perf_counter_ns()
            opt.step()
            if r >= warmup:
                add_phases(p0, p1, p2, p3, time.perf_counter_ns())
        t = time.perf_counter_ns() - t0
        if r >= warmup:
            ns.append(t)
    return ns


def run(job, iters, warmup, reps):
    if job in modeljobs.JOBS:  # ResNet-18, GPT-2, BERT (bench/py/modeljobs.py)
        return modeljobs.run(job, iters, warmup, reps, device(), sync, add_phases)
    if job in ("gadd4", "gmm4"):
        return gpu_per_op(job, iters, warmup, reps)
    if job in ("gmlp", "gcnn64", "gcnn1024", "gtrans"):
        return gpu_train(job, iters, warmup, reps)
    if job == "trans":  # the transformer step on the CPU: the GPU job's code
        return gpu_train("gtrans", iters, warmup, reps)
    if job == "mlp":
        net = mlp()
        opt = torch.optim.SGD(net.parameters(), lr=0.01)
        return timed_train(net, opt, torch.randn(64, 784), torch.randint(10, (64,)), iters, warmup, reps)
    if job == "cnn":
        net = cnn()
        net.train()
        opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        return timed_train(net, opt, torch.randn(64, 1, 28, 28), torch.randint(10, (64,)), iters, warmup, reps)
    grad = job.endswith("g")
    name = job[:-1] if grad else job
    sizes = {"add4": 4, "mm4": 4, "add256": 256, "mm256": 256}
    if name not in sizes:
        return None
    n = sizes[name]
    x = torch.randn(n, n, requires_grad=grad)
    y = torch.randn(n, n, requires_grad=grad)
    op = torch.mm if name.startswith("mm") else torch.add
    return timed_ops(op, x, y, iters, warmup, reps)


def serve():
    emit({"impl": "python", "version": torch.__version__, "threads": torch.get_num_threads()})
    for line in sys.stdin:
        f = line.split()
        if not f:
            continue
        try:
            job, iters, warmup, reps = f[0], int(f[1]), int(f[2]), int(f[3])
        except (IndexError, ValueError):
            emit({"error": "bad command " + line.strip()})
            continue
        try:
            if on_cuda():
                torch.cuda.reset_peak_memory_stats(0)
            if COUNT is not None:
                COUNT.bench_count_reset_peak()
            global PHASES
            PHASES = None
            ns = run(job, iters, warmup, reps)
        except Exception as e:  # report, keep serving
            emit({"job": job, "error": repr(e)})
            continue
        if ns is None:
            emit({"job": job, "error": "unknown job " + job})
        elif on_cuda():
            emit({"job": job, "iters": iters, "ns": ns, "peak_bytes": torch.cuda.max_memory_allocated(0)})
        else:
            out = {"job": job, "iters": iters, "ns": ns}
            if COUNT is not None:
                out.update(peak_bytes=COUNT.bench_count_peak(), hwm_bytes=hwm_bytes())
            if PHASES is not None:
                out["phases_ns"] = PHASES
            emit(out)


def rss(steps, every):
    net = mlp()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    x, y = torch.randn(64, 784), torch.randint(10, (64,))
    t0 = time.perf_counter_ns()
    for i in range(1, steps + 1):
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        del loss
        if i % every == 0:
            emit({"step": i, "rss": rss_bytes()})
    emit({"done": True, "total_ns": time.perf_counter_ns() - t0})


def main():
    why = check_device()
    if why:
        emit({"error": why})
        sys.exit(1)
    torch.set_num_threads(threads())
    torch.manual_seed(1)
    if os.environ.get("BENCH_COUNT_ALLOC"):
        install_count()
    mode = sys.argv[1] if len(sys.argv) > 1 else "serve"
    if mode == "serve":
        serve()
    elif mode == "rss":
        steps = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
        every = int(sys.argv[3]) if len(sys.argv) > 3 else 500
        rss(steps, every)
    else:
        sys.stderr.write("usage: work.py serve | startup | rss STEPS EVERY\n")
        sys.exit(2)


if __name__ == "__main__":
    main()
