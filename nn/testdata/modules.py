#!/usr/bin/python3
"""Writes the golden data that package nn's layer tests compare against.

Run it with the reference PyTorch (1.13) from the repository root:

    /usr/bin/python3 nn/testdata/modules.py

For every case it seeds the default generator, builds the layer, and
stores:
  - repr: print(layer);
  - init: the state dict right after construction, which GoTorch must
    reproduce with the same seed (torch.ManualSeed drives the same libtorch
    generator);
  - state: the state dict the forward pass runs with (init, or values set by
    the case so that gradients and running statistics are not trivial);
  - the inputs, the output(s), and the gradients of the float inputs and of
    the parameters after backward of (out * c).sum(), c being stored too;
  - after: the state dict after the forward pass (running statistics,
    num_batches_tracked, Embedding's max_norm renormalization).
The forward pass follows construction with no other draws in between, so
dropout in training draws the same masks in Go. Float inputs get
gradients, except those named y (targets that PyTorch cannot
differentiate, such as soft_margin_loss's).

The Go side (layers_test.go) has a table with the same case names.
"""

import json
import math
import os

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the output goes: here, or $GOLDEN_OUT (docs/testing.md: the
# cross-CPU measurement writes the files elsewhere and compares).
OUT = os.environ.get("GOLDEN_OUT") or HERE


def rnd(shape, seed, scale=1.0, offset=0.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale + offset).float()


def uni(shape, seed, lo, hi):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(*shape, generator=g, dtype=torch.float64) * (hi - lo) + lo).float()


def enc(t):
    t = t.detach()
    if t.dtype == torch.bool:
        vals = [bool(v) for v in t.flatten().tolist()]
    elif t.dtype in (torch.int64, torch.int32):
        vals = [int(v) for v in t.flatten().tolist()]
    elif t.dtype == torch.float32:
        vals = [float("%.9g" % v) for v in t.flatten().tolist()]
    else:
        vals = [float(v) for v in t.flatten().tolist()]
    for v in vals:
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError("non-finite value in golden data")
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "values": vals}


def enc_sd(sd):
    return {k: enc(v) for k, v in sd.items()}


CASES = []


def case(name, build, inputs=None, call=None, train=True, prep=None, seed=None):
    """inputs: name -> tensor; call(m, inputs) -> output(s), default m(x)."""
    CASES.append(dict(name=name, build=build, inputs=inputs, call=call, train=train, prep=prep,
                      seed=seed if seed is not None else len(CASES) + 1))


def set_params(seed, **named):
    """A prep that sets the named parameters/buffers to random values."""

    def prep(m):
        with torch.no_grad():
            for i, (k, scale) in enumerate(named.items()):
                t = getattr(m, k)
                if t.dtype.is_floating_point:
                    if k == "running_var":
                        t.copy_(uni(t.shape, seed + i, 0.5, 2.0))
                    else:
                        t.copy_(rnd(t.shape, seed + i, scale))
    return prep


def x_(shape, seed, scale=1.0):
    return {"x": rnd(shape, seed, scale)}


def build_cases():
    # Linear, Bilinear, Identity, Flatten.
    case("linear", lambda: nn.Linear(4, 3), x_((2, 4), 1))
    case("linear_nobias", lambda: nn.Linear(4, 2, bias=False), x_((3, 4), 2))
    case("linear_batched", lambda: nn.Linear(3, 5), x_((2, 2, 3), 3))
    case("bilinear", lambda: nn.Bilinear(2, 3, 4), {"x1": rnd((5, 2), 4), "x2": rnd((5, 3), 5)},
         call=lambda m, i: m(i["x1"], i["x2"]))
    case("identity", lambda: nn.Identity(), x_((2, 3), 6))
    case("flatten", lambda: nn.Flatten(), x_((2, 3, 2, 2), 7))
    case("flatten_dims", lambda: nn.Flatten(0, 1), x_((2, 3, 2), 8))
    case("unflatten", lambda: nn.Unflatten(1, (2, 3)), x_((2, 6), 9))

    # Convolutions.
    case("conv1d", lambda: nn.Conv1d(3, 4, 3, stride=2, padding=1), x_((2, 3, 7), 10))
    case("conv1d_reflect", lambda: nn.Conv1d(2, 3, 3, padding=2, padding_mode="reflect"), x_((1, 2, 6), 11))
    case("conv2d", lambda: nn.Conv2d(2, 4, 3), x_((2, 2, 5, 5), 12))
    case("conv2d_opts", lambda: nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=1, dilation=(1, 2), groups=2,
                                          bias=False), x_((1, 4, 7, 7), 13))
    case("conv2d_same_circular", lambda: nn.Conv2d(2, 2, 3, padding="same", padding_mode="circular"),
         x_((1, 2, 4, 4), 14))
    case("conv2d_same_even", lambda: nn.Conv2d(1, 2, 4, padding="same", dilation=1), x_((1, 1, 5, 5), 15))
    case("conv2d_valid", lambda: nn.Conv2d(1, 2, 2, padding="valid"), x_((1, 1, 3, 3), 16))
    case("conv2d_replicate", lambda: nn.Conv2d(1, 2, 2, padding=1, padding_mode="replicate"), x_((1, 1, 3, 4), 17))
    case("conv2d_unbatched", lambda: nn.Conv2d(2, 3, 2), x_((2, 4, 4), 18))
    case("conv3d", lambda: nn.Conv3d(2, 3, 2, stride=2), x_((1, 2, 4, 4, 4), 19))
    case("conv_transpose1d", lambda: nn.ConvTranspose1d(3, 2, 3, stride=2, padding=1, output_padding=1),
         x_((2, 3, 4), 20))
    case("conv_transpose2d", lambda: nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, groups=2), x_((1, 4, 3, 3), 21))
    case("conv_transpose2d_output_size", lambda: nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, bias=False),
         x_((1, 2, 3, 3), 22), call=lambda m, i: m(i["x"], output_size=[6, 6]))
    case("conv_transpose3d", lambda: nn.ConvTranspose3d(2, 2, 2, dilation=2), x_((1, 2, 2, 2, 2), 23))

    # Normalization.
    case("batchnorm1d", lambda: nn.BatchNorm1d(3), x_((4, 3), 30, 2.0))
    case("batchnorm1d_3d_cumulative", lambda: nn.BatchNorm1d(3, momentum=None), x_((2, 3, 4), 31),
         prep=set_params(310, weight=1.0, bias=1.0))
    case("batchnorm2d", lambda: nn.BatchNorm2d(3, eps=1e-3, momentum=0.2), x_((2, 3, 2, 2), 32),
         prep=set_params(320, weight=1.0, bias=1.0, running_mean=1.0, running_var=1.0))
    case("batchnorm2d_eval", lambda: nn.BatchNorm2d(3), x_((2, 3, 2, 2), 33), train=False,
         prep=set_params(330, weight=1.0, bias=1.0, running_mean=1.0, running_var=1.0))
    case("batchnorm2d_no_affine_no_stats", lambda: nn.BatchNorm2d(3, affine=False, track_running_stats=False),
         x_((2, 3, 2, 2), 34))
    case("batchnorm2d_no_stats_eval", lambda: nn.BatchNorm2d(2, track_running_stats=False), x_((3, 2, 2, 1), 35),
         train=False)
    case("batchnorm3d", lambda: nn.BatchNorm3d(2), x_((2, 2, 2, 2, 2), 36))
    case("layernorm", lambda: nn.LayerNorm(4), x_((2, 3, 4), 37), prep=set_params(370, weight=1.0, bias=1.0))
    case("layernorm_shape", lambda: nn.LayerNorm([3, 4], eps=1e-3, elementwise_affine=False), x_((2, 3, 4), 38))
    case("groupnorm", lambda: nn.GroupNorm(2, 4), x_((2, 4, 3), 39), prep=set_params(390, weight=1.0, bias=1.0))
    case("groupnorm_no_affine", lambda: nn.GroupNorm(3, 6, eps=1e-3, affine=False), x_((2, 6, 2, 2), 40))

    # Dropout: the masks are drawn right after construction.
    case("dropout", lambda: nn.Dropout(0.3), x_((4, 5), 41))
    case("dropout_default", lambda: nn.Dropout(), x_((4, 5), 42))
    case("dropout_eval", lambda: nn.Dropout(0.3), x_((4, 5), 43), train=False)
    case("dropout1d", lambda: nn.Dropout1d(0.5), x_((2, 3, 4), 44))
    case("dropout2d", lambda: nn.Dropout2d(0.4), x_((2, 3, 2, 2), 45))
    case("dropout3d", lambda: nn.Dropout3d(0.5), x_((2, 2, 2, 2, 2), 46))
    case("alpha_dropout", lambda: nn.AlphaDropout(0.2), x_((4, 5), 47))

    # Embedding.
    idx = {"idx": torch.tensor([[0, 2, 4], [1, 2, 5]])}
    case("embedding", lambda: nn.Embedding(10, 3), idx)
    case("embedding_padding", lambda: nn.Embedding(6, 3, padding_idx=0), {"idx": torch.tensor([[0, 2, 0], [1, 2, 5]])})
    case("embedding_neg_padding", lambda: nn.Embedding(6, 3, padding_idx=-2), idx)
    case("embedding_max_norm", lambda: nn.Embedding(6, 3, max_norm=1.0, norm_type=1.5, scale_grad_by_freq=True), idx)

    # Activations.
    X = (3, 4)
    acts = {
        "relu": nn.ReLU, "relu6": nn.ReLU6, "selu": nn.SELU, "silu": nn.SiLU, "mish": nn.Mish,
        "hardswish": nn.Hardswish, "hardsigmoid": nn.Hardsigmoid, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid,
        "logsigmoid": nn.LogSigmoid, "softsign": nn.Softsign, "tanhshrink": nn.Tanhshrink,
        "leaky_relu": lambda: nn.LeakyReLU(0.2), "leaky_relu_default": nn.LeakyReLU,
        "gelu": nn.GELU, "gelu_tanh": lambda: nn.GELU(approximate="tanh"),
        "elu": lambda: nn.ELU(alpha=0.5), "elu_default": nn.ELU, "celu": lambda: nn.CELU(2.0),
        "hardtanh": lambda: nn.Hardtanh(-0.5, 0.5), "hardtanh_default": nn.Hardtanh,
        "softplus": lambda: nn.Softplus(beta=2, threshold=1), "softplus_default": nn.Softplus,
        "threshold": lambda: nn.Threshold(0.1, 20.0), "glu": nn.GLU,
        "softmax": lambda: nn.Softmax(dim=1), "log_softmax": lambda: nn.LogSoftmax(dim=1),
        "softmin": lambda: nn.Softmin(dim=0),
    }
    for i, (k, f) in enumerate(acts.items()):
        case(k, f, x_(X, 50 + i, 2.0))
    case("prelu", lambda: nn.PReLU(), x_((2, 3, 4), 80, 2.0))
    case("prelu_channels", lambda: nn.PReLU(num_parameters=3, init=0.1), x_((2, 3, 4), 81, 2.0))

    # Pooling.
    case("maxpool1d", lambda: nn.MaxPool1d(2), x_((2, 3, 8), 90))
    case("maxpool2d", lambda: nn.MaxPool2d(2), x_((1, 2, 6, 6), 91))
    case("maxpool2d_opts", lambda: nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True), x_((1, 2, 7, 7), 92))
    case("maxpool2d_tuple", lambda: nn.MaxPool2d((2, 3), stride=(2, 1), dilation=(1, 2)), x_((2, 5, 7), 93))
    case("maxpool2d_indices", lambda: nn.MaxPool2d(2, return_indices=True), x_((1, 2, 4, 4), 94))
    case("maxpool3d", lambda: nn.MaxPool3d(2), x_((1, 2, 4, 4, 4), 95))
    case("avgpool1d", lambda: nn.AvgPool1d(3, stride=2, padding=1), x_((2, 3, 8), 96))
    case("avgpool2d", lambda: nn.AvgPool2d(2), x_((1, 2, 6, 6), 97))
    case("avgpool2d_opts", lambda: nn.AvgPool2d((3, 2), stride=(2, 1), padding=(1, 0), ceil_mode=True,
                                                count_include_pad=False, divisor_override=4), x_((1, 2, 7, 7), 98))
    case("avgpool3d", lambda: nn.AvgPool3d(2), x_((1, 2, 4, 4, 4), 99))
    case("adaptive_avgpool1d", lambda: nn.AdaptiveAvgPool1d(3), x_((2, 3, 7), 100))
    case("adaptive_avgpool2d", lambda: nn.AdaptiveAvgPool2d((2, 3)), x_((1, 2, 7, 5), 101))
    case("adaptive_avgpool2d_int", lambda: nn.AdaptiveAvgPool2d(1), x_((2, 3, 4, 4), 102))
    case("adaptive_avgpool3d", lambda: nn.AdaptiveAvgPool3d(2), x_((1, 2, 4, 5, 3), 103))
    case("adaptive_maxpool1d", lambda: nn.AdaptiveMaxPool1d(3), x_((2, 3, 7), 104))
    case("adaptive_maxpool2d", lambda: nn.AdaptiveMaxPool2d(2), x_((1, 2, 6, 6), 105))
    case("adaptive_maxpool2d_indices", lambda: nn.AdaptiveMaxPool2d((2, 3), return_indices=True),
         x_((1, 2, 6, 6), 106))
    case("adaptive_maxpool3d", lambda: nn.AdaptiveMaxPool3d((1, 2, 2)), x_((1, 2, 4, 4, 4), 107))

    # Losses.
    logits = rnd((4, 5), 110)
    target = torch.tensor([1, 0, 4, 2])
    lt = {"x": logits, "t": target}
    two = lambda m, i: m(i["x"], i["t"])  # noqa: E731
    case("cross_entropy_loss", lambda: nn.CrossEntropyLoss(), lt, call=two)
    case("cross_entropy_loss_opts", lambda: nn.CrossEntropyLoss(weight=uni((5,), 111, 0.5, 2.0), ignore_index=4,
                                                                label_smoothing=0.1, reduction="sum"), lt, call=two)
    case("nll_loss", lambda: nn.NLLLoss(), {"x": torch.log_softmax(logits, 1), "t": target}, call=two)
    y = {"x": rnd((3, 4), 112, 2.0), "t": rnd((3, 4), 113)}
    case("mse_loss", lambda: nn.MSELoss(), y, call=two)
    case("l1_loss", lambda: nn.L1Loss(reduction="sum"), y, call=two)
    case("smooth_l1_loss", lambda: nn.SmoothL1Loss(beta=0.5), y, call=two)
    case("huber_loss", lambda: nn.HuberLoss(reduction="none", delta=0.5), y, call=two)
    pq = {"x": uni((3, 4), 114, 0.05, 0.95), "t": uni((3, 4), 115, 0.0, 1.0)}
    case("bce_loss", lambda: nn.BCELoss(weight=uni((4,), 116, 0.5, 2.0)), pq, call=two)
    case("bce_with_logits_loss", lambda: nn.BCEWithLogitsLoss(pos_weight=uni((4,), 117, 0.5, 3.0)),
         {"x": rnd((3, 4), 118), "t": pq["t"]}, call=two)
    case("kl_div_loss", lambda: nn.KLDivLoss(reduction="batchmean", log_target=True),
         {"x": torch.log_softmax(rnd((3, 4), 119), 1), "t": torch.log_softmax(rnd((3, 4), 120), 1)}, call=two)

    # Issue 25: padding, normalization, vision, embeddings and distances,
    # and the remaining losses.
    case("zeropad2d", lambda: nn.ZeroPad2d((1, 0, 2, 1)), x_((1, 2, 3, 3), 130))
    case("constantpad1d", lambda: nn.ConstantPad1d(2, 3.5), x_((2, 3, 4), 131))
    case("constantpad2d_unbatched", lambda: nn.ConstantPad2d((1, 2, 0, 1), -1.0), x_((2, 3, 3), 132))
    case("constantpad3d", lambda: nn.ConstantPad3d(1, 0.5), x_((1, 1, 2, 2, 2), 133))
    case("reflectionpad1d", lambda: nn.ReflectionPad1d((2, 1)), x_((2, 3, 5), 134))
    case("reflectionpad2d", lambda: nn.ReflectionPad2d(1), x_((1, 2, 3, 4), 135))
    case("reflectionpad3d", lambda: nn.ReflectionPad3d(1), x_((1, 1, 3, 3, 3), 136))
    case("replicationpad1d", lambda: nn.ReplicationPad1d((1, 3)), x_((2, 2, 4), 137))
    case("replicationpad2d", lambda: nn.ReplicationPad2d((1, 0, 2, 1)), x_((1, 2, 3, 3), 138))
    case("replicationpad3d", lambda: nn.ReplicationPad3d(1), x_((1, 1, 2, 3, 2), 139))

    case("instancenorm1d", lambda: nn.InstanceNorm1d(3), x_((2, 3, 5), 140, 2.0))
    case("instancenorm2d_affine", lambda: nn.InstanceNorm2d(3, affine=True), x_((2, 3, 3, 4), 141),
         prep=set_params(1410, weight=1.0, bias=1.0))
    case("instancenorm2d_stats", lambda: nn.InstanceNorm2d(2, momentum=0.2, track_running_stats=True),
         x_((2, 2, 3, 3), 142, 2.0))
    case("instancenorm2d_stats_eval", lambda: nn.InstanceNorm2d(2, track_running_stats=True), x_((2, 2, 3, 3), 143),
         train=False, prep=set_params(1430, running_mean=1.0, running_var=1.0))
    case("instancenorm3d_unbatched", lambda: nn.InstanceNorm3d(2, eps=1e-3), x_((2, 2, 3, 3), 144))
    case("local_response_norm", lambda: nn.LocalResponseNorm(3), x_((2, 5, 4), 145, 3.0))
    case("local_response_norm_4d", lambda: nn.LocalResponseNorm(2, alpha=0.01, beta=0.5, k=2.0),
         x_((2, 4, 3, 3), 146, 3.0))

    case("upsample_nearest", lambda: nn.Upsample(scale_factor=2), x_((1, 2, 3, 3), 150))
    case("upsample_bilinear", lambda: nn.Upsample(size=(5, 4), mode="bilinear", align_corners=True),
         x_((1, 2, 3, 3), 151))
    case("upsample_linear", lambda: nn.Upsample(scale_factor=1.5, mode="linear"), x_((2, 2, 4), 152))
    case("upsample_trilinear", lambda: nn.Upsample(scale_factor=(2, 1, 2), mode="trilinear"),
         x_((1, 1, 2, 2, 2), 153))
    case("upsample_bicubic", lambda: nn.Upsample(size=5, mode="bicubic"), x_((1, 1, 3, 3), 154))
    case("pixel_shuffle", lambda: nn.PixelShuffle(2), x_((1, 8, 2, 3), 155))
    case("pixel_unshuffle", lambda: nn.PixelUnshuffle(2), x_((1, 2, 4, 6), 156))
    case("fold", lambda: nn.Fold((4, 5), 2), x_((1, 12, 12), 157))
    case("fold_opts", lambda: nn.Fold(4, (2, 3), padding=1, stride=2), x_((6, 6), 158))
    case("unfold", lambda: nn.Unfold(2), x_((1, 2, 3, 4), 159))
    case("unfold_opts", lambda: nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=2), x_((2, 1, 5, 6), 160))
    # channel_shuffle has no derivative in 1.13: an integer input.
    case("channel_shuffle", lambda: nn.ChannelShuffle(2), {"x": torch.arange(24).reshape(1, 6, 2, 2)})

    bag = {"idx": torch.tensor([[0, 2, 4, 2], [1, 9, 5, 0]])}
    flat = torch.tensor([3, 1, 4, 1, 5, 9, 2])
    case("embedding_bag", lambda: nn.EmbeddingBag(10, 3), bag)
    case("embedding_bag_offsets", lambda: nn.EmbeddingBag(10, 3, mode="sum"),
         {"idx": flat, "offsets": torch.tensor([0, 2, 5])}, call=lambda m, i: m(i["idx"], i["offsets"]))
    case("embedding_bag_max_padding", lambda: nn.EmbeddingBag(8, 3, mode="max", padding_idx=1),
         {"idx": torch.tensor([[0, 1, 4], [1, 7, 2]])})
    case("embedding_bag_weighted", lambda: nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True),
         {"idx": flat, "offsets": torch.tensor([0, 2, 5, 7]), "w": rnd((7,), 162)},
         call=lambda m, i: m(i["idx"], i["offsets"], per_sample_weights=i["w"]))
    case("embedding_bag_max_norm", lambda: nn.EmbeddingBag(6, 3, max_norm=1.0, norm_type=1.5), {"idx": torch.tensor([[0, 2], [5, 2]])})
    pair = lambda m, i: m(i["a"], i["b"])  # noqa: E731
    case("cosine_similarity", lambda: nn.CosineSimilarity(), {"a": rnd((3, 4), 163), "b": rnd((3, 4), 164)}, call=pair)
    case("cosine_similarity_opts", lambda: nn.CosineSimilarity(dim=0, eps=1e-3),
         {"a": rnd((3, 4), 165), "b": rnd((1, 4), 166)}, call=pair)
    case("pairwise_distance", lambda: nn.PairwiseDistance(), {"a": rnd((3, 4), 167), "b": rnd((3, 4), 168)}, call=pair)
    case("pairwise_distance_opts", lambda: nn.PairwiseDistance(p=1.0, eps=1e-3, keepdim=True),
         {"a": rnd((3, 4), 169), "b": rnd((3, 4), 170)}, call=pair)

    # Targets named y get no gradient (soft_margin_loss has none for its
    # target, and Poisson's Stirling term none at 0).
    triple = lambda m, i: m(i["a"], i["b"], i["c"])  # noqa: E731
    ranked = lambda m, i: m(i["a"], i["b"], i["y"])  # noqa: E731
    xy = lambda m, i: m(i["x"], i["y"])  # noqa: E731
    sign = lambda shape, seed: torch.where(rnd(shape, seed) > 0, 1.0, -1.0)  # noqa: E731
    lp = torch.log_softmax(rnd((6, 2, 4), 171), 2)
    ctc = lambda m, i: m(i["x"], i["t"], i["il"], i["tl"])  # noqa: E731
    case("ctc_loss", lambda: nn.CTCLoss(), {"x": lp, "t": torch.tensor([[1, 2, 2], [3, 1, 0]]),
                                            "il": torch.tensor([6, 5]), "tl": torch.tensor([3, 2])}, call=ctc)
    case("ctc_loss_opts", lambda: nn.CTCLoss(blank=3, reduction="sum", zero_infinity=True),
         {"x": lp, "t": torch.tensor([1, 1, 1, 1, 0, 2]), "il": torch.tensor([3, 6]), "tl": torch.tensor([4, 2])}, call=ctc)
    tri = {"a": rnd((4, 5), 172), "b": rnd((4, 5), 173), "c": rnd((4, 5), 174)}
    case("triplet_margin_loss", lambda: nn.TripletMarginLoss(), tri, call=triple)
    case("triplet_margin_loss_opts", lambda: nn.TripletMarginLoss(margin=0.5, p=1, eps=1e-3, swap=True,
                                                                  reduction="none"), tri, call=triple)
    case("margin_ranking_loss", lambda: nn.MarginRankingLoss(margin=0.2),
         {"a": rnd((5,), 175), "b": rnd((5,), 176), "y": sign((5,), 177)}, call=ranked)
    case("hinge_embedding_loss", lambda: nn.HingeEmbeddingLoss(margin=0.5, reduction="sum"),
         {"x": rnd((3, 4), 178).abs(), "y": sign((3, 4), 179)}, call=xy)
    case("multilabel_margin_loss", lambda: nn.MultiLabelMarginLoss(),
         {"x": rnd((2, 4), 180), "t": torch.tensor([[3, 0, -1, 1], [1, 2, 3, -1]])}, call=two)
    case("multilabel_soft_margin_loss", lambda: nn.MultiLabelSoftMarginLoss(weight=uni((4,), 181, 0.5, 2.0)),
         {"x": rnd((3, 4), 182), "y": (rnd((3, 4), 183) > 0).float()}, call=xy)
    case("multi_margin_loss", lambda: nn.MultiMarginLoss(), {"x": rnd((3, 5), 184), "t": torch.tensor([1, 0, 4])},
         call=two)
    case("multi_margin_loss_opts", lambda: nn.MultiMarginLoss(p=2, margin=0.7, weight=uni((5,), 185, 0.5, 2.0),
                                                              reduction="sum"),
         {"x": rnd((3, 5), 186), "t": torch.tensor([2, 2, 3])}, call=two)
    case("poisson_nll_loss", lambda: nn.PoissonNLLLoss(),
         {"x": rnd((3, 4), 187), "y": torch.floor(uni((3, 4), 188, 0.0, 4.0))}, call=xy)
    case("poisson_nll_loss_opts", lambda: nn.PoissonNLLLoss(log_input=False, full=True, eps=1e-4),
         {"x": uni((3, 4), 189, 0.5, 3.0), "y": torch.floor(uni((3, 4), 190, 0.0, 4.0))}, call=xy)
    case("gaussian_nll_loss", lambda: nn.GaussianNLLLoss(),
         {"a": rnd((3, 4), 191), "b": rnd((3, 4), 192), "c": uni((3, 4), 193, 0.2, 2.0)}, call=triple)
    case("gaussian_nll_loss_homo", lambda: nn.GaussianNLLLoss(full=True, eps=0.5, reduction="none"),
         {"a": rnd((3, 4), 194), "b": rnd((3, 4), 195), "c": uni((3,), 196, 0.2, 2.0)}, call=triple)
    case("cosine_embedding_loss", lambda: nn.CosineEmbeddingLoss(margin=0.1),
         {"a": rnd((4, 5), 197), "b": rnd((4, 5), 198), "y": sign((4,), 199)}, call=ranked)
    case("soft_margin_loss", lambda: nn.SoftMarginLoss(), {"x": rnd((3, 4), 200), "y": sign((3, 4), 201)}, call=xy)

    # Cases added later go last, so that the seeds of the cases above stay.
    case("upsample_nearest_exact", lambda: nn.Upsample(size=(5, 7), mode="nearest-exact"), x_((1, 2, 3, 4), 202))
    case("upsample_nearest_exact_1d", lambda: nn.Upsample(scale_factor=1.7, mode="nearest-exact"), x_((2, 1, 4), 203))
    case("upsample_area", lambda: nn.Upsample(size=(2, 3), mode="area"), x_((1, 2, 5, 7), 204))
    case("upsample_area_3d", lambda: nn.Upsample(size=(1, 2, 3), mode="area"), x_((1, 1, 3, 4, 5), 205))
    case("feature_alpha_dropout", lambda: nn.FeatureAlphaDropout(0.2), x_((2, 3, 2, 2), 206))
    case("hardshrink", nn.Hardshrink, x_((3, 4), 207, 2.0))
    case("softshrink", lambda: nn.Softshrink(0.3), x_((3, 4), 208, 2.0))
    case("rrelu", lambda: nn.RReLU(0.1, 0.3), x_((3, 4), 209, 2.0))
    case("rrelu_eval", nn.RReLU, x_((3, 4), 210, 2.0), train=False)
    case("softmax2d", nn.Softmax2d, x_((2, 3, 2, 2), 211))
    case("softmax2d_unbatched", nn.Softmax2d, x_((3, 2, 2), 212))
    case("lppool1d", lambda: nn.LPPool1d(2.0, 3), x_((2, 3, 7), 213))
    case("lppool2d", lambda: nn.LPPool2d(2.0, (2, 3), stride=(1, 2), ceil_mode=True), x_((1, 2, 5, 5), 214))
    mp1 = nn.functional.max_pool1d(rnd((2, 3, 8), 215), 2, return_indices=True)
    case("max_unpool1d", lambda: nn.MaxUnpool1d(2), {"x": mp1[0], "i": mp1[1]}, call=lambda m, i: m(i["x"], i["i"]))
    mp2 = nn.functional.max_pool2d(rnd((1, 2, 5, 6), 216), 2, stride=(2, 3), padding=1, return_indices=True)
    case("max_unpool2d", lambda: nn.MaxUnpool2d(2, stride=(2, 3), padding=1), {"x": mp2[0], "i": mp2[1]},
         call=lambda m, i: m(i["x"], i["i"], output_size=[5, 6]))
    mp3 = nn.functional.max_pool3d(rnd((1, 1, 4, 4, 4), 217), 2, return_indices=True)
    case("max_unpool3d", lambda: nn.MaxUnpool3d(2), {"x": mp3[0], "i": mp3[1]}, call=lambda m, i: m(i["x"], i["i"]))
    case("upsampling_nearest2d", lambda: nn.UpsamplingNearest2d(scale_factor=2), x_((1, 2, 2, 3), 218))
    case("upsampling_bilinear2d", lambda: nn.UpsamplingBilinear2d(size=(3, 5)), x_((1, 1, 2, 3), 219))
    case("triplet_margin_with_distance_loss", lambda: nn.TripletMarginWithDistanceLoss(), tri, call=triple)
    case("triplet_margin_with_distance_loss_opts", lambda: nn.TripletMarginWithDistanceLoss(
        distance_function=lambda x, y: (x - y).abs().sum(-1), margin=0.5, swap=True, reduction="sum"), tri, call=triple)
    fx = torch.tensor([[0.5, 0.3], [0.9, 0.1]])
    case("fractional_max_pool2d", lambda: nn.FractionalMaxPool2d(2, output_size=(3, 4), _random_samples=fx[None]),
         x_((1, 2, 6, 7), 220))
    case("fractional_max_pool2d_ratio_seeded", lambda: nn.FractionalMaxPool2d((2, 3), output_ratio=0.5), x_((2, 3, 8, 8), 221),
         seed=222)
    case("fractional_max_pool3d_indices", lambda: nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.6, 0.5),
                                                                         return_indices=True),
         x_((2, 5, 6, 5), 223), seed=224)

    # Issue 37: the last nn names, ParameterList and ParameterDict,
    # CrossMapLRN2d and AdaptiveLogSoftmaxWithLoss.
    case("parameter_list_dict", ParamHolder, x_((2, 3), 230))
    case("cross_map_lrn2d", lambda: nn.CrossMapLRN2d(3), x_((2, 5, 3, 3), 231, 3.0))
    case("cross_map_lrn2d_even", lambda: nn.CrossMapLRN2d(4, alpha=0.01, beta=0.5, k=2), x_((2, 6, 2, 3), 232, 3.0))
    case("cross_map_lrn2d_wide", lambda: nn.CrossMapLRN2d(7, alpha=0.1, beta=1.5), x_((1, 3, 2, 2), 233, 2.0))
    case("cross_map_lrn2d_two", lambda: nn.CrossMapLRN2d(2, alpha=0.2), x_((2, 4, 2, 2), 234, 2.0))
    # Size 1 has no gradient in PyTorch (its backward fails): an input
    # named y gets none.
    case("cross_map_lrn2d_size1", lambda: nn.CrossMapLRN2d(1, alpha=0.5), {"y": rnd((2, 3, 2, 2), 244, 2.0)},
         call=lambda m, i: m(i["y"]))
    asm_in = {"x": rnd((7, 8), 235), "t": torch.tensor([0, 4, 9, 2, 7, 5, 3])}
    asm = lambda m, i: m(i["x"], i["t"])  # noqa: E731
    case("adaptive_log_softmax", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0), asm_in,
         call=lambda m, i: tuple(m(i["x"], i["t"])))
    case("adaptive_log_softmax_loss", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0), asm_in,
         call=lambda m, i: tuple(reversed(asm(m, i))))
    case("adaptive_log_softmax_head_bias", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 12, [2, 5, 9], head_bias=True),
         {"x": rnd((5, 8), 236), "t": torch.tensor([11, 1, 6, 3, 0])}, call=lambda m, i: tuple(asm(m, i)))
    case("adaptive_log_softmax_unbatched", lambda: nn.AdaptiveLogSoftmaxWithLoss(6, 5, [2]),
         {"x": rnd((6,), 237), "t": torch.tensor(3)}, call=lambda m, i: tuple(asm(m, i)))
    case("adaptive_log_softmax_one_part", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0),
         {"x": rnd((3, 8), 238), "t": torch.tensor([1, 0, 2])}, call=lambda m, i: tuple(asm(m, i)))
    case("adaptive_log_softmax_log_prob", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0),
         x_((4, 8), 239), call=lambda m, i: m.log_prob(i["x"]))
    # predict's three paths: the head's best is a cluster for some rows, for
    # all rows (a head bias set so), for none.
    case("adaptive_log_softmax_predict", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0,
                                                                               head_bias=True),
         x_((12, 8), 240), call=lambda m, i: m.predict(i["x"]), prep=set_head_bias([0.0, 0.0, 0.0, 0.6, 0.6]))
    case("adaptive_log_softmax_predict_clusters", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], head_bias=True),
         x_((6, 8), 241), call=lambda m, i: m.predict(i["x"]), prep=set_head_bias([0.0, 0.0, 0.0, 9.0, 9.0]))
    case("adaptive_log_softmax_predict_shortlist", lambda: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], head_bias=True),
         x_((6, 8), 242), call=lambda m, i: m.predict(i["x"]), prep=set_head_bias([9.0, 9.0, 9.0, 0.0, 0.0]))
    # Python's float floor division: in_features // div_value is 1 // 0.1,
    # 9, not floor(1 / 0.1).
    case("adaptive_log_softmax_div", lambda: nn.AdaptiveLogSoftmaxWithLoss(1, 4, [2], div_value=0.1),
         {"x": rnd((3, 1), 243), "t": torch.tensor([0, 3, 2])}, call=lambda m, i: tuple(asm(m, i)))


def set_head_bias(values):
    """A prep that sets AdaptiveLogSoftmaxWithLoss's head bias."""

    def prep(m):
        with torch.no_grad():
            m.head.bias.copy_(torch.tensor(values))
    return prep


class ParamHolder(nn.Module):
    """A ParameterList and a ParameterDict in a module (ParamHolderModule in
    parameter_container_test.go): their state-dict keys are plist.0,
    plist.1, pdict.scale and pdict.shift."""

    def __init__(self):
        super().__init__()
        self.plist = nn.ParameterList([nn.Parameter(torch.randn(3, 4)), torch.randn(4)])
        self.pdict = nn.ParameterDict({"shift": torch.randn(4), "scale": torch.randn(4)})

    def forward(self, x):
        return (x @ self.plist[0] + self.plist[1]) * self.pdict["scale"] + self.pdict["shift"]


def repr_cases():
    """Layers whose print is checked but not run."""
    return {
        "cnn": nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                             nn.Linear(32 * 13 * 13, 10), nn.LogSoftmax(dim=1)),
        "conv2d_all": nn.Conv2d(4, 8, 3, stride=2, padding=1, dilation=2, groups=4, bias=False,
                                padding_mode="reflect"),
        "conv_transpose2d_all": nn.ConvTranspose2d(4, 8, (3, 2), stride=2, padding=1, output_padding=1,
                                                   groups=2, dilation=2, bias=False),
        "embedding_all": nn.Embedding(5, 2, padding_idx=1, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True,
                                      sparse=True),
        "batchnorm_none": nn.BatchNorm1d(4, momentum=None, affine=False, track_running_stats=False),
        "maxpool_tuple": nn.MaxPool2d((2, 3), stride=(1, 2), padding=(1, 0)),
        "avgpool1d": nn.AvgPool1d(4),
        "avgpool3d": nn.AvgPool3d((2, 1, 2), stride=1),
        "adaptive_maxpool3d": nn.AdaptiveMaxPool3d((1, 2, 3)),
        "dropout2d": nn.Dropout2d(0.25),
        "upsample_scale_tuple": nn.Upsample(scale_factor=(2, 3), mode="bilinear"),
        "upsample_none": nn.Upsample(),
        "upsample_nearest_exact": nn.Upsample(scale_factor=2, mode="nearest-exact"),
        "upsample_area": nn.Upsample(size=(3, 4), mode="area"),
        "fold_all": nn.Fold((4, 5), (2, 3), dilation=2, padding=(1, 0), stride=1),
        "embedding_bag_all": nn.EmbeddingBag(5, 2, max_norm=2.0, norm_type=1.0, scale_grad_by_freq=True, mode="sum",
                                             sparse=True, include_last_offset=True, padding_idx=-1),
        "instancenorm3d_all": nn.InstanceNorm3d(4, eps=1e-3, momentum=0.5, affine=True, track_running_stats=True),
        "pads": nn.Sequential(nn.ZeroPad2d(2), nn.ConstantPad3d((1, 2, 3, 4, 5, 6), 0.25), nn.ReflectionPad1d(3),
                              nn.ReplicationPad3d((1, 0, 1, 0, 1, 0))),
        "misc": nn.Sequential(nn.LocalResponseNorm(4, alpha=0.5, beta=1.0, k=3.0), nn.PixelShuffle(3),
                              nn.PixelUnshuffle(2), nn.ChannelShuffle(4), nn.CosineSimilarity(dim=2),
                              nn.PairwiseDistance(p=3.0), nn.Unfold(3, stride=2)),
        "losses": nn.Sequential(nn.CTCLoss(blank=2), nn.TripletMarginLoss(margin=2.0), nn.MarginRankingLoss(),
                                nn.HingeEmbeddingLoss(), nn.MultiLabelMarginLoss(), nn.MultiLabelSoftMarginLoss(),
                                nn.MultiMarginLoss(p=2), nn.PoissonNLLLoss(full=True), nn.GaussianNLLLoss(),
                                nn.CosineEmbeddingLoss(), nn.SoftMarginLoss()),
    }


# Lazy layers (lazy_test.go): each is built with its seed, an SGD optimizer
# is made of its uninitialized parameters, and then come the first forward
# (which materializes the parameters with the same draws as the regular
# layer), backward of (out * c).sum() and one SGD step, which must update
# the tensors the optimizer was given.
LAZY_CASES = [
    ("lazy_linear", 501, lambda: nn.LazyLinear(3), (2, 4)),
    ("lazy_conv2d", 502, lambda: nn.LazyConv2d(4, 3, stride=2, padding=1, groups=2), (2, 2, 5, 5)),
    ("lazy_batchnorm2d", 503, lambda: nn.LazyBatchNorm2d(momentum=0.2), (2, 3, 2, 2)),
    ("lazy_conv_transpose1d", 504, lambda: nn.LazyConvTranspose1d(2, 3, stride=2), (3, 4)),
    ("lazy_instancenorm1d", 505, lambda: nn.LazyInstanceNorm1d(), (2, 3, 5)),
]


def lazy_cases():
    out = []
    for name, seed, build, shape in LAZY_CASES:
        torch.manual_seed(seed)
        m = build()
        rec = {"name": name, "seed": seed, "repr_lazy": repr(m),
               "lazy_keys": sorted(k for k, v in m.state_dict().items()
                                   if isinstance(v, nn.parameter.UninitializedTensorMixin))}
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        x = rnd(shape, seed).requires_grad_(True)
        rec["x"] = enc(x)
        y = m(x)
        rec["repr"] = repr(m)
        # Forward changes buffers only: the parameters are still as
        # initialized.
        rec["init"] = enc_sd(dict(m.named_parameters()))
        rec["out"] = enc(y)
        n = y.numel()
        cc = torch.linspace(-1.0, 1.0, n, dtype=torch.float64).reshape(y.shape).float()
        (y * cc).sum().backward()
        rec["c"] = enc(cc)
        rec["grads"] = {"input.x": enc(x.grad)}
        for k, p in m.named_parameters():
            rec["grads"]["param." + k] = enc(p.grad)
        opt.step()
        rec["after"] = enc_sd(m.state_dict())
        out.append(rec)
    return out


def main():
    build_cases()
    out = []
    for c in CASES:
        torch.manual_seed(c["seed"])
        m = c["build"]()
        init_sd = enc_sd(m.state_dict())
        if c["prep"]:
            c["prep"](m)
        state = enc_sd(m.state_dict())
        m.train(c["train"])
        ins = {k: (v.clone().requires_grad_(True) if v.dtype.is_floating_point and k != "y" else v.clone())
               for k, v in c["inputs"].items()}
        enc_in = {k: enc(v) for k, v in ins.items()}
        res = c["call"](m, ins) if c["call"] else m(ins["x"] if "x" in ins else ins["idx"])
        outs = list(res) if isinstance(res, tuple) else [res]
        rec = {"name": c["name"], "seed": c["seed"], "train": c["train"], "repr": repr(m),
               "init": init_sd, "state": state, "inputs": enc_in, "out": [enc(o) for o in outs]}
        first = outs[0]
        if first.requires_grad:
            n = first.numel()
            cc = torch.linspace(-1.0, 1.0, n, dtype=torch.float64).reshape(first.shape).float()
            if n == 1:
                cc = torch.full(first.shape, 0.75)
            (first * cc).sum().backward()
            rec["c"] = enc(cc)
            grads = {}
            for k, v in ins.items():
                if v.requires_grad:
                    grads["input." + k] = enc(v.grad if v.grad is not None else torch.zeros_like(v))
            for k, p in m.named_parameters():
                grads["param." + k] = enc(p.grad if p.grad is not None else torch.zeros_like(p))
            rec["grads"] = grads
        rec["after"] = enc_sd(m.state_dict())
        out.append(rec)
    reprs = {k: repr(v) for k, v in repr_cases().items()}
    data = {"torch_version": torch.__version__, "cases": out, "reprs": reprs, "lazy": lazy_cases()}
    with open(os.path.join(OUT, "modules.json"), "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", len(out), "cases,", len(reprs), "reprs and", len(data["lazy"]), "lazy cases")


if __name__ == "__main__":
    main()
