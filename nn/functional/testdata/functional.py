#!/usr/bin/python3
"""Writes the golden data that package nn/functional's tests compare against.

Run it with the reference PyTorch (1.13) from the repository root:

    /usr/bin/python3 nn/functional/testdata/functional.py

It writes nn/functional/testdata/functional.json: for every case, the
inputs (deterministic values), the output of the torch.nn.functional call,
and the gradients of the inputs that require them after backward of
(out * c).sum(), c being a fixed tensor stored with the case. A case with a
seed calls torch.manual_seed(seed) just before the call (dropout): GoTorch's
torch.ManualSeed drives the same libtorch generator, so the draws agree.
Cases whose inputs change in place (batch_norm's running statistics,
embedding's max_norm) store the changed values under "after".

The Go side (functional_test.go) has a table with the same case names; the
test fails when the two disagree.
"""

import json
import math
import os

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the output goes: here, or $GOLDEN_OUT (docs/testing.md: the
# cross-CPU measurement writes the files elsewhere and compares).
OUT = os.environ.get("GOLDEN_OUT") or HERE


def rnd(shape, seed, scale=1.0, offset=0.0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale + offset).to(dtype)


def uni(shape, seed, lo, hi):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(*shape, generator=g, dtype=torch.float64) * (hi - lo) + lo).float()


def ints(values):
    return torch.tensor(values, dtype=torch.int64)


def enc(t):
    t = t.detach()
    if t.dtype == torch.bool:
        vals = [bool(v) for v in t.flatten().tolist()]
    elif t.dtype in (torch.int64, torch.int32):
        vals = [int(v) for v in t.flatten().tolist()]
    elif t.dtype == torch.float32:
        # 9 significant digits give back the same float32.
        vals = [float("%.9g" % v) for v in t.flatten().tolist()]
    else:
        vals = [float(v) for v in t.flatten().tolist()]
    for v in vals:
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError("non-finite value in golden data")
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "values": vals}


CASES = []


def case(name, inputs, fn, grad=(), seed=None, after=()):
    CASES.append((name, inputs, fn, tuple(grad), seed, tuple(after)))


def sdpa_ref(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """PyTorch 2.x's reference scaled_dot_product_attention."""
    s = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    a = q @ k.transpose(-2, -1) * s
    L, S = q.size(-2), k.size(-2)
    if is_causal:
        a = a.masked_fill(torch.ones(L, S, dtype=torch.bool).tril().logical_not(), float("-inf"))
    elif attn_mask is not None and attn_mask.dtype == torch.bool:
        a = a.masked_fill(attn_mask.logical_not(), float("-inf"))
    elif attn_mask is not None:
        a = a + attn_mask
    a = torch.softmax(a, -1)
    if dropout_p > 0:
        a = torch.dropout(a, dropout_p, True)
    return a @ v


def build():
    X = rnd((3, 4), 1, 2.0)

    # Linear.
    case("linear", {"x": rnd((3, 4), 1), "w": rnd((2, 4), 2), "b": rnd((2,), 3)},
         lambda i: F.linear(i["x"], i["w"], i["b"]), grad="xwb")
    case("linear_nobias", {"x": rnd((2, 3, 4), 4), "w": rnd((5, 4), 5)},
         lambda i: F.linear(i["x"], i["w"]), grad="xw")
    case("bilinear", {"x1": rnd((3, 2), 6), "x2": rnd((3, 3), 7), "w": rnd((4, 2, 3), 8), "b": rnd((4,), 9)},
         lambda i: F.bilinear(i["x1"], i["x2"], i["w"], i["b"]), grad=("x1", "x2", "w", "b"))

    # Convolutions.
    case("conv1d", {"x": rnd((2, 3, 7), 10), "w": rnd((4, 3, 3), 11), "b": rnd((4,), 12)},
         lambda i: F.conv1d(i["x"], i["w"], i["b"], stride=2, padding=1), grad="xwb")
    case("conv1d_same", {"x": rnd((2, 3, 7), 13), "w": rnd((4, 3, 3), 14)},
         lambda i: F.conv1d(i["x"], i["w"], padding="same", dilation=2), grad="xw")
    case("conv2d", {"x": rnd((2, 3, 6, 6), 15), "w": rnd((4, 3, 3, 3), 16), "b": rnd((4,), 17)},
         lambda i: F.conv2d(i["x"], i["w"], i["b"], padding=1), grad="xwb")
    case("conv2d_groups", {"x": rnd((1, 4, 7, 6), 18), "w": rnd((4, 2, 3, 2), 19)},
         lambda i: F.conv2d(i["x"], i["w"], stride=(2, 1), dilation=(1, 2), groups=2), grad="xw")
    case("conv2d_valid", {"x": rnd((3, 5, 5), 20), "w": rnd((2, 3, 2, 2), 21), "b": rnd((2,), 22)},
         lambda i: F.conv2d(i["x"], i["w"], i["b"], padding="valid"), grad="xwb")
    case("conv3d", {"x": rnd((1, 2, 4, 4, 4), 23), "w": rnd((3, 2, 2, 2, 2), 24), "b": rnd((3,), 25)},
         lambda i: F.conv3d(i["x"], i["w"], i["b"], stride=2, padding=1), grad="xwb")
    case("conv_transpose1d", {"x": rnd((2, 3, 5), 26), "w": rnd((3, 2, 3), 27), "b": rnd((2,), 28)},
         lambda i: F.conv_transpose1d(i["x"], i["w"], i["b"], stride=2, padding=1, output_padding=1), grad="xwb")
    case("conv_transpose2d", {"x": rnd((1, 4, 3, 3), 29), "w": rnd((4, 3, 3, 3), 30), "b": rnd((3,), 31)},
         lambda i: F.conv_transpose2d(i["x"], i["w"], i["b"], stride=2, padding=1, output_padding=1), grad="xwb")
    case("conv_transpose2d_groups", {"x": rnd((2, 4, 3, 3), 32), "w": rnd((4, 1, 2, 2), 33)},
         lambda i: F.conv_transpose2d(i["x"], i["w"], groups=2, dilation=2), grad="xw")
    case("conv_transpose3d", {"x": rnd((1, 2, 2, 3, 3), 34), "w": rnd((2, 3, 2, 2, 2), 35), "b": rnd((3,), 36)},
         lambda i: F.conv_transpose3d(i["x"], i["w"], i["b"]), grad="xwb")

    # Pooling.
    case("max_pool1d", {"x": rnd((2, 3, 8), 40)}, lambda i: F.max_pool1d(i["x"], 2), grad="x")
    case("max_pool1d_opts", {"x": rnd((2, 3, 8), 41)},
         lambda i: F.max_pool1d(i["x"], 3, stride=2, padding=1, ceil_mode=True), grad="x")
    case("max_pool2d", {"x": rnd((1, 2, 6, 6), 42)}, lambda i: F.max_pool2d(i["x"], 2), grad="x")
    case("max_pool2d_opts", {"x": rnd((1, 2, 7, 6), 43)},
         lambda i: F.max_pool2d(i["x"], (3, 2), stride=(2, 1), padding=1), grad="x")
    case("max_pool2d_dilation", {"x": rnd((2, 6, 6), 44)},
         lambda i: F.max_pool2d(i["x"], 2, dilation=2), grad="x")
    case("max_pool3d", {"x": rnd((1, 2, 4, 4, 4), 45)}, lambda i: F.max_pool3d(i["x"], 2), grad="x")
    case("max_pool1d_with_indices", {"x": rnd((2, 3, 8), 46)},
         lambda i: F.max_pool1d(i["x"], 2, return_indices=True), grad="x")
    case("max_pool2d_with_indices", {"x": rnd((1, 2, 6, 6), 47)},
         lambda i: F.max_pool2d(i["x"], 3, stride=2, return_indices=True), grad="x")
    case("fractional_max_pool2d", {"x": rnd((2, 3, 7, 6), 142)},
         lambda i: F.fractional_max_pool2d(i["x"], 2, output_size=(4, 3)), grad="x", seed=13)
    case("fractional_max_pool2d_with_indices", {"x": rnd((3, 8, 8), 143), "s": uni((1, 3, 2), 144, 0, 1)},
         lambda i: F.fractional_max_pool2d_with_indices(i["x"], (3, 2), output_ratio=0.5, _random_samples=i["s"]),
         grad="x")
    case("fractional_max_pool3d", {"x": rnd((1, 2, 5, 6, 5), 145)},
         lambda i: F.fractional_max_pool3d(i["x"], 2, output_ratio=(0.6, 0.5, 0.5)), grad="x", seed=14)
    case("fractional_max_pool3d_with_indices", {"x": rnd((2, 5, 5, 5), 146), "s": uni((1, 2, 3), 147, 0, 1)},
         lambda i: F.fractional_max_pool3d(i["x"], 2, output_size=3, return_indices=True, _random_samples=i["s"]),
         grad="x")
    case("max_pool3d_with_indices", {"x": rnd((1, 1, 4, 4, 4), 48)},
         lambda i: F.max_pool3d(i["x"], 2, return_indices=True), grad="x")
    case("avg_pool1d", {"x": rnd((2, 3, 8), 49)},
         lambda i: F.avg_pool1d(i["x"], 3, stride=2, padding=1, count_include_pad=False), grad="x")
    case("avg_pool2d", {"x": rnd((1, 2, 6, 6), 50)}, lambda i: F.avg_pool2d(i["x"], 2), grad="x")
    case("avg_pool2d_opts", {"x": rnd((1, 2, 7, 7), 51)},
         lambda i: F.avg_pool2d(i["x"], 3, stride=2, padding=1, ceil_mode=True, divisor_override=5), grad="x")
    case("avg_pool3d", {"x": rnd((1, 2, 4, 4, 4), 52)}, lambda i: F.avg_pool3d(i["x"], 2), grad="x")
    case("adaptive_avg_pool1d", {"x": rnd((2, 3, 7), 53)}, lambda i: F.adaptive_avg_pool1d(i["x"], 3), grad="x")
    case("adaptive_avg_pool2d", {"x": rnd((1, 2, 7, 5), 54)},
         lambda i: F.adaptive_avg_pool2d(i["x"], (3, 2)), grad="x")
    case("adaptive_avg_pool2d_int", {"x": rnd((2, 3, 4, 4), 55)}, lambda i: F.adaptive_avg_pool2d(i["x"], 1), grad="x")
    case("adaptive_avg_pool3d", {"x": rnd((1, 2, 4, 5, 3), 56)}, lambda i: F.adaptive_avg_pool3d(i["x"], 2), grad="x")
    case("adaptive_max_pool1d", {"x": rnd((2, 3, 7), 57)}, lambda i: F.adaptive_max_pool1d(i["x"], 3), grad="x")
    case("adaptive_max_pool2d", {"x": rnd((1, 2, 7, 5), 58)},
         lambda i: F.adaptive_max_pool2d(i["x"], (3, 2)), grad="x")
    case("adaptive_max_pool3d", {"x": rnd((1, 2, 4, 4, 4), 59)}, lambda i: F.adaptive_max_pool3d(i["x"], 2), grad="x")
    case("adaptive_max_pool2d_with_indices", {"x": rnd((1, 2, 6, 6), 60)},
         lambda i: F.adaptive_max_pool2d(i["x"], 3, return_indices=True), grad="x")

    # Normalization.
    case("batch_norm_train", {"x": rnd((4, 3, 2, 2), 70, 2.0, 1.0), "rm": rnd((3,), 71), "rv": uni((3,), 72, 0.5, 2.0),
                              "w": rnd((3,), 73), "b": rnd((3,), 74)},
         lambda i: F.batch_norm(i["x"], i["rm"], i["rv"], i["w"], i["b"], training=True, momentum=0.2, eps=1e-3),
         grad="xwb", after=("rm", "rv"))
    case("batch_norm_eval", {"x": rnd((4, 3), 75), "rm": rnd((3,), 76), "rv": uni((3,), 77, 0.5, 2.0),
                             "w": rnd((3,), 78), "b": rnd((3,), 79)},
         lambda i: F.batch_norm(i["x"], i["rm"], i["rv"], i["w"], i["b"]), grad="xwb", after=("rm", "rv"))
    case("batch_norm_no_stats", {"x": rnd((5, 2, 3), 80)},
         lambda i: F.batch_norm(i["x"], None, None, training=True), grad="x")
    case("instance_norm", {"x": rnd((2, 3, 5), 81), "w": rnd((3,), 82), "b": rnd((3,), 83)},
         lambda i: F.instance_norm(i["x"], weight=i["w"], bias=i["b"]), grad="xwb")
    case("instance_norm_stats", {"x": rnd((2, 3, 4, 4), 84), "rm": rnd((3,), 85), "rv": uni((3,), 86, 0.5, 2.0)},
         lambda i: F.instance_norm(i["x"], i["rm"], i["rv"], use_input_stats=False, eps=1e-3), grad="x")
    case("layer_norm", {"x": rnd((2, 3, 4), 87), "w": rnd((4,), 88), "b": rnd((4,), 89)},
         lambda i: F.layer_norm(i["x"], [4], i["w"], i["b"], eps=1e-3), grad="xwb")
    case("layer_norm_2d", {"x": rnd((2, 3, 4), 90)}, lambda i: F.layer_norm(i["x"], [3, 4]), grad="x")
    case("group_norm", {"x": rnd((2, 4, 3), 91), "w": rnd((4,), 92), "b": rnd((4,), 93)},
         lambda i: F.group_norm(i["x"], 2, i["w"], i["b"]), grad="xwb")
    case("normalize", {"x": rnd((3, 5), 94)}, lambda i: F.normalize(i["x"]), grad="x")
    case("normalize_p1", {"x": rnd((3, 5), 95)}, lambda i: F.normalize(i["x"], p=1, dim=0, eps=1e-3), grad="x")

    # Dropout: seeded.
    case("dropout", {"x": rnd((4, 5), 100)}, lambda i: F.dropout(i["x"], 0.4), grad="x", seed=3)
    case("dropout_eval", {"x": rnd((4, 5), 101)}, lambda i: F.dropout(i["x"], 0.4, training=False), grad="x")
    case("dropout1d", {"x": rnd((3, 4), 102)}, lambda i: F.dropout1d(i["x"], 0.5), grad="x", seed=4)
    case("dropout2d", {"x": rnd((2, 3, 2, 2), 103)}, lambda i: F.dropout2d(i["x"], 0.3), grad="x", seed=5)
    case("dropout3d", {"x": rnd((2, 2, 2, 2), 104)}, lambda i: F.dropout3d(i["x"]), grad="x", seed=6)
    case("alpha_dropout", {"x": rnd((4, 5), 105)}, lambda i: F.alpha_dropout(i["x"], 0.2, training=True),
         grad="x", seed=7)
    case("gumbel_softmax", {"x": rnd((3, 5), 140)}, lambda i: F.gumbel_softmax(i["x"]), grad="x", seed=11)
    case("gumbel_softmax_opts", {"x": rnd((4, 3), 141)},
         lambda i: F.gumbel_softmax(i["x"], tau=0.5, hard=True, dim=0), grad="x", seed=12)

    # Embedding and one_hot.
    idx = ints([[0, 2, 4], [1, 2, 5]])
    case("embedding", {"idx": idx, "w": rnd((6, 3), 110)}, lambda i: F.embedding(i["idx"], i["w"]), grad="w")
    case("embedding_padding", {"idx": idx, "w": rnd((6, 3), 111)},
         lambda i: F.embedding(i["idx"], i["w"], padding_idx=2), grad="w")
    case("embedding_neg_padding", {"idx": idx, "w": rnd((6, 3), 112)},
         lambda i: F.embedding(i["idx"], i["w"], padding_idx=-1, scale_grad_by_freq=True), grad="w")
    case("embedding_max_norm", {"idx": idx, "w": rnd((6, 3), 113, 2.0)},
         lambda i: F.embedding(i["idx"], i["w"], max_norm=1.5, norm_type=1.0), grad="w", after=("w",))
    case("one_hot", {"idx": ints([1, 0, 3])}, lambda i: F.one_hot(i["idx"], num_classes=5))
    case("one_hot_default", {"idx": ints([[1, 0], [3, 2]])}, lambda i: F.one_hot(i["idx"]))

    # Activations.
    acts = {
        "relu": lambda x: F.relu(x),
        "relu6": lambda x: F.relu6(x * 4),
        "leaky_relu": lambda x: F.leaky_relu(x, 0.2),
        "leaky_relu_default": lambda x: F.leaky_relu(x),
        "elu": lambda x: F.elu(x, alpha=0.5),
        "selu": lambda x: F.selu(x),
        "celu": lambda x: F.celu(x, alpha=2.0),
        "gelu": lambda x: F.gelu(x),
        "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
        "silu": lambda x: F.silu(x),
        "mish": lambda x: F.mish(x),
        "hardswish": lambda x: F.hardswish(x),
        "hardsigmoid": lambda x: F.hardsigmoid(x),
        "hardtanh": lambda x: F.hardtanh(x, min_val=-0.5, max_val=0.7),
        "tanh": lambda x: F.tanh(x),
        "sigmoid": lambda x: torch.sigmoid(x),
        "logsigmoid": lambda x: F.logsigmoid(x),
        "softplus": lambda x: F.softplus(x, beta=2, threshold=1),
        "softsign": lambda x: F.softsign(x),
        "tanhshrink": lambda x: F.tanhshrink(x),
        "softshrink": lambda x: F.softshrink(x, 0.3),
        "hardshrink": lambda x: F.hardshrink(x, 0.3),
        "threshold": lambda x: F.threshold(x, 0.1, 20.0),
        "glu": lambda x: F.glu(x, dim=1),
        "softmax": lambda x: F.softmax(x, dim=1),
        "softmax_dtype": lambda x: F.softmax(x, dim=0, dtype=torch.float64),
        "log_softmax": lambda x: F.log_softmax(x, dim=0),
        "softmin": lambda x: F.softmin(x, dim=-1),
    }
    for k, f in acts.items():
        case(k, {"x": X.clone()}, (lambda f: lambda i: f(i["x"]))(f), grad="x")
    case("prelu", {"x": rnd((2, 3, 4), 120), "w": uni((3,), 121, 0.1, 0.5)},
         lambda i: F.prelu(i["x"], i["w"]), grad="xw")
    # The in-place forms, each on a copy of X (issue 37), and rrelu.
    inplace = {
        "relu_": lambda x: F.relu_(x),
        "elu_": lambda x: F.elu_(x, alpha=0.5),
        "celu_": lambda x: F.celu_(x, alpha=2.0),
        "selu_": lambda x: F.selu_(x),
        "leaky_relu_": lambda x: F.leaky_relu_(x, 0.2),
        "hardtanh_": lambda x: F.hardtanh_(x, min_val=-0.5, max_val=0.7),
        "threshold_": lambda x: F.threshold_(x, 0.1, 20.0),
        "rrelu_": lambda x: F.rrelu_(x, 0.1, 0.3),
    }
    for k, f in inplace.items():
        case(k, {"x": X.clone()}, (lambda f: lambda i: f(i["x"].clone()))(f))
    case("rrelu", {"x": X.clone()}, lambda i: F.rrelu(i["x"]), grad="x")
    case("rrelu_training", {"x": X.clone()}, lambda i: F.rrelu(i["x"], 0.1, 0.3, training=True), grad="x", seed=9)
    case("pdist", {"x": rnd((4, 3), 122)}, lambda i: F.pdist(i["x"]), grad="x")
    case("pdist_p1", {"x": rnd((3, 5), 123)}, lambda i: F.pdist(i["x"], p=1), grad="x")
    case("feature_alpha_dropout", {"x": rnd((2, 3, 2, 2), 124)},
         lambda i: F.feature_alpha_dropout(i["x"], 0.4, training=True), grad="x", seed=10)
    case("feature_alpha_dropout_eval", {"x": rnd((2, 3, 2, 2), 125)},
         lambda i: F.feature_alpha_dropout(i["x"], 0.4), grad="x")
    # The spatial transformer's affine_grid and grid_sample.
    case("affine_grid", {"t": rnd((2, 2, 3), 126)}, lambda i: F.affine_grid(i["t"], [2, 1, 3, 4], align_corners=False),
         grad="t")
    case("affine_grid_3d", {"t": rnd((1, 3, 4), 127)},
         lambda i: F.affine_grid(i["t"], [1, 1, 2, 3, 2], align_corners=True), grad="t")
    case("grid_sample", {"x": rnd((1, 2, 3, 4), 128), "g": uni((1, 2, 5, 2), 129, -1.1, 1.1)},
         lambda i: F.grid_sample(i["x"], i["g"], align_corners=False), grad="xg")
    case("grid_sample_opts", {"x": rnd((2, 1, 3, 3), 600), "g": uni((2, 4, 2, 2), 601, -1.2, 1.2)},
         lambda i: F.grid_sample(i["x"], i["g"], mode="nearest", padding_mode="border", align_corners=True), grad="x")
    case("grid_sample_bicubic", {"x": rnd((1, 1, 4, 4), 602), "g": uni((1, 3, 3, 2), 603, -1.3, 1.3)},
         lambda i: F.grid_sample(i["x"], i["g"], mode="bicubic", padding_mode="reflection", align_corners=False),
         grad="xg")
    case("conv_tbc", {"x": rnd((5, 2, 3), 604), "w": rnd((3, 3, 4), 605), "b": rnd((4,), 606)},
         lambda i: F.conv_tbc(i["x"], i["w"], i["b"], 1), grad="xwb")
    case("native_channel_shuffle", {"x": rnd((1, 6, 2), 607)}, lambda i: F.native_channel_shuffle(i["x"], 3))
    # max_unpool of the indices of a max_pool.
    mp1 = F.max_pool1d(rnd((2, 3, 8), 612), 2, return_indices=True)
    case("max_unpool1d", {"x": mp1[0], "i": mp1[1]}, lambda i: F.max_unpool1d(i["x"], i["i"], 2), grad="x")
    case("max_unpool1d_size", {"x": mp1[0], "i": mp1[1]},
         lambda i: F.max_unpool1d(i["x"], i["i"], 2, output_size=[2, 3, 9]), grad="x")
    mp2 = F.max_pool2d(rnd((1, 2, 5, 6), 613), 2, stride=(2, 3), padding=1, return_indices=True)
    case("max_unpool2d", {"x": mp2[0], "i": mp2[1]},
         lambda i: F.max_unpool2d(i["x"], i["i"], 2, stride=(2, 3), padding=1, output_size=(5, 6)), grad="x")
    mp3 = F.max_pool3d(rnd((1, 1, 4, 4, 4), 614), 2, return_indices=True)
    case("max_unpool3d", {"x": mp3[0], "i": mp3[1]},
         lambda i: F.max_unpool3d(i["x"], i["i"], (2, 2, 2), output_size=(5, 4, 4)), grad="x")
    case("lp_pool1d", {"x": uni((2, 3, 7), 608, -2.0, 2.0)}, lambda i: F.lp_pool1d(i["x"], 2.0, 3), grad="x")
    case("lp_pool1d_opts", {"x": uni((2, 3, 6), 609, 0.1, 2.0)}, lambda i: F.lp_pool1d(i["x"], 3.0, 2, stride=1, ceil_mode=True),
         grad="x")
    case("lp_pool2d", {"x": uni((1, 2, 5, 4), 610, -2.0, 2.0)}, lambda i: F.lp_pool2d(i["x"], 2.0, (2, 3)), grad="x")
    case("lp_pool2d_opts", {"x": uni((2, 1, 5, 5), 611, 0.1, 2.0)},
         lambda i: F.lp_pool2d(i["x"], 1.5, 2, stride=(1, 2), ceil_mode=True), grad="x")

    # Losses.
    logits = rnd((4, 5), 130)
    target = ints([1, 0, 4, 2])
    case("cross_entropy", {"x": logits, "t": target}, lambda i: F.cross_entropy(i["x"], i["t"]), grad="x")
    case("cross_entropy_opts", {"x": logits, "t": target, "w": uni((5,), 131, 0.5, 2.0)},
         lambda i: F.cross_entropy(i["x"], i["t"], weight=i["w"], ignore_index=2, reduction="sum",
                                   label_smoothing=0.1), grad="x")
    case("cross_entropy_none", {"x": logits, "t": target},
         lambda i: F.cross_entropy(i["x"], i["t"], reduction="none", label_smoothing=0.2), grad="x")
    case("cross_entropy_probs", {"x": logits, "t": torch.softmax(rnd((4, 5), 132), 1)},
         lambda i: F.cross_entropy(i["x"], i["t"]), grad="xt")
    case("cross_entropy_nd", {"x": rnd((2, 3, 4), 133), "t": ints([[0, 2, 1, 1], [2, 2, 0, 1]])},
         lambda i: F.cross_entropy(i["x"], i["t"]), grad="x")
    logp = torch.log_softmax(rnd((4, 5), 134), 1)
    case("nll_loss", {"x": logp, "t": target}, lambda i: F.nll_loss(i["x"], i["t"]), grad="x")
    case("nll_loss_opts", {"x": logp, "t": target, "w": uni((5,), 135, 0.5, 2.0)},
         lambda i: F.nll_loss(i["x"], i["t"], weight=i["w"], ignore_index=0, reduction="mean"), grad="x")
    y = rnd((3, 4), 136)
    case("mse_loss", {"x": X, "y": y}, lambda i: F.mse_loss(i["x"], i["y"]), grad="xy")
    case("mse_loss_sum", {"x": X, "y": y}, lambda i: F.mse_loss(i["x"], i["y"], reduction="sum"), grad="xy")
    case("l1_loss", {"x": X, "y": y}, lambda i: F.l1_loss(i["x"], i["y"], reduction="none"), grad="xy")
    case("smooth_l1_loss", {"x": X, "y": y}, lambda i: F.smooth_l1_loss(i["x"], i["y"]), grad="xy")
    case("smooth_l1_loss_beta", {"x": X, "y": y}, lambda i: F.smooth_l1_loss(i["x"], i["y"], beta=0.5), grad="xy")
    case("huber_loss", {"x": X, "y": y}, lambda i: F.huber_loss(i["x"], i["y"], delta=0.7), grad="xy")
    p = uni((3, 4), 137, 0.05, 0.95)
    q = uni((3, 4), 138, 0.0, 1.0)
    case("binary_cross_entropy", {"p": p, "q": q}, lambda i: F.binary_cross_entropy(i["p"], i["q"]), grad="pq")
    case("binary_cross_entropy_weight", {"p": p, "q": q, "w": uni((4,), 139, 0.5, 2.0)},
         lambda i: F.binary_cross_entropy(i["p"], i["q"], weight=i["w"], reduction="sum"), grad="pq")
    case("binary_cross_entropy_with_logits", {"x": X, "q": q},
         lambda i: F.binary_cross_entropy_with_logits(i["x"], i["q"]), grad="xq")
    case("binary_cross_entropy_with_logits_opts", {"x": X, "q": q, "w": uni((3, 1), 140, 0.5, 2.0),
                                                   "pw": uni((4,), 141, 0.5, 3.0)},
         lambda i: F.binary_cross_entropy_with_logits(i["x"], i["q"], weight=i["w"], pos_weight=i["pw"],
                                                      reduction="none"), grad="xq")
    lp = torch.log_softmax(rnd((3, 4), 142), 1)
    tp = torch.softmax(rnd((3, 4), 143), 1)
    case("kl_div", {"x": lp, "t": tp}, lambda i: F.kl_div(i["x"], i["t"], reduction="batchmean"), grad="xt")
    case("kl_div_mean", {"x": lp, "t": tp}, lambda i: F.kl_div(i["x"], i["t"]), grad="xt")
    case("kl_div_log_target", {"x": lp, "t": tp.log()},
         lambda i: F.kl_div(i["x"], i["t"], reduction="sum", log_target=True), grad="xt")
    case("cosine_similarity", {"a": rnd((3, 4), 144), "b": rnd((3, 4), 145)},
         lambda i: F.cosine_similarity(i["a"], i["b"]), grad="ab")
    case("pairwise_distance", {"a": rnd((3, 4), 146), "b": rnd((3, 4), 147)},
         lambda i: F.pairwise_distance(i["a"], i["b"], p=1.5, keepdim=True), grad="ab")

    # Padding, resizing, pixel shuffle.
    case("pad_constant", {"x": rnd((1, 2, 3), 150)}, lambda i: F.pad(i["x"], [1, 2], value=0.5), grad="x")
    case("pad_constant_2d", {"x": rnd((2, 3), 151)}, lambda i: F.pad(i["x"], [0, 1, 2, 0]), grad="x")
    case("pad_reflect", {"x": rnd((1, 2, 4, 4), 152)}, lambda i: F.pad(i["x"], [1, 1, 2, 0], mode="reflect"), grad="x")
    case("pad_replicate", {"x": rnd((1, 1, 3, 3), 153)},
         lambda i: F.pad(i["x"], [2, 1, 1, 2], mode="replicate"), grad="x")
    case("pad_circular", {"x": rnd((1, 1, 3, 3), 154)}, lambda i: F.pad(i["x"], [1, 1, 1, 1], mode="circular"),
         grad="x")
    img = rnd((1, 2, 3, 3), 155)
    case("interpolate_nearest", {"x": img}, lambda i: F.interpolate(i["x"], scale_factor=2), grad="x")
    case("interpolate_nearest_size", {"x": img}, lambda i: F.interpolate(i["x"], size=(5, 4)), grad="x")
    case("interpolate_nearest1d", {"x": rnd((1, 2, 4), 156)}, lambda i: F.interpolate(i["x"], size=7), grad="x")
    case("interpolate_nearest_exact", {"x": img}, lambda i: F.interpolate(i["x"], size=5, mode="nearest-exact"),
         grad="x")
    case("interpolate_bilinear", {"x": img}, lambda i: F.interpolate(i["x"], size=(5, 7), mode="bilinear"), grad="x")
    case("interpolate_bilinear_ac", {"x": img},
         lambda i: F.interpolate(i["x"], scale_factor=1.5, mode="bilinear", align_corners=True), grad="x")
    case("interpolate_bilinear_recompute", {"x": img},
         lambda i: F.interpolate(i["x"], scale_factor=1.7, mode="bilinear", recompute_scale_factor=True), grad="x")
    case("interpolate_bilinear_antialias", {"x": rnd((1, 1, 6, 6), 157)},
         lambda i: F.interpolate(i["x"], size=(3, 4), mode="bilinear", antialias=True), grad="x")
    case("interpolate_linear", {"x": rnd((1, 2, 5), 158)}, lambda i: F.interpolate(i["x"], size=8, mode="linear"),
         grad="x")
    case("interpolate_bicubic", {"x": img}, lambda i: F.interpolate(i["x"], scale_factor=2, mode="bicubic"), grad="x")
    case("interpolate_trilinear", {"x": rnd((1, 1, 2, 2, 2), 159)},
         lambda i: F.interpolate(i["x"], scale_factor=(2, 1.5, 2), mode="trilinear"), grad="x")
    case("interpolate_area", {"x": rnd((1, 1, 6, 6), 160)}, lambda i: F.interpolate(i["x"], size=(4, 3), mode="area"),
         grad="x")
    case("interpolate_area_scale", {"x": rnd((1, 1, 6, 6), 161)},
         lambda i: F.interpolate(i["x"], scale_factor=0.5, mode="area"), grad="x")
    case("pixel_shuffle", {"x": rnd((1, 8, 2, 3), 162)}, lambda i: F.pixel_shuffle(i["x"], 2), grad="x")
    case("pixel_unshuffle", {"x": rnd((1, 2, 4, 6), 163)}, lambda i: F.pixel_unshuffle(i["x"], 2), grad="x")

    # Attention.
    q3, k3, v3 = rnd((2, 3, 4), 170), rnd((2, 5, 4), 171), rnd((2, 5, 6), 172)
    case("sdpa", {"q": q3, "k": k3, "v": v3}, lambda i: sdpa_ref(i["q"], i["k"], i["v"]), grad="qkv")
    case("sdpa_causal", {"q": rnd((2, 2, 4, 3), 173), "k": rnd((2, 2, 4, 3), 174), "v": rnd((2, 2, 4, 5), 175)},
         lambda i: sdpa_ref(i["q"], i["k"], i["v"], is_causal=True), grad="qkv")
    bool_mask = torch.tensor([[True, False, True, True, False], [True, True, True, False, False],
                              [False, True, True, True, True]])
    case("sdpa_bool_mask", {"q": q3, "k": k3, "v": v3, "m": bool_mask},
         lambda i: sdpa_ref(i["q"], i["k"], i["v"], attn_mask=i["m"]), grad="qkv")
    case("sdpa_float_mask", {"q": q3, "k": k3, "v": v3, "m": rnd((2, 3, 5), 176)},
         lambda i: sdpa_ref(i["q"], i["k"], i["v"], attn_mask=i["m"]), grad="qkvm")
    case("sdpa_scale", {"q": q3, "k": k3, "v": v3}, lambda i: sdpa_ref(i["q"], i["k"], i["v"], scale=0.3), grad="qkv")
    case("triplet_margin_with_distance_loss", {"a": rnd((4, 6), 150), "p": rnd((4, 6), 151), "n": rnd((4, 6), 152)},
         lambda i: F.triplet_margin_with_distance_loss(i["a"], i["p"], i["n"]), grad="a")
    case("triplet_margin_with_distance_loss_opts",
         {"a": rnd((5, 3), 153), "p": rnd((5, 3), 154), "n": rnd((5, 3), 155, scale=0.3)},
         lambda i: F.triplet_margin_with_distance_loss(
             i["a"], i["p"], i["n"], distance_function=lambda x, y: 1.0 - F.cosine_similarity(x, y),
             margin=0.5, swap=True, reduction="none"), grad="a")
    case("sdpa_dropout", {"q": q3, "k": k3, "v": v3},
         lambda i: sdpa_ref(i["q"], i["k"], i["v"], dropout_p=0.3), grad="qkv", seed=8)

    # libtorch 1.13's private math kernel agrees with the reference.
    sdpa = torch._C._nn._scaled_dot_product_attention
    for m, causal in ((None, False), (bool_mask, False), (rnd((2, 3, 5), 176), False)):
        got, _ = sdpa(q3, k3, v3, m, 0.0, False, causal)
        assert torch.allclose(got, sdpa_ref(q3, k3, v3, attn_mask=m)), "sdpa reference"


def run():
    build()
    out = []
    for name, inputs, fn, grad, seed, after in CASES:
        ins = {k: v.clone().requires_grad_(k in grad) for k, v in inputs.items()}
        enc_in = {k: enc(v) for k, v in ins.items()}
        if seed is not None:
            torch.manual_seed(seed)
        res = fn(ins)
        outs = list(res) if isinstance(res, tuple) else [res]
        c = None
        grads = {}
        if grad:
            first = outs[0]
            n = first.numel()
            c = torch.linspace(-1.0, 1.0, n, dtype=torch.float64).reshape(first.shape).to(first.dtype)
            if n == 1:
                c = torch.full(first.shape, 0.75, dtype=first.dtype)
            (first * c).sum().backward()
            for k in grad:
                g = ins[k].grad
                grads[k] = enc(g if g is not None else torch.zeros_like(ins[k]))
        rec = {"name": name, "inputs": enc_in, "grad": list(grad), "out": [enc(o) for o in outs]}
        if seed is not None:
            rec["seed"] = seed
        if c is not None:
            rec["c"] = enc(c)
            rec["grads"] = grads
        if after:
            rec["after"] = {k: enc(ins[k]) for k in after}
        out.append(rec)
    data = {"torch_version": torch.__version__, "cases": out}
    with open(os.path.join(OUT, "functional.json"), "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", len(out), "cases")


if __name__ == "__main__":
    run()
