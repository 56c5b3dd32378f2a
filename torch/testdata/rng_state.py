#!/usr/bin/env python3
"""Golden values of torch.GetRNGState and torch.SetRNGState (torch/rng.go).

Writes rng_state.json beside this script with the reference PyTorch
(1.13.1, /usr/bin/python3). Run: /usr/bin/python3 torch/testdata/rng_state.py

Only uniform and integer draws are used: their results, and so the
generator's state bytes, are exact on every CPU (normal draws cache a value
that goes through libm).
"""
import base64
import json
import os

import torch


def b64(t):
    return base64.b64encode(t.numpy().tobytes()).decode()


torch.manual_seed(42)
seeded = torch.get_rng_state()
rand = torch.rand(5)
randint = torch.randint(0, 1000, (4,))
after = torch.get_rng_state()

# A state of PyTorch's, mid-stream, and what it draws next.
torch.manual_seed(7)
torch.rand(3)
torch.randperm(10)
mid = torch.get_rng_state()
next_rand = torch.rand(4)
next_perm = torch.randperm(6)

out = {
    "torch_version": torch.__version__,
    "size": seeded.numel(),
    "dtype": str(seeded.dtype).replace("torch.", ""),
    "seed42_state": b64(seeded),
    "seed42_rand5": rand.tolist(),
    "seed42_randint4": randint.tolist(),
    "seed42_after_draws_state": b64(after),
    "seed7_mid_state": b64(mid),
    "seed7_next_rand4": next_rand.tolist(),
    "seed7_next_randperm6": next_perm.tolist(),
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rng_state.json")
tmp = path + ".tmp"
with open(tmp, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
os.replace(tmp, path)
