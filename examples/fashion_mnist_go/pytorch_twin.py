#!/usr/bin/python3
"""The PyTorch twin of examples/fashion_mnist_go: the same CNN, optimizer,
batch size and data, for timing side by side. Run with Debian's PyTorch:

    /usr/bin/python3 examples/fashion_mnist_go/pytorch_twin.py --epochs 1

It reads the IDX files of Debian's dataset-fashion-mnist package.
"""
import argparse
import gzip
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DIR = "/usr/share/datasets/fashion-mnist"


def idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load(split):
    x = idx(f"{DIR}/{split}-images-idx3-ubyte.gz").astype(np.float32) / 255.0
    y = idx(f"{DIR}/{split}-labels-idx1-ubyte.gz").astype(np.int64)
    x = (x - 0.2860) / 0.3530
    return torch.from_numpy(x).unsqueeze(1), torch.from_numpy(y)


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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--cosine", action="store_true", help="cosine-anneal the learning rate over the epochs")
    a = p.parse_args()
    torch.manual_seed(1)
    torch.set_num_threads(a.threads)
    xtr, ytr = load("train")
    xte, yte = load("t10k")
    net = Net()
    opt = torch.optim.Adam(net.parameters(), lr=a.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, a.epochs) if a.cosine else None
    for epoch in range(1, a.epochs + 1):
        net.train()
        start = time.time()
        perm = torch.randperm(len(xtr))
        for i in range(0, len(xtr), 64):
            b = perm[i:i + 64]
            loss = F.cross_entropy(net(xtr[b]), ytr[b])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        train_s = time.time() - start
        if sched:
            sched.step()
        net.eval()
        with torch.no_grad():
            correct = sum((net(xte[i:i + 500]).argmax(1) == yte[i:i + 500]).sum().item()
                          for i in range(0, len(xte), 500))
        print(f"epoch {epoch}: train {train_s:.1f} s, test accuracy {100 * correct / len(xte):.2f}%", flush=True)


if __name__ == "__main__":
    main()
