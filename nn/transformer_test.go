package nn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

func TestTransformerEncoderLayerGolden(t *testing.T) {
	t.Run("post-norm relu, src_key_padding_mask, eval", func(t *testing.T) {
		m := nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0.1))
		raRun(t, "tel_post_relu", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return []torch.Tensor{m.Forward(in["src"], nn.WithSrcKeyPaddingMask(in["src_key_padding_mask"]))}
		})
	})
	t.Run("pre-norm gelu batch_first, causal src_mask", func(t *testing.T) {
		m := nn.TransformerEncoderLayer(8, 4, nn.WithDimFeedforward(12), nn.WithDropout(0),
			nn.WithActivation("gelu"), nn.WithLayerNormEps(1e-6), nn.WithBatchFirst(true), nn.WithNormFirst(true))
		raRun(t, "tel_pre_gelu_bf", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return []torch.Tensor{m.Forward(in["src"], nn.WithSrcMask(in["src_mask"]))}
		})
	})
}

func TestTransformerEncoderLayerRepr(t *testing.T) {
	assert.Equal(t, raRepr(t, "tel_default"), nn.TransformerEncoderLayer(16, 4, nn.WithDimFeedforward(2048), nn.WithDropout(0.1)).String())
}

func TestTransformerEncoderLayerInit(t *testing.T) {
	m := nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(32), nn.WithDropout(0.1))
	sd := m.StateDict()
	assert.Len(t, sd, 12)
	assert.Equal(t, []float32{1, 1, 1, 1, 1, 1, 1, 1}, sd["norm1.weight"].Float32s())
	assert.Equal(t, 0.0, sd["norm2.bias"].Abs().Max().Item())
	assert.Equal(t, []int64{32, 8}, sd["linear1.weight"].Shape())
	assert.Equal(t, []int64{8, 32}, sd["linear2.weight"].Shape())
	assert.LessOrEqual(t, sd["linear2.bias"].Abs().Max().Item(), 1/5.65685)
	assert.Equal(t, []int64{24, 8}, sd["self_attn.in_proj_weight"].Shape())
	assert.Len(t, m.Parameters(), 12)
	m.Eval()
	assert.False(t, m.SelfAttn.IsTraining())
	assert.False(t, m.Dropout1.IsTraining())
}

func TestTransformerEncoderLayerDropoutAndActivation(t *testing.T) {
	m := nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0.5))
	x := torch.RandN([]int64{4, 2, 8})
	assert.False(t, m.Forward(x).Equal(m.Forward(x)), "dropout in training")
	m.Eval()
	y := m.Forward(x)
	assert.True(t, y.Equal(m.Forward(x)))
	assert.Equal(t, []int64{4, 2, 8}, y.Shape())

	// A custom activation: relu given as a function matches the default.
	f := nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0.5), nn.WithActivationFn(torch.Relu))
	require.NoError(t, f.LoadStateDict(m.StateDict(), true))
	f.Eval()
	assert.True(t, f.Forward(x).Equal(y))

	// Unbatched input.
	u, err := m.TryForward(torch.RandN([]int64{4, 8}))
	require.NoError(t, err)
	assert.Equal(t, []int64{4, 8}, u.Shape())
}

func TestTransformerEncoderLayerErrors(t *testing.T) {
	m := nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0))
	_, err := m.TryForward(torch.RandN([]int64{4, 2, 6}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "was expecting embedding dimension of 8, but got 6")
	_, err = m.TryForward(torch.RandN([]int64{4, 2, 8}), nn.WithSrcKeyPaddingMask(torch.Zeros([]int64{2, 4}, torch.WithDtype(torch.Int64))))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "only bool and floating types of key_padding_mask are supported")
	_, err = m.TryForward(torch.RandN([]int64{4, 2, 8}), nn.WithSrcMask(torch.Zeros([]int64{4, 3})))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the shape of the 2D attn_mask is [4 3], but should be [4 4]")
	_, err = m.TryForward(torch.Tensor{})
	require.Error(t, err)
	raPanicErr(t, "activation should be relu/gelu, not tanh", func() {
		nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0), nn.WithActivation("tanh"))
	})
	raPanicErr(t, "embed_dim must be divisible by num_heads", func() { nn.TransformerEncoderLayer(8, 3, nn.WithDimFeedforward(16), nn.WithDropout(0)) })
}
