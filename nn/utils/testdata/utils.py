#!/usr/bin/python3
"""Writes the reference values of package utils's tests (torch.nn.utils).

Run it with the reference PyTorch (1.13) from the repository root:

    /usr/bin/python3 nn/utils/testdata/utils.py

It writes nn/utils/testdata/utils.json; the Go tests read only that file.
"""

import json
import math
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("GOLDEN_OUT") or HERE


def t(x):
    return {"shape": list(x.shape), "data": x.detach().double().reshape(-1).tolist()}


def values(shape, k):
    n = 1
    for s in shape:
        n *= s
    return torch.tensor([math.sin(k * i + 0.3) for i in range(n)], dtype=torch.float32).reshape(shape)


def weight_norm_cases():
    out = {}
    # dim "default": weight_norm called without dim (PyTorch's 0).
    for name, shape, dim in [("linear_dim0", (4, 3), 0), ("linear_dim1", (4, 3), 1),
                             ("conv_dim0", (2, 3, 2, 2), 0), ("whole", (4, 3), None),
                             ("default", (3, 2, 2), "default")]:
        w = values(shape, 1.7)
        c = values(shape, 0.9)  # the loss is sum(weight * c)
        m = torch.nn.Linear(1, 1)
        m.weight = torch.nn.Parameter(w.clone())
        defaults = dim == "default"
        if defaults:
            m, dim = torch.nn.utils.weight_norm(m), 0
        else:
            m = torch.nn.utils.weight_norm(m, dim=dim)
        weight = torch._weight_norm(m.weight_v, m.weight_g, -1 if dim is None else dim)
        (weight * c).sum().backward()
        out[name] = {"weight": t(w), "c": t(c), "dim": -1 if dim is None else dim, "defaults": defaults,
                     "g": t(m.weight_g), "v": t(m.weight_v), "normalized": t(weight),
                     "grad_g": t(m.weight_g.grad), "grad_v": t(m.weight_v.grad)}
    return out


def spectral_norm_cases():
    torch.manual_seed(0)
    out = {}
    # iters None: spectral_norm called without n_power_iterations, eps and
    # dim (PyTorch's 1, 1e-12 and 0); the last case's tiny weight makes
    # eps matter. The new cases come last, so the earlier ones draw the
    # same u0 and v0.
    for name, shape, dim, iters, eps, scale in [
            ("linear", (4, 3), 0, 1, 1e-12, 1.0), ("conv_t_dim1", (2, 3, 2, 2), 1, 1, 1e-12, 1.0),
            ("three_iterations", (5, 4), 0, 3, 1e-12, 1.0), ("defaults", (3, 4), 0, None, 1e-12, 1.0),
            ("eps", (3, 4), 0, 2, 1e-3, 1e-4)]:
        w = values(shape, 1.3) * scale
        m = torch.nn.Linear(1, 1)
        m.weight = torch.nn.Parameter(w.clone())
        defaults = iters is None
        if defaults:
            m, iters = torch.nn.utils.spectral_norm(m), 1
        else:
            m = torch.nn.utils.spectral_norm(m, n_power_iterations=iters, eps=eps, dim=dim)
        u0, v0 = m.weight_u.clone(), m.weight_v.clone()
        hook = [h for h in m._forward_pre_hooks.values()][0]
        m.train()
        hook(m, None)
        train_w = m.weight.detach().clone()
        u1, v1 = m.weight_u.clone(), m.weight_v.clone()
        m.eval()
        hook(m, None)
        eval_w = m.weight.detach().clone()
        out[name] = {"weight": t(w), "dim": dim, "n_power_iterations": iters, "eps": eps, "defaults": defaults,
                     "u0": t(u0), "v0": t(v0), "u1": t(u1), "v1": t(v1),
                     "train_weight": t(train_w), "eval_weight": t(eval_w)}
    return out


def vector_cases():
    ps = [values((2, 3), 0.5), values((4,), 1.1), values((1, 1, 2), 2.3)]
    vec = torch.nn.utils.parameters_to_vector(ps)
    new = [torch.zeros_like(p) for p in ps]
    torch.nn.utils.vector_to_parameters(vec * 2, new)
    return {"params": [t(p) for p in ps], "vector": t(vec), "doubled": [t(p) for p in new]}


def main():
    doc = {"torch_version": torch.__version__, "weight_norm": weight_norm_cases(),
           "spectral_norm": spectral_norm_cases(), "vectors": vector_cases()}
    path = os.path.join(OUT, "utils.json")
    with open(path, "w") as f:
        json.dump(doc, f)
        f.write("\n")
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
