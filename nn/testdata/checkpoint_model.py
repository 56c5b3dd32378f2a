#!/usr/bin/python3
"""PyTorch side of nn's checkpoint interop tests.

A small model, Linear(4, 3) then BatchNorm1d(3), with fixed weights and
running statistics from a few training steps, saved as safetensors with the
hand-written writer of torch/safetensors/testdata/safetensors_py.py (Debian
has no python3-safetensors).

Run with the reference PyTorch (1.13), from the repository root:

    /usr/bin/python3 nn/testdata/checkpoint_model.py make
        writes checkpoint_model.safetensors and checkpoint_model.json beside
        this script: the state dict, an input and the model's eval output
    /usr/bin/python3 nn/testdata/checkpoint_model.py check FILE JSON
        loads FILE (written by Go) into the model with strict
        load_state_dict and checks it against the state dict in JSON

The Go tests read the committed files; TestCheckpointPythonReadsGo runs
"check" when /usr/bin/python3 has torch, and skips that part otherwise.
"""

import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the output goes: here, or $GOLDEN_OUT (docs/testing.md: the
# cross-CPU measurement writes the files elsewhere and compares).
OUT = os.environ.get("GOLDEN_OUT") or HERE
sys.path.insert(0, os.path.join(HERE, "..", "..", "torch", "safetensors", "testdata"))
import safetensors_py  # noqa: E402


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
        self.bn = torch.nn.BatchNorm1d(3)

    def forward(self, x):
        return self.bn(self.fc(x))


def build():
    torch.manual_seed(0)
    net = Net()
    with torch.no_grad():
        net.bn.weight.copy_(torch.tensor([0.5, 1.5, -1.0]))
        net.bn.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
    net.train()
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for _ in range(3):  # running stats and num_batches_tracked = 3
            net(torch.randn(8, 4, generator=g))
    net.eval()
    return net


def values(t):
    return t.double().reshape(-1).tolist() if t.dtype.is_floating_point else t.reshape(-1).tolist()


def state_json(sd):
    return {k: {"dtype": str(v.dtype), "shape": list(v.shape), "values": values(v)}
            for k, v in sorted(sd.items())}


def make():
    net = build()
    sd = net.state_dict()
    safetensors_py.save(os.path.join(OUT, "checkpoint_model.safetensors"), dict(sd), {"format": "pt"})
    x = torch.arange(8, dtype=torch.float32).reshape(2, 4) / 4 - 1
    with torch.no_grad():
        y = net(x)
    out = {"state": state_json(sd), "input": values(x), "input_shape": list(x.shape),
           "output": values(y), "output_shape": list(y.shape), "eps": net.bn.eps}
    with open(os.path.join(OUT, "checkpoint_model.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


def check(path, expected_path):
    with open(expected_path) as f:
        want = json.load(f)
    tensors, metadata = safetensors_py.load(path)
    assert metadata == {"format": "pt"}, metadata
    net = Net()
    net.load_state_dict(tensors, strict=True)
    got = state_json(net.state_dict())
    for k in want:
        assert got[k]["dtype"] == want[k]["dtype"], (k, got[k], want[k])
        assert got[k]["shape"] == want[k]["shape"], (k, got[k], want[k])
        assert got[k]["values"] == want[k]["values"], (k, got[k], want[k])
    assert sorted(got) == sorted(want), (sorted(got), sorted(want))
    print(f"ok: PyTorch loaded {len(got)} tensors with strict load_state_dict")


if __name__ == "__main__":
    if sys.argv[1:] == ["make"]:
        make()
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
