#!/usr/bin/python3
"""PyTorch's DDP step that bench/cmd/ddpstep times in Go: the Fashion-MNIST
CNN, a global batch of 64 random images split across the ranks, Gloo,
Adam. Run under torchrun (torch 1.13 with Python 3.11 needs
--redirects 2 --tee 2):

    /usr/bin/python3 -m torch.distributed.run --standalone --nproc_per_node 2 \
        --redirects 2 --tee 2 bench/cmd/ddpstep/ddp_step.py --steps 60
"""
import argparse
import os
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
a = p.parse_args()
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


net = Net()
ddp = DDP(net)
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
local = a.batch // world
x = torch.randn(local, 1, 28, 28)
y = torch.randint(10, (local,))
for i in range(a.warmup + a.steps):
    if i == a.warmup:
        dist.barrier()
        start = time.perf_counter()
    opt.zero_grad()
    loss = F.cross_entropy(ddp(x), y)
    loss.backward()
    opt.step()
dist.barrier()
el = time.perf_counter() - start
if rank == 0:
    print(f"pytorch ddp: world {world}, {threads} threads/rank, batch {local}/rank: "
          f"{a.steps / el:.2f} steps/s ({el * 1000 / a.steps:.1f} ms/step)")
dist.destroy_process_group()
