package nn_test

// Golden tests of RNN, the cells, packed sequences and the transformer
// stacks against nn/testdata/seq.json (nn/testdata/seq.py, PyTorch 1.13.1).

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/livetest"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

func ts(t ...torch.Tensor) []torch.Tensor { return t }

func TestRNNGolden(t *testing.T) {
	t.Run("tanh 2 layers bidirectional batch_first", func(t *testing.T) {
		m := nn.RNN(4, 5, nn.WithNumLayers(2), nn.WithBidirectional(true), nn.WithBatchFirst(true))
		raRun(t, "rnn_tanh_2l_bi_bf", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["x"]))
		})
	})
	t.Run("relu no bias h0", func(t *testing.T) {
		m := nn.RNN(3, 4, nn.WithNonlinearity("relu"), nn.WithBias(false))
		raRun(t, "rnn_relu_nobias_h0", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["x"], in["h0"]))
		})
	})
	t.Run("unbatched", func(t *testing.T) {
		m := nn.RNN(3, 4, nn.WithNumLayers(2), nn.WithDropout(0.5))
		raRun(t, "rnn_unbatched", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["x"]))
		})
	})
}

func TestRNNCellsGolden(t *testing.T) {
	t.Run("RNNCell tanh", func(t *testing.T) {
		m := nn.RNNCell(3, 4)
		raRun(t, "rnncell_tanh", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["x"], in["h"]))
		})
	})
	t.Run("RNNCell relu no bias unbatched", func(t *testing.T) {
		m := nn.RNNCell(3, 4, nn.WithBias(false), nn.WithNonlinearity("relu"))
		raRun(t, "rnncell_relu_nobias_unbatched", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["x"]))
		})
	})
	t.Run("LSTMCell", func(t *testing.T) {
		m := nn.LSTMCell(3, 4)
		raRun(t, "lstmcell", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["x"], in["h"], in["c"]))
		})
	})
	t.Run("LSTMCell no bias unbatched", func(t *testing.T) {
		m := nn.LSTMCell(3, 4, nn.WithBias(false))
		raRun(t, "lstmcell_nobias_unbatched", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["x"]))
		})
	})
	t.Run("GRUCell", func(t *testing.T) {
		m := nn.GRUCell(3, 4)
		raRun(t, "grucell", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["x"], in["h"]))
		})
	})
	t.Run("GRUCell zero state", func(t *testing.T) {
		m := nn.GRUCell(3, 4)
		raRun(t, "grucell_zero_state", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["x"]))
		})
	})
}

func TestPackedSequenceGolden(t *testing.T) {
	t.Run("LSTM unsorted batch_first", func(t *testing.T) {
		m := nn.LSTM(3, 4, nn.WithBidirectional(true), nn.WithBatchFirst(true))
		raRun(t, "packed_lstm_unsorted_bf", m, func(in map[string]torch.Tensor) []torch.Tensor {
			p := nn.PackPaddedSequence(in["x"], []int64{2, 5, 3}, nn.WithBatchFirst(true), nn.WithEnforceSorted(false))
			assert.Equal(t, []int64{3, 3, 2, 1, 1}, p.BatchSizes.Int64s())
			out, hn, cn := m.ForwardPacked(p, in["h0"], in["c0"])
			padded, lengths := nn.PadPackedSequence(out, nn.WithBatchFirst(true))
			assert.Equal(t, []int64{2, 5, 3}, lengths)
			return ts(out.Data, padded, hn, cn)
		})
	})
	t.Run("GRU sorted, total_length, padding_value", func(t *testing.T) {
		m := nn.GRU(3, 4, nn.WithNumLayers(2))
		raRun(t, "packed_gru_sorted", m, func(in map[string]torch.Tensor) []torch.Tensor {
			p := nn.PackPaddedSequence(in["x"], []int64{4, 3, 1})
			assert.False(t, p.SortedIndices.Defined())
			out, hn := m.ForwardPacked(p)
			padded, lengths := nn.PadPackedSequence(out, nn.WithPaddingValue(-1), nn.WithTotalLength(6))
			assert.Equal(t, []int64{4, 3, 1}, lengths)
			return ts(out.Data, padded, hn)
		})
	})
	t.Run("RNN relu unsorted h0", func(t *testing.T) {
		m := nn.RNN(3, 4, nn.WithNonlinearity("relu"))
		raRun(t, "packed_rnn_relu_unsorted", m, func(in map[string]torch.Tensor) []torch.Tensor {
			p := nn.PackPaddedSequence(in["x"], []int64{1, 4, 2}, nn.WithEnforceSorted(false))
			out, hn := m.ForwardPacked(p, in["h0"])
			padded, _ := nn.PadPackedSequence(out)
			return ts(out.Data, padded, hn)
		})
	})
}

func TestTransformerStacksGolden(t *testing.T) {
	t.Run("TransformerEncoder 2 layers and norm", func(t *testing.T) {
		m := nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0)), 2,
			nn.WithNorm(nn.LayerNorm(8)))
		raRun(t, "encoder_2l_norm", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["src"], nn.WithMask(in["mask"]), nn.WithSrcKeyPaddingMask(in["src_key_padding_mask"])))
		})
	})
	t.Run("TransformerDecoderLayer post-norm relu", func(t *testing.T) {
		m := nn.TransformerDecoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0.1))
		raRun(t, "decoder_layer_post_relu", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["tgt"], in["memory"], nn.WithTgtMask(in["tgt_mask"]),
				nn.WithMemoryKeyPaddingMask(in["memory_key_padding_mask"])))
		})
	})
	t.Run("TransformerDecoderLayer pre-norm gelu batch_first", func(t *testing.T) {
		m := nn.TransformerDecoderLayer(8, 4, nn.WithDimFeedforward(12), nn.WithDropout(0), nn.WithActivation("gelu"),
			nn.WithLayerNormEps(1e-6), nn.WithBatchFirst(true), nn.WithNormFirst(true))
		raRun(t, "decoder_layer_pre_gelu_bf", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["tgt"], in["memory"], nn.WithTgtKeyPaddingMask(in["tgt_key_padding_mask"]),
				nn.WithMemoryMask(in["memory_mask"])))
		})
	})
	t.Run("TransformerDecoder 2 layers and norm, unbatched", func(t *testing.T) {
		m := nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0)), 2,
			nn.WithNorm(nn.LayerNorm(8)))
		raRun(t, "decoder_2l_norm_unbatched", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["tgt"], in["memory"], nn.WithTgtMask(in["tgt_mask"])))
		})
	})
	t.Run("Transformer batch_first with masks", func(t *testing.T) {
		m := nn.Transformer(nn.WithDModel(8), nn.WithNhead(2), nn.WithNumEncoderLayers(2), nn.WithNumDecoderLayers(1),
			nn.WithDimFeedforward(16), nn.WithDropout(0), nn.WithBatchFirst(true))
		raRun(t, "transformer_bf", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return ts(m.Forward(in["src"], in["tgt"], nn.WithTgtMask(in["tgt_mask"]),
				nn.WithSrcKeyPaddingMask(in["src_key_padding_mask"]), nn.WithTgtKeyPaddingMask(in["tgt_key_padding_mask"]),
				nn.WithMemoryKeyPaddingMask(in["memory_key_padding_mask"])))
		})
	})
}

func TestSeqReprs(t *testing.T) {
	for name, m := range map[string]interface{ String() string }{
		"rnn_plain": nn.RNN(10, 20),
		"rnn_full": nn.RNN(3, 4, nn.WithNumLayers(2), nn.WithNonlinearity("relu"), nn.WithBias(false), nn.WithBatchFirst(true),
			nn.WithDropout(0.25), nn.WithBidirectional(true)),
		"rnncell":        nn.RNNCell(3, 4),
		"rnncell_full":   nn.RNNCell(3, 4, nn.WithBias(false), nn.WithNonlinearity("relu")),
		"lstmcell":       nn.LSTMCell(3, 4),
		"grucell_nobias": nn.GRUCell(3, 4, nn.WithBias(false)),
		"encoder":        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16)), 2, nn.WithNorm(nn.LayerNorm(8))),
		"decoder_layer":  nn.TransformerDecoderLayer(8, 2),
		"decoder":        nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, nn.WithDimFeedforward(16)), 1),
		"transformer": nn.Transformer(nn.WithDModel(16), nn.WithNhead(2), nn.WithNumEncoderLayers(1), nn.WithNumDecoderLayers(1),
			nn.WithDimFeedforward(32)),
	} {
		assert.Equal(t, raRepr(t, name), m.String(), name)
	}
}

func TestGenerateSquareSubsequentMask(t *testing.T) {
	want := raLoad(t).Tensors["square_subsequent_mask_4"]
	got := nn.GenerateSquareSubsequentMask(4)
	require.Equal(t, want.Shape, got.Shape())
	for i, v := range got.Float32s() {
		assert.Equal(t, float64(want.Values[i]), float64(v), "element %d", i)
	}
	assert.True(t, math.IsInf(float64(got.Float32s()[1]), -1))
}

// The layers of a stack start as copies of the layer given, as PyTorch's
// deep copies do, and are independent of it and of each other.
func TestTransformerStackCopiesLayer(t *testing.T) {
	layer := nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16))
	enc := nn.TransformerEncoder(layer, 2)
	sd := enc.StateDict()
	assert.Len(t, sd, 24)
	w := layer.Linear1.Weight
	assert.True(t, sd["layers.0.linear1.weight"].Equal(w))
	assert.True(t, sd["layers.1.linear1.weight"].Equal(w))
	torch.NoGrad(func() { sd["layers.0.linear1.weight"].Zero_() })
	assert.False(t, sd["layers.1.linear1.weight"].Equal(sd["layers.0.linear1.weight"]))
	assert.True(t, layer.Linear1.Weight.Equal(w))
	assert.Nil(t, enc.Norm)

	tf := nn.Transformer(nn.WithDModel(8), nn.WithNhead(2), nn.WithNumEncoderLayers(1), nn.WithNumDecoderLayers(2),
		nn.WithDimFeedforward(16))
	names := map[string]bool{}
	for _, n := range tf.NamedParameters() {
		names[n.Name] = true
	}
	for _, n := range []string{"encoder.layers.0.self_attn.in_proj_weight", "encoder.norm.weight",
		"decoder.layers.1.multihead_attn.out_proj.weight", "decoder.layers.1.norm3.bias", "decoder.norm.bias"} {
		assert.True(t, names[n], n)
	}
}

func TestSeqErrors(t *testing.T) {
	raPanicErr(t, "Unknown nonlinearity 'sigmoid'", func() { nn.RNN(3, 4, nn.WithNonlinearity("sigmoid")) })
	raPanicErr(t, "unexpected option proj_size", func() { nn.LSTMCell(3, 4, nn.WithProjSize(2)) })
	raPanicErr(t, "unexpected option nonlinearity", func() { nn.GRU(3, 4, nn.WithNonlinearity("relu")) })
	raPanicErr(t, "encoder_layer is a nil", func() { nn.TransformerEncoder(nil, 2) })
	raPanicErr(t, "unexpected option tgt_mask", func() {
		nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16)).Forward(torch.Randn([]int64{3, 8}), nn.WithTgtMask(torch.Zeros([]int64{3, 3})))
	})

	cell := nn.LSTMCell(3, 4)
	_, _, err := cell.TryForward(torch.Randn([]int64{2, 5}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "input has inconsistent input_size: got 5 expected 3")
	_, _, err = cell.TryForward(torch.Randn([]int64{2, 3}), torch.Randn([]int64{2, 4}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "optionally 2 state tensors, got 1")
	_, err = nn.GRUCell(3, 4).TryForward(torch.Randn([]int64{1, 2, 3}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Expected input to be 1D or 2D, got 3D")
	var nilCell *nn.RNNCellModule
	_, err = nilCell.TryForward(torch.Randn([]int64{2, 3}))
	require.ErrorIs(t, err, nn.ErrUninitialized)

	_, err = nn.TryPackPaddedSequence(torch.Randn([]int64{4, 3, 2}), []int64{2, 4, 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "must be sorted in decreasing order")
	_, err = nn.TryPackPaddedSequence(torch.Randn([]int64{4, 3, 2}), []int64{4, 2})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "expected 3 lengths")
	_, err = nn.TryPackPaddedSequence(torch.Randn([]int64{4, 3, 2}), []int64{5, 2, 1})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not in [1, 4]")
	p := nn.PackPaddedSequence(torch.Randn([]int64{4, 3, 2}), []int64{4, 2, 1})
	_, _, err = nn.TryPadPackedSequence(p, nn.WithTotalLength(3))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Expected total_length to be at least the length of the longest sequence")
	_, _, err = nn.TryPadPackedSequence(nil)
	require.Error(t, err)
	_, _, _, err = nn.LSTM(3, 4).TryForwardPacked(p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "input.size(-1) must be equal to input_size. Expected 3, got 2")
	_, _, err = nn.GRU(2, 4).TryForwardPacked(p, torch.Zeros([]int64{1, 2, 4}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "expected hx of size [1 3 4], got [1 2 4]")

	tf := nn.Transformer(nn.WithDModel(8), nn.WithNhead(2), nn.WithNumEncoderLayers(1), nn.WithNumDecoderLayers(1),
		nn.WithDimFeedforward(16))
	_, err = tf.TryForward(torch.Randn([]int64{5, 2, 8}), torch.Randn([]int64{4, 3, 8}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the batch number of src and tgt must be equal")
	_, err = tf.TryForward(torch.Randn([]int64{5, 2, 8}), torch.Randn([]int64{4, 2, 6}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the feature number of src and tgt must be equal to d_model")
	var nilTf *nn.TransformerModule
	_, err = nilTf.TryForward(torch.Randn([]int64{5, 2, 8}), torch.Randn([]int64{4, 2, 8}))
	require.ErrorIs(t, err, nn.ErrUninitialized)
}

// The sequence modules free the tensors they make for their own use: each
// call leaves exactly its results alive, and its arguments usable.
func TestSeqModulesFreeTheirTemporaries(t *testing.T) {
	rn := func(s ...int64) torch.Tensor { return torch.Randn(s) }
	rnn := nn.RNN(3, 4, nn.WithNumLayers(2), nn.WithNonlinearity("relu"))
	lstm := nn.LSTM(3, 4, nn.WithBidirectional(true))
	rcell, lcell, gcell := nn.RNNCell(3, 4), nn.LSTMCell(3, 4), nn.GRUCell(3, 4)
	dec := nn.TransformerDecoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithNormFirst(true))
	encStack := nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16)), 2, nn.WithNorm(nn.LayerNorm(8)))
	tf := nn.Transformer(nn.WithDModel(8), nn.WithNhead(2), nn.WithNumEncoderLayers(2), nn.WithNumDecoderLayers(2),
		nn.WithDimFeedforward(16), nn.WithBatchFirst(true))
	for _, m := range []interface{ Eval() }{dec, encStack, tf} {
		m.Eval()
	}
	cases := []struct {
		name string
		args []torch.Tensor
		call func(a []torch.Tensor) []torch.Tensor
	}{
		{"RNN unbatched", ts(rn(5, 3)), func(a []torch.Tensor) []torch.Tensor { return ts(rnn.Forward(a[0])) }},
		{"RNN with state", ts(rn(5, 2, 3), rn(2, 2, 4)), func(a []torch.Tensor) []torch.Tensor { return ts(rnn.Forward(a[0], a[1])) }},
		{"RNNCell unbatched", ts(rn(3)), func(a []torch.Tensor) []torch.Tensor { return ts(rcell.Forward(a[0])) }},
		{"LSTMCell unbatched state", ts(rn(3), rn(4), rn(4)), func(a []torch.Tensor) []torch.Tensor { return ts(lcell.Forward(a[0], a[1], a[2])) }},
		{"GRUCell", ts(rn(2, 3), rn(2, 4)), func(a []torch.Tensor) []torch.Tensor { return ts(gcell.Forward(a[0], a[1])) }},
		{"packed LSTM unsorted", ts(rn(4, 3, 3), rn(2, 3, 4), rn(2, 3, 4)), func(a []torch.Tensor) []torch.Tensor {
			p := nn.PackPaddedSequence(a[0], []int64{2, 4, 3}, nn.WithEnforceSorted(false))
			out, h, c := lstm.ForwardPacked(p, a[1], a[2])
			y, _ := nn.PadPackedSequence(out)
			return ts(p.Data, p.BatchSizes, p.SortedIndices, p.UnsortedIndices, out.Data, h, c, y)
		}},
		{"decoder layer", ts(rn(4, 2, 8), rn(5, 2, 8), nn.GenerateSquareSubsequentMask(4)), func(a []torch.Tensor) []torch.Tensor {
			return ts(dec.Forward(a[0], a[1], nn.WithTgtMask(a[2])))
		}},
		{"encoder stack", ts(rn(5, 2, 8)), func(a []torch.Tensor) []torch.Tensor { return ts(encStack.Forward(a[0])) }},
		{"transformer", ts(rn(2, 5, 8), rn(2, 4, 8)), func(a []torch.Tensor) []torch.Tensor { return ts(tf.Forward(a[0], a[1])) }},
	}
	for _, c := range cases {
		for _, grad := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/grad=%v", c.name, grad), func(t *testing.T) {
				var res []torch.Tensor
				var n int64
				run := func() { n = livetest.New(func() { res = c.call(c.args) }) }
				if grad {
					run()
				} else {
					torch.NoGrad(run)
				}
				for i, r := range res {
					assert.True(t, r.Defined(), "result %d", i)
				}
				assert.Equal(t, int64(len(res)), n, "tensors left alive besides the results")
				for i, a := range c.args {
					assert.True(t, a.Defined(), "argument %d was freed", i)
				}
			})
		}
	}
}

// WithDtype reaches every parameter, the copies of a stack included.
func TestSeqDtype(t *testing.T) {
	f64 := nn.WithDtype(torch.Float64)
	layer := nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16), f64)
	for _, m := range []interface{ NamedParameters() []nn.Named }{
		layer, nn.TransformerEncoder(layer, 2), nn.MultiheadAttention(8, 2, nn.WithKdim(4), nn.WithAddBiasKV(true), f64),
		nn.Transformer(nn.WithDModel(8), nn.WithNhead(2), nn.WithNumEncoderLayers(1), nn.WithNumDecoderLayers(1),
			nn.WithDimFeedforward(16), f64),
		nn.RNN(3, 4, f64), nn.LSTMCell(3, 4, f64),
	} {
		for _, p := range m.NamedParameters() {
			assert.Equal(t, torch.Float64, p.Tensor.DType(), p.Name)
		}
	}
	enc := nn.TransformerEncoder(layer, 2)
	enc.Eval()
	y := enc.Forward(torch.Randn([]int64{5, 2, 8}, torch.WithDtype(torch.Float64)))
	assert.Equal(t, torch.Float64, y.DType())
}

// The With options set what the removed option structs did (issue 37).
func TestWithOptionsSetSettings(t *testing.T) {
	m := nn.MultiheadAttention(6, 2, nn.WithBias(false), nn.WithKdim(3), nn.WithBatchFirst(true))
	assert.False(t, m.Bias)
	assert.Equal(t, int64(3), m.KDim)
	assert.Equal(t, int64(6), m.VDim)
	assert.True(t, m.BatchFirst)

	l := nn.TransformerEncoderLayer(8, 2, nn.WithActivation("gelu"), nn.WithNormFirst(true))
	assert.Equal(t, "gelu", l.Activation)
	assert.True(t, l.NormFirst)
	assert.Equal(t, 1e-5, l.LayerNormEps)
	assert.Equal(t, int64(2048), l.DimFeedforward)

	r := nn.LSTM(3, 4, nn.WithNumLayers(2), nn.WithBias(false))
	assert.Equal(t, int64(2), r.NumLayers)
	assert.False(t, r.Bias)

	a := nn.MultiheadAttention(4, 2)
	x := torch.Randn([]int64{3, 2, 4})
	_, w := a.Forward(x, x, x, nn.WithAverageAttnWeights(false))
	assert.Equal(t, []int64{2, 2, 3, 3}, w.Shape())
	_, w = a.Forward(x, x, x, nn.WithNeedWeights(false))
	assert.False(t, w.Defined())
}

// Transformer takes unbatched src and tgt, as PyTorch's.
func TestTransformerUnbatched(t *testing.T) {
	tf := nn.Transformer(nn.WithDModel(8), nn.WithNhead(2), nn.WithNumEncoderLayers(1), nn.WithNumDecoderLayers(1),
		nn.WithDimFeedforward(16), nn.WithDropout(0))
	tf.Eval()
	src, tgt := torch.Randn([]int64{5, 8}), torch.Randn([]int64{3, 8})
	y := tf.Forward(src, tgt)
	assert.Equal(t, []int64{3, 8}, y.Shape())
	// The same as a batch of one.
	yb := tf.Forward(src.Unsqueeze(1), tgt.Unsqueeze(1))
	assert.True(t, yb.SqueezeDim(1).Allclose(y), "unbatched and a batch of one")
}
