#!/usr/bin/python3
"""onednn-conv-repro.py: PyTorch's own float32 conv1d input gradient against
float64's, for the case of issue 40 (docs/testing.md, "oneDNN's wrong
convolution gradients"). Exits 1 where they differ.

    scripts/debian13.sh run python3 /src/scripts/onednn-conv-repro.py
"""
import sys

import torch


def pattern(shape, seed):
    n = 1
    for s in shape:
        n *= s
    return ((torch.arange(n, dtype=torch.float64) * (2 * seed + 3) + seed) % 7 - 3).reshape(shape)


grads = {}
for dt in (torch.float32, torch.float64):
    x = pattern((2, 3, 7), 1).to(dt).requires_grad_()
    w = pattern((4, 3, 3), 2).to(dt)
    y = torch.nn.functional.conv1d(x, w, padding=2, dilation=2)
    y.backward(pattern(y.shape, 4).to(dt))
    grads[dt] = x.grad.double()
    print(f"torch {torch.__version__} mkldnn={torch.backends.mkldnn.enabled} {dt}: grad x[:6] = {x.grad.flatten()[:6].tolist()}")
diff = (grads[torch.float32] - grads[torch.float64]).abs().max().item()
print("largest difference:", diff)
sys.exit(0 if diff < 1e-4 else 1)
