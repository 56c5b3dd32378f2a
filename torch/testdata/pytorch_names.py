#!/usr/bin/env python3
"""Lists PyTorch's public names for GoTorch's name-conformance test.

Writes pytorch_names.txt beside this script: one "kind name" a line, sorted,
for the reference PyTorch (1.13.1, /usr/bin/python3):

  tensor      the public methods of torch.Tensor (x.name(...))
  torch       the public functions of torch (torch.name(...))
  functional  the public functions of torch.nn.functional (F.name(...))
  nn          the module classes of torch.nn (nn.Name(...))

cmd/gop-torch's TestPyTorchNames compiles a call of each in XGo;
pytorch_names_excluded.txt lists, with a reason, those that GoTorch does not
have. Run: /usr/bin/python3 torch/testdata/pytorch_names.py
"""
import inspect
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


def public(obj):
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def from_torch(v):
    """Whether v is PyTorch's own, not a re-export of typing or math."""
    mod = getattr(v, "__module__", None)
    if mod is None:  # builtins of torch._C
        return True
    return mod.startswith("torch")


def names():
    out = []
    for n in public(torch.Tensor):
        if callable(getattr(torch.Tensor, n)):
            out.append(("tensor", n))
    for n in public(torch):
        v = getattr(torch, n)
        if callable(v) and not inspect.isclass(v) and not inspect.ismodule(v) and from_torch(v):
            out.append(("torch", n))
    for n in public(F):
        v = getattr(F, n)
        if callable(v) and not inspect.isclass(v) and from_torch(v):
            out.append(("functional", n))
    for n in public(nn):
        v = getattr(nn, n)
        if inspect.isclass(v) and issubclass(v, nn.Module):
            out.append(("nn", n))
    return out


def main():
    if not torch.__version__.startswith("1.13."):
        sys.exit("want PyTorch 1.13 (the reference), got " + torch.__version__)
    lines = ["%s %s\n" % kn for kn in names()]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pytorch_names.txt")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("# PyTorch %s's public names, by pytorch_names.py. DO NOT EDIT.\n" % torch.__version__)
        f.writelines(lines)
    os.replace(tmp, path)
    counts = {}
    for line in lines:
        k = line.split()[0]
        counts[k] = counts.get(k, 0) + 1
    print(path, counts)


if __name__ == "__main__":
    main()
