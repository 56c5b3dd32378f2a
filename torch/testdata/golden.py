#!/usr/bin/python3
"""Writes the golden values that package torch's tests compare against.

Run it with the reference PyTorch (1.13) from this directory's parent:

    /usr/bin/python3 torch/testdata/golden.py

It writes torch/testdata/golden.json and torch/testdata/py_tensor.pt (and
py_not_tensor.pt). The Go tests read only those files; they never run Python.

Every tensor here is built deterministically (explicit values or arange), so
that the Go side can build the same tensor with FromSlice, FromNested,
Arange, Full, Eye and To. The Go builders live in print_test.go under the
same names; TestPrintGolden fails if the two tables drift apart.
"""

import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the output goes: here, or $GOLDEN_OUT (docs/testing.md: the
# cross-CPU measurement writes the files elsewhere and compares).
OUT = os.environ.get("GOLDEN_OUT") or HERE
nan, inf = math.nan, math.inf


def f32(values):
    return torch.tensor(values, dtype=torch.float32)


def ar(n, dtype=torch.float32):
    return torch.arange(n, dtype=dtype)


def rg(t):
    return t.requires_grad_()


def repr_cases():
    c = {}
    # float32, the default dtype: no dtype suffix.
    c["f32_ints"] = f32([1.0, 2.0])
    c["f32_ints_wide"] = f32([1.0, -20.0, 300.0])
    c["f32_frac"] = f32([0.5, -1.25, 3.14159, 100.0625])
    c["f32_sci_small"] = f32([1e-5, 1.0, 2.5])
    c["f32_sci_big"] = f32([1e9, 1.0])
    c["f32_sci_ratio"] = f32([1.0, 2000.0])
    c["f32_sci_frac_ratio"] = f32([0.5, 1000.5])
    c["f32_nan_inf"] = f32([nan, inf, -inf, 1.5])
    c["f32_nan_inf_ints"] = f32([nan, inf, -inf, 1.0, -2.0])
    c["f32_all_nan"] = f32([nan, nan])
    c["f32_zeros"] = torch.zeros(3)
    c["f32_neg_zero"] = f32([-0.0, 1.0])
    c["f32_negative"] = f32([-1.5, -2.25, 3.0])
    c["f32_2d"] = ar(6).reshape(2, 3)
    c["f32_2d_frac"] = (ar(6) * 0.5 - 1).reshape(3, 2)
    c["f32_2d_sci"] = f32([[1e-6, 2.0], [3.0, 4e7]])
    c["f32_3d"] = ar(24).reshape(2, 3, 4)
    c["f32_summ_1d"] = ar(1200)
    c["f32_summ_2d"] = ar(1200).reshape(40, 30)
    c["f32_summ_3d"] = ar(1200).reshape(10, 10, 12)
    c["f32_long"] = ar(30)
    # Go: float32(float64(i) * 0.1)
    c["f32_long_frac"] = (torch.arange(30, dtype=torch.float64) * 0.1).float()
    c["f32_0d"] = torch.tensor(3.5)
    c["f32_0d_nan"] = torch.tensor(nan)
    c["f32_eye3"] = torch.eye(3)
    c["f32_arange_step"] = torch.arange(0.0, 1.0, 0.25)
    # Other floating types.
    c["f64"] = torch.tensor([1.5, 2.25], dtype=torch.float64)
    c["f64_0d"] = torch.tensor(2.0, dtype=torch.float64)
    c["f64_long_rg"] = rg(ar(30, torch.float64))
    # Go: FromSlice([]float32{...}).To(torch.Float16); same order here.
    c["f16"] = f32([1.5, 2.0, 0.1]).to(torch.float16)
    c["bf16"] = f32([1.5, 2.0, 0.1]).to(torch.bfloat16)
    # Complex. complex64 is the default complex dtype while float32 is the
    # default dtype, so it has no suffix and complex128 has one.
    c["c64"] = torch.tensor([1 + 2j, -0.5 - 1j], dtype=torch.complex64)
    c["c64_mixed"] = torch.tensor([1.5 + 0j, 0 - 2.25j, 3 + 4j], dtype=torch.complex64)
    c["c64_0d"] = torch.tensor(1 + 2j, dtype=torch.complex64)
    c["c128"] = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex128)
    # Integers and bool.
    c["i64"] = torch.tensor([1, -2, 300])
    c["i64_0d"] = torch.tensor(7)
    c["i64_2d"] = torch.tensor([[1, 2], [30, -4]])
    c["i64_summ"] = ar(2000, torch.int64)
    c["i64_full"] = torch.full((2, 2), 7)
    c["i32"] = torch.tensor([1, 2, 3], dtype=torch.int32)
    c["i32_0d"] = torch.tensor(7, dtype=torch.int32)
    c["i16"] = torch.tensor([-5, 6], dtype=torch.int16)
    c["i8"] = torch.tensor([-128, 127], dtype=torch.int8)
    c["u8"] = torch.tensor([0, 255, 7], dtype=torch.uint8)
    c["bool"] = torch.tensor([True, False, True])
    c["bool_2d"] = torch.tensor([[True, False], [False, True]])
    c["bool_0d"] = torch.tensor(True)
    # Empty tensors.
    c["empty_f32"] = torch.zeros(0)
    c["empty_0x3"] = torch.zeros(0, 3)
    c["empty_i64"] = torch.zeros(0, dtype=torch.int64)
    c["empty_2x0_f64"] = torch.zeros(2, 0, dtype=torch.float64)
    # Autograd suffixes.
    c["rg_leaf"] = f32([1.0, 2.0]).requires_grad_()
    c["rg_0d"] = torch.tensor(2.0, requires_grad=True)
    a = f32([1.0, 2.0]).requires_grad_()
    b = f32([3.0, 4.0])
    c["grad_fn_add"] = a + b
    m = f32([[1.0, 2.0], [3.0, 4.0]]).requires_grad_()
    n = f32([[5.0, 6.0], [7.0, 8.0]])
    c["grad_fn_mm"] = torch.mm(m, n)
    c["grad_fn_clone"] = a.clone()
    c["grad_fn_to"] = a.to(torch.float64)
    return {k: repr(v) for k, v in sorted(c.items())}


def values(t):
    return {"shape": list(t.shape), "values": t.detach().reshape(-1).tolist()}


def autograd_cases():
    out = {}
    # Graph 1: y = mm(mm(a, b), c) + a, backward with a ones gradient
    # (y.sum().backward() in Python; Go has no sum yet). Every value is a
    # multiple of 1/4 with few significant bits, so float32 results are
    # exact whatever the order of summation.
    a = torch.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
    b = torch.tensor([[2.0, 0.0, -1.0], [1.0, 0.25, 4.0]], requires_grad=True)
    c = torch.tensor([[1.0, 2.0], [-3.0, 0.5], [0.75, -1.0]], requires_grad=True)
    y = torch.mm(torch.mm(a, b), c) + a
    y.backward(torch.ones_like(y))
    out["graph1"] = {
        "a": values(a),
        "b": values(b),
        "c": values(c),
        "y": values(y),
        "grad_fn": type(y.grad_fn).__name__,
        "a_grad": values(a.grad),
        "b_grad": values(b.grad),
        "c_grad": values(c.grad),
    }
    # Graph 2: broadcasting add, a tensor used twice, and a non-ones
    # upstream gradient: z = (x + bias) + x, x 2x3, bias (3,).
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    bias = torch.tensor([0.5, -0.5, 1.0], requires_grad=True)
    z = (x + bias) + x
    g = torch.tensor([[1.0, 2.0, 3.0], [0.5, 0.25, -1.0]])
    z.backward(g)
    out["graph2"] = {
        "x": values(x),
        "bias": values(bias),
        "z": values(z),
        "grad": values(g),
        "x_grad": values(x.grad),
        "bias_grad": values(bias.grad),
    }
    # Graph 3: gradients accumulate over two backward passes
    # (retain_graph on the first).
    p = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    q = torch.tensor([[0.5, -1.0], [2.0, 0.25]])
    r = torch.mm(p, q)
    r.backward(torch.ones_like(r), retain_graph=True)
    once = p.grad.clone()
    r.backward(torch.ones_like(r))
    out["graph3"] = {
        "p": values(p),
        "q": values(q),
        "r": values(r),
        "r_grad_fn": type(r.grad_fn).__name__,
        "p_grad_once": values(once),
        "p_grad_twice": values(p.grad),
    }
    return out


def main():
    if not torch.__version__.startswith("1.13"):
        sys.exit("golden.py: want PyTorch 1.13, have " + torch.__version__)

    # A small tensor written by Python's torch.save for the Go loader.
    py_t = torch.tensor([[1.5, -2.0, 3.25], [4.0, 0.0, -6.75]], dtype=torch.float32)
    torch.save(py_t, os.path.join(OUT, "py_tensor.pt"))
    # A valid file that holds a list, not a single tensor: Go's Load must
    # reject it with an error.
    torch.save([1, 2], os.path.join(OUT, "py_not_tensor.pt"))

    golden = {
        "torch_version": torch.__version__,
        "repr": repr_cases(),
        "autograd": autograd_cases(),
        "py_tensor": {
            "file": "py_tensor.pt",
            "dtype": str(py_t.dtype),
            "shape": list(py_t.shape),
            "values": py_t.reshape(-1).tolist(),
        },
    }
    with open(os.path.join(OUT, "golden.json"), "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True, allow_nan=False)
        f.write("\n")


if __name__ == "__main__":
    main()
