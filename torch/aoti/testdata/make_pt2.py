"""Compiles a small model with AOTInductor into a .pt2 package and writes
PyTorch's outputs beside it, for torch/aoti's test. Needs PyTorch >= 2.6
with a C++ compiler (Debian 13's python3-torch, g++ and python3-setuptools);
the Go test runs it inside the Debian 13 root:

    python3 make_pt2.py OUTDIR

writes OUTDIR/model.pt2 (static shapes), OUTDIR/dynamic.pt2 (the same
model exported with a dynamic batch dimension, 1 to 64, shared by both
inputs), both with GoTorch's input spec in their metadata (gotorch_aoti.py),
and OUTDIR/expected.json. Exits with status 3 when this PyTorch cannot
compile AOTInductor packages.
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gotorch_aoti  # noqa: E402

if not hasattr(torch._inductor, "aoti_compile_and_package"):
    print(f"PyTorch {torch.__version__} has no torch._inductor.aoti_compile_and_package", file=sys.stderr)
    sys.exit(3)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)
        self.register_buffer("scale", torch.tensor([1.0, -2.0, 0.5]))

    def forward(self, x, y):
        h = torch.relu(self.lin(x)) * self.scale
        return h + y, h.sum(dim=1)


def tl(t):
    return t.detach().reshape(-1).tolist()


def main():
    out = sys.argv[1]
    torch.manual_seed(0)
    net = Net().eval()
    x = torch.randn(2, 4)
    y = torch.randn(2, 3)
    with torch.no_grad():
        ep = torch.export.export(net, (x, y))
        path = gotorch_aoti.compile_and_package(ep, os.path.join(out, "model.pt2"))
        a, b = net(x, y)
        batch = torch.export.Dim("batch", min=1, max=64)
        dep = torch.export.export(net, (x, y), dynamic_shapes={"x": {0: batch}, "y": {0: batch}})
        dyn = gotorch_aoti.compile_and_package(dep, os.path.join(out, "dynamic.pt2"))
        batches = {}
        for n in (1, 3, 64):
            bx, by = torch.randn(n, 4), torch.randn(n, 3)
            ba, bb = net(bx, by)
            batches[str(n)] = {"x": tl(bx), "y": tl(by), "out": [tl(ba), tl(bb)]}
    exp = {
        "x": tl(x), "x_shape": list(x.shape),
        "y": tl(y), "y_shape": list(y.shape),
        "out": [tl(a), tl(b)], "out_shapes": [list(a.shape), list(b.shape)],
        "package": os.path.basename(path),
        "dynamic": os.path.basename(dyn),
        "batches": batches,
        "spec": gotorch_aoti.input_spec(ep),
        "dynamic_spec": gotorch_aoti.input_spec(dep),
    }
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(exp, f, indent=1)


if __name__ == "__main__":
    main()
