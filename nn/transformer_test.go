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
	x := torch.Randn([]int64{4, 2, 8})
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
	u, err := m.TryForward(torch.Randn([]int64{4, 8}))
	require.NoError(t, err)
	assert.Equal(t, []int64{4, 8}, u.Shape())
}

func TestTransformerEncoderLayerErrors(t *testing.T) {
	m := nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0))
	_, err := m.TryForward(torch.Randn([]int64{4, 2, 6}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "was expecting embedding dimension of 8, but got 6")
	_, err = m.TryForward(torch.Randn([]int64{4, 2, 8}), nn.WithSrcKeyPaddingMask(torch.Zeros([]int64{2, 4}, torch.WithDtype(torch.Int64))))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "only bool and floating types of key_padding_mask are supported")
	_, err = m.TryForward(torch.Randn([]int64{4, 2, 8}), nn.WithSrcMask(torch.Zeros([]int64{4, 3})))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the shape of the 2D attn_mask is [4 3], but should be [4 4]")
	_, err = m.TryForward(torch.Tensor{})
	require.Error(t, err)
	raPanicErr(t, "activation should be relu/gelu, not tanh", func() {
		nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0), nn.WithActivation("tanh"))
	})
	raPanicErr(t, "embed_dim must be divisible by num_heads", func() { nn.TransformerEncoderLayer(8, 3, nn.WithDimFeedforward(16), nn.WithDropout(0)) })
}

// memDecoder is a decoder of one's own: a Linear of tgt plus the mean of
// memory over its sequence, with the options Transformer passes.
type memDecoder struct {
	nn.Module
	Proj *nn.LinearModule
	got  []string
}

func (d *memDecoder) Forward(tgt, memory torch.Tensor, opts ...nn.Option) torch.Tensor {
	d.got = append(d.got, "decoder")
	return d.Proj.Forward(tgt).Add(memory.MeanAlong(0, true))
}

// Transformer with PyTorch's custom_encoder and custom_decoder: their
// parameters are encoder.* and decoder.*, reset with xavier_uniform_ as
// PyTorch does, and Forward is decoder(tgt, encoder(src)).
func TestTransformerCustomEncoderDecoder(t *testing.T) {
	enc := nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0)), 1)
	dec := &memDecoder{Proj: nn.Linear(8, 8)}
	dec.Init(dec)
	tr := nn.Transformer(nn.WithDModel(8), nn.WithNhead(2), nn.WithCustomEncoder(enc), nn.WithCustomDecoder(dec))
	assert.Same(t, enc, tr.Encoder)
	assert.Same(t, dec, tr.Decoder)
	var names []string
	for _, p := range tr.NamedParameters() {
		names = append(names, p.Name)
	}
	assert.Contains(t, names, "encoder.layers.0.self_attn.in_proj_weight")
	assert.Contains(t, names, "decoder.proj.weight")
	assert.NotContains(t, names, "encoder.norm.weight", "a custom encoder has no extra norm")
	assert.Len(t, names, len(enc.Parameters())+2)
	// xavier_uniform_ on the 8×8 weight: bound sqrt(6/16).
	assert.LessOrEqual(t, dec.Proj.Weight.Abs().Max().Item(), 0.6124)

	tr.Eval()
	src, tgt := torch.Randn([]int64{5, 2, 8}), torch.Randn([]int64{3, 2, 8})
	got := tr.Forward(src, tgt)
	want := dec.Forward(tgt, enc.Forward(src))
	assert.Equal(t, want.Float64s(), got.Float64s())
	assert.Equal(t, []int64{3, 2, 8}, got.Shape())

	// Only the encoder custom: the decoder is PyTorch's default stack.
	tr2 := nn.Transformer(nn.WithDModel(8), nn.WithNhead(2), nn.WithNumDecoderLayers(1), nn.WithDimFeedforward(16),
		nn.WithCustomEncoder(enc))
	_, ok := tr2.Decoder.(*nn.TransformerDecoderModule)
	assert.True(t, ok)

	for name, f := range map[string]func(){
		"nil encoder": func() { nn.Transformer(nn.WithCustomEncoder(nil)) },
		"nil pointer": func() { nn.Transformer(nn.WithCustomDecoder((*memDecoder)(nil))) },
		"not Init":    func() { nn.Transformer(nn.WithCustomDecoder(&memDecoder{Proj: nn.Linear(8, 8)})) },
	} {
		assert.Panics(t, f, name)
	}
}
