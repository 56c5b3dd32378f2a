#!/usr/bin/python3
"""Writes the golden values that nn's LSTM, GRU, MultiheadAttention and
TransformerEncoderLayer tests compare against.

Run it with the reference PyTorch (1.13) from the repository root:

    /usr/bin/python3 nn/testdata/rnn_attention.py

It writes nn/testdata/rnn_attention.json; the Go tests never run Python.

For every case it records the module's repr, its state dict (parameter
values drawn from a seeded generator, overwriting PyTorch's own init so that
biases and LayerNorm weights are not trivially 0 or 1), the parameter names
in PyTorch's order, the inputs, the forward results, and the gradients of
the inputs and of every parameter after backward of
sum_i (result_i * cotangent_i) over the tensor results, the cotangents
being recorded too. The Go test builds the same module, loads the state
dict with LoadStateDict (strict, so the keys must be PyTorch's), and
compares.

Tensors are {"dtype", "shape", "values"}; values are flattened in row-major
order, booleans as 0/1, and non-finite floats as the strings "inf", "-inf"
and "nan" (JSON has no literal for them).
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


def enc(t):
    t = t.detach()
    if t.dtype == torch.bool:
        vals = [1 if v else 0 for v in t.reshape(-1).tolist()]
        return {"dtype": "bool", "shape": list(t.shape), "values": vals}
    assert t.dtype == torch.float32, t.dtype
    vals = []
    for v in t.reshape(-1).tolist():
        if math.isnan(v):
            vals.append("nan")
        elif math.isinf(v):
            vals.append("inf" if v > 0 else "-inf")
        else:
            vals.append(v)
    return {"dtype": "float32", "shape": list(t.shape), "values": vals}


class Gen:
    """Deterministic values from a seeded generator."""

    def __init__(self, seed):
        self.g = torch.Generator().manual_seed(seed)

    def uniform(self, *shape, scale=1.0):
        return (torch.rand(*shape, generator=self.g) * 2 - 1) * scale

    def normal(self, *shape):
        return torch.randn(*shape, generator=self.g)


def run_case(module, seed, inputs, call, train=False):
    """Fills module's parameters, runs call(module, **inputs) and records
    everything. call returns a tuple of tensors (None allowed)."""
    g = Gen(seed)
    with torch.no_grad():
        for _, p in module.named_parameters():
            p.copy_(g.uniform(*p.shape, scale=0.6))
    module.train(train)
    for t in inputs.values():
        if t is not None and t.is_floating_point() and t.requires_grad:
            t.retain_grad()
    results = call(module, **inputs)
    cot = []
    loss = 0
    for r in results:
        if r is None:
            cot.append(None)
            continue
        c = g.uniform(*r.shape)
        cot.append(c)
        loss = loss + (r * c).sum()
    loss.backward()
    case = {
        "repr": repr(module),
        "training": train,
        "param_names": [n for n, _ in module.named_parameters()],
        "state_dict": {k: enc(v) for k, v in module.state_dict().items()},
        "inputs": {k: enc(v) for k, v in inputs.items() if v is not None},
        "outputs": [None if r is None else enc(r) for r in results],
        "cotangents": [None if c is None else enc(c) for c in cot],
        "input_grads": {k: enc(v.grad) for k, v in inputs.items()
                        if v is not None and v.requires_grad},
        "param_grads": {n: enc(p.grad) for n, p in module.named_parameters()},
    }
    return case


def leaf(t):
    return t.clone().requires_grad_()


def cases():
    c = {}

    # LSTM: 2 layers, bidirectional, batch_first, default (zero) state.
    g = Gen(1)
    m = nn.LSTM(4, 5, num_layers=2, bidirectional=True, batch_first=True)
    x = leaf(g.normal(3, 6, 4))
    c["lstm_2l_bi_bf"] = run_case(
        m, 11, {"x": x},
        lambda m, x: (lambda o, hc: (o, hc[0], hc[1]))(*m(x)), train=True)

    # GRU: 1 layer, unidirectional, sequence first, default state.
    g = Gen(2)
    m = nn.GRU(4, 6)
    x = leaf(g.normal(5, 2, 4))
    c["gru_1l"] = run_case(m, 12, {"x": x},
                           lambda m, x: (lambda o, h: (o, h))(*m(x)), train=True)

    # LSTM with a given (h0, c0).
    g = Gen(3)
    m = nn.LSTM(3, 4)
    x = leaf(g.normal(5, 2, 3))
    h0 = leaf(g.normal(1, 2, 4))
    c0 = leaf(g.normal(1, 2, 4))
    c["lstm_h0"] = run_case(
        m, 13, {"x": x, "h0": h0, "c0": c0},
        lambda m, x, h0, c0: (lambda o, hc: (o, hc[0], hc[1]))(*m(x, (h0, c0))),
        train=True)

    # LSTM, no bias, with projections, unbatched input and state, eval.
    g = Gen(4)
    m = nn.LSTM(3, 5, num_layers=2, bias=False, proj_size=2, dropout=0.5)
    x = leaf(g.normal(7, 3))
    h0 = leaf(g.normal(2, 2))
    c0 = leaf(g.normal(2, 5))
    c["lstm_proj_nobias_unbatched"] = run_case(
        m, 14, {"x": x, "h0": h0, "c0": c0},
        lambda m, x, h0, c0: (lambda o, hc: (o, hc[0], hc[1]))(*m(x, (h0, c0))))

    # GRU, 2 layers, bidirectional, no bias, given h0, batch_first.
    g = Gen(5)
    m = nn.GRU(3, 4, num_layers=2, bidirectional=True, bias=False, batch_first=True)
    x = leaf(g.normal(2, 4, 3))
    h0 = leaf(g.normal(4, 2, 4))
    c["gru_2l_bi_h0"] = run_case(
        m, 15, {"x": x, "h0": h0},
        lambda m, x, h0: (lambda o, h: (o, h))(*m(x, h0)), train=True)

    # MHA, cross attention (key is value), sequence first, boolean
    # key_padding_mask and boolean attn_mask, averaged weights.
    g = Gen(6)
    m = nn.MultiheadAttention(8, 2)
    q = leaf(g.normal(4, 3, 8))
    kv = leaf(g.normal(5, 3, 8))
    kpm = torch.tensor([[False, False, False, True, True],
                        [False, False, False, False, False],
                        [False, True, False, False, True]])
    am = torch.tensor([[False, True, False, False, False],
                       [False, False, True, False, False],
                       [False, False, False, False, True],
                       [True, False, False, False, False]])
    c["mha_cross_masks"] = run_case(
        m, 16, {"query": q, "kv": kv, "key_padding_mask": kpm, "attn_mask": am},
        lambda m, query, kv, key_padding_mask, attn_mask: m(
            query, kv, kv, key_padding_mask=key_padding_mask, attn_mask=attn_mask),
        train=True)

    # MHA, self attention, batch_first, float 3-D attn_mask with -inf,
    # boolean key_padding_mask, per-head weights.
    g = Gen(7)
    m = nn.MultiheadAttention(8, 2, batch_first=True)
    x = leaf(g.normal(2, 5, 8))
    am = g.normal(4, 5, 5) * 0.5
    am[0, 1, 3] = -math.inf
    am[3, 4, 0] = -math.inf
    kpm = torch.tensor([[False, False, False, False, True],
                        [True, False, False, False, False]])
    c["mha_self_bf_float_mask"] = run_case(
        m, 17, {"x": x, "key_padding_mask": kpm, "attn_mask": am},
        lambda m, x, key_padding_mask, attn_mask: m(
            x, x, x, key_padding_mask=key_padding_mask, attn_mask=attn_mask,
            average_attn_weights=False),
        train=True)

    # MHA, kdim/vdim differ from embed_dim, add_bias_kv, add_zero_attn,
    # no bias, unbatched, separate query/key/value tensors, float
    # key_padding_mask, eval (so dropout is off).
    g = Gen(8)
    m = nn.MultiheadAttention(6, 3, dropout=0.3, bias=False, add_bias_kv=True,
                              add_zero_attn=True, kdim=4, vdim=5)
    q = leaf(g.normal(3, 6))
    k = leaf(g.normal(4, 4))
    v = leaf(g.normal(4, 5))
    kpm = torch.tensor([0.0, -1.5, 0.0, 0.25])
    c["mha_kdim_biaskv_zeroattn_unbatched"] = run_case(
        m, 18, {"query": q, "key": k, "value": v, "key_padding_mask": kpm},
        lambda m, query, key, value, key_padding_mask: m(
            query, key, value, key_padding_mask=key_padding_mask))

    # MHA without weights.
    g = Gen(9)
    m = nn.MultiheadAttention(4, 1)
    x = leaf(g.normal(3, 2, 4))
    c["mha_no_weights"] = run_case(
        m, 19, {"x": x}, lambda m, x: m(x, x, x, need_weights=False), train=True)

    # TransformerEncoderLayer, post-norm (norm_first=False), relu, sequence
    # first, boolean src_key_padding_mask, eval (dropout 0.1 is off).
    g = Gen(10)
    m = nn.TransformerEncoderLayer(8, 2, 16, 0.1)
    src = leaf(g.normal(5, 3, 8))
    kpm = torch.tensor([[False, False, False, False, True],
                        [False, False, False, False, False],
                        [False, False, True, True, False]])
    c["tel_post_relu"] = run_case(
        m, 20, {"src": src, "src_key_padding_mask": kpm},
        lambda m, src, src_key_padding_mask: (
            m(src, src_key_padding_mask=src_key_padding_mask),))

    # TransformerEncoderLayer, pre-norm (norm_first=True), gelu, batch_first,
    # layer_norm_eps 1e-6, dropout 0 in training mode, causal float mask.
    g = Gen(11)
    m = nn.TransformerEncoderLayer(8, 4, 12, 0.0, activation="gelu",
                                   layer_norm_eps=1e-6, batch_first=True,
                                   norm_first=True)
    src = leaf(g.normal(2, 5, 8))
    mask = nn.Transformer.generate_square_subsequent_mask(5)
    c["tel_pre_gelu_bf"] = run_case(
        m, 21, {"src": src, "src_mask": mask},
        lambda m, src, src_mask: (m(src, src_mask=src_mask),), train=True)

    return c


def reprs():
    return {
        "lstm_full": repr(nn.LSTM(3, 4, num_layers=2, bias=False, batch_first=True,
                                  dropout=0.25, bidirectional=True, proj_size=2)),
        "lstm_plain": repr(nn.LSTM(10, 20)),
        "gru_dropout1": repr(nn.GRU(3, 4, num_layers=3, dropout=1)),
        "mha_nobias": repr(nn.MultiheadAttention(6, 2, bias=False, kdim=3)),
        "tel_default": repr(nn.TransformerEncoderLayer(16, 4)),
    }


def main():
    torch.manual_seed(0)
    out = {
        "torch_version": torch.__version__,
        "cases": cases(),
        "repr": reprs(),
    }
    with open(os.path.join(OUT, "rnn_attention.json"), "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"), sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
