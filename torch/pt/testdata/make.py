#!/usr/bin/python3
"""Writes the golden files of package torch/pt: small torch.save files of
every kind the reader handles, in both formats, and expected.json with the
values the Go tests compare against. Run from anywhere with PyTorch 1.13.1:

    /usr/bin/python3 torch/pt/testdata/make.py

and with Debian 13's PyTorch 2.6 (inside the Debian 13 root), into a
folder of its own, which adds dtypes_new.pt with the dtypes 1.13.1 lacks:

    scripts/debian13.sh run python3 torch/pt/testdata/make.py --out torch/pt/testdata/torch2.6
"""
import argparse
import json
import math
import os
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser()
parser.add_argument("--out", default=HERE, help="the folder to write to (default: beside this script)")
OUT = parser.parse_args().out
os.makedirs(OUT, exist_ok=True)
torch.manual_seed(23)


def save(obj, name, legacy=False):
    path = os.path.join(OUT, name)
    torch.save(obj, path, _use_new_zipfile_serialization=not legacy)
    return path


def num(x):
    """A JSON-safe number: NaN and the infinities as strings."""
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return str(x)
    return x


def describe(t):
    """dtype, shape and every element (complex as [re, im]), row-major."""
    flat = t.detach().reshape(-1)
    if t.is_complex():
        vals = [[num(float(z.real)), num(float(z.imag))] for z in flat.tolist()]
    elif t.dtype == torch.bool:
        vals = [int(v) for v in flat.tolist()]
    elif t.is_floating_point():
        vals = [num(float(v)) for v in flat.double().tolist()]
    else:
        vals = [int(v) for v in flat.tolist()]
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "values": vals,
            "requires_grad": t.requires_grad}


special = [0.0, -0.0, 1.0, -2.5, float("inf"), float("-inf"), float("nan"), 1e-3, 65504.0, 3.140625]
dtypes = {
    "float16": torch.tensor(special[:6] + [6e-8, 1e-3, 65504.0, 3.140625], dtype=torch.float16).reshape(2, 5),
    "bfloat16": torch.tensor(special[:6] + [1e-40, 1e30, -7.0, 3.140625], dtype=torch.bfloat16).reshape(2, 5),
    "float32": torch.tensor(special[:6] + [1e-45, 3.4e38, -1.5e-7, math.pi], dtype=torch.float32).reshape(2, 5),
    "float64": torch.tensor(special[:6] + [5e-324, 1.7e308, -1e-300, math.e], dtype=torch.float64).reshape(2, 5),
    "int8": torch.tensor([-128, -1, 0, 1, 127, 5], dtype=torch.int8).reshape(3, 2),
    "int16": torch.tensor([-32768, -1, 0, 1, 32767, 300], dtype=torch.int16).reshape(3, 2),
    "int32": torch.tensor([-2**31, -1, 0, 1, 2**31 - 1, 70000], dtype=torch.int32).reshape(3, 2),
    "int64": torch.tensor([-2**63, -1, 0, 1, 2**63 - 1, 2**40], dtype=torch.int64).reshape(3, 2),
    "uint8": torch.tensor([0, 1, 127, 128, 255, 42], dtype=torch.uint8).reshape(3, 2),
    "bool": torch.tensor([True, False, True, True, False, False]).reshape(2, 3),
    "complex64": torch.tensor([1 + 2j, -0.5j, 3.25, float("inf") + 1j], dtype=torch.complex64).reshape(2, 2),
    "complex128": torch.tensor([1e-300 + 2j, -0.5j, math.pi, -1 - 1j], dtype=torch.complex128).reshape(2, 2),
    "scalar": torch.tensor(7.5),
    "empty": torch.zeros(0, 3),
}

# The dtypes of PyTorch 2.x that 1.13.1 lacks (saved with
# _rebuild_tensor_v3 and an untyped storage): unsigned integers (2.3),
# complex32 and float8 (2.1), with their extremes.
new_dtypes = {}
if hasattr(torch, "uint16"):
    new_dtypes.update({
        "uint16": torch.tensor([0, 1, 255, 256, 65535, 4242], dtype=torch.uint16).reshape(3, 2),
        "uint32": torch.tensor([0, 1, 65536, 2**31, 2**32 - 1, 70000], dtype=torch.uint32).reshape(3, 2),
        "uint64": torch.tensor([0, 1, 2**32, 2**63 - 1, 2**40, 7], dtype=torch.uint64).reshape(3, 2),
    })
    # complex32 (chalf) has no storage class: 2.x saves it with _rebuild_tensor_v3.
    new_dtypes["complex32"] = torch.tensor([1 + 2j, -0.5j, 3.25, -1 - 1j], dtype=torch.complex64).to(torch.complex32).reshape(2, 2)
if hasattr(torch, "float8_e4m3fn"):
    f8 = [0.0, -0.0, 1.0, -2.5, 0.125, 448.0, -448.0, float("nan")]
    new_dtypes.update({
        "float8_e4m3fn": torch.tensor(f8, dtype=torch.float8_e4m3fn).reshape(2, 4),
        "float8_e5m2": torch.tensor(f8[:5] + [57344.0, float("inf"), float("-inf")], dtype=torch.float8_e5m2).reshape(2, 4),
        "float8_e4m3fnuz": torch.tensor([0.0, 1.0, -2.5, 0.125, 240.0, -240.0, 3.0, float("nan")], dtype=torch.float8_e4m3fnuz).reshape(2, 4),
        "float8_e5m2fnuz": torch.tensor([0.0, 1.0, -2.5, 0.125, 57344.0, -57344.0, 3.0, float("nan")], dtype=torch.float8_e5m2fnuz).reshape(2, 4),
    })

base = torch.arange(24, dtype=torch.float32)
grid = base.view(4, 6)
views = {
    "base": base,
    "row": grid[1],                 # offset 6
    "col": grid[:, 2],              # offset 2, stride 6
    "t": grid.t(),                  # strides (1, 6)
    "slice": base[5:11],            # offset 5
    "block": grid[1:3, 2:5],        # offset 8, strides (6, 1)
    "every_other": base[1::2],      # stride 2
    "expanded": torch.arange(3.0).view(3, 1).expand(3, 4),  # stride 0
}

tied_w = torch.randn(3, 4)
tied = {"embed.weight": tied_w, "head.weight": tied_w}


class SmallCNN(nn.Module):
    """The Fashion-MNIST CNN of examples/fashion_mnist (conv-bn-relu-pool
    twice, a classifier with dropout), with fewer channels so that its
    state dict takes KBs."""

    def __init__(self, c1=4, c2=8, hidden=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, c1, 3, padding=1), nn.BatchNorm2d(c1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(c1, c2, 3, padding=1), nn.BatchNorm2d(c2), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Sequential(
            nn.Flatten(), nn.Dropout(0.25), nn.Linear(c2 * 7 * 7, hidden), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(hidden, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def randomize_bn(model):
    """Non-trivial running statistics, so that eval mode uses them."""
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
            m.num_batches_tracked.fill_(5)


cnn = SmallCNN()
randomize_bn(cnn)
cnn.eval()
x = torch.randn(2, 1, 28, 28)
with torch.no_grad():
    y = cnn(x)

mlp = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
randomize_bn(mlp)
mx = torch.randn(4, 6)
# One SGD step, so that the checkpoint has an optimizer state, and the
# reference output of the model as the checkpoint holds it.
opt = torch.optim.SGD(mlp.parameters(), lr=0.1, momentum=0.9)
mlp(mx).sum().backward()
opt.step()
mlp.eval()
with torch.no_grad():
    my = mlp(mx)
checkpoint = {
    "model": mlp.state_dict(),
    "optimizer": opt.state_dict(),
    "epoch": 3, "loss": 0.25, "name": "run-1", "tags": ["a", "b"],
    "big": 2**70, "negative": -70000, "flag": True, "nothing": None,
    "pair": (1, 2.5, "x"), "raw": b"\x00\xffok", "dtype": torch.float16,
    "device": torch.device("cpu"), "size": torch.Size([2, 3]), "ids": {3, 1},
    "z": 1 + 2j, "nested": {"a": {"b": {"c": [1, [2, [3]]]}}}, 7: "int key",
}

expected = {}
for legacy in (False, True):
    suffix = "_legacy" if legacy else ""
    save(dtypes, f"dtypes{suffix}.pt", legacy)
    save(views, f"views{suffix}.pt", legacy)
    save({"weight": torch.tensor([1.5, -2.0])}, f"one_key{suffix}.pt", legacy)
    save(tied, f"tied{suffix}.pt", legacy)
    save(cnn.state_dict(), f"cnn{suffix}.pt", legacy)
    save(checkpoint, f"checkpoint{suffix}.pt", legacy)
if new_dtypes:
    save(new_dtypes, "dtypes_new.pt")
    save(new_dtypes, "dtypes_new_legacy.pt", legacy=True)
    expected["dtypes_new"] = {k: describe(v) for k, v in new_dtypes.items()}
save(nn.Parameter(torch.tensor([[1.0, 2.0]])), "parameter.pt")
save({"input": x, "output": y}, "cnn_io.pt")
save({"input": mx, "output": my}, "mlp_io.pt")
save({"opt": argparse.Namespace(lr=0.1)}, "not_allowed.pt")
torch.jit.save(torch.jit.script(nn.Linear(2, 1)), os.path.join(OUT, "torchscript.pt"))

expected["dtypes"] = {k: describe(v) for k, v in dtypes.items()}
expected["views"] = {k: describe(v) for k, v in views.items()}
expected["tied"] = {k: describe(v) for k, v in tied.items()}
expected["checkpoint_model"] = {k: describe(v) for k, v in mlp.state_dict().items()}
expected["checkpoint_momentum"] = {str(k): describe(v["momentum_buffer"]) for k, v in opt.state_dict()["state"].items()}
# The names and shapes of the full-size model (examples/fashion_mnist's
# Net, 32 and 64 channels, 128 hidden), whose weights are too large to commit.
expected["fashion_mnist_shapes"] = {k: list(v.shape) for k, v in SmallCNN(32, 64, 128).state_dict().items()}
expected["parameter"] = describe(nn.Parameter(torch.tensor([[1.0, 2.0]])))
expected["torch_version"] = torch.__version__
with open(os.path.join(OUT, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1, sort_keys=True)
    f.write("\n")
