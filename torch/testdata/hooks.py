"""Writes hooks.json: the gradients of Tensor.register_hook and retain_grad
cases, which torch/hook_test.go compares GoTorch's against.

Run with the reference PyTorch (1.13.1): python3 torch/testdata/hooks.py
"""
import json
import os

import torch

torch.set_default_dtype(torch.float64)

W = [[0.5, -1.25, 2.0], [1.5, 0.75, -0.5]]
X = [[1.0, 2.0, -3.0], [0.25, -0.5, 4.0]]


def leaves():
    w = torch.tensor(W, requires_grad=True)
    x = torch.tensor(X)
    return w, x


def plain():
    w, x = leaves()
    h = w * x
    (h * h).sum().backward()
    return {"w_grad": w.grad.tolist()}


def leaf_doubled():
    # A hook on a leaf runs before the gradient is accumulated into .grad.
    w, x = leaves()
    w.register_hook(lambda g: g * 2)
    h = w * x
    (h * h).sum().backward()
    return {"w_grad": w.grad.tolist()}


def nonleaf_tripled():
    # A hook on an intermediate result changes the gradient that flows on.
    w, x = leaves()
    h = w * x
    seen = []
    h.register_hook(lambda g: seen.append(g.clone()))  # returns None: keeps g
    h.register_hook(lambda g: g * 3)
    h.retain_grad()
    (h * h).sum().backward()
    return {"w_grad": w.grad.tolist(), "seen": seen[0].tolist(), "h_grad": h.grad.tolist()}


def removed():
    w, x = leaves()
    handle = w.register_hook(lambda g: g * 2)
    handle.remove()
    h = w * x
    (h * h).sum().backward()
    return {"w_grad": w.grad.tolist()}


def main():
    out = {
        "torch": torch.__version__,
        "w": W,
        "x": X,
        "plain": plain(),
        "leaf_doubled": leaf_doubled(),
        "nonleaf_tripled": nonleaf_tripled(),
        "removed": removed(),
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hooks.json")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    main()
