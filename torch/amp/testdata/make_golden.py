# make_golden.py: PyTorch's behaviour for torch/amp's tests, written to
# golden.json. Run with /usr/bin/python3 (PyTorch 1.13.1 here):
#   cd torch/amp/testdata && /usr/bin/python3 make_golden.py
import json
import math

import torch

out = {}

# CPU autocast in bfloat16: mm and linear run in bfloat16; add keeps
# float32; outside the region mm is float32.
a = torch.arange(6, dtype=torch.float32).reshape(2, 3) / 4 + 0.1
b = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 8 - 0.3
w = torch.arange(12, dtype=torch.float32).reshape(4, 3) / 16
with torch.autocast("cpu", dtype=torch.bfloat16):
    mm = a @ b
    lin = torch.nn.functional.linear(a, w)
    add = a + a
    nested_on = torch.is_autocast_cpu_enabled()
    with torch.autocast("cpu", enabled=False):
        inner = a @ b
        inner_on = torch.is_autocast_cpu_enabled()
out["autocast"] = {
    "a": a.flatten().tolist(), "b": b.flatten().tolist(), "w": w.flatten().tolist(),
    "mm_dtype": str(mm.dtype), "mm": mm.float().flatten().tolist(),
    "linear_dtype": str(lin.dtype), "linear": lin.float().flatten().tolist(),
    "add_dtype": str(add.dtype), "inner_dtype": str(inner.dtype),
    "enabled_inside": nested_on, "enabled_in_disabled": inner_on,
    "enabled_after": torch.is_autocast_cpu_enabled(),
}

# GradScaler (CPU tensors; PyTorch 1.13's GradScaler needs CUDA, so its
# rule is replayed here with the same ops: scale, unscale_ with the
# non-finite check, step skipped on inf/nan, _amp_update_scale_'s rule in
# float32). Step k's loss is (p * c_k).sum(); c_k holds an inf on some
# steps. growth_interval=3.
p = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
opt = torch.optim.SGD([p], lr=0.1)
scale = torch.tensor(1024.0)
tracker = 0
growth, backoff, interval = 2.0, 0.5, 3
coefs = [[1, 2, 3], [0.5, 0.5, 0.5], [float("inf"), 1, 1], [1, 1, 1], [2, 2, 2], [1, float("nan"), 1],
         [1, 1, 1], [1, 1, 1], [1, 1, 1], [3, 2, 1]]
trace = []
for c in coefs:
    opt.zero_grad()
    loss = (p * torch.tensor(c)).sum()
    (loss * scale).backward()
    inv = scale.double().reciprocal().float()
    found = float(not torch.isfinite(p.grad).all())
    p.grad.mul_(inv)
    stepped = found == 0
    if stepped:
        opt.step()
    if found:
        scale = scale * backoff
        tracker = 0
    else:
        tracker += 1
        if tracker == interval:
            scale = scale * growth
            tracker = 0
    trace.append({"stepped": stepped, "scale": scale.item(), "p": p.detach().tolist()})
out["scaler"] = {"init_scale": 1024.0, "growth_interval": interval, "lr": 0.1,
                 "p0": [1.0, -2.0, 0.5], "coefs": [[("inf" if math.isinf(x) else "nan" if math.isnan(x) else x) for x in c] for c in coefs],
                 "trace": trace}

with open("golden.json", "w") as f:
    json.dump(out, f, indent=1)
