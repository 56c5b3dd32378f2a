#!/usr/bin/python3
"""Writes repr(optimizer) for every configuration of optim.py.

Run it with the reference PyTorch (1.13) from the repository root:

    /usr/bin/python3 nn/optim/testdata/reprs.py

It writes nn/optim/testdata/reprs.json: for each name in optim.py's
CONFIGS, what Python prints for the optimizer just after it is made. The
Go test builds the same optimizer and compares its String.
"""

import importlib.util
import json
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("optim_golden", os.path.join(HERE, "optim.py"))
optim_golden = importlib.util.module_from_spec(spec)
spec.loader.exec_module(optim_golden)


def main():
    out = {}
    for name, (opt_name, defaults, groups, _negate, dtype) in optim_golden.CONFIGS.items():
        dt = getattr(torch, dtype)
        p = {n: torch.tensor(optim_golden.INIT[n], dtype=dt, requires_grad=True) for n in optim_golden.NAMES}
        if groups is None:
            params = [p[n] for n in optim_golden.NAMES]
        else:
            params = [dict(params=[p[n] for n in names], **opts) for names, opts in groups]
        out[name] = repr(optim_golden.OPTIMIZERS[opt_name](params, **defaults))
    # Optimizers outside CONFIGS, on one parameter (reprs_test.go builds the same).
    p = [torch.zeros(2, requires_grad=True)]
    extra = {
        "lbfgs_default": torch.optim.LBFGS(p),
        "lbfgs_strong_wolfe": torch.optim.LBFGS(p, lr=0.5, line_search_fn="strong_wolfe", max_iter=5),
        "sparse_adam_default": torch.optim.SparseAdam(p),
        "sparse_adam_opts": torch.optim.SparseAdam(p, lr=0.01, betas=(0.8, 0.99), eps=1e-6, maximize=True),
    }
    out.update({name: repr(opt) for name, opt in extra.items()})
    path = os.path.join(HERE, "reprs.json")
    with open(path, "w") as f:
        json.dump({"torch_version": torch.__version__, "reprs": out}, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
