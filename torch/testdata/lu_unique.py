#!/usr/bin/env python3
"""Golden values of torch.Lu, torch.LuInfos (torch/lu.go) and torch.Unique
(torch/unique.go): PyTorch's Python wrappers torch.lu and torch.unique.

Writes lu_unique.json beside this script with the reference PyTorch
(1.13.1, /usr/bin/python3). Run: /usr/bin/python3 torch/testdata/lu_unique.py

The LU factors are compared within internal/golden's tolerance; pivots,
infos and the unique results are exact.
"""
import json
import os
import warnings

import torch

warnings.simplefilter("ignore")  # torch.lu is deprecated in 1.13
out = {}


def case(a, **kw):
    r = torch.lu(a, **kw)
    c = {"a": a.flatten().tolist(), "shape": list(a.shape), "lu": r[0].flatten().tolist(),
         "pivots": r[1].flatten().tolist(), "pivots_dtype": str(r[1].dtype)}
    if kw.get("get_infos"):
        c["infos"] = r[2].flatten().tolist()
        c["infos_shape"] = list(r[2].shape)
    return c


a = torch.tensor([[2.0, -1.0, 0.5], [4.0, 3.0, -2.0], [-6.0, 1.0, 7.0]], dtype=torch.float64)
out["lu"] = case(a)
batch = torch.stack([torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[1.0, 2.0], [2.0, 4.0]]),
                     torch.zeros(2, 2)])
out["lu_batch"] = case(batch)
out["lu_batch_infos"] = case(batch, get_infos=True)
for name, f in [("lu_no_pivot", lambda: torch.lu(a, pivot=False)), ("lu_vector", lambda: torch.lu(torch.ones(3)))]:
    try:
        f()
        out[name + "_error"] = None
    except RuntimeError as e:
        out[name + "_error"] = str(e).split("\n")[0]

x = torch.tensor([3, 1, 2, 3, 1, 5, -4, 2])
out["unique_x"] = x.tolist()
out["unique"] = torch.unique(x).tolist()
v, inv, cnt = torch.unique(x, return_inverse=True, return_counts=True)
out["unique_inverse"] = inv.tolist()
out["unique_counts"] = cnt.tolist()
m = torch.tensor([[1, 2], [1, 2], [0, 3], [0, 3], [5, -1]])
out["unique_m"] = m.tolist()
out["unique_dim0"] = torch.unique(m, dim=0).tolist()
out["unique_dim1"] = torch.unique(m, dim=1).tolist()
f = torch.tensor([0.5, -1.25, 0.5, 3.0, -1.25])
out["unique_float_x"] = f.tolist()
out["unique_float"] = torch.unique(f).tolist()
try:
    torch.unique(m, dim=2)
    out["unique_dim2_error"] = None
except (RuntimeError, IndexError) as e:
    out["unique_dim2_error"] = str(e).split("\n")[0]

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "lu_unique.json"), "w") as fh:
    json.dump(out, fh, indent=1)
    fh.write("\n")
