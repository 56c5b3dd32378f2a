#!/usr/bin/python3
"""The Fashion-MNIST CNN of examples/fashion_mnist in PyTorch, and its export.

Reads GoTorch's checkpoint (a safetensors file: `make train` writes
fashion_mnist.safetensors) into the same model written in PyTorch, checks
its test accuracy, and writes what the Go server (examples/serve) and the
Python server (server.py) can load:

    /usr/bin/python3 examples/serve/export.py fashion_mnist.safetensors --out /tmp/fm

writes /tmp/fm.pt (torch.save(model.state_dict())) and /tmp/fm.torchscript.pt
(torch.jit.script(model).save). Run with Debian's python3-torch (1.13.1);
the safetensors file is parsed here with the standard library, so neither
the safetensors package nor numpy is needed.
"""

import argparse
import gzip
import json
import os
import struct
import sys

import torch
from torch import nn

CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
           "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]
MEAN, STD = 0.2860, 0.3530  # Fashion-MNIST's normalisation, as in training


class Net(nn.Module):
    """examples/fashion_mnist/cnn/Net_model.gox, with the same parameter names."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Dropout(0.25),
            nn.Linear(64 * 7 * 7, 128), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(128, 10),
        )

    def forward(self, x):
        return self.classifier(self.features(x))


_DTYPES = {"F32": torch.float32, "F64": torch.float64, "F16": torch.float16,
           "BF16": torch.bfloat16, "I64": torch.int64, "I32": torch.int32,
           "I16": torch.int16, "I8": torch.int8, "U8": torch.uint8, "BOOL": torch.bool}


def read_safetensors(path):
    """A safetensors file's tensors, by name (little-endian, as written)."""
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8:8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        dtype = _DTYPES[info["dtype"]]
        raw = bytearray(blob[base + start:base + end])
        t = torch.frombuffer(raw, dtype=dtype) if raw else torch.empty(0, dtype=dtype)
        out[name] = t.reshape(info["shape"]).clone()
    return out


def load_model(path):
    """The model in eval mode, from a GoTorch safetensors checkpoint or a
    state dict saved by torch.save."""
    model = Net()
    if path.endswith(".safetensors"):
        state = read_safetensors(path)
    else:
        state = torch.load(path, map_location="cpu")
    model.load_state_dict(state, strict=True)
    return model.eval()


def read_test_set(folder="/usr/share/datasets/fashion-mnist"):
    """Fashion-MNIST's test images (uint8 [N, 28, 28]) and labels."""
    def idx(name):
        with gzip.open(os.path.join(folder, name)) as f:
            return f.read()
    images = idx("t10k-images-idx3-ubyte.gz")
    labels = idx("t10k-labels-idx1-ubyte.gz")
    n = struct.unpack(">I", images[4:8])[0]
    x = torch.frombuffer(bytearray(images[16:]), dtype=torch.uint8).reshape(n, 28, 28)
    y = torch.frombuffer(bytearray(labels[8:]), dtype=torch.uint8).long()
    return x, y


def accuracy(model, x, y):
    with torch.no_grad():
        inp = ((x.float() / 255 - MEAN) / STD).unsqueeze(1)
        pred = torch.cat([model(inp[i:i + 1000]).argmax(1) for i in range(0, len(inp), 1000)])
    return (pred == y).float().mean().item()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("weights", help="GoTorch checkpoint (.safetensors) or a torch.save state dict (.pt)")
    ap.add_argument("--out", help="write OUT.pt (state dict) and OUT.torchscript.pt (TorchScript)")
    ap.add_argument("--no-eval", action="store_true", help="skip the test-set accuracy")
    args = ap.parse_args()
    model = load_model(args.weights)
    if not args.no_eval:
        x, y = read_test_set()
        print(f"{args.weights}: test accuracy {100 * accuracy(model, x, y):.2f}% on {len(y)} images")
    if args.out:
        torch.save(model.state_dict(), args.out + ".pt")
        torch.jit.script(model).save(args.out + ".torchscript.pt")
        print(f"wrote {args.out}.pt and {args.out}.torchscript.pt")


if __name__ == "__main__":
    sys.exit(main())
