#!/usr/bin/python3
"""The PyTorch script that examples/fashion_mnist does: the same CNN, Adam
with a cosine schedule, evaluation after each epoch and a checkpoint. It is
here to compare lengths (see README.md), written as a PyTorch user would,
with torchvision (Debian: python3-torchvision). torchvision wants the IDX
files unpacked under ROOT/FashionMNIST/raw:

    mkdir -p /tmp/fm/FashionMNIST/raw && cd /tmp/fm/FashionMNIST/raw &&
      for f in /usr/share/datasets/fashion-mnist/*.gz; do gunzip -c $f > $(basename $f .gz); done
    /usr/bin/python3 examples/fashion_mnist/pytorch_equivalent.py /tmp/fm
"""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

epochs = 5
torch.manual_seed(1)
tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.2860,), (0.3530,))])
train_set = datasets.FashionMNIST(sys.argv[1], train=True, transform=tf)
test_set = datasets.FashionMNIST(sys.argv[1], train=False, transform=tf)
train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
test_loader = DataLoader(test_set, batch_size=64)


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
print(net)
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
for epoch in range(epochs):
    net.train()
    for x, y in train_loader:
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    sched.step()
    net.eval()
    correct, total_loss = 0, 0.0
    with torch.no_grad():
        for x, y in test_loader:
            out = net(x)
            total_loss += F.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
    n = len(test_set)
    print(f"epoch {epoch + 1} test loss {total_loss / n:.4f}, accuracy {100 * correct / n:.2f}%")
    torch.save(net.state_dict(), "fashion_mnist.pt")
print("saved the weights to fashion_mnist.pt")
