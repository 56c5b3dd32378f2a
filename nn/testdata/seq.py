#!/usr/bin/python3
"""Writes the golden values that nn's sequence-model tests compare against:
RNN, the cells (RNNCell, LSTMCell, GRUCell), packed sequences, and the
transformer stacks (TransformerEncoder, TransformerDecoderLayer,
TransformerDecoder, Transformer).

Run it with the reference PyTorch (1.13) from the repository root:

    /usr/bin/python3 nn/testdata/seq.py

It writes nn/testdata/seq.json in the format of rnn_attention.json (see
rnn_attention.py, whose helpers it uses): per case the repr, the state dict
(values from a seeded generator), the parameter names in PyTorch's order,
the inputs, one forward call's results, and the gradients of the inputs and
parameters for seeded cotangents. The Go tests load the state dict
strictly, so the parameter names must be PyTorch's.
"""

import json
import os
import sys

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rnn_attention import Gen, enc, leaf, run_case  # noqa: E402

OUT = os.environ.get("GOLDEN_OUT") or HERE


def recurrent_cases(c):
    # RNN, tanh, 2 layers, bidirectional, batch_first, zero state.
    g = Gen(101)
    m = nn.RNN(4, 5, num_layers=2, bidirectional=True, batch_first=True)
    x = leaf(g.normal(3, 6, 4))
    c["rnn_tanh_2l_bi_bf"] = run_case(m, 201, {"x": x}, lambda m, x: m(x), train=True)

    # RNN, relu, no bias, given h0, sequence first.
    g = Gen(102)
    m = nn.RNN(3, 4, nonlinearity="relu", bias=False)
    x = leaf(g.normal(5, 2, 3))
    h0 = leaf(g.normal(1, 2, 4))
    c["rnn_relu_nobias_h0"] = run_case(m, 202, {"x": x, "h0": h0}, lambda m, x, h0: m(x, h0))

    # RNN, unbatched, 2 layers, dropout (eval: off).
    g = Gen(103)
    m = nn.RNN(3, 4, num_layers=2, dropout=0.5)
    x = leaf(g.normal(6, 3))
    c["rnn_unbatched"] = run_case(m, 203, {"x": x}, lambda m, x: m(x))

    # Cells.
    g = Gen(104)
    m = nn.RNNCell(3, 4)
    x, h = leaf(g.normal(2, 3)), leaf(g.normal(2, 4))
    c["rnncell_tanh"] = run_case(m, 204, {"x": x, "h": h}, lambda m, x, h: (m(x, h),))

    g = Gen(105)
    m = nn.RNNCell(3, 4, bias=False, nonlinearity="relu")
    x = leaf(g.normal(3))
    c["rnncell_relu_nobias_unbatched"] = run_case(m, 205, {"x": x}, lambda m, x: (m(x),))

    g = Gen(106)
    m = nn.LSTMCell(3, 4)
    x, h, cc = leaf(g.normal(2, 3)), leaf(g.normal(2, 4)), leaf(g.normal(2, 4))
    c["lstmcell"] = run_case(m, 206, {"x": x, "h": h, "c": cc},
                             lambda m, x, h, c: m(x, (h, c)))

    g = Gen(107)
    m = nn.LSTMCell(3, 4, bias=False)
    x = leaf(g.normal(3))
    c["lstmcell_nobias_unbatched"] = run_case(m, 207, {"x": x}, lambda m, x: m(x))

    g = Gen(108)
    m = nn.GRUCell(3, 4)
    x, h = leaf(g.normal(2, 3)), leaf(g.normal(2, 4))
    c["grucell"] = run_case(m, 208, {"x": x, "h": h}, lambda m, x, h: (m(x, h),))

    g = Gen(109)
    m = nn.GRUCell(3, 4)
    x = leaf(g.normal(2, 3))
    c["grucell_zero_state"] = run_case(m, 209, {"x": x}, lambda m, x: (m(x),))


def packed_cases(c):
    # LSTM, bidirectional, unsorted lengths, batch_first, given (h0, c0).
    g = Gen(110)
    m = nn.LSTM(3, 4, bidirectional=True, batch_first=True)
    x = leaf(g.normal(3, 5, 3))
    h0, c0 = leaf(g.normal(2, 3, 4)), leaf(g.normal(2, 3, 4))

    def lstm_packed(m, x, h0, c0):
        p = pack_padded_sequence(x, [2, 5, 3], batch_first=True, enforce_sorted=False)
        out, (hn, cn) = m(p, (h0, c0))
        padded, _ = pad_packed_sequence(out, batch_first=True)
        return out.data, padded, hn, cn
    c["packed_lstm_unsorted_bf"] = run_case(m, 210, {"x": x, "h0": h0, "c0": c0}, lstm_packed, train=True)

    # GRU, 2 layers, sorted lengths, sequence first, zero state,
    # total_length and padding_value.
    g = Gen(111)
    m = nn.GRU(3, 4, num_layers=2)
    x = leaf(g.normal(4, 3, 3))

    def gru_packed(m, x):
        p = pack_padded_sequence(x, [4, 3, 1])
        out, hn = m(p)
        padded, _ = pad_packed_sequence(out, padding_value=-1.0, total_length=6)
        return out.data, padded, hn
    c["packed_gru_sorted"] = run_case(m, 211, {"x": x}, gru_packed, train=True)

    # RNN relu, unsorted lengths, given h0.
    g = Gen(112)
    m = nn.RNN(3, 4, nonlinearity="relu")
    x = leaf(g.normal(4, 3, 3))
    h0 = leaf(g.normal(1, 3, 4))

    def rnn_packed(m, x, h0):
        p = pack_padded_sequence(x, [1, 4, 2], enforce_sorted=False)
        out, hn = m(p, h0)
        padded, _ = pad_packed_sequence(out)
        return out.data, padded, hn
    c["packed_rnn_relu_unsorted"] = run_case(m, 212, {"x": x, "h0": h0}, rnn_packed, train=True)


def transformer_cases(c):
    # TransformerEncoder: 2 post-norm layers and a final norm, causal mask
    # and a key padding mask, training with dropout 0.
    g = Gen(120)
    m = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, 0.0), 2, norm=nn.LayerNorm(8))
    src = leaf(g.normal(5, 3, 8))
    kpm = torch.tensor([[False, False, False, False, True],
                        [False, False, False, False, False],
                        [False, False, True, True, False]])
    mask = nn.Transformer.generate_square_subsequent_mask(5)
    c["encoder_2l_norm"] = run_case(
        m, 220, {"src": src, "mask": mask, "src_key_padding_mask": kpm},
        lambda m, src, mask, src_key_padding_mask: (
            m(src, mask=mask, src_key_padding_mask=src_key_padding_mask),), train=True)

    # TransformerDecoderLayer, post-norm relu, causal tgt_mask, boolean
    # memory_key_padding_mask, eval (dropout 0.1 is off).
    g = Gen(121)
    m = nn.TransformerDecoderLayer(8, 2, 16, 0.1)
    tgt = leaf(g.normal(4, 2, 8))
    memory = leaf(g.normal(5, 2, 8))
    mkpm = torch.tensor([[False, False, False, True, True],
                         [False, False, False, False, False]])
    c["decoder_layer_post_relu"] = run_case(
        m, 221, {"tgt": tgt, "memory": memory, "tgt_mask": nn.Transformer.generate_square_subsequent_mask(4),
                 "memory_key_padding_mask": mkpm},
        lambda m, tgt, memory, tgt_mask, memory_key_padding_mask: (
            m(tgt, memory, tgt_mask=tgt_mask, memory_key_padding_mask=memory_key_padding_mask),))

    # TransformerDecoderLayer, pre-norm gelu, batch_first, layer_norm_eps,
    # tgt_key_padding_mask and a boolean memory_mask, training, dropout 0.
    g = Gen(122)
    m = nn.TransformerDecoderLayer(8, 4, 12, 0.0, activation="gelu", layer_norm_eps=1e-6,
                                   batch_first=True, norm_first=True)
    tgt = leaf(g.normal(2, 4, 8))
    memory = leaf(g.normal(2, 3, 8))
    tkpm = torch.tensor([[False, False, False, True], [False, False, False, False]])
    mm = torch.tensor([[False, True, False], [False, False, False], [True, False, False], [False, False, True]])
    c["decoder_layer_pre_gelu_bf"] = run_case(
        m, 222, {"tgt": tgt, "memory": memory, "tgt_key_padding_mask": tkpm, "memory_mask": mm},
        lambda m, tgt, memory, tgt_key_padding_mask, memory_mask: (
            m(tgt, memory, tgt_key_padding_mask=tgt_key_padding_mask, memory_mask=memory_mask),), train=True)

    # TransformerDecoder: 2 layers and a final norm, unbatched.
    g = Gen(123)
    m = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, 0.0), 2, norm=nn.LayerNorm(8))
    tgt = leaf(g.normal(3, 8))
    memory = leaf(g.normal(4, 8))
    c["decoder_2l_norm_unbatched"] = run_case(
        m, 223, {"tgt": tgt, "memory": memory, "tgt_mask": nn.Transformer.generate_square_subsequent_mask(3)},
        lambda m, tgt, memory, tgt_mask: (m(tgt, memory, tgt_mask=tgt_mask),), train=True)

    # Transformer, small, batch_first, with every kind of mask.
    g = Gen(124)
    m = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                       dim_feedforward=16, dropout=0.0, batch_first=True)
    src = leaf(g.normal(2, 5, 8))
    tgt = leaf(g.normal(2, 4, 8))
    skpm = torch.tensor([[False, False, False, False, True], [False, False, False, False, False]])
    tkpm = torch.tensor([[False, False, False, False], [False, False, False, True]])
    c["transformer_bf"] = run_case(
        m, 224, {"src": src, "tgt": tgt, "tgt_mask": nn.Transformer.generate_square_subsequent_mask(4),
                 "src_key_padding_mask": skpm, "tgt_key_padding_mask": tkpm, "memory_key_padding_mask": skpm},
        lambda m, src, tgt, tgt_mask, src_key_padding_mask, tgt_key_padding_mask, memory_key_padding_mask: (
            m(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=src_key_padding_mask,
              tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask),),
        train=True)


def reprs():
    return {
        "rnn_plain": repr(nn.RNN(10, 20)),
        "rnn_full": repr(nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bias=False, batch_first=True,
                                dropout=0.25, bidirectional=True)),
        "rnncell": repr(nn.RNNCell(3, 4)),
        "rnncell_full": repr(nn.RNNCell(3, 4, bias=False, nonlinearity="relu")),
        "lstmcell": repr(nn.LSTMCell(3, 4)),
        "grucell_nobias": repr(nn.GRUCell(3, 4, bias=False)),
        "encoder": repr(nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, norm=nn.LayerNorm(8))),
        "decoder_layer": repr(nn.TransformerDecoderLayer(8, 2)),
        "decoder": repr(nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 1)),
        "transformer": repr(nn.Transformer(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                           dim_feedforward=32)),
    }


def main():
    torch.manual_seed(0)
    c = {}
    recurrent_cases(c)
    packed_cases(c)
    transformer_cases(c)
    out = {
        "torch_version": torch.__version__,
        "cases": c,
        "repr": reprs(),
        "tensors": {"square_subsequent_mask_4": enc(nn.Transformer.generate_square_subsequent_mask(4))},
    }
    with open(os.path.join(OUT, "seq.json"), "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"), sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
