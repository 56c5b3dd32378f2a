#!/usr/bin/python3
"""Reads a file that package torch/pt wrote with torch.load, and prints it
as JSON: tensors as make.py describes them, other values as JSON (tuples
as {"tuple": [...]}, bytes as {"bytes": [...]}, dtypes and devices as
strings). The Go test save_test.go compares it with what it saved.

    /usr/bin/python3 read.py FILE
"""
import json
import sys

import torch




def num(x):
    import math
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return str(x)
    return x


def describe(t):
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


def plain(v):
    if isinstance(v, torch.Tensor):
        return {"tensor": describe(v)}
    if isinstance(v, dict):
        return {"dict": [[plain(k), plain(x)] for k, x in v.items()], "ordered": type(v).__name__ == "OrderedDict"}
    if isinstance(v, tuple):
        return {"tuple": [plain(x) for x in v]}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, bytes):
        return {"bytes": list(v)}
    if isinstance(v, complex):
        return {"complex": [v.real, v.imag]}
    if isinstance(v, (torch.dtype, torch.device)):
        return str(v)
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2**53:
        return {"int": str(v)}
    return num(v)


obj = torch.load(sys.argv[1])
if isinstance(obj, dict) and "tied_a" in obj:
    obj["tied_is_one_tensor"] = obj["tied_a"] is obj["tied_b"]
if isinstance(obj, dict) and "col" in obj and "t" in obj:
    # Two views of one storage: writing through one shows in the other.
    before = obj["t"].clone()
    obj["col"].add_(1)
    obj["views_share_memory"] = not torch.equal(before, obj["t"])
    obj["col"].sub_(1)
print(json.dumps(plain(obj)))
