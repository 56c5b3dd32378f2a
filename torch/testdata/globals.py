#!/usr/bin/env python3
"""Golden values of torch's global settings (torch/deterministic.go,
torch/anomaly.go, torch/globals.go).

Writes globals.json beside this script with the reference PyTorch (1.13.1,
/usr/bin/python3). Run: /usr/bin/python3 torch/testdata/globals.py

Every value is exact on every CPU: flags, strings, seeds, uniform draws,
and a denormal multiplied by one (kept, or flushed to zero where the CPU
can flush).
"""
import json
import math
import os

import torch

out = {}

# set_deterministic_debug_mode by int and by name, and the flags it sets.
modes = []
for m in [0, 1, 2, "default", "warn", "error"]:
    torch.set_deterministic_debug_mode(m)
    modes.append({
        "mode": m,
        "enabled": torch.are_deterministic_algorithms_enabled(),
        "warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
        "get": torch.get_deterministic_debug_mode(),
    })
out["debug_modes"] = modes
torch.use_deterministic_algorithms(True, warn_only=True)
out["warn_only_mode"] = torch.get_deterministic_debug_mode()
torch.use_deterministic_algorithms(False)

# index_add_ with a repeated index under deterministic algorithms.
torch.use_deterministic_algorithms(True)
out["index_add"] = torch.zeros(4).index_add_(0, torch.tensor([1, 1, 3]), torch.tensor([1.5, 2.0, 4.0])).tolist()
torch.use_deterministic_algorithms(False)

# Anomaly mode: the error of a backward whose gradient is NaN, and the
# gradient without it.
x = torch.tensor([-1.0, 4.0], requires_grad=True)
x.sqrt().sum().backward()
out["nan_grad"] = [None if math.isnan(v) else v for v in x.grad.tolist()]
torch.set_anomaly_enabled(True)
out["anomaly_default"] = [torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()]
x = torch.tensor([-1.0, 4.0], requires_grad=True)
try:
    x.sqrt().sum().backward()
    out["anomaly_error"] = None
except RuntimeError as e:
    out["anomaly_error"] = str(e).split("\n")[0]
torch.set_anomaly_enabled(True, check_nan=False)
out["anomaly_no_check_nan"] = [torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()]
torch.set_anomaly_enabled(False)

# float32 matmul precision.
out["matmul_precision_default"] = torch.get_float32_matmul_precision()
prec = []
for p in ["high", "medium", "highest"]:
    torch.set_float32_matmul_precision(p)
    prec.append(torch.get_float32_matmul_precision())
out["matmul_precisions"] = prec

# Flush denormals: a float64 and a float32 denormal times one.
d64 = torch.tensor([1e-310], dtype=torch.float64)
d32 = torch.tensor([1e-40], dtype=torch.float32)
out["flush_supported"] = torch.set_flush_denormal(True)
out["flushed"] = [(d64 * 1.0).item(), (d32 * 1.0).item()]
torch.set_flush_denormal(False)
out["kept"] = [(d64 * 1.0).item(), (d32 * 1.0).item()]

# Seeds.
seeds = []
for s in [42, 123456789012345, 2**64 - 1]:
    torch.manual_seed(s)
    seeds.append({"seed": str(s), "initial_seed": str(torch.initial_seed()), "rand3": torch.rand(3).tolist()})
out["seeds"] = seeds
out["inference_mode_default"] = torch.is_inference_mode_enabled()
with torch.inference_mode():
    y = torch.ones(2) * 2
    out["inference_mode_inside"] = [torch.is_inference_mode_enabled(), y.is_inference(), torch.is_grad_enabled()]

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "globals.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
