#!/usr/bin/python3
"""Writes the golden values of package torch's conformance test.

Run it with the reference PyTorch (Debian's python3-torch, 1.13) from the
repository root:

    /usr/bin/python3 torch/testdata/conformance.py

It writes torch/testdata/conformance.json, which torch/conformance_test.go
reads; the Go test never runs Python.

The JSON holds

  - "inputs": the input tensors, by name (dtype, shape, values). The Go test
    builds its inputs from them, so that both sides start from the same
    values;
  - "cases": for each case name, the value the op returned.

Each case here has a twin of the same name in conformance_test.go's table,
which calls the generated Go binding; the Go test fails if the two lists
drift apart. Cases call torch.ops.aten.* where the Python API would reshape
the call (the Python layer's defaults, named tuples, tuples instead of
lists), so that the schema the Go binding wraps is the one measured.

Every input is explicit. Random ops take an explicit torch.Generator seeded
with manual_seed; the Go side passes torch.NewGenerator(seed). Both are
libtorch's CPU generator (mt19937 plus the same sampling kernels), so the
streams match and the random cases compare values like any other case.

Encoding of a value:

  {"kind": "tensor", "dtype": "float32", "shape": [...], "values": [...]}
      values flattened in row-major order; NaN and infinities as the strings
      "nan", "inf", "-inf"; complex tensors as [re, im] pairs; "values" is
      null where only the shape and dtype are meaningful (empty tensors);
  {"kind": "none"}             an undefined tensor (a masked-out output);
  {"kind": "list", "items": [...]}   a Tensor[] result (Go []Tensor);
  {"kind": "tuple", "items": [...]}  a tuple result (Go multiple results);
  {"kind": "bool" | "int" | "float" | "scalar" | "dtype", "value": ...}.
"""

import json
import math
import os

import torch

aten = torch.ops.aten
HERE = os.path.dirname(os.path.abspath(__file__))
# Where the output goes: here, or $GOLDEN_OUT (docs/testing.md: the
# cross-CPU measurement writes the files elsewhere and compares).
OUT = os.environ.get("GOLDEN_OUT") or HERE

f32, f64, i64, bl = torch.float32, torch.float64, torch.int64, torch.bool


def T(v, dtype=f32):
    return torch.tensor(v, dtype=dtype)


def ar(n, *shape, dtype=f32):
    return torch.arange(n, dtype=dtype).reshape(*shape)


INPUTS = {
    # 3x4 matrices of the elementwise cases.
    "x": T([[-1.5, 0.25, 2.0, -0.75], [0.5, -2.0, 1.25, 3.0], [1.0, -0.5, -3.0, 0.125]]),
    "y": T([[2.0, -1.0, 0.5, 1.5], [-0.25, 1.0, 3.0, -2.0], [0.75, 2.5, -1.25, 0.5]]),
    "p": T([[0.5, 1.0, 1.5, 2.0], [2.5, 3.0, 0.25, 0.75], [1.25, 4.0, 0.1, 0.9]]),  # > 0
    "u": T([[-0.9, -0.5, 0.1, 0.3], [0.6, 0.95, -0.25, 0.2], [0.45, -0.7, 0.8, -0.05]]),  # in (-1, 1)
    "q": T([[0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.8], [0.9, 0.15, 0.25, 0.35]]),  # in (0, 1)
    "g": T([[1.5, 2.0, 3.0, 4.5], [1.1, 2.5, 5.0, 1.25], [3.5, 1.75, 2.25, 6.0]]),  # > 1
    "lbl": T([[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]]),
    "pm1": T([[1.0, -1.0, -1.0, 1.0], [-1.0, 1.0, 1.0, -1.0], [1.0, 1.0, -1.0, -1.0]]),
    "nanx": T([[math.nan, 1.0, math.inf, -2.0], [0.5, -math.inf, 3.0, math.nan], [1.0, 2.0, -1.0, 0.0]]),
    "ii": T([[3, -1, 4, 1], [-5, 9, 2, -6], [5, 3, -5, 8]], i64),
    "jj": T([[2, 3, 1, 4], [5, 2, 7, 3], [1, 6, 2, 9]], i64),  # > 0
    "sh": T([[1, 2, 0, 3], [2, 1, 3, 0], [0, 1, 2, 1]], i64),  # shift counts
    "mask": T([[True, False, False, True], [False, True, False, False], [True, True, False, True]], bl),
    "mask2": T([[False, False, True, True], [True, False, True, False], [False, True, True, False]], bl),
    "idx": T([2, 0], i64),
    "gidx": T([[0, 3, 1, 1], [2, 2, 0, 3], [3, 0, 1, 2]], i64),  # gather/scatter along dim 1
    "sidx": T([[0, 1, 2, 0], [2, 0, 1, 1]], i64),  # scatter along dim 0 (values < 3)
    "rows": T([0, 2, 0], i64),
    "cols": T([1, 3, 1], i64),
    "vals3": T([1.0, 2.0, 3.0]),
    "take": T([0, 5, 11, 3], i64),
    # Vectors.
    "v": T([1.0, -2.0, 0.5, 3.0]),
    "w": T([0.5, 1.5, -1.0, 2.0]),
    "v3": T([1.0, 2.0, -1.0]),
    "w3": T([0.5, -1.5, 2.0]),
    "v2": T([0.25, -0.5]),
    "sortv": T([3.5, -1.0, 2.25, 0.0, 7.5, -4.0, 1.5, 6.0]),
    "bounds": T([-2.0, 0.0, 2.0, 5.0]),
    "rep": T([1, 0, 2], i64),
    "uniq": T([3, 1, 1, 2, 3, 3, 0, 2], i64),
    "cnt": T([0, 1, 1, 3, 2, 1, 3], i64),
    "probs": T([0.1, 0.2, 0.3, 0.4]),
    "qq": T([0.25, 0.5, 0.9]),
    "s0": T(2.5),
    "i0": T(3, i64),
    "z0": T(0.0),
    # Matrices.
    "a": T([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]]),  # symmetric positive definite
    "ut": T([[2.0, 1.0, -1.0], [0.0, 3.0, 0.5], [0.0, 0.0, 1.5]]),  # upper triangular
    "bm": T([[1.0, 2.0], [0.0, -1.0], [3.0, 0.5]]),  # 3x2
    "m43": T([[1.0, 0.0, -1.0], [2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [-1.0, 1.0, 2.0]]),
    "sq2": T([[1.0, 2.0], [3.0, 4.0]]),
    "b1": ar(24, 2, 3, 4) * 0.25 - 3,
    "b2": ar(16, 2, 4, 2) * 0.5 - 4,
    "b3": ar(12, 2, 3, 2) * 0.5 - 2.5,
    "c23": T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    # Neural network inputs.
    "img": ((ar(50, 1, 2, 5, 5) % 7) - 3) * 0.5,
    "wconv": ((ar(54, 3, 2, 3, 3) % 5) - 2) * 0.25,
    "bconv": T([0.1, -0.2, 0.3]),
    "sig1": ((ar(16, 1, 2, 8) % 5) - 2) * 0.5,  # 1-D signals (N, C, L)
    "w1d": ((ar(12, 2, 2, 3) % 3) - 1) * 0.5,
    "logits": ((ar(20, 4, 5) * 7 % 11) - 5) * 0.25,
    "target": T([1, 0, 4, 2], i64),
    "cw": T([1.0, 2.0, 0.5, 1.0, 1.5]),
    "emb": ar(18, 6, 3) * 0.1 - 0.5,
    "eidx": T([[0, 2, 5], [1, 1, 4]], i64),
    "bidx": T([0, 2, 5, 1, 1, 4, 3], i64),
    "boff": T([0, 3], i64),
    "rm": T([0.1, -0.2, 0.3]),
    "rv": T([1.0, 0.5, 2.0]),
    "gam": T([1.5, 0.5, -1.0]),
    "bet": T([0.1, 0.2, -0.3]),
    "lw": T([[0.5, -1.0, 0.25], [1.0, 0.5, -0.5]]),  # linear weight 2x3
    "lb": T([0.1, -0.1]),
    "bw": ar(18, 3, 2, 3) * 0.1 - 0.8,  # bilinear weight (out 3, in1 2, in2 3)
    "img4": ((ar(48, 1, 3, 4, 4) % 9) - 4) * 0.25,  # N C H W with C=3
    "grid": T([[[[-1.0, -1.0], [0.5, 0.0]], [[0.0, 0.75], [1.0, 1.0]]]]),
    "theta": T([[[1.0, 0.0, 0.25], [0.0, 1.0, -0.25]]]),
    "h3": T([[0.5, -0.5, 0.25]]),  # rnn hidden (1, 3)
    "xin2": T([[1.0, -1.0]]),  # rnn input (1, 2)
    "wih": ar(6, 3, 2) * 0.1 - 0.2,
    "whh": ar(9, 3, 3) * 0.05 - 0.2,
    "wih4": ar(24, 12, 2) * 0.02 - 0.2,
    "whh4": ar(36, 12, 3) * 0.01 - 0.15,
    "wih9": ar(18, 9, 2) * 0.05 - 0.4,
    "whh9": ar(27, 9, 3) * 0.02 - 0.25,
    "c3": T([[0.1, -0.2, 0.3]]),
    "wct": T([[[[1.0, -0.5], [0.25, 0.5]]], [[[-1.0, 0.5], [0.75, 0.0]]]]),  # (in 2, out 1, 2, 2)
    "ps": ar(16, 1, 4, 2, 2),  # pixel_shuffle input
    "ps4": ar(16, 1, 1, 4, 4),  # pixel_unshuffle input
    "tmap": T([[[0, 1, 2, 1], [2, 2, 0, 1], [1, 0, 0, 2], [2, 1, 1, 0]]], i64),  # nll_loss2d target
    "lp": torch.log_softmax(((ar(15, 5, 1, 3) * 3 % 7) - 3) * 0.5, 2),  # ctc log-probs (T, N, C)
    "ctgt": T([[1, 2]], i64),
    "pw2": T([0.25, -0.5]),
    "pm4": T([1.0, -1.0, 1.0, -1.0]),
    "pm3": T([1.0, -1.0, 1.0]),
    "nan1": T([[math.nan, 1.0, 2.0], [3.0, math.nan, 4.0]]),
    "dup": T([[1, 2], [3, 4], [1, 2], [0, 5]], i64),
    "b42": T([[1.0, 0.5], [2.0, -1.0], [0.0, 1.5], [1.0, 1.0]]),
    "cntf": T([[5.0, 10.0], [3.0, 8.0]]),
    "prb": T([[0.2, 0.5], [0.9, 0.1]]),
    "alpha": T([[1.0, 2.0, 0.5], [3.0, 1.5, 1.0]]),
}


def I(name):
    return INPUTS[name].clone()


class Scalar:
    """Marks a Python number that the op returns as an at::Scalar."""

    def __init__(self, v):
        self.v = v


class ShapeOnly:
    """Marks a tensor whose values are not meaningful (uninitialized)."""

    def __init__(self, t):
        self.t = t


# c10::ScalarType, in enum order: torch.ops.aten returns a ScalarType
# result as its int value.
SCALAR_TYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
                torch.float32, torch.float64, torch.complex32, torch.complex64, torch.complex128,
                torch.bool, torch.qint8, torch.quint8, torch.qint32, torch.bfloat16]


def DT(v):
    """Marks a ScalarType result (Go DType)."""
    return v if isinstance(v, torch.dtype) else SCALAR_TYPES[v]


def gen(seed):
    return torch.Generator().manual_seed(seed)


def inplace(t, f):
    """Runs an in-place op on t and returns t (the Go side checks that the
    op returned its self)."""
    r = f(t)
    assert r is t or r.data_ptr() == t.data_ptr()
    return t


CASES = []


def C(name, fn):
    CASES.append((name, fn))


def unary(name, inp, op=None):
    C(name, lambda: getattr(aten, op or name)(I(inp)))


# ---------------------------------------------------------------------------
# Elementwise unary ops, and other ops of one tensor without options. The Go
# table has the same list (conformance_test.go, confUnary).

UNARY = [
    ("abs", "x"), ("neg", "x"), ("exp", "x"), ("log", "p"), ("sin", "x"), ("cos", "x"),
    ("tan", "u"), ("tanh", "x"), ("sigmoid", "x"), ("relu", "x"), ("sqrt", "p"),
    ("rsqrt", "p"), ("ceil", "x"), ("floor", "x"), ("round", "x"), ("trunc", "x"),
    ("frac", "x"), ("sign", "x"), ("sgn", "x"), ("reciprocal", "x"), ("square", "x"),
    ("expm1", "x"), ("log1p", "p"), ("log2", "p"), ("log10", "p"), ("exp2", "x"),
    ("asin", "u"), ("acos", "u"), ("atan", "x"), ("sinh", "x"), ("cosh", "x"),
    ("asinh", "x"), ("acosh", "g"), ("atanh", "u"), ("arcsin", "u"), ("arccos", "u"),
    ("arctan", "x"), ("arcsinh", "x"), ("arccosh", "g"), ("arctanh", "u"), ("erf", "x"),
    ("erfc", "x"), ("erfinv", "u"), ("lgamma", "p"), ("digamma", "p"), ("sinc", "x"),
    ("deg2rad", "x"), ("rad2deg", "x"), ("i0", "x"), ("positive", "x"), ("fix", "x"),
    ("signbit", "x"), ("isnan", "nanx"), ("isinf", "nanx"), ("isfinite", "nanx"),
    ("isposinf", "nanx"), ("isneginf", "nanx"), ("logical_not", "mask"),
    ("bitwise_not", "ii"), ("angle", "x"), ("absolute", "x"), ("negative", "x"),
    ("hardsigmoid", "x"), ("hardswish", "x"), ("silu", "x"), ("mish", "x"),
    ("selu", "x"), ("relu6", "x"), ("log_sigmoid", "x"), ("special_expit", "x"),
    ("special_erfcx", "x"), ("special_ndtr", "x"), ("special_ndtri", "q"),
    ("special_log_ndtr", "x"), ("special_i0e", "x"), ("special_i1", "x"),
    ("special_i1e", "x"), ("special_entr", "q"), ("special_sinc", "x"),
    ("special_log1p", "p"), ("special_exp2", "x"), ("special_expm1", "x"),
    ("special_gammaln", "p"), ("special_psi", "p"), ("special_digamma", "p"),
    ("special_erf", "x"), ("special_erfc", "x"), ("special_erfinv", "u"),
    ("special_i0", "x"), ("special_bessel_j0", "x"), ("special_bessel_j1", "x"),
    ("special_bessel_y0", "p"), ("special_modified_bessel_i0", "x"),
    ("special_airy_ai", "x"), ("special_spherical_bessel_j0", "x"),
    ("conj", "x"), ("frobenius_norm", "x"), ("trace", "a"), ("msort", "x"),
    ("nonzero", "x"), ("argwhere", "mask"), ("fliplr", "x"), ("flipud", "x"),
    ("ravel", "x"), ("t", "x"), ("squeeze", "img"), ("atleast_1d", "s0"),
    ("atleast_2d", "v"), ("atleast_3d", "x"), ("corrcoef", "x"), ("max", "x"),
    ("min", "x"), ("median", "x"), ("nanmedian", "nan1"), ("all", "mask"), ("any", "mask"),
    ("det", "a"), ("logdet", "a"), ("inverse", "a"), ("linalg_det", "a"),
    ("linalg_inv", "a"), ("matrix_exp", "sq2"), ("linalg_matrix_exp", "sq2"),
    ("detach", "x"), ("alias", "x"), ("linalg_eigvals", "a"),
]
for name, inp in UNARY:
    unary(name, inp)

# Unary ops with options.
C("logit_eps", lambda: aten.logit(I("q"), 0.25))
C("nan_to_num", lambda: aten.nan_to_num(I("nanx"), 0.5, 100.0, -100.0))
C("nan_to_num_default", lambda: aten.nan_to_num(I("nanx")))
C("gelu", lambda: aten.gelu(I("x")))
C("gelu_tanh", lambda: aten.gelu(I("x"), approximate="tanh"))
C("elu", lambda: aten.elu(I("x"), 0.5, 1.5))
C("celu", lambda: aten.celu(I("x"), 2.0))
C("softplus", lambda: aten.softplus(I("x"), 2, 1))
C("hardtanh", lambda: aten.hardtanh(I("x"), -0.5, 0.5))
C("leaky_relu", lambda: aten.leaky_relu(I("x"), 0.2))
C("hardshrink", lambda: aten.hardshrink(I("x"), 0.6))
C("softshrink", lambda: aten.softshrink(I("x"), 0.6))
C("glu", lambda: aten.glu(I("x"), 1))
C("rrelu_eval", lambda: aten.rrelu(I("x")))
C("special_round", lambda: aten.special_round(I("x"), decimals=1))
C("special_logit", lambda: aten.special_logit(I("q"), 0.2))
C("threshold", lambda: aten.threshold(I("x"), 0.5, -1.0))
C("polygamma", lambda: aten.polygamma(1, I("p")))
C("special_polygamma", lambda: aten.special_polygamma(2, I("p")))
C("mvlgamma", lambda: aten.mvlgamma(I("g"), 2))
C("special_multigammaln", lambda: aten.special_multigammaln(I("g"), 3))
C("frexp", lambda: aten.frexp.Tensor(I("x")))
C("logical_not_method", lambda: aten.logical_not(I("x")))
C("abs_int", lambda: aten.abs(I("ii")))

# ---------------------------------------------------------------------------
# Binary elementwise ops.

C("add", lambda: aten.add(I("x"), I("y")))
C("add_alpha", lambda: aten.add(I("x"), I("y"), alpha=2))
C("add_int_float", lambda: aten.add(I("ii"), I("x")))
C("add_scalar", lambda: aten.add.Scalar(I("x"), 1.5, alpha=2))
C("sub", lambda: aten.sub(I("x"), I("y"), alpha=0.5))
C("sub_scalar", lambda: aten.sub.Scalar(I("x"), 2))
C("rsub", lambda: aten.rsub(I("x"), I("y")))
C("subtract", lambda: aten.subtract(I("x"), I("y"), alpha=2))
C("mul", lambda: aten.mul(I("x"), I("y")))
C("mul_broadcast", lambda: aten.mul(I("x"), I("v")))
C("mul_scalar", lambda: aten.mul.Scalar(I("x"), 3))
C("multiply", lambda: aten.multiply(I("ii"), I("jj")))
C("div", lambda: aten.div(I("x"), I("y")))
C("div_floor", lambda: aten.div.Tensor_mode(I("x"), I("y"), rounding_mode="floor"))
C("div_trunc", lambda: aten.div.Tensor_mode(I("x"), I("y"), rounding_mode="trunc"))
C("div_scalar", lambda: aten.div.Scalar(I("x"), 4))
C("divide", lambda: aten.divide(I("ii"), I("jj")))
C("true_divide", lambda: aten.true_divide(I("ii"), I("jj")))
C("floor_divide", lambda: aten.floor_divide(I("x"), I("y")))
C("remainder", lambda: aten.remainder.Scalar(I("x"), 0.75))
C("remainder_tensor", lambda: aten.remainder.Tensor(I("x"), I("y")))
C("fmod", lambda: aten.fmod.Scalar(I("x"), 0.75))
C("fmod_tensor", lambda: aten.fmod.Tensor(I("x"), I("y")))
C("pow", lambda: aten.pow.Tensor_Tensor(I("p"), I("y")))
C("pow_tensor_scalar", lambda: aten.pow.Tensor_Scalar(I("x"), 3))
C("pow_scalar", lambda: aten.pow.Scalar(2, I("x")))
C("float_power", lambda: aten.float_power.Tensor_Tensor(I("p"), I("y")))
C("atan2", lambda: aten.atan2(I("x"), I("y")))
C("arctan2", lambda: aten.arctan2(I("y"), I("x")))
C("maximum", lambda: aten.maximum(I("x"), I("y")))
C("minimum", lambda: aten.minimum(I("x"), I("y")))
C("max_other", lambda: aten.max.other(I("x"), I("y")))
C("min_other", lambda: aten.min.other(I("x"), I("y")))
C("fmax", lambda: aten.fmax(I("nanx"), I("x")))
C("fmin", lambda: aten.fmin(I("nanx"), I("x")))
C("hypot", lambda: aten.hypot(I("x"), I("y")))
C("copysign", lambda: aten.copysign(I("x"), I("y")))
C("nextafter", lambda: aten.nextafter(I("x"), I("y")))
C("logaddexp", lambda: aten.logaddexp(I("x"), I("y")))
C("logaddexp2", lambda: aten.logaddexp2(I("x"), I("y")))
C("xlogy", lambda: aten.xlogy.Tensor(I("x"), I("p")))
C("special_xlogy", lambda: aten.special_xlogy(I("x"), I("p")))
C("special_xlog1py", lambda: aten.special_xlog1py(I("x"), I("p")))
C("special_zeta", lambda: aten.special_zeta(I("g"), I("p")))
C("ldexp", lambda: aten.ldexp.Tensor(I("x"), I("sh")))
C("lerp", lambda: aten.lerp.Scalar(I("x"), I("y"), 0.25))
C("lerp_tensor", lambda: aten.lerp.Tensor(I("x"), I("y"), I("q")))
C("heaviside", lambda: aten.heaviside(I("x"), I("y")))
C("gcd", lambda: aten.gcd(I("ii"), I("jj")))
C("lcm", lambda: aten.lcm(I("ii"), I("jj")))
C("igamma", lambda: aten.igamma(I("p"), I("g")))
C("igammac", lambda: aten.igammac(I("p"), I("g")))
C("bitwise_and", lambda: aten.bitwise_and.Scalar(I("ii"), 6))
C("bitwise_and_tensor", lambda: aten.bitwise_and.Tensor(I("ii"), I("jj")))
C("bitwise_or", lambda: aten.bitwise_or.Scalar(I("ii"), 3))
C("bitwise_or_tensor", lambda: aten.bitwise_or.Tensor(I("ii"), I("jj")))
C("bitwise_xor", lambda: aten.bitwise_xor.Scalar(I("ii"), 5))
C("bitwise_xor_tensor", lambda: aten.bitwise_xor.Tensor(I("ii"), I("jj")))
C("bitwise_left_shift", lambda: aten.bitwise_left_shift.Tensor(I("jj"), I("sh")))
C("bitwise_right_shift", lambda: aten.bitwise_right_shift.Tensor(I("ii"), I("sh")))
C("bitwise_and_bool", lambda: aten.bitwise_and.Tensor(I("mask"), I("mask2")))
C("logical_and", lambda: aten.logical_and(I("mask"), I("mask2")))
C("logical_or", lambda: aten.logical_or(I("mask"), I("mask2")))
C("logical_xor", lambda: aten.logical_xor(I("x"), I("mask2")))
C("eq", lambda: aten.eq.Scalar(I("x"), 0.5))
C("eq_tensor", lambda: aten.eq.Tensor(I("ii"), I("jj")))
C("ne", lambda: aten.ne.Scalar(I("x"), 0.5))
C("ne_tensor", lambda: aten.ne.Tensor(I("ii"), I("jj")))
C("lt", lambda: aten.lt.Scalar(I("x"), 0))
C("lt_tensor", lambda: aten.lt.Tensor(I("x"), I("y")))
C("le", lambda: aten.le.Scalar(I("x"), 0.25))
C("le_tensor", lambda: aten.le.Tensor(I("x"), I("y")))
C("gt", lambda: aten.gt.Scalar(I("x"), 0))
C("gt_tensor", lambda: aten.gt.Tensor(I("x"), I("y")))
C("ge", lambda: aten.ge.Scalar(I("x"), 0.25))
C("ge_tensor", lambda: aten.ge.Tensor(I("x"), I("y")))
C("greater", lambda: aten.greater.Scalar(I("x"), 1))
C("less", lambda: aten.less.Scalar(I("x"), 1))
C("greater_equal", lambda: aten.greater_equal.Scalar(I("ii"), 3))
C("less_equal", lambda: aten.less_equal.Scalar(I("ii"), 3))
C("not_equal", lambda: aten.not_equal.Scalar(I("ii"), 3))
C("isclose", lambda: aten.isclose(I("x"), I("y"), 0.0, 1.0))
C("isclose_nan", lambda: aten.isclose(I("nanx"), I("nanx"), equal_nan=True))
C("isin", lambda: aten.isin.Tensor_Tensor(I("ii"), I("jj")))
C("isin_invert", lambda: aten.isin.Tensor_Tensor(I("ii"), I("jj"), invert=True))
C("clamp", lambda: aten.clamp(I("x"), -1, 1))
C("clamp_min_only", lambda: aten.clamp(I("x"), min=0.5))
C("clamp_tensor", lambda: aten.clamp.Tensor(I("x"), I("u"), I("p")))
C("clamp_min", lambda: aten.clamp_min(I("x"), 0))
C("clamp_max", lambda: aten.clamp_max(I("x"), 0.5))
C("clip", lambda: aten.clip(I("x"), -0.5, 0.5))
C("addcmul", lambda: aten.addcmul(I("x"), I("y"), I("p"), value=0.5))
C("addcdiv", lambda: aten.addcdiv(I("x"), I("y"), I("p"), value=2))
C("dist", lambda: aten.dist(I("x"), I("y"), 3))
C("where_self", lambda: aten.where.self(I("mask"), I("x"), I("y")))
C("where_scalar", lambda: aten.where.Scalar(I("mask"), 1.0, -1.0))
C("where_scalar_other", lambda: aten.where.ScalarOther(I("mask"), I("x"), 0.0))
C("complex", lambda: aten.complex(I("x"), I("y")))
C("polar", lambda: aten.polar(I("p"), I("x")))
C("view_as_real", lambda: aten.view_as_real(aten.complex(I("x"), I("y"))))
C("view_as_complex", lambda: aten.view_as_complex(I("b3")))
C("real_imag", lambda: (aten.real(aten.complex(I("x"), I("y"))), aten.imag(aten.complex(I("x"), I("y")))))
C("type_as", lambda: I("x").type_as(I("ii")))
C("view_dtype", lambda: I("x").view(torch.int32))

# ---------------------------------------------------------------------------
# Reductions, with their dim, keepdim and dtype options.

C("sum", lambda: aten.sum(I("x")))
C("sum_dtype", lambda: aten.sum(I("ii"), dtype=f64))
C("sum_dim", lambda: aten.sum.dim_IntList(I("x"), [1], True))
C("sum_dims_dtype", lambda: aten.sum.dim_IntList(I("b1"), [0, 2], False, dtype=f64))
C("sum_to_size", lambda: I("b1").sum_to_size([3, 1]))
C("nansum", lambda: aten.nansum(I("nan1")))
C("nanmean", lambda: aten.nanmean(I("nan1"), [1]))
C("mean", lambda: aten.mean(I("x")))
C("mean_dim", lambda: aten.mean.dim(I("b1"), [0, 2], True))
C("prod", lambda: aten.prod(I("p")))
C("prod_dim", lambda: aten.prod.dim_int(I("p"), 1, True))
C("std", lambda: aten.std(I("x")))
C("std_biased", lambda: aten.std(I("x"), False))
C("std_dim", lambda: aten.std.dim(I("x"), [1], False, True))
C("std_correction", lambda: aten.std.correction(I("x"), [0], correction=0))
C("var", lambda: aten.var(I("x")))
C("var_dim", lambda: aten.var.dim(I("x"), [0], True))
C("var_correction", lambda: aten.var.correction(I("x"), None, correction=2))
C("std_mean", lambda: aten.std_mean(I("x")))
C("std_mean_dim", lambda: aten.std_mean.dim(I("x"), [1], True, True))
C("std_mean_correction", lambda: aten.std_mean.correction(I("x"), [0], correction=2))
C("var_mean", lambda: aten.var_mean(I("x"), False))
C("var_mean_dim", lambda: aten.var_mean.dim(I("x"), [1]))
C("var_mean_correction_none", lambda: aten.var_mean.correction(I("x"), None, correction=None))
C("max_dim", lambda: aten.max.dim(I("x"), 1))
C("max_dim_keepdim", lambda: aten.max.dim(I("x"), 0, True))
C("min_dim", lambda: aten.min.dim(I("x"), 1))
C("amax", lambda: aten.amax(I("x"), [0]))
C("amin", lambda: aten.amin(I("b1"), [0, 2]))
C("aminmax", lambda: aten.aminmax(I("x"), dim=1, keepdim=True))
C("aminmax_all", lambda: aten.aminmax(I("x")))
C("argmax", lambda: aten.argmax(I("x")))
C("argmax_dim", lambda: aten.argmax(I("x"), 1, True))
C("argmin", lambda: aten.argmin(I("x"), 0))
C("logsumexp", lambda: aten.logsumexp(I("x"), [1]))
C("special_logsumexp", lambda: aten.special_logsumexp(I("x"), [0], True))
C("norm_scalar", lambda: aten.norm.Scalar(I("x"), 3))
C("norm_default", lambda: aten.norm.Scalar(I("x")))
C("norm_dim", lambda: aten.norm.ScalarOpt_dim(I("x"), 1, [1], True))
C("norm_dtype", lambda: aten.norm.ScalarOpt_dtype(I("x"), 2, dtype=f64))
C("all_dim", lambda: aten.all.dim(I("mask"), 1))
C("any_dim", lambda: aten.any.dim(I("mask"), 0, True))
C("count_nonzero", lambda: aten.count_nonzero(I("sh")))
C("count_nonzero_dim", lambda: aten.count_nonzero(I("sh"), 0))
C("median_dim", lambda: aten.median.dim(I("x"), 1))
C("nanmedian_dim", lambda: aten.nanmedian.dim(I("nan1"), 1))
C("mode", lambda: aten.mode(I("uniq")))
C("kthvalue", lambda: aten.kthvalue(I("x"), 2, 1))
C("cumsum", lambda: aten.cumsum(I("x"), 1))
C("cumsum_dtype", lambda: aten.cumsum(I("ii"), 0, dtype=f64))
C("cumprod", lambda: aten.cumprod(I("x"), 0))
C("cummax", lambda: aten.cummax(I("x"), 1))
C("cummin", lambda: aten.cummin(I("x"), 0))
C("logcumsumexp", lambda: aten.logcumsumexp(I("x"), 1))
C("quantile", lambda: aten.quantile(I("x"), I("qq"), 1))
C("quantile_scalar", lambda: aten.quantile.scalar(I("x"), 0.3, interpolation="nearest"))
C("nanquantile", lambda: aten.nanquantile(I("nan1"), I("qq"), 1, True))
C("linalg_vector_norm", lambda: aten.linalg_vector_norm(I("x"), 1, [1]))
C("nuclear_norm", lambda: aten.nuclear_norm(I("x")))
C("diff", lambda: aten.diff(I("x")))
C("diff_prepend", lambda: aten.diff(I("x"), 2, 0, I("y")))
C("renorm", lambda: aten.renorm(I("x"), 2, 0, 1.0))
C("histc", lambda: aten.histc(I("x"), 4, -3, 3))
C("bincount", lambda: aten.bincount(I("cnt")))
C("bincount_minlength", lambda: aten.bincount(I("cnt"), None, 6))
C("unique2", lambda: aten._unique2(I("uniq"), True, True, True))
C("unique_consecutive", lambda: aten.unique_consecutive(I("uniq"), True, True))
C("unique_dim", lambda: aten.unique_dim(I("dup"), 0, return_counts=True))
C("sort", lambda: aten.sort(I("x")))
C("sort_desc", lambda: aten.sort(I("x"), 0, True))
C("sort_stable", lambda: aten.sort.stable(I("uniq"), stable=True))
C("argsort", lambda: aten.argsort(I("x"), 1, True))
C("argsort_stable", lambda: aten.argsort.stable(I("uniq"), stable=True))
C("topk", lambda: aten.topk(I("sortv"), 3))
C("topk_smallest", lambda: aten.topk(I("x"), 2, 1, False))
C("searchsorted", lambda: aten.searchsorted.Tensor(I("bounds"), I("x")))
C("searchsorted_right", lambda: aten.searchsorted.Tensor(I("bounds"), I("x"), right=True, out_int32=True))
C("searchsorted_scalar", lambda: aten.searchsorted.Scalar(I("bounds"), 1.0))
C("bucketize", lambda: aten.bucketize.Tensor(I("x"), I("bounds")))
C("trapz", lambda: aten.trapz.x(I("x"), I("w")))
C("trapezoid", lambda: aten.trapezoid.x(I("x"), I("w"), dim=1))
C("cumulative_trapezoid", lambda: aten.cumulative_trapezoid.x(I("x"), I("w")))
C("cov", lambda: aten.cov(I("x")))
C("cov_correction", lambda: aten.cov(I("x"), correction=0))
C("histogram", lambda: aten.histogram.bins_tensor(I("x"), I("bounds")))
C("histogram_bin_ct", lambda: aten.histogram.bin_ct(I("x"), 4, range=[-3.0, 3.0]))
# Mixed tuple (Tensor, Tensor[]).
C("histogramdd", lambda: aten.histogramdd(I("m43"), [2, 2, 2]))
C("histogramdd_range", lambda: aten.histogramdd(I("m43"), [2, 1, 2], [-1.0, 2.0, 0.0, 3.0, -1.0, 2.0], None, True))

# ---------------------------------------------------------------------------
# Shape ops.

C("reshape", lambda: aten.reshape(I("x"), [2, 6]))
C("view", lambda: aten.view(I("x"), [4, 3]))
C("permute", lambda: aten.permute(I("b1"), [2, 0, 1]))
C("transpose", lambda: aten.transpose.int(I("b1"), 0, 2))
C("flatten", lambda: aten.flatten.using_ints(I("b1"), 1))
C("unflatten", lambda: aten.unflatten.int(I("x"), 1, [2, 2]))
C("squeeze_dim", lambda: aten.squeeze.dim(I("img"), 0))
C("unsqueeze", lambda: aten.unsqueeze(I("x"), 1))
C("expand", lambda: I("v").expand([3, 4]))
C("expand_as", lambda: I("v").expand_as(I("x")))
C("repeat", lambda: I("v").repeat([2, 1]))
C("repeat_interleave", lambda: aten.repeat_interleave.Tensor(I("rep")))
C("repeat_interleave_self_int", lambda: aten.repeat_interleave.self_int(I("x"), 2, 1))
C("tile", lambda: aten.tile(I("x"), [2]))
C("flip", lambda: aten.flip(I("x"), [0, 1]))
C("roll", lambda: aten.roll(I("x"), [1], [1]))
C("roll_flat", lambda: aten.roll(I("x"), [5]))
C("rot90", lambda: aten.rot90(I("x")))
C("rot90_k", lambda: aten.rot90(I("b1"), 3, [1, 2]))
C("narrow", lambda: aten.narrow(I("x"), 1, 1, 2))
C("select", lambda: aten.select.int(I("x"), 0, 1))
C("slice", lambda: aten.slice.Tensor(I("x"), 1, 1, 4, 2))
C("slice_default", lambda: aten.slice.Tensor(I("x"), 0, 1))
C("cat", lambda: aten.cat([I("x"), I("y")], 1))
C("cat_default", lambda: aten.cat([I("x"), I("y")]))
C("concat", lambda: aten.concat([I("x"), I("y")], 0))
C("concatenate", lambda: aten.concatenate([I("x"), I("y")], 1))
C("stack", lambda: aten.stack([I("x"), I("y")], 2))
C("hstack", lambda: aten.hstack([I("x"), I("y")]))
C("vstack", lambda: aten.vstack([I("v"), I("w")]))
C("dstack", lambda: aten.dstack([I("x"), I("y")]))
C("column_stack", lambda: aten.column_stack([I("v"), I("w")]))
C("row_stack", lambda: aten.row_stack([I("v"), I("w")]))
C("split", lambda: aten.split.Tensor(I("x"), 3, 1))
C("split_sizes", lambda: aten.split.sizes(I("x"), [1, 2]))
C("split_with_sizes", lambda: aten.split_with_sizes(I("x"), [1, 3], 1))
C("unsafe_split", lambda: aten.unsafe_split.Tensor(I("x"), 2))
C("tensor_split", lambda: aten.tensor_split.sections(I("x"), 3, 1))
C("tensor_split_indices", lambda: aten.tensor_split.indices(I("x"), [1, 2]))
C("unbind", lambda: aten.unbind.int(I("x")))
C("unbind_dim", lambda: aten.unbind.int(I("x"), 1))
C("chunk", lambda: aten.chunk(I("x"), 2, 1))
C("unsafe_chunk", lambda: aten.unsafe_chunk(I("x"), 3))
C("hsplit", lambda: aten.hsplit.int(I("x"), 2))
C("vsplit", lambda: aten.vsplit.int(I("x"), 3))
C("dsplit", lambda: aten.dsplit.int(I("b1"), 2))
C("hsplit_array", lambda: aten.hsplit.array(I("x"), [1, 3]))
C("meshgrid", lambda: aten.meshgrid(([I("v3"), I("v2")])))
C("meshgrid_xy", lambda: aten.meshgrid.indexing([I("v3"), I("v2")], indexing="xy"))
C("broadcast_tensors", lambda: aten.broadcast_tensors([I("v"), I("x")]))
C("nonzero_numpy", lambda: aten.nonzero_numpy(I("mask")))
C("where_cond", lambda: aten.where(I("mask")))
C("movedim", lambda: aten.movedim.intlist(I("b1"), [0], [2]))
C("movedim_int", lambda: aten.movedim.int(I("b1"), 0, 1))
C("moveaxis", lambda: aten.moveaxis.intlist(I("b1"), [0, 1], [2, 0]))
C("swapaxes", lambda: aten.swapaxes(I("b1"), 0, 1))
C("swapdims", lambda: aten.swapdims(I("b1"), 1, 2))
C("diag", lambda: aten.diag(I("v")))
C("diag_k", lambda: aten.diag(I("x"), 1))
C("diagonal", lambda: aten.diagonal(I("x"), 1))
C("diagonal_dims", lambda: aten.diagonal(I("b1"), 0, 1, 2))
C("diag_embed", lambda: aten.diag_embed(I("x")))
C("diagflat", lambda: aten.diagflat(I("v3"), 1))
C("tril", lambda: aten.tril(I("x"), -1))
C("triu", lambda: aten.triu(I("x")))
C("tril_indices", lambda: aten.tril_indices(3, 4, 1))
C("triu_indices", lambda: aten.triu_indices(3, 3))
C("contiguous", lambda: I("x").t().contiguous())
C("view_as", lambda: I("x").view_as(I("m43")))
C("reshape_as", lambda: I("x").reshape_as(I("m43")))
C("broadcast_to", lambda: aten.broadcast_to(I("v"), [2, 4]))
C("block_diag", lambda: aten.block_diag([I("sq2"), I("bm")]))
C("cartesian_prod", lambda: aten.cartesian_prod([I("v3"), I("v2")]))
C("combinations", lambda: aten.combinations(I("v")))
C("combinations_r3", lambda: aten.combinations(I("v3"), 3, True))
C("unfold", lambda: I("v").unfold(0, 2, 1))
C("as_strided", lambda: aten.as_strided(I("x"), [2, 2], [1, 2]))
C("as_strided_offset", lambda: aten.as_strided(I("x"), [2, 2], [4, 1], 5))
C("pad", lambda: aten.pad(I("x"), [1, 1], "constant", 0.5))
C("pad_reflect", lambda: aten.pad(I("sig1"), [2, 1], "reflect"))
C("constant_pad_nd", lambda: aten.constant_pad_nd(I("x"), [1, 2], 9))
C("reflection_pad1d", lambda: aten.reflection_pad1d(I("sig1"), [2, 1]))
C("reflection_pad2d", lambda: aten.reflection_pad2d(I("img"), [1, 1, 1, 1]))
C("replication_pad2d", lambda: aten.replication_pad2d(I("img"), [1, 0, 2, 1]))
C("pixel_shuffle", lambda: aten.pixel_shuffle(I("ps"), 2))
C("pixel_unshuffle", lambda: aten.pixel_unshuffle(I("ps4"), 2))
C("channel_shuffle", lambda: aten.channel_shuffle(I("img4"), 3))
C("fill", lambda: aten.fill.Scalar(I("x"), 1.5))
C("fft_fft", lambda: aten.fft_fft(I("v")))
C("fft_ifft_n", lambda: aten.fft_ifft(I("v"), 6, norm="ortho"))
C("fft_rfft", lambda: aten.fft_rfft(I("x"), dim=0))
C("fft_irfft", lambda: aten.fft_irfft(aten.fft_rfft(I("v"))))
C("fft_fftfreq", lambda: aten.fft_fftfreq(5, 0.5))
C("fft_fftshift", lambda: aten.fft_fftshift(I("x")))

# ---------------------------------------------------------------------------
# Factories.

C("zeros", lambda: aten.zeros([2, 3]))
C("zeros_device_layout", lambda: aten.zeros([2], dtype=f64, layout=torch.strided, device="cpu"))
C("zeros_int", lambda: aten.zeros([2], dtype=i64))
C("ones", lambda: aten.ones([2, 3], dtype=f64))
C("full", lambda: aten.full([2, 2], 3.5))
C("full_int", lambda: aten.full([3], 7))
# torch.ops.aten turns a Python bool into an int Scalar (bool is an int to
# its argument parser); torch.full keeps it a bool, as at::full does.
C("full_bool", lambda: torch.full([2], True))
C("empty", lambda: ShapeOnly(aten.empty([2, 3])))
C("empty_like", lambda: ShapeOnly(aten.empty_like(I("ii"))))
C("arange", lambda: aten.arange(5))
C("arange_float", lambda: aten.arange(2.5))
C("arange_start_step", lambda: aten.arange.start_step(1, 2, 0.25))
C("arange_start", lambda: aten.arange.start(-2, 3, dtype=f64))
C("linspace", lambda: aten.linspace(0, 1, 5))
C("logspace", lambda: aten.logspace(0, 2, 3, 2.0))
C("eye", lambda: aten.eye(3))
C("eye_m", lambda: aten.eye.m(2, 3, dtype=i64))
C("scalar_tensor", lambda: aten.scalar_tensor(2.5, dtype=f64))
C("zeros_like", lambda: aten.zeros_like(I("x")))
C("ones_like", lambda: aten.ones_like(I("x"), dtype=i64))
C("full_like", lambda: aten.full_like(I("ii"), 7))
C("new_zeros", lambda: I("ii").new_zeros([2]))
C("new_ones", lambda: I("x").new_ones([2, 1]))
C("new_full", lambda: I("x").new_full([3], -2.0))
C("new_empty", lambda: ShapeOnly(I("ii").new_empty([2, 2])))
C("vander", lambda: aten.vander(I("v3"), 4, True))
C("linalg_vander", lambda: aten.linalg_vander(I("v3")))

# ---------------------------------------------------------------------------
# Linear algebra.

C("mm", lambda: aten.mm(I("x"), I("m43")))
C("matmul", lambda: aten.matmul(I("b1"), I("b2")))
C("matmul_vec", lambda: aten.matmul(I("x"), I("v")))
C("linalg_matmul", lambda: aten.linalg_matmul(I("x"), I("m43")))
C("bmm", lambda: aten.bmm(I("b1"), I("b2")))
C("mv", lambda: aten.mv(I("x"), I("v")))
C("dot", lambda: aten.dot(I("v"), I("w")))
C("vdot", lambda: aten.vdot(I("v"), I("w")))
C("inner", lambda: aten.inner(I("x"), I("y")))
C("outer", lambda: aten.outer(I("v"), I("w")))
C("ger", lambda: aten.ger(I("v3"), I("w")))
C("cross", lambda: aten.cross(I("v3"), I("w3"), 0))
C("linalg_cross", lambda: aten.linalg_cross(I("v3"), I("w3")))
C("kron", lambda: aten.kron(I("sq2"), I("bm")))
C("addmm", lambda: aten.addmm(I("a"), I("x"), I("m43"), beta=0.5, alpha=2))
C("addmv", lambda: aten.addmv(I("v3"), I("x"), I("v")))
C("addbmm", lambda: aten.addbmm(I("bm"), I("b1"), I("b2")))
C("baddbmm", lambda: aten.baddbmm(I("b3"), I("b1"), I("b2"), beta=2))
C("addr", lambda: aten.addr(I("x"), I("v3"), I("v"), alpha=0.5))
C("slogdet", lambda: aten.slogdet(I("a")))
C("linalg_slogdet", lambda: aten.linalg_slogdet(I("a")))
C("linalg_inv_ex", lambda: aten.linalg_inv_ex(I("a")))
C("linalg_solve", lambda: aten.linalg_solve(I("a"), I("bm")))
C("linalg_solve_ex", lambda: aten.linalg_solve_ex(I("a"), I("bm")))
C("cholesky", lambda: aten.cholesky(I("a")))
C("cholesky_upper", lambda: aten.cholesky(I("a"), True))
C("linalg_cholesky", lambda: aten.linalg_cholesky(I("a")))
C("linalg_cholesky_ex", lambda: aten.linalg_cholesky_ex(I("a")))
C("cholesky_solve", lambda: aten.cholesky_solve(I("bm"), aten.linalg_cholesky(I("a"))))
C("cholesky_inverse", lambda: aten.cholesky_inverse(aten.linalg_cholesky(I("a"))))
C("qr", lambda: aten.qr(I("a")))
C("linalg_qr", lambda: aten.linalg_qr(I("m43")))
C("linalg_qr_complete", lambda: aten.linalg_qr(I("m43"), "complete"))
C("linalg_svdvals", lambda: aten.linalg_svdvals(I("x")))
C("linalg_svd", lambda: aten.linalg_svd(I("a")))
C("svd", lambda: aten.svd(I("a")))
C("linalg_eigvalsh", lambda: aten.linalg_eigvalsh(I("a")))
C("linalg_eigh", lambda: aten.linalg_eigh(I("a")))
C("linalg_norm", lambda: aten.linalg_norm(I("x")))
C("linalg_norm_ord", lambda: aten.linalg_norm(I("x"), 1, [1]))
C("linalg_matrix_norm", lambda: aten.linalg_matrix_norm(I("x"), 1))
C("matrix_power", lambda: aten.matrix_power(I("a"), 3))
C("linalg_matrix_power", lambda: aten.linalg_matrix_power(I("a"), -1))
C("linalg_matrix_rank", lambda: aten.linalg_matrix_rank(I("x"), 1e-5))
C("pinverse", lambda: aten.pinverse(I("x")))
C("linalg_pinv", lambda: aten.linalg_pinv(I("a"), 1e-15, True))
C("chain_matmul", lambda: aten.chain_matmul([I("x"), I("m43"), I("a")]))
C("linalg_multi_dot", lambda: aten.linalg_multi_dot([I("x"), I("m43"), I("a")]))
C("einsum", lambda: aten.einsum("ij,jk->ik", [I("x"), I("m43")]))
C("einsum_trace", lambda: aten.einsum("ii", [I("a")]))
C("tensordot", lambda: aten.tensordot(I("x"), I("m43"), [1], [0]))
C("triangular_solve", lambda: aten.triangular_solve(I("bm"), I("ut")))
C("linalg_solve_triangular", lambda: aten.linalg_solve_triangular(I("ut"), I("bm"), upper=True))
C("linalg_lstsq", lambda: aten.linalg_lstsq(I("m43"), I("b42")))
C("linalg_lu_factor", lambda: aten.linalg_lu_factor(I("a")))
C("linalg_lu", lambda: aten.linalg_lu(I("a")))
C("lu_unpack", lambda: aten.lu_unpack(*aten.linalg_lu_factor(I("a"))))
C("linalg_vecdot", lambda: aten.linalg_vecdot(I("x"), I("y")))
C("linalg_diagonal", lambda: aten.linalg_diagonal(I("x")))
C("linalg_cond", lambda: aten.linalg_cond(I("a")))
C("geqrf", lambda: aten.geqrf(I("a")))
C("orgqr", lambda: aten.orgqr(*aten.geqrf(I("a"))))
C("linalg_householder_product", lambda: aten.linalg_householder_product(*aten.geqrf(I("a"))))
C("linalg_ldl_factor", lambda: aten.linalg_ldl_factor(I("a")))
C("cdist", lambda: aten.cdist(I("x"), I("y")))
C("cdist_p1", lambda: aten.cdist(I("x"), I("m43").t().contiguous(), 1.0))
C("pdist", lambda: aten.pdist(I("x")))
C("cosine_similarity", lambda: aten.cosine_similarity(I("x"), I("y")))
C("pairwise_distance", lambda: aten.pairwise_distance(I("x"), I("y"), keepdim=True))

# ---------------------------------------------------------------------------
# Neural network ops.

C("linear", lambda: aten.linear(I("m43"), I("lw"), I("lb")))
C("linear_nobias", lambda: aten.linear(I("m43"), I("lw")))
C("bilinear", lambda: aten.bilinear(I("bm"), I("a"), I("bw"), I("bconv")))
C("conv2d", lambda: aten.conv2d(I("img"), I("wconv"), I("bconv"), padding=[1, 1]))
C("conv2d_stride", lambda: aten.conv2d(I("img"), I("wconv"), None, [2, 2]))
C("conv1d", lambda: aten.conv1d(I("sig1"), I("w1d")))
C("conv_transpose1d", lambda: aten.conv_transpose1d(I("sig1"), I("w1d"), stride=[2]))
C("conv_transpose2d", lambda: aten.conv_transpose2d.input(I("img"), I("wct"), I("pw2")[:1]))
C("convolution", lambda: aten.convolution(I("img"), I("wconv"), I("bconv"), [1, 1], [0, 0], [1, 1], False, [0, 0], 1))
C("max_pool2d", lambda: aten.max_pool2d(I("img"), [2, 2]))
C("max_pool2d_stride", lambda: aten.max_pool2d(I("img"), [3, 3], [1, 1], [1, 1], ceil_mode=True))
C("max_pool1d", lambda: aten.max_pool1d(I("sig1"), [2]))
C("max_pool2d_with_indices", lambda: aten.max_pool2d_with_indices(I("img"), [3, 3], [2, 2], [1, 1]))
C("avg_pool1d", lambda: aten.avg_pool1d(I("sig1"), [3], [2]))
C("avg_pool2d", lambda: aten.avg_pool2d(I("img"), [2, 2]))
C("avg_pool2d_pad", lambda: aten.avg_pool2d(I("img"), [3, 3], [2, 2], [1, 1], count_include_pad=False))
C("adaptive_avg_pool1d", lambda: aten.adaptive_avg_pool1d(I("sig1"), [3]))
C("adaptive_avg_pool2d", lambda: aten.adaptive_avg_pool2d(I("img"), [2, 3]))
C("adaptive_max_pool1d", lambda: aten.adaptive_max_pool1d(I("sig1"), [3]))
C("adaptive_max_pool2d", lambda: aten.adaptive_max_pool2d(I("img"), [2, 2]))
C("batch_norm_eval", lambda: aten.batch_norm(I("m43"), I("gam"), I("bet"), I("rm"), I("rv"), False, 0.1, 1e-5, False))
C("batch_norm_train", lambda: aten.batch_norm(I("m43"), I("gam"), I("bet"), None, None, True, 0.1, 1e-5, False))
C("native_batch_norm", lambda: aten.native_batch_norm(I("m43"), I("gam"), I("bet"), I("rm"), I("rv"), True, 0.1, 1e-5))
C("layer_norm", lambda: aten.layer_norm(I("x"), [4], I("v"), I("w")))
C("layer_norm_plain", lambda: aten.layer_norm(I("b1"), [3, 4], eps=1e-3))
C("native_layer_norm", lambda: aten.native_layer_norm(I("x"), [4], I("v"), I("w"), 1e-5))
C("group_norm", lambda: aten.group_norm(I("img4"), 3, I("gam"), I("bet")))
C("native_group_norm", lambda: aten.native_group_norm(I("img4"), I("gam"), I("bet"), 1, 3, 16, 1, 1e-5))
C("instance_norm", lambda: aten.instance_norm(I("img4"), I("gam"), I("bet"), None, None, True, 0.1, 1e-5, False))
C("softmax", lambda: aten.softmax.int(I("x"), 1))
C("softmax_dtype", lambda: aten.softmax.int(I("x"), 0, f64))
C("log_softmax", lambda: aten.log_softmax.int(I("x"), 1))
C("internal_softmax", lambda: aten._softmax(I("x"), 0, False))
C("internal_log_softmax", lambda: aten._log_softmax(I("x"), 1, False))
C("special_softmax", lambda: aten.special_softmax(I("x"), 1))
C("special_log_softmax", lambda: aten.special_log_softmax(I("x"), 0))
C("cross_entropy_loss", lambda: aten.cross_entropy_loss(I("logits"), I("target")))
C("cross_entropy_loss_opts", lambda: aten.cross_entropy_loss(I("logits"), I("target"), I("cw"), 2, -100, 0.1))
C("cross_entropy_loss_ignore", lambda: aten.cross_entropy_loss(I("logits"), I("target"), None, 0, 0))
C("nll_loss", lambda: aten.nll_loss(aten.log_softmax.int(I("logits"), 1), I("target")))
C("nll_loss_none", lambda: aten.nll_loss(aten.log_softmax.int(I("logits"), 1), I("target"), I("cw"), 0))
C("nll_loss_nd", lambda: aten.nll_loss_nd(aten.log_softmax.int(I("logits"), 1), I("target"), reduction=2))
C("nll_loss2d", lambda: aten.nll_loss2d(aten.log_softmax.int(I("img4"), 1), I("tmap")))
C("mse_loss", lambda: aten.mse_loss(I("x"), I("y")))
C("mse_loss_none", lambda: aten.mse_loss(I("x"), I("y"), 0))
C("l1_loss", lambda: aten.l1_loss(I("x"), I("y"), 2))
C("smooth_l1_loss", lambda: aten.smooth_l1_loss(I("x"), I("y"), beta=0.5))
C("huber_loss", lambda: aten.huber_loss(I("x"), I("y"), delta=0.5))
C("binary_cross_entropy", lambda: aten.binary_cross_entropy(I("q"), I("lbl")))
C("binary_cross_entropy_with_logits", lambda: aten.binary_cross_entropy_with_logits(I("x"), I("lbl"), None, I("v")))
C("kl_div", lambda: aten.kl_div(aten.log(I("q")), I("lbl"), 2))
C("margin_ranking_loss", lambda: aten.margin_ranking_loss(I("v"), I("w"), I("pm4"), 0.5))
C("hinge_embedding_loss", lambda: aten.hinge_embedding_loss(I("x"), I("pm1")))
C("soft_margin_loss", lambda: aten.soft_margin_loss(I("x"), I("pm1")))
C("cosine_embedding_loss", lambda: aten.cosine_embedding_loss(I("x"), I("y"), I("pm3")))
C("triplet_margin_loss", lambda: aten.triplet_margin_loss(I("x"), I("y"), I("p")))
C("poisson_nll_loss", lambda: aten.poisson_nll_loss(I("x"), I("p"), True, False, 1e-8, 1))
C("multi_margin_loss", lambda: aten.multi_margin_loss(I("logits"), I("target")))
C("ctc_loss", lambda: aten.ctc_loss.IntList(I("lp"), I("ctgt"), [5], [2]))
C("embedding", lambda: aten.embedding(I("emb"), I("eidx")))
C("embedding_bag", lambda: aten.embedding_bag(I("emb"), I("bidx"), I("boff"))[:1])
C("embedding_bag_mean", lambda: aten.embedding_bag(I("emb"), I("bidx"), I("boff"), mode=1)[0])
C("dropout_p0", lambda: aten.dropout(I("x"), 0.0, True))
C("dropout_eval", lambda: aten.dropout(I("x"), 0.5, False))
C("feature_dropout_eval", lambda: aten.feature_dropout(I("img"), 0.5, False))
C("alpha_dropout_eval", lambda: aten.alpha_dropout(I("x"), 0.5, False))
C("native_dropout_eval", lambda: aten.native_dropout(I("x"), 0.5, False))
C("one_hot", lambda: aten.one_hot(I("target"), 5))
C("one_hot_infer", lambda: aten.one_hot(I("target")))
C("prelu", lambda: aten.prelu(I("img"), I("pw2")))
C("grid_sampler", lambda: aten.grid_sampler(I("img"), I("grid"), 0, 0, False))
C("grid_sampler_2d", lambda: aten.grid_sampler_2d(I("img"), I("grid"), 1, 1, True))
C("affine_grid_generator", lambda: aten.affine_grid_generator(I("theta"), [1, 1, 2, 3], False))
C("im2col", lambda: aten.im2col(I("img"), [2, 2], [1, 1], [0, 0], [1, 1]))
C("col2im", lambda: aten.col2im(aten.im2col(I("img"), [2, 2], [1, 1], [0, 0], [1, 1]), [5, 5], [2, 2], [1, 1], [0, 0], [1, 1]))
C("upsample_nearest2d", lambda: aten.upsample_nearest2d(I("img"), [7, 10]))
C("upsample_bilinear2d", lambda: aten.upsample_bilinear2d(I("img"), [7, 7], False))
C("lstm_cell", lambda: aten.lstm_cell(I("xin2"), [I("h3"), I("c3")], I("wih4"), I("whh4")))
C("gru_cell", lambda: aten.gru_cell(I("xin2"), I("h3"), I("wih9"), I("whh9"), I("vals3").repeat(3)))
C("rnn_tanh_cell", lambda: aten.rnn_tanh_cell(I("xin2"), I("h3"), I("wih"), I("whh")))
C("rnn_relu_cell", lambda: aten.rnn_relu_cell(I("xin2"), I("h3"), I("wih"), I("whh")))
# float[]? arguments: upsampling by scale factors, output size None.
C("upsample_nearest2d_vec", lambda: aten.upsample_nearest2d.vec(I("img"), None, [2.0, 1.5]))
C("upsample_bilinear2d_vec", lambda: aten.upsample_bilinear2d.vec(I("img"), None, True, [1.5, 2.0]))
C("upsample_bicubic2d_vec", lambda: aten.upsample_bicubic2d.vec(I("img"), [6, 4], False, None))
C("upsample_nearest1d_vec", lambda: aten.upsample_nearest1d.vec(I("sig1"), [12], None))
# bool[3] output masks: the masked-out gradients come back undefined.
def _nln_backward():
    out, mean, rstd = aten.native_layer_norm(I("x"), [4], I("v"), I("w"), 1e-5)
    return aten.native_layer_norm_backward(I("y"), I("x"), [4], mean, rstd, I("v"), I("w"), [True, False, True])


C("native_layer_norm_backward", _nln_backward)


def _nbn_backward():
    out, sm, si = aten.native_batch_norm(I("m43"), I("gam"), I("bet"), None, None, True, 0.1, 1e-5)
    g = aten.ones_like(out)
    return aten.native_batch_norm_backward(g, I("m43"), I("gam"), None, None, sm, si, True, 1e-5, [False, True, True])


C("native_batch_norm_backward", _nbn_backward)


def _ngn_backward():
    out, mean, rstd = aten.native_group_norm(I("img4"), I("gam"), I("bet"), 1, 3, 16, 3, 1e-5)
    return aten.native_group_norm_backward(aten.ones_like(out), I("img4"), mean, rstd, I("gam"), 1, 3, 16, 3, [True, True, False])


C("native_group_norm_backward", _ngn_backward)
# Mixed tuple (Tensor, Tensor, Tensor, Tensor, int).
C("batch_norm_impl_index", lambda: aten._batch_norm_impl_index(I("m43"), I("gam"), I("bet"), None, None, True, 0.1, 1e-5, False)[:3] + (aten._batch_norm_impl_index(I("m43"), I("gam"), I("bet"), None, None, True, 0.1, 1e-5, False)[4],))
# Scalar[] arguments.
C("gradient_scalar_list", lambda: aten.gradient.scalarrayint(I("x"), spacing=[2.0], dim=1))
C("gradient_scalar_list_dims", lambda: aten.gradient.scalarrayarray(I("x"), spacing=[2.0, 0.5], dim=[0, 1], edge_order=2))

# ---------------------------------------------------------------------------
# Indexing.

C("index_none", lambda: aten.index.Tensor(I("x"), [None, I("idx")]))
C("index_bool", lambda: aten.index.Tensor(I("x"), [I("mask")]))
C("index_pairs", lambda: aten.index.Tensor(I("x"), [I("rows"), I("cols")]))
C("index_put_accumulate", lambda: inplace(I("x"), lambda t: aten.index_put_(t, [I("rows"), I("cols")], I("vals3"), True)))
C("index_put_none", lambda: aten.index_put(I("x"), [None, I("idx")], I("s0")))
C("index_put_bool", lambda: aten.index_put(I("x"), [I("mask")], I("s0")))
C("index_put_impl", lambda: inplace(I("x"), lambda t: aten._index_put_impl_(t, [I("rows"), I("cols")], I("vals3"), True, True)))
C("index_select", lambda: aten.index_select(I("x"), 1, I("idx")))
C("gather", lambda: aten.gather(I("x"), 1, I("gidx")))
C("scatter", lambda: aten.scatter.src(I("x"), 0, I("sidx"), I("y")))
C("scatter_value", lambda: aten.scatter.value(I("x"), 0, I("sidx"), 9.0))
C("scatter_add", lambda: aten.scatter_add(I("x"), 1, I("gidx"), I("y")))
C("scatter_reduce", lambda: aten.scatter.reduce(I("x"), 0, I("sidx"), I("y"), reduce="multiply"))
C("scatter_reduce_two", lambda: aten.scatter_reduce.two(I("x"), 1, I("gidx"), I("y"), "amax"))
C("scatter_reduce_mean", lambda: aten.scatter_reduce.two(I("x"), 1, I("gidx"), I("y"), "mean", include_self=False))
C("masked_fill", lambda: aten.masked_fill.Scalar(I("x"), I("mask"), -9))
C("masked_fill_tensor", lambda: aten.masked_fill.Tensor(I("x"), I("mask"), I("s0")))
C("masked_select", lambda: aten.masked_select(I("x"), I("mask")))
C("masked_scatter", lambda: aten.masked_scatter(I("x"), I("mask"), I("y")))
C("index_add", lambda: aten.index_add(I("x"), 1, I("idx"), I("bm"), alpha=2))
C("index_copy", lambda: aten.index_copy(I("x"), 1, I("idx"), I("bm")))
C("index_fill", lambda: aten.index_fill.int_Scalar(I("x"), 1, I("idx"), -1.0))
C("index_fill_tensor", lambda: aten.index_fill.int_Tensor(I("x"), 1, I("idx"), I("s0")))
C("index_reduce", lambda: aten.index_reduce(I("x"), 1, I("idx"), I("bm"), "prod"))
C("put", lambda: aten.put(I("x"), I("take"), I("v"), True))
C("take", lambda: aten.take(I("x"), I("take")))
C("take_along_dim", lambda: aten.take_along_dim(I("x"), I("gidx"), 1))

# ---------------------------------------------------------------------------
# In-place ops: the Go side checks that each returns its self.

C("add_", lambda: inplace(I("x"), lambda t: t.add_(I("y"), alpha=2)))
C("add_scalar_", lambda: inplace(I("x"), lambda t: aten.add_.Scalar(t, 1)))
C("sub_", lambda: inplace(I("x"), lambda t: t.sub_(I("y"))))
C("mul_", lambda: inplace(I("x"), lambda t: t.mul_(I("y"))))
C("mul_scalar_", lambda: inplace(I("x"), lambda t: aten.mul_.Scalar(t, -2)))
C("div_", lambda: inplace(I("x"), lambda t: t.div_(I("p"))))
C("div_mode_", lambda: inplace(I("x"), lambda t: aten.div_.Tensor_mode(t, I("p"), rounding_mode="floor")))
C("pow_", lambda: inplace(I("x"), lambda t: aten.pow_.Scalar(t, 2)))
C("clamp_", lambda: inplace(I("x"), lambda t: aten.clamp_(t, -1, 1)))
C("clamp_min_", lambda: inplace(I("x"), lambda t: aten.clamp_min_(t, 0)))
C("abs_", lambda: inplace(I("x"), aten.abs_))
C("neg_", lambda: inplace(I("x"), aten.neg_))
C("exp_", lambda: inplace(I("x"), aten.exp_))
C("sin_", lambda: inplace(I("x"), aten.sin_))
C("sqrt_", lambda: inplace(I("p"), aten.sqrt_))
C("rsqrt_", lambda: inplace(I("p"), aten.rsqrt_))
C("log_", lambda: inplace(I("p"), aten.log_))
C("reciprocal_", lambda: inplace(I("x"), aten.reciprocal_))
C("relu_", lambda: inplace(I("x"), aten.relu_))
C("sigmoid_", lambda: inplace(I("x"), aten.sigmoid_))
C("tanh_", lambda: inplace(I("x"), aten.tanh_))
C("floor_", lambda: inplace(I("x"), aten.floor_))
C("ceil_", lambda: inplace(I("x"), aten.ceil_))
C("round_", lambda: inplace(I("x"), aten.round_))
C("trunc_", lambda: inplace(I("x"), aten.trunc_))
C("frac_", lambda: inplace(I("x"), aten.frac_))
C("erf_", lambda: inplace(I("x"), aten.erf_))
C("square_", lambda: inplace(I("x"), aten.square_))
C("fix_", lambda: inplace(I("x"), aten.fix_))
C("sgn_", lambda: inplace(I("x"), aten.sgn_))
C("sign_", lambda: inplace(I("x"), aten.sign_))
C("fill_", lambda: inplace(I("x"), lambda t: aten.fill_.Scalar(t, 0.5)))
C("zero_", lambda: inplace(I("x"), aten.zero_))
C("copy_", lambda: inplace(I("x"), lambda t: t.copy_(I("ii"))))
C("masked_fill_", lambda: inplace(I("x"), lambda t: t.masked_fill_(I("mask"), 0.0)))
C("masked_fill_tensor_", lambda: inplace(I("x"), lambda t: aten.masked_fill_.Tensor(t, I("mask"), I("s0"))))
C("masked_scatter_", lambda: inplace(I("x"), lambda t: t.masked_scatter_(I("mask"), I("y"))))
C("index_put_", lambda: inplace(I("x"), lambda t: aten.index_put_(t, [I("mask")], I("s0"))))
C("scatter_", lambda: inplace(I("x"), lambda t: aten.scatter_.src(t, 0, I("sidx"), I("y"))))
C("scatter_value_", lambda: inplace(I("x"), lambda t: aten.scatter_.value(t, 0, I("sidx"), 7)))
C("scatter_add_", lambda: inplace(I("x"), lambda t: t.scatter_add_(1, I("gidx"), I("y"))))
C("index_add_", lambda: inplace(I("x"), lambda t: t.index_add_(1, I("idx"), I("bm"))))
C("index_copy_", lambda: inplace(I("x"), lambda t: t.index_copy_(1, I("idx"), I("bm"))))
C("index_fill_", lambda: inplace(I("x"), lambda t: aten.index_fill_.int_Scalar(t, 1, I("idx"), 5)))
C("put_", lambda: inplace(I("x"), lambda t: t.put_(I("take"), I("v"))))
C("tril_", lambda: inplace(I("x"), lambda t: t.tril_(1)))
C("triu_", lambda: inplace(I("x"), lambda t: t.triu_()))
C("transpose_", lambda: inplace(I("x"), lambda t: t.transpose_(0, 1)))
C("t_", lambda: inplace(I("x"), lambda t: t.t_()))
C("unsqueeze_", lambda: inplace(I("x"), lambda t: t.unsqueeze_(0)))
C("squeeze_", lambda: inplace(I("img"), lambda t: t.squeeze_()))
C("squeeze_dim_", lambda: inplace(I("img"), lambda t: aten.squeeze_.dim(t, 0)))
C("resize_", lambda: inplace(I("x"), lambda t: t.resize_([2, 6])))
C("lerp_", lambda: inplace(I("x"), lambda t: aten.lerp_.Scalar(t, I("y"), 0.5)))
C("addcmul_", lambda: inplace(I("x"), lambda t: t.addcmul_(I("y"), I("p"), value=2)))
C("addcdiv_", lambda: inplace(I("x"), lambda t: t.addcdiv_(I("y"), I("p"))))
C("fmod_", lambda: inplace(I("x"), lambda t: aten.fmod_.Scalar(t, 1.0)))
C("remainder_", lambda: inplace(I("x"), lambda t: aten.remainder_.Scalar(t, 1.0)))
C("atan2_", lambda: inplace(I("x"), lambda t: t.atan2_(I("y"))))
C("hypot_", lambda: inplace(I("x"), lambda t: t.hypot_(I("y"))))
C("leaky_relu_", lambda: inplace(I("x"), lambda t: aten.leaky_relu_(t, 0.1)))
C("hardtanh_", lambda: inplace(I("x"), lambda t: aten.hardtanh_(t, -1.0, 0.5)))
C("elu_", lambda: inplace(I("x"), lambda t: aten.elu_(t)))
C("threshold_", lambda: inplace(I("x"), lambda t: aten.threshold_(t, 0.0, 9.0)))
C("silu_", lambda: inplace(I("x"), aten.silu_))
C("nan_to_num_", lambda: inplace(I("nanx"), lambda t: aten.nan_to_num_(t, 0.0)))
C("logit_", lambda: inplace(I("q"), aten.logit_))
C("cumsum_", lambda: inplace(I("x"), lambda t: t.cumsum_(1)))
C("renorm_", lambda: inplace(I("x"), lambda t: t.renorm_(1, 0, 2.0)))
C("fill_diagonal_", lambda: inplace(I("x"), lambda t: t.fill_diagonal_(-7)))
C("dropout_", lambda: inplace(I("x"), lambda t: aten.dropout_(t, 0.5, False)))
C("eq_", lambda: inplace(I("x"), lambda t: aten.eq_.Scalar(t, 0.5)))
C("lt_tensor_", lambda: inplace(I("x"), lambda t: aten.lt_.Tensor(t, I("y"))))
C("bitwise_and_", lambda: inplace(I("ii"), lambda t: aten.bitwise_and_.Scalar(t, 3)))
C("logical_not_", lambda: inplace(I("mask"), lambda t: t.logical_not_()))

# ---------------------------------------------------------------------------
# out= variants: the Go side checks that each returns its out tensor(s).

C("add_out", lambda: aten.add(I("x"), I("y"), alpha=2))
C("mm_out", lambda: aten.mm(I("x"), I("m43")))
C("matmul_out", lambda: aten.matmul(I("b1"), I("b2")))
C("mul_out", lambda: aten.mul(I("x"), I("y")))
C("maximum_out", lambda: aten.maximum(I("x"), I("y")))
C("exp_out", lambda: aten.exp(I("x")))
C("abs_out", lambda: aten.abs(I("x")))
C("sin_out", lambda: aten.sin(I("x")))
C("clamp_out", lambda: aten.clamp(I("x"), max=0.5))
C("sum_out", lambda: aten.sum(I("ii"), dtype=f64))
C("sum_int_list_out", lambda: aten.sum.dim_IntList(I("x"), [1], True))
C("cat_out", lambda: aten.cat([I("x"), I("y")], 1))
C("stack_out", lambda: aten.stack([I("x"), I("y")]))
C("index_select_out", lambda: aten.index_select(I("x"), 1, I("idx")))
C("gather_out", lambda: aten.gather(I("x"), 1, I("gidx")))
C("softmax_out", lambda: aten.softmax.int(I("x"), 1))
C("histc_out", lambda: aten.histc(I("x"), 3))
C("zeros_out", lambda: aten.zeros([2, 2]))
C("ones_out", lambda: aten.ones([3], dtype=i64))
C("full_out", lambda: aten.full([2], 4.0))
C("arange_out", lambda: aten.arange(4, dtype=f32))
C("arange_start_out", lambda: aten.arange.start_step(1, 3, 0.5))
C("linspace_out", lambda: aten.linspace(-1, 1, 4))
C("sort_out", lambda: aten.sort(I("x"), 0, True))
C("topk_out", lambda: aten.topk(I("sortv"), 2))
C("max_out", lambda: aten.max.dim(I("x"), 1, True))
C("min_out", lambda: aten.min.dim(I("x"), 0))
C("kthvalue_out", lambda: aten.kthvalue(I("x"), 1, 0))
C("aminmax_out", lambda: aten.aminmax(I("x"), dim=0))
C("frexp_out", lambda: aten.frexp.Tensor(I("x")))
C("std_mean_correction_out", lambda: aten.std_mean.correction(I("x"), [1], correction=0))
C("split_copy_out", lambda: aten.split(I("x"), 2, 1))
C("unbind_copy_out", lambda: aten.unbind(I("x")))

# ---------------------------------------------------------------------------
# Random ops with explicit generators (seeded with manual_seed here,
# torch.NewGenerator(seed) in Go).

C("rand_generator", lambda: aten.rand.generator([2, 3], generator=gen(1)))
C("rand_generator_f64", lambda: aten.rand.generator([3], generator=gen(2), dtype=f64))
C("randn_generator", lambda: aten.randn.generator([4], generator=gen(3)))
C("randint_generator", lambda: aten.randint.generator(10, [5], generator=gen(4)))
C("randperm_generator", lambda: aten.randperm.generator(6, generator=gen(5)))
C("normal_tensor_tensor", lambda: aten.normal.Tensor_Tensor(I("x"), I("p"), generator=gen(6)))
C("normal_float_float", lambda: aten.normal.float_float(0.5, 2.0, [4], generator=gen(7)))
C("normal_tensor_float", lambda: aten.normal.Tensor_float(I("x"), 0.5, generator=gen(8)))
C("normal_float_tensor", lambda: aten.normal.float_Tensor(1.0, I("p"), generator=gen(9)))
C("normal_functional", lambda: aten.normal_functional(I("x"), 2.0, 0.5, generator=gen(10)))
C("bernoulli", lambda: aten.bernoulli(I("q"), generator=gen(11)))
C("bernoulli_p", lambda: aten.bernoulli.p(I("x"), 0.3, generator=gen(12)))
C("multinomial", lambda: aten.multinomial(I("probs"), 3, generator=gen(13)))
C("multinomial_replacement", lambda: aten.multinomial(I("probs"), 6, True, generator=gen(14)))
C("poisson", lambda: aten.poisson(I("p"), gen(15)))
C("binomial", lambda: aten.binomial(I("cntf"), I("prb"), gen(16)))
C("sample_dirichlet", lambda: aten._sample_dirichlet(I("alpha"), gen(17)))
C("rrelu_train", lambda: aten.rrelu(I("x"), 0.1, 0.3, True, gen(18)))
C("uniform_", lambda: inplace(I("x"), lambda t: aten.uniform_(t, -1, 1, generator=gen(19))))
C("normal_", lambda: inplace(I("x"), lambda t: aten.normal_(t, 1.0, 0.1, generator=gen(20))))
C("bernoulli_float_", lambda: inplace(I("x"), lambda t: aten.bernoulli_.float(t, 0.3, generator=gen(21))))
C("bernoulli_tensor_", lambda: inplace(I("x"), lambda t: aten.bernoulli_.Tensor(t, I("q"), generator=gen(22))))
C("random_to_", lambda: inplace(I("x"), lambda t: aten.random_.to(t, 10, generator=gen(23))))
C("random_from_", lambda: inplace(I("ii"), lambda t: getattr(aten.random_, "from")(t, -5, 5, generator=gen(24))))
C("random_", lambda: inplace(I("x"), lambda t: aten.random_(t, generator=gen(25))))
C("exponential_", lambda: inplace(I("x"), lambda t: aten.exponential_(t, 2.0, generator=gen(26))))
C("geometric_", lambda: inplace(I("x"), lambda t: aten.geometric_(t, 0.3, generator=gen(27))))
C("log_normal_", lambda: inplace(I("x"), lambda t: aten.log_normal_(t, generator=gen(28))))
C("cauchy_", lambda: inplace(I("x"), lambda t: aten.cauchy_(t, 0.5, 2.0, generator=gen(29))))
C("rand_generator_out", lambda: aten.rand.generator([2, 2], generator=gen(30)))
C("randperm_generator_out", lambda: aten.randperm.generator(5, generator=gen(31)))
C("multinomial_out", lambda: aten.multinomial(I("probs"), 2, generator=gen(32)))
C("normal_tensor_tensor_out", lambda: aten.normal.Tensor_Tensor(I("x"), I("p"), generator=gen(33)))


def _seeded(seed, f):
    torch.manual_seed(seed)
    return f()


# A nil *Generator is None: the default generator, seeded with ManualSeed.
C("rand_nil_generator", lambda: _seeded(41, lambda: aten.rand.generator([3], generator=None)))
C("dropout_train_seeded", lambda: _seeded(42, lambda: aten.dropout(I("x"), 0.5, True)))
C("native_dropout_train_seeded", lambda: _seeded(43, lambda: aten.native_dropout(I("x"), 0.5, True)))
C("randn_default_seeded", lambda: _seeded(44, lambda: aten.randn([2])))
C("bernoulli_nil_generator_option", lambda: _seeded(45, lambda: aten.bernoulli.p(I("x"), 0.5, generator=None)))


def _generator_reused():
    """One generator through several calls: its state carries over (randn
    of 16 or more elements takes the vectorized path)."""
    g = gen(34)
    return (aten.randn.generator([3], generator=g), aten.randn.generator([20], generator=g),
            aten.bernoulli.p(I("x"), 0.5, generator=g))


C("generator_reused", _generator_reused)

# ---------------------------------------------------------------------------
# Results that are not tensors: bool, int, float, Scalar, DType.

C("equal_true", lambda: aten.equal(I("x"), I("x")))
C("equal_false", lambda: aten.equal(I("x"), I("y")))
C("allclose_false", lambda: aten.allclose(I("x"), I("y")))
C("allclose_atol", lambda: aten.allclose(I("x"), I("y"), atol=10.0))
C("is_same_size_true", lambda: aten.is_same_size(I("x"), I("y")))
C("is_same_size_false", lambda: aten.is_same_size(I("x"), I("v")))
C("is_nonzero_true", lambda: aten.is_nonzero(I("s0")))
C("is_nonzero_false", lambda: aten.is_nonzero(I("z0")))
C("is_floating_point", lambda: aten.is_floating_point(I("x")))
C("is_floating_point_int", lambda: aten.is_floating_point(I("ii")))
C("is_complex", lambda: aten.is_complex(I("x")))
C("is_signed", lambda: aten.is_signed(I("ii")))
C("is_conj", lambda: aten.is_conj(I("x")))
C("is_neg", lambda: aten.is_neg(I("x")))
C("is_inference", lambda: aten.is_inference(I("x")))
C("is_distributed", lambda: aten.is_distributed(I("x")))
C("is_zerotensor", lambda: aten._is_zerotensor(I("x")))
C("has_same_storage_numel", lambda: aten._has_same_storage_numel(I("x"), I("y")))
C("is_set_to", lambda: (lambda t: aten.is_set_to(t, t))(I("x")))
C("cudnn_is_acceptable", lambda: aten.cudnn_is_acceptable(I("x")))
C("is_vulkan_available", lambda: aten.is_vulkan_available())
C("can_cast_false", lambda: aten.can_cast(f32, i64))
C("can_cast_true", lambda: aten.can_cast(i64, f32))
C("stride", lambda: aten.stride.int(I("x"), 0))
C("stride_t", lambda: aten.stride.int(I("x").t(), 0))
C("stride_channels_last", lambda: aten.stride.int(I("img4").contiguous(memory_format=torch.channels_last), 1))
C("debug_has_internal_overlap", lambda: aten._debug_has_internal_overlap(I("x")))
C("debug_has_internal_overlap_expanded", lambda: aten._debug_has_internal_overlap(I("v").expand([3, 4])))
C("local_scalar_dense_float", lambda: Scalar(aten._local_scalar_dense(I("s0"))))
C("local_scalar_dense_int", lambda: Scalar(aten._local_scalar_dense(I("i0"))))
C("result_type", lambda: DT(aten.result_type.Tensor(I("x"), I("ii"))))
C("result_type_scalar", lambda: DT(aten.result_type.Scalar(I("ii"), 2.5)))
C("result_type_scalar_tensor", lambda: DT(aten.result_type.Scalar_Tensor(1, I("ii"))))
C("result_type_scalar_scalar", lambda: DT(aten.result_type.Scalar_Scalar(1, 2.5)))
C("promote_types", lambda: DT(aten.promote_types(torch.int32, f64)))
# Quantized tensors: the float (q_scale), int (q_zero_point) and QScheme
# results.
C("q_scale", lambda: aten.q_scale(aten.quantize_per_tensor(I("p"), 0.05, 3, torch.quint8)))
C("q_zero_point", lambda: aten.q_zero_point(aten.quantize_per_tensor(I("p"), 0.05, 3, torch.quint8)))
C("qscheme", lambda: aten.qscheme(aten.quantize_per_tensor(I("p"), 0.05, 3, torch.quint8)))
C("int_repr", lambda: aten.int_repr(aten.quantize_per_tensor(I("p"), 0.05, 3, torch.quint8)))
C("dequantize", lambda: aten.dequantize.self(aten.quantize_per_tensor(I("p"), 0.05, 3, torch.quint8)))
C("fake_quantize", lambda: aten.fake_quantize_per_tensor_affine(I("x"), 0.25, 2, 0, 15))
# Mixed tuple (float, int).
C("choose_qparams_per_tensor", lambda: aten._choose_qparams_per_tensor(I("x")))
C("choose_qparams_per_tensor_reduce", lambda: aten._choose_qparams_per_tensor(I("p"), True))


# ---------------------------------------------------------------------------
# Encoding.

def num(v):
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v


def enc(v):
    if v is None:
        return {"kind": "none"}
    if isinstance(v, ShapeOnly):
        return {"kind": "tensor", "dtype": str(v.t.dtype)[6:], "shape": list(v.t.shape), "values": None}
    if isinstance(v, torch.Tensor):
        t = v.detach()
        flat = t.reshape(-1)
        if t.dtype == bl:
            flat = flat.to(i64)
        if t.is_complex():
            values = [[num(re), num(im)] for re, im in torch.view_as_real(flat.resolve_conj()).tolist()]
        else:
            values = [num(x) for x in flat.tolist()]
        return {"kind": "tensor", "dtype": str(t.dtype)[6:], "shape": list(t.shape), "values": values}
    if isinstance(v, Scalar):
        return {"kind": "scalar", "value": num(v.v)}
    if isinstance(v, bool):
        return {"kind": "bool", "value": v}
    if isinstance(v, int):
        return {"kind": "int", "value": v}
    if isinstance(v, float):
        return {"kind": "float", "value": num(v)}
    if isinstance(v, torch.dtype):
        return {"kind": "dtype", "value": str(v)[6:]}
    if isinstance(v, list):
        return {"kind": "list", "items": [enc(x) for x in v]}
    if isinstance(v, tuple):
        return {"kind": "tuple", "items": [enc(x) for x in v]}
    raise TypeError("cannot encode %r" % (v,))


def main():
    names = [n for n, _ in CASES]
    dups = sorted({n for n in names if names.count(n) > 1})
    if dups:
        raise SystemExit("duplicate case names: %s" % dups)
    cases = {}
    for name, fn in CASES:
        try:
            cases[name] = enc(fn())
        except Exception as e:  # name the case that broke
            raise SystemExit("case %s: %s: %s" % (name, type(e).__name__, e))
    out = {
        "torch_version": torch.__version__,
        "inputs": {k: enc(v) for k, v in INPUTS.items()},
        "cases": cases,
    }
    path = os.path.join(OUT, "conformance.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print("wrote %s: %d inputs, %d cases" % (path, len(INPUTS), len(cases)))


if __name__ == "__main__":
    main()
