package vision

import (
	"fmt"
	"math"

	"github.com/gotorch/gotorch/nn"
	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/torch"
)

// VisionTransformerModel is torchvision's VisionTransformer: conv_proj cuts
// the image into patches and embeds them, class_token is prepended, the
// encoder (pos_embedding, encoder_layer_0 … encoder_layer_{L-1}, ln) runs
// and heads (head, after pre_logits and act with a representation size)
// classifies the class token. Its state-dict keys are torchvision's:
// conv_proj.weight, class_token, encoder.pos_embedding,
// encoder.layers.encoder_layer_0.self_attention.in_proj_weight,
// encoder.layers.encoder_layer_0.mlp.0.weight, encoder.ln.bias,
// heads.head.weight.
type VisionTransformerModel struct {
	nn.Module
	ConvProj   *nn.Conv2dModule
	ClassToken torch.Tensor // (1, 1, hidden_dim)
	Encoder    *ViTEncoder
	Heads      *ViTHeads

	ImageSize, PatchSize, HiddenDim, MLPDim, SeqLength int64
}

// ViTEncoder is torchvision's vision_transformer.Encoder.
type ViTEncoder struct {
	nn.Module
	PosEmbedding torch.Tensor // (1, seq_length, hidden_dim)
	Dropout      *nn.DropoutModule
	Layers       *EncoderLayers
	Ln           *nn.LayerNormModule
}

// EncoderLayers holds the encoder blocks under torchvision's names,
// encoder_layer_0, encoder_layer_1, …, and runs them in that order.
type EncoderLayers struct {
	nn.Module
	Blocks map[string]*EncoderBlock `gotorch:"name="`
	order  []*EncoderBlock
}

// EncoderBlock is torchvision's EncoderBlock: pre-norm self-attention
// (ln_1, self_attention, dropout) and MLP (ln_2, mlp: Linear, GELU,
// Dropout, Linear, Dropout), each added to its input.
type EncoderBlock struct {
	nn.Module
	Ln1           *nn.LayerNormModule `gotorch:"name=ln_1"`
	SelfAttention *nn.MultiheadAttentionModule
	Dropout       *nn.DropoutModule
	Ln2           *nn.LayerNormModule `gotorch:"name=ln_2"`
	Mlp           *nn.SequentialModule
}

// ViTHeads is the heads Sequential of torchvision's VisionTransformer:
// head, after pre_logits and act (Tanh) when a representation size is set.
type ViTHeads struct {
	nn.Module
	PreLogits *nn.LinearModule // nil without a representation size
	Act       *nn.TanhModule
	Head      *nn.LinearModule
}

// ViTB16 is torchvision.models.vit_b_16: patch 16, 12 layers, 12 heads,
// hidden 768, MLP 3072 (86,567,656 parameters with 1000 classes).
// Options: WithNumClasses, WithImageSize (224), WithDropout,
// WithAttentionDropout, WithRepresentationSize. It panics on a bad option.
func ViTB16(opts ...Option) *VisionTransformerModel {
	c := config{numClasses: 1000, imageSize: 224, patchSize: 16, numLayers: 12, numHeads: 12, hiddenDim: 768, mlpDim: 3072}
	return must(newViT("ViTB16", c, opts, "num_classes", "image_size", "dropout", "attention_dropout", "representation_size"))
}

// NewVisionTransformer is torchvision's VisionTransformer(image_size,
// patch_size, num_layers, num_heads, hidden_dim, mlp_dim, ...): those six
// options are required; WithNumClasses, WithDropout, WithAttentionDropout
// and WithRepresentationSize are optional.
func NewVisionTransformer(opts ...Option) (*VisionTransformerModel, error) {
	c := config{numClasses: 1000}
	m, err := newViT("VisionTransformer", c, opts, "image_size", "patch_size", "num_layers", "num_heads", "hidden_dim",
		"mlp_dim", "num_classes", "dropout", "attention_dropout", "representation_size")
	if err != nil {
		return nil, err
	}
	return m, nil
}

func newViT(name string, c config, opts []Option, allowed ...string) (m *VisionTransformerModel, err error) {
	if err := c.apply(name, opts, allowed...); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"image_size", c.imageSize}, {"patch_size", c.patchSize}, {"num_layers", c.numLayers},
		{"num_heads", c.numHeads}, {"hidden_dim", c.hiddenDim}, {"mlp_dim", c.mlpDim}} {
		if f.v == 0 {
			return nil, fmt.Errorf("vision.%s: %s is required", name, f.name)
		}
	}
	if c.imageSize%c.patchSize != 0 {
		return nil, fmt.Errorf("vision.%s: input shape indivisible by patch size (image_size %d, patch_size %d)", name, c.imageSize, c.patchSize)
	}
	if c.hiddenDim%c.numHeads != 0 {
		return nil, fmt.Errorf("vision.%s: hidden_dim %d is not divisible by num_heads %d", name, c.hiddenDim, c.numHeads)
	}
	err = catch(name, func() { m = buildViT(c) })
	return m, err
}

func buildViT(c config) *VisionTransformerModel {
	h := c.hiddenDim
	seq := (c.imageSize/c.patchSize)*(c.imageSize/c.patchSize) + 1
	layers := &EncoderLayers{Blocks: map[string]*EncoderBlock{}}
	for i := int64(0); i < c.numLayers; i++ {
		b := newEncoderBlock(c.numHeads, h, c.mlpDim, c.dropout, c.attentionDropout)
		layers.Blocks[fmt.Sprintf("encoder_layer_%d", i)] = b
		layers.order = append(layers.order, b)
	}
	layers.Init(layers)
	enc := &ViTEncoder{
		PosEmbedding: nninit.Normal_(torch.Empty([]int64{1, seq, h}), nninit.WithStd(0.02)).RequiresGrad_(true),
		Dropout:      nn.Dropout(nn.WithP(c.dropout)),
		Layers:       layers,
		Ln:           nn.LayerNorm(h, nn.WithEps(1e-6)),
	}
	enc.Init(enc)
	heads := &ViTHeads{}
	if c.representationSize > 0 {
		heads.PreLogits = nn.Linear(h, c.representationSize)
		heads.Act = nn.Tanh()
		heads.Head = nn.Linear(c.representationSize, c.numClasses)
		nninit.TruncNormal_(heads.PreLogits.Weight, nninit.WithStd(math.Sqrt(1/float64(h))))
		nninit.Zeros_(heads.PreLogits.Bias)
	} else {
		heads.Head = nn.Linear(h, c.numClasses)
	}
	nninit.Zeros_(heads.Head.Weight)
	nninit.Zeros_(heads.Head.Bias)
	heads.Init(heads)
	m := &VisionTransformerModel{
		ConvProj:   nn.Conv2d(3, h, c.patchSize, nn.WithStride(c.patchSize)),
		ClassToken: torch.Zeros([]int64{1, 1, h}).RequiresGrad_(true),
		Encoder:    enc,
		Heads:      heads,
		ImageSize:  c.imageSize, PatchSize: c.patchSize, HiddenDim: h, MLPDim: c.mlpDim, SeqLength: seq,
	}
	fanIn := 3 * c.patchSize * c.patchSize
	nninit.TruncNormal_(m.ConvProj.Weight, nninit.WithStd(math.Sqrt(1/float64(fanIn))))
	nninit.Zeros_(m.ConvProj.Bias)
	m.Init(m)
	return m
}

func newEncoderBlock(heads, hidden, mlp int64, dropout, attentionDropout float64) *EncoderBlock {
	fc1, fc2 := nn.Linear(hidden, mlp), nn.Linear(mlp, hidden)
	for _, l := range []*nn.LinearModule{fc1, fc2} { // torchvision's MLPBlock
		nninit.XavierUniform_(l.Weight)
		nninit.Normal_(l.Bias, nninit.WithStd(1e-6))
	}
	b := &EncoderBlock{
		Ln1:           nn.LayerNorm(hidden, nn.WithEps(1e-6)),
		SelfAttention: nn.MultiheadAttention(hidden, heads, nn.WithDropout(attentionDropout), nn.WithBatchFirst(true)),
		Dropout:       nn.Dropout(nn.WithP(dropout)),
		Ln2:           nn.LayerNorm(hidden, nn.WithEps(1e-6)),
		Mlp: nn.Sequential(fc1, nn.GELU(), nn.Dropout(nn.WithP(dropout)), fc2,
			nn.Dropout(nn.WithP(dropout))),
	}
	b.Init(b)
	return b
}

// Forward runs the block on x, (N, seq_length, hidden_dim).
func (b *EncoderBlock) Forward(x torch.Tensor) torch.Tensor {
	h := b.Ln1.Forward(x)
	h, _ = b.SelfAttention.Forward(h, h, h, nn.WithNeedWeights(false))
	h = b.Dropout.Forward(h).Add_(x)
	return b.Mlp.Forward(b.Ln2.Forward(h)).Add_(h)
}

// Forward runs the blocks in order.
func (l *EncoderLayers) Forward(x torch.Tensor) torch.Tensor {
	for _, b := range l.order {
		x = b.Forward(x)
	}
	return x
}

// Forward adds the position embedding, then runs the layers and ln on x,
// (N, seq_length, hidden_dim).
func (e *ViTEncoder) Forward(x torch.Tensor) torch.Tensor {
	return e.Ln.Forward(e.Layers.Forward(e.Dropout.Forward(x.Add(e.PosEmbedding))))
}

// Forward maps the class token's features, (N, hidden_dim), to class
// scores.
func (h *ViTHeads) Forward(x torch.Tensor) torch.Tensor {
	if h.PreLogits != nil {
		x = h.Act.Forward(h.PreLogits.Forward(x))
	}
	return h.Head.Forward(x)
}

// Forward maps images (N, 3, image_size, image_size) to class scores (N,
// num_classes). It panics on bad input; TryForward returns the error.
func (m *VisionTransformerModel) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *VisionTransformerModel) TryForward(x torch.Tensor) (y torch.Tensor, err error) {
	if err := checkImages("VisionTransformer", m, x, 3, 0); err != nil {
		return torch.Tensor{}, err
	}
	if err := checkImages("VisionTransformer", m, x, 3, m.ImageSize); err != nil {
		return torch.Tensor{}, err
	}
	err = catch("VisionTransformer", func() {
		n, g := x.Size(0), m.ImageSize/m.PatchSize
		p := m.ConvProj.Forward(x).Reshape([]int64{n, m.HiddenDim, g * g}).PermuteDims(0, 2, 1)
		z := torch.Cat([]torch.Tensor{m.ClassToken.Expand([]int64{n, -1, -1}), p}, torch.WithDim(1))
		y = m.Heads.Forward(m.Encoder.Forward(z).Select(1, 0))
	})
	return y, err
}
