"""Compiles a small model with AOTInductor into a .pt2 package and writes
PyTorch's outputs beside it, for torch/aoti's test. Needs PyTorch >= 2.6
with a C++ compiler (Debian 13's python3-torch, g++ and python3-setuptools);
the Go test runs it inside the Debian 13 root:

    python3 make_pt2.py OUTDIR

writes OUTDIR/model.pt2 and OUTDIR/expected.json. Exits with status 3 when
this PyTorch cannot compile AOTInductor packages.
"""
import json
import os
import sys

import torch

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
        path = torch._inductor.aoti_compile_and_package(ep, package_path=os.path.join(out, "model.pt2"))
        a, b = net(x, y)
    exp = {
        "x": tl(x), "x_shape": list(x.shape),
        "y": tl(y), "y_shape": list(y.shape),
        "out": [tl(a), tl(b)], "out_shapes": [list(a.shape), list(b.shape)],
        "package": os.path.basename(path),
    }
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(exp, f, indent=1)


if __name__ == "__main__":
    main()
