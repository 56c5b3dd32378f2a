#!/usr/bin/python3
"""Writes the golden data that package nn/init's tests compare against.

Run it with the reference PyTorch (1.13) from the repository root:

    /usr/bin/python3 nn/init/testdata/init.py

For every case it seeds the default generator, runs the torch.nn.init
function on a fresh float32 tensor and stores the values; GoTorch's
torch.ManualSeed (or a torch.Generator with the same seed) drives the same
libtorch generator, so the Go side must get the same numbers. It also stores
calculate_gain's values and the fans of a few shapes.
"""

import json
import math
import os

import torch
import torch.nn.init as init

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the output goes: here, or $GOLDEN_OUT (docs/testing.md: the
# cross-CPU measurement writes the files elsewhere and compares).
OUT = os.environ.get("GOLDEN_OUT") or HERE

CASES = [
    # name, shape, seed, function
    ("uniform", (3, 4), 1, lambda t: init.uniform_(t, a=-0.5, b=2.0)),
    ("uniform_default", (5,), 2, lambda t: init.uniform_(t)),
    ("normal", (3, 4), 3, lambda t: init.normal_(t, mean=1.0, std=0.5)),
    ("normal_default", (2, 3), 4, lambda t: init.normal_(t)),
    ("trunc_normal", (4, 5), 5, lambda t: init.trunc_normal_(t, mean=0.5, std=2.0, a=-1.0, b=3.0)),
    ("trunc_normal_default", (50,), 6, lambda t: init.trunc_normal_(t)),
    ("constant", (2, 3), 0, lambda t: init.constant_(t, 0.3)),
    ("ones", (2, 2), 0, lambda t: init.ones_(t)),
    ("zeros", (3,), 0, lambda t: init.zeros_(t)),
    ("eye", (3, 5), 0, lambda t: init.eye_(t)),
    ("dirac", (4, 2, 3), 0, lambda t: init.dirac_(t, groups=2)),
    ("dirac_2d", (3, 4, 3, 3), 0, lambda t: init.dirac_(t)),
    ("xavier_uniform", (5, 3, 2, 2), 7, lambda t: init.xavier_uniform_(t, gain=2.0)),
    ("xavier_normal", (4, 6), 8, lambda t: init.xavier_normal_(t)),
    ("kaiming_uniform", (4, 3, 3), 9, lambda t: init.kaiming_uniform_(t)),
    ("kaiming_uniform_linear", (6, 5), 10, lambda t: init.kaiming_uniform_(t, a=math.sqrt(5))),
    ("kaiming_uniform_fan_out", (4, 3, 2), 11,
     lambda t: init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu")),
    ("kaiming_normal", (5, 4), 12, lambda t: init.kaiming_normal_(t, a=0.2, mode="fan_out")),
    ("kaiming_normal_tanh", (5, 4), 13, lambda t: init.kaiming_normal_(t, nonlinearity="tanh")),
    ("orthogonal", (3, 5), 14, lambda t: init.orthogonal_(t, gain=1.5)),
    ("orthogonal_tall", (5, 3), 15, lambda t: init.orthogonal_(t)),
    ("orthogonal_conv", (4, 2, 2), 16, lambda t: init.orthogonal_(t)),
    ("sparse", (10, 6), 17, lambda t: init.sparse_(t, 0.3)),
    ("sparse_std", (7, 5), 18, lambda t: init.sparse_(t, 0.5, std=0.2)),
    ("sparse_none", (4, 3), 19, lambda t: init.sparse_(t, 0.0, std=1.0)),
    ("sparse_all", (3, 4), 20, lambda t: init.sparse_(t, 1.0)),
]

GAINS = [
    ("linear", None), ("conv1d", None), ("conv2d", None), ("conv3d", None), ("conv_transpose1d", None),
    ("conv_transpose2d", None), ("conv_transpose3d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
    ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 0.0), ("selu", None),
]

FANS = [(2, 3), (4, 3, 5), (6, 2, 3, 3), (3, 2, 1, 2, 2)]


def main():
    cases = []
    for name, shape, seed, f in CASES:
        t = torch.empty(*shape)
        torch.manual_seed(seed)
        f(t)
        cases.append({"name": name, "seed": seed, "shape": list(shape),
                      "values": [float("%.9g" % v) for v in t.flatten().tolist()]})
    gains = [{"nonlinearity": n, "param": p, "gain": init.calculate_gain(n, p)} for n, p in GAINS]
    fans = []
    for s in FANS:
        fi, fo = init._calculate_fan_in_and_fan_out(torch.empty(*s))
        fans.append({"shape": list(s), "fan_in": fi, "fan_out": fo})
    data = {"torch_version": torch.__version__, "cases": cases, "gains": gains, "fans": fans}
    with open(os.path.join(OUT, "init.json"), "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", len(cases), "cases")


if __name__ == "__main__":
    main()
