#!/usr/bin/python3
"""PyTorch's DDP step that bench/cmd/ddpstep times in Go: the Fashion-MNIST
CNN (Adam) or the MLP 784-512-512-10 (SGD), a global batch of 64 random
examples split across the ranks, Gloo, torch.nn.parallel's
DistributedDataParallel with bucket_cap_mb. The ddp part of go run ./bench
launches it with torchrun's variables; by hand (torch 1.13 with Python 3.11
needs --redirects 2 --tee 2):

    /usr/bin/python3 -m torch.distributed.run --standalone --nproc_per_node 2 \
        --redirects 2 --tee 2 bench/cmd/ddpstep/ddp_step.py --steps 60

--plain trains alone, without DDP or a process group. --comm-hook
registers a comm hook that does what DDP's built-in all-reduce does
(divide the bucket by the world size, all-reduce it) and times each
bucket's all-reduce from its start to its end, as the Go side's C++ hook
does; the all-reduce time per step is reported only then, and the step
time of such a run is not PyTorch's default DDP step. Rank 0 prints a
line, or with --json one JSON object (the fields of ddpstep's Result).
"""
import argparse
import json
import os
import threading
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=60)
p.add_argument("--warmup", type=int, default=10)
p.add_argument("--batch", type=int, default=64)
p.add_argument("--threads", type=int, default=0)
p.add_argument("--model", default="cnn", choices=["cnn", "mlp"])
p.add_argument("--bucket-mb", type=float, default=25)
p.add_argument("--plain", action="store_true")
p.add_argument("--comm-hook", action="store_true")
p.add_argument("--json", action="store_true")
a = p.parse_args()
world, rank = 1, 0
if not a.plain:
    dist.init_process_group("gloo")
    world, rank = dist.get_world_size(), dist.get_rank()
threads = a.threads or max(1, os.cpu_count() // world)
torch.set_num_threads(threads)
torch.manual_seed(1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 7 * 7, 128), nn.ReLU(),
            nn.Dropout(0.5), nn.Linear(128, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


local = a.batch // world
if a.model == "cnn":
    net = Net()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = torch.randn(local, 1, 28, 28)
else:
    net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    x = torch.randn(local, 784)
y = torch.randint(10, (local,))

comm = [0.0]
lock = threading.Lock()


def timed_allreduce(state, bucket):
    t0 = time.perf_counter()
    buf = bucket.buffer().div_(world)
    fut = dist.all_reduce(buf, async_op=True).get_future()

    def done(f):
        with lock:
            comm[0] += time.perf_counter() - t0
        return f.value()[0]

    return fut.then(done)


model = net
if not a.plain:
    model = DDP(net, bucket_cap_mb=a.bucket_mb)
    if a.comm_hook:
        model.register_comm_hook(None, timed_allreduce)


def barrier():
    if not a.plain:
        dist.barrier()


for i in range(a.warmup + a.steps):
    if i == a.warmup:
        barrier()
        start = time.perf_counter()
        with lock:
            comm0 = comm[0]
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
barrier()
el = time.perf_counter() - start
comm_ms = 0.0
if a.comm_hook and not a.plain:
    t = torch.tensor([(comm[0] - comm0) * 1000 / a.steps], dtype=torch.float64)
    dist.all_reduce(t)
    comm_ms = t.item() / world
if rank == 0:
    step_ms = el * 1000 / a.steps
    if a.json:
        print(json.dumps({"impl": "python", "model": a.model, "world": world, "threads": threads, "batch": local,
                          "buckets": 0, "steps": a.steps, "step_ms": step_ms, "comm_ms": comm_ms,
                          "bucket_mb": a.bucket_mb}), flush=True)
    else:
        print(f"pytorch ddp {a.model}: world {world}, {threads} threads/rank, batch {local}/rank: "
              f"{a.steps / el:.2f} steps/s ({step_ms:.1f} ms/step, all-reduce {comm_ms:.1f} ms/step)")
if not a.plain:
    dist.destroy_process_group()
