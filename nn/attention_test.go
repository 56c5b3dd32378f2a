package nn_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

func TestMultiheadAttentionGolden(t *testing.T) {
	t.Run("cross attention, bool key_padding_mask and attn_mask", func(t *testing.T) {
		m := nn.MultiheadAttention(8, 2)
		raRun(t, "mha_cross_masks", m, func(in map[string]torch.Tensor) []torch.Tensor {
			out, w := m.Forward(in["query"], in["kv"], in["kv"],
				nn.WithKeyPaddingMask(in["key_padding_mask"]), nn.WithAttnMask(in["attn_mask"]))
			return []torch.Tensor{out, w}
		})
	})
	t.Run("self attention, batch_first, float 3-D attn_mask, per-head weights", func(t *testing.T) {
		m := nn.MultiheadAttention(8, 2, nn.WithBatchFirst(true))
		raRun(t, "mha_self_bf_float_mask", m, func(in map[string]torch.Tensor) []torch.Tensor {
			x := in["x"]
			out, w := m.Forward(x, x, x,
				nn.WithKeyPaddingMask(in["key_padding_mask"]), nn.WithAttnMask(in["attn_mask"]), nn.WithAverageAttnWeights(false))
			return []torch.Tensor{out, w}
		})
	})
	t.Run("kdim vdim, bias_kv, zero_attn, no bias, unbatched, eval", func(t *testing.T) {
		m := nn.MultiheadAttention(6, 3,
			nn.WithDropout(0.3), nn.WithBias(false), nn.WithAddBiasKV(true), nn.WithAddZeroAttn(true), nn.WithKdim(4), nn.WithVdim(5))
		raRun(t, "mha_kdim_biaskv_zeroattn_unbatched", m, func(in map[string]torch.Tensor) []torch.Tensor {
			out, w := m.Forward(in["query"], in["key"], in["value"], nn.WithKeyPaddingMask(in["key_padding_mask"]))
			return []torch.Tensor{out, w}
		})
	})
	t.Run("need_weights false", func(t *testing.T) {
		m := nn.MultiheadAttention(4, 1)
		raRun(t, "mha_no_weights", m, func(in map[string]torch.Tensor) []torch.Tensor {
			x := in["x"]
			out, w := m.Forward(x, x, x, nn.WithNeedWeights(false))
			return []torch.Tensor{out, w}
		})
	})
}

func TestMultiheadAttentionRepr(t *testing.T) {
	assert.Equal(t, raRepr(t, "mha_nobias"), nn.MultiheadAttention(6, 2, nn.WithBias(false), nn.WithKdim(3)).String())
}

func TestMultiheadAttentionInit(t *testing.T) {
	m := nn.MultiheadAttention(16, 4)
	var names []string
	for _, p := range m.NamedParameters() {
		names = append(names, p.Name)
		assert.True(t, p.Tensor.RequiresGrad(), p.Name)
	}
	assert.Equal(t, []string{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"}, names)
	assert.Equal(t, []int64{48, 16}, m.InProjWeight.Shape())
	xavier := math.Sqrt(6.0 / (16 + 48))
	assert.LessOrEqual(t, m.InProjWeight.Abs().Max().Item(), xavier)
	assert.Greater(t, m.InProjWeight.Abs().Max().Item(), xavier*0.9)
	assert.Equal(t, 0.0, m.InProjBias.Abs().Max().Item())
	assert.Equal(t, 0.0, m.OutProj.Bias.Abs().Max().Item())
	assert.LessOrEqual(t, m.OutProj.Weight.Abs().Max().Item(), 0.25) // 1/√16
	assert.Greater(t, m.OutProj.Weight.Abs().Max().Item(), 0.2)

	s := nn.MultiheadAttention(6, 2, nn.WithKdim(3), nn.WithVdim(5), nn.WithAddBiasKV(true), nn.WithBias(false))
	names = nil
	for _, p := range s.NamedParameters() {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"q_proj_weight", "k_proj_weight", "v_proj_weight", "bias_k", "bias_v", "out_proj.weight"}, names)
	assert.Equal(t, []int64{6, 3}, s.KProjWeight.Shape())
	assert.Equal(t, []int64{6, 5}, s.VProjWeight.Shape())
	assert.Equal(t, []int64{1, 1, 6}, s.BiasK.Shape())
	assert.False(t, s.OutProj.Bias.Defined())
}

func TestMultiheadAttentionDropout(t *testing.T) {
	m := nn.MultiheadAttention(8, 2, nn.WithDropout(0.5))
	x := torch.Randn([]int64{5, 2, 8})
	_, w1 := m.Forward(x, x, x, nn.WithAverageAttnWeights(false))
	_, w2 := m.Forward(x, x, x, nn.WithAverageAttnWeights(false))
	assert.False(t, w1.Equal(w2), "dropout on the weights in training")
	m.Eval()
	o1, w1 := m.Forward(x, x, x)
	o2, w2 := m.Forward(x, x, x)
	assert.True(t, w1.Equal(w2))
	assert.True(t, o1.Equal(o2))
	// Averaged weights are rows of probabilities.
	assert.InDelta(t, 1.0, w1.SumDimIntList([]int64{-1}).Min().Item(), 1e-6)
	assert.Equal(t, []int64{2, 5, 5}, w1.Shape())
}

func TestMultiheadAttentionErrors(t *testing.T) {
	m := nn.MultiheadAttention(8, 2)
	x := torch.Randn([]int64{5, 3, 8})
	cases := []struct {
		name    string
		q, k, v torch.Tensor
		opts    []nn.Option
		want    string
	}{
		{"embed dim", torch.Randn([]int64{5, 3, 6}), torch.Randn([]int64{5, 3, 6}), torch.Randn([]int64{5, 3, 6}), nil,
			"was expecting embedding dimension of 8, but got 6"},
		{"1-D query", torch.Randn([]int64{8}), x, x, nil,
			"query should be unbatched 2-D or batched 3-D tensor but received 1-D"},
		{"2-D key for 3-D query", x, torch.Randn([]int64{5, 8}), x, nil,
			"expected key and value to be 3-D but found 2-D and 3-D"},
		{"key and value lengths", x, torch.Randn([]int64{4, 3, 8}), x, nil,
			"key's sequence and batch dims [4 3] do not match value's [5 3]"},
		{"batch sizes", x, torch.Randn([]int64{5, 2, 8}), torch.Randn([]int64{5, 2, 8}), nil,
			"must have the same batch size"},
		{"attn_mask 2-D shape", x, x, x, []nn.Option{nn.WithAttnMask(torch.Zeros([]int64{5, 4}))},
			"the shape of the 2D attn_mask is [5 4], but should be [5 5]"},
		{"attn_mask 3-D shape", x, x, x, []nn.Option{nn.WithAttnMask(torch.Zeros([]int64{3, 5, 5}))},
			"the shape of the 3D attn_mask is [3 5 5], but should be [6 5 5]"},
		{"attn_mask dims", x, x, x, []nn.Option{nn.WithAttnMask(torch.Zeros([]int64{5}))},
			"expected attn_mask to be undefined, 2-D or 3-D but found 1-D"},
		{"attn_mask dtype", x, x, x, []nn.Option{nn.WithAttnMask(torch.Zeros([]int64{5, 5}, torch.WithDtype(torch.Int64)))},
			"only float, byte, and bool types are supported for attn_mask"},
		{"key_padding_mask shape", x, x, x, []nn.Option{nn.WithKeyPaddingMask(torch.Zeros([]int64{3, 4}, torch.WithDtype(torch.Bool)))},
			"expecting key_padding_mask shape of [3 5], but got [3 4]"},
		{"key_padding_mask dims", x, x, x, []nn.Option{nn.WithKeyPaddingMask(torch.Zeros([]int64{5}, torch.WithDtype(torch.Bool)))},
			"expected key_padding_mask to be undefined or 2-D but found 1-D"},
		{"key_padding_mask dtype", x, x, x, []nn.Option{nn.WithKeyPaddingMask(torch.Zeros([]int64{3, 5}, torch.WithDtype(torch.Int32)))},
			"only bool and floating types of key_padding_mask are supported"},
		{"undefined key", x, torch.Tensor{}, x, nil, "key is an undefined tensor"},
	}
	for _, c := range cases {
		_, _, err := m.TryForward(c.q, c.k, c.v, c.opts...)
		if assert.Error(t, err, c.name) {
			assert.Contains(t, err.Error(), c.want, c.name)
		}
	}
	raPanicErr(t, "was expecting embedding dimension of 8", func() {
		y := torch.Randn([]int64{5, 3, 4})
		m.Forward(y, y, y)
	})
	// libtorch's own errors (here a dtype mismatch) are *torch.Error.
	y := x.To(torch.Float64)
	_, _, err := m.TryForward(y, y, y)
	var te *torch.Error
	require.True(t, errors.As(err, &te), "%v", err)
	// Key and value features are checked against kdim and vdim.
	s := nn.MultiheadAttention(4, 2, nn.WithKdim(3), nn.WithVdim(3))
	_, _, err = s.TryForward(torch.Randn([]int64{2, 1, 4}), torch.Randn([]int64{2, 1, 4}), torch.Randn([]int64{2, 1, 3}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "expected key and value with 3 and 3 features")
}

func TestMultiheadAttentionConstructorPanics(t *testing.T) {
	raPanicErr(t, "embed_dim must be divisible by num_heads", func() { nn.MultiheadAttention(6, 4) })
	raPanicErr(t, "must be positive", func() { nn.MultiheadAttention(0, 1) })
}
