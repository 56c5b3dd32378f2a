#!/usr/bin/env python3
"""Golden values of the Tensor methods in torch/pythonic_tensor.go.

Writes pythonic_tensor.json beside this script with the reference PyTorch
(1.13.1, /usr/bin/python3). Run: /usr/bin/python3 torch/testdata/pythonic_tensor.py
"""
import json
import os

import torch

x = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
u = torch.tensor([3, 1, 3, 2, 2, 2, 5])
vals, inv, counts = u.unique(return_inverse=True, return_counts=True)
rows = torch.tensor([[1, 2], [0, 1], [1, 2]])
c = torch.tensor([True, False, True])
out = {
    "stride": list(x.stride()),
    "stride_transposed": list(x.transpose(0, 2).stride()),
    "stride_1": x.stride(1),
    "element_size": {str(d).replace("torch.", ""): torch.empty(1, dtype=d).element_size()
                     for d in [torch.float16, torch.bfloat16, torch.uint8, torch.int8, torch.int16,
                               torch.int32, torch.int64, torch.float32, torch.float64, torch.bool]},
    "conversions": {m: str(getattr(x, m)().dtype).replace("torch.", "")
                    for m in ["half", "bfloat16", "byte", "short", "char", "cfloat", "cdouble"]},
    "type": {str(d).replace("torch.", ""): torch.empty(1, dtype=d).type()
             for d in [torch.float32, torch.float64, torch.int64, torch.uint8, torch.bool]},
    "nelement": x.nelement(),
    "ndimension": x.ndimension(),
    "tolist_int": torch.tensor([[1, 2], [3, 4]]).tolist(),
    "tolist_float": torch.tensor([[0.5], [1.5]]).tolist(),
    "tolist_bool": torch.tensor([True, False]).tolist(),
    "tolist_scalar": torch.tensor(7).tolist(),
    "unique_input": u.tolist(),
    "unique": vals.tolist(),
    "unique_inverse": inv.tolist(),
    "unique_counts": counts.tolist(),
    "unique_unsorted_sorted": torch.tensor([2, 1, 2]).unique(sorted=True).tolist(),
    "unique_rows_input": rows.tolist(),
    "unique_rows": rows.unique(dim=0).tolist(),
    "unique_consecutive": u.unique_consecutive().tolist(),
    "where": torch.tensor([1.0, 2.0, 3.0]).where(c, torch.tensor(0.0)).tolist(),
    "where_condition": c.tolist(),
    "new_tensor_dtype": str(torch.zeros(1, dtype=torch.float64).new_tensor([1, 2]).dtype).replace("torch.", ""),
    "new_tensor": torch.zeros(1, dtype=torch.float64).new_tensor([1, 2]).tolist(),
    "repeat_interleave": torch.tensor([1, 2]).repeat_interleave(2).tolist(),
    "repeat_interleave_tensor": torch.tensor([1, 2]).repeat_interleave(torch.tensor([1, 3])).tolist(),
}
# torch.broadcast_shapes, torch.numel and x.get_device (torch/shapes.go).
broadcast_cases = [[[2, 1, 4], [3, 1]], [[5], [1, 5], [2, 1, 1]], [[]], [[0, 1], [3]], [[1], []]]
out["broadcast_shapes"] = [{"shapes": c, "want": list(torch.broadcast_shapes(*c))} for c in broadcast_cases]
bad = []
for c in [[[2, 3], [4]], [[2, 1], [3, 1, 5], [1, 4, 1]]]:
    try:
        torch.broadcast_shapes(*c)
    except RuntimeError:
        bad.append(c)
out["broadcast_shapes_bad"] = bad
out["numel"] = torch.numel(x)
out["get_device_cpu"] = torch.get_device(x)
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pythonic_tensor.json")
with open(path + ".tmp", "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
    f.write("\n")
os.replace(path + ".tmp", path)
print(path)
