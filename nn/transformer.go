package nn

import (
	"fmt"
	"math"
	"strings"

	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// TransformerEncoderLayerOptions are the optional settings of
// TransformerEncoderLayer after d_model, nhead, dim_feedforward and
// dropout. The zero value is PyTorch's defaults.
type TransformerEncoderLayerOptions struct {
	// Activation of the feed-forward block: "relu" (the default, also "")
	// or "gelu".
	Activation string
	// ActivationFn, when set, is the activation instead (PyTorch's
	// callable activation).
	ActivationFn func(torch.Tensor) torch.Tensor
	LayerNormEps float64 // layer_norm_eps; 0 means 1e-5
	BatchFirst   bool    // input and output are (batch, seq, feature)
	NormFirst    bool    // pre-norm: LayerNorm before attention and feed-forward
}

// TransformerEncoderLayerModule is self-attention and a feed-forward
// network, each with a residual connection and LayerNorm
// (torch.nn.TransformerEncoderLayer). Its sub-modules and parameters are
// named as PyTorch's: self_attn.*, linear1.*, linear2.*, norm1.*, norm2.*.
type TransformerEncoderLayerModule struct {
	Module
	SelfAttn *MultiheadAttentionModule
	Linear1  *tfLinear  // d_model → dim_feedforward
	Dropout  *tfDropout // inside the feed-forward block
	Linear2  *tfLinear  // dim_feedforward → d_model
	Norm1    *tfLayerNorm
	Norm2    *tfLayerNorm
	Dropout1 *tfDropout // after self-attention
	Dropout2 *tfDropout // after the feed-forward block

	NormFirst bool
	// Activation is "relu", "gelu" or "" when ActivationFn is set.
	Activation   string
	ActivationFn func(torch.Tensor) torch.Tensor
}

// TransformerEncoderLayer returns an encoder layer of model width dModel
// with nhead attention heads, a feed-forward network of width
// dimFeedforward and dropout probability dropout (PyTorch's defaults are
// 2048 and 0.1), initialized as PyTorch does. It panics on invalid
// settings.
//
//	layer := nn.TransformerEncoderLayer(512, 8, 2048, 0.1,
//		nn.TransformerEncoderLayerOptions{BatchFirst: true, NormFirst: true})
//	y := layer.Forward(x, nn.AttentionOptions{KeyPaddingMask: pad})
func TransformerEncoderLayer(dModel, nhead, dimFeedforward int64, dropout float64, opts ...TransformerEncoderLayerOptions) *TransformerEncoderLayerModule {
	var o TransformerEncoderLayerOptions
	switch len(opts) {
	case 0:
	case 1:
		o = opts[0]
	default:
		panic(fmt.Errorf("nn.TransformerEncoderLayer: takes at most one TransformerEncoderLayerOptions, got %d", len(opts)))
	}
	if o.LayerNormEps == 0 {
		o.LayerNormEps = 1e-5
	}
	if o.ActivationFn == nil {
		switch o.Activation {
		case "", "relu":
			o.Activation = "relu"
		case "gelu":
		default:
			panic(fmt.Errorf("nn.TransformerEncoderLayer: activation should be relu/gelu, not %s", o.Activation))
		}
	} else {
		o.Activation = ""
	}
	if dimFeedforward <= 0 {
		panic(fmt.Errorf("nn.TransformerEncoderLayer: dim_feedforward must be positive, got %d", dimFeedforward))
	}
	if !(dropout >= 0 && dropout <= 1) {
		panic(fmt.Errorf("nn.TransformerEncoderLayer: dropout probability has to be between 0 and 1, but got %v", dropout))
	}
	l := &TransformerEncoderLayerModule{
		SelfAttn:     MultiheadAttention(dModel, nhead, MultiheadAttentionOptions{Dropout: dropout, BatchFirst: o.BatchFirst}),
		Linear1:      newTfLinear(dModel, dimFeedforward),
		Dropout:      newTfDropout(dropout),
		Linear2:      newTfLinear(dimFeedforward, dModel),
		Norm1:        newTfLayerNorm(dModel, o.LayerNormEps),
		Norm2:        newTfLayerNorm(dModel, o.LayerNormEps),
		Dropout1:     newTfDropout(dropout),
		Dropout2:     newTfDropout(dropout),
		NormFirst:    o.NormFirst,
		Activation:   o.Activation,
		ActivationFn: o.ActivationFn,
	}
	l.Init(l)
	return l
}

// Forward runs the layer on src, (seq, batch, d_model), (batch, seq,
// d_model) with BatchFirst, or (seq, d_model) unbatched. opts may give
// the attention masks: AttnMask is PyTorch's src_mask and KeyPaddingMask
// its src_key_padding_mask; NoWeights and PerHeadWeights are ignored.
// Dropout applies in training. It panics with an error on bad input;
// TryForward returns it.
//
// Unlike PyTorch, it never takes the fused inference fast path
// (at::_transformer_encoder_layer_fwd); the results agree within float
// rounding.
func (l *TransformerEncoderLayerModule) Forward(src torch.Tensor, opts ...AttentionOptions) torch.Tensor {
	mustModule(l)
	var o AttentionOptions
	switch len(opts) {
	case 0:
	case 1:
		o = opts[0]
	default:
		panic(fmt.Errorf("nn.TransformerEncoderLayer: Forward takes at most one AttentionOptions, got %d", len(opts)))
	}
	if kpm := o.KeyPaddingMask; kpm.Defined() && kpm.DType() != torch.Bool && !kpm.DType().IsFloatingPoint() {
		panic(fmt.Errorf("nn.TransformerEncoderLayer: only bool and floating types of key_padding_mask are supported, got %v", kpm.DType()))
	}
	if !src.Defined() {
		panic(fmt.Errorf("nn.TransformerEncoderLayer: src is an undefined tensor"))
	}
	// The blocks free the tensors they make as soon as they are used, but
	// never src, the result, or what a user's ActivationFn has seen or
	// returned (it may keep them). The blocks' results are new tensors:
	// each ends in a Linear, or in a Dropout of an attention output.
	masks := AttentionOptions{KeyPaddingMask: o.KeyPaddingMask, AttnMask: o.AttnMask, NoWeights: true}
	sa := func(x torch.Tensor) torch.Tensor {
		y, _ := l.SelfAttn.Forward(x, x, x, masks)
		out := l.Dropout1.Forward(y)
		temps.Free(y, x, out)
		return out
	}
	ff := func(x torch.Tensor) torch.Tensor {
		h := l.Linear1.Forward(x)
		var a torch.Tensor
		user := l.ActivationFn != nil
		switch {
		case user:
			a = l.ActivationFn(h)
		case l.Activation == "gelu":
			a = torch.Gelu(h)
		default:
			a = torch.Relu(h)
		}
		d := l.Dropout.Forward(a)
		y := l.Linear2.Forward(d)
		out := l.Dropout2.Forward(y)
		if !user {
			temps.Free(h, x, out)
			temps.Free(a, x, out)
		}
		if d != a { // made by the Dropout, not the activation's result passed on
			temps.Free(d, x, out)
		}
		temps.Free(y, x, out)
		return out
	}
	if l.NormFirst {
		n1 := l.Norm1.Forward(src)
		s := sa(n1)
		x := src.Add(s)
		temps.Free(n1, src, x)
		temps.Free(s, src, x)
		n2 := l.Norm2.Forward(x)
		f := ff(n2)
		y := x.Add(f)
		temps.Free(n2, src, y)
		temps.Free(f, src, y)
		temps.Free(x, src, y)
		return y
	}
	s := sa(src)
	a := src.Add(s)
	x := l.Norm1.Forward(a)
	temps.Free(s, src, x)
	temps.Free(a, src, x)
	f := ff(x)
	a = x.Add(f)
	y := l.Norm2.Forward(a)
	temps.Free(f, src, y)
	temps.Free(a, src, y)
	temps.Free(x, src, y)
	return y
}

// TryForward is Forward that returns its error: a *torch.Error from
// libtorch, or an error naming the bad shape or argument.
func (l *TransformerEncoderLayerModule) TryForward(src torch.Tensor, opts ...AttentionOptions) (out torch.Tensor, err error) {
	err = rnnCatchError(func() { out = l.Forward(src, opts...) })
	return
}

// tfLinear, tfLayerNorm and tfDropout are the minimal Linear, LayerNorm
// and Dropout that TransformerEncoderLayer holds. They print and name their
// parameters as PyTorch's classes of those names.

type tfLinear struct {
	Module
	Weight torch.Tensor // (out_features, in_features)
	Bias   torch.Tensor // (out_features)

	InFeatures, OutFeatures int64
}

// newTfLinear initializes as nn.Linear: weight and bias from
// U(-1/√in, 1/√in) (kaiming_uniform_ with a=√5 for the weight).
func newTfLinear(in, out int64) *tfLinear {
	bound := 0.0
	if in > 0 {
		bound = 1 / math.Sqrt(float64(in))
	}
	l := &tfLinear{
		Weight:     mhaUniform(bound, out, in).SetRequiresGrad(true),
		Bias:       mhaUniform(bound, out).SetRequiresGrad(true),
		InFeatures: in, OutFeatures: out,
	}
	l.Init(l)
	return l
}

func (l *tfLinear) reprName() string { return "Linear" }

func (l *tfLinear) ExtraRepr() string {
	return fmt.Sprintf("in_features=%d, out_features=%d, bias=%s", l.InFeatures, l.OutFeatures, pyBool(l.Bias.Defined()))
}

func (l *tfLinear) Forward(x torch.Tensor) torch.Tensor { return mhaLinear(x, l.Weight, l.Bias) }

type tfLayerNorm struct {
	Module
	Weight torch.Tensor // ones
	Bias   torch.Tensor // zeros

	NormalizedShape []int64
	Eps             float64
}

func newTfLayerNorm(d int64, eps float64) *tfLayerNorm {
	n := &tfLayerNorm{
		Weight:          torch.Ones([]int64{d}).SetRequiresGrad(true),
		Bias:            torch.Zeros([]int64{d}).SetRequiresGrad(true),
		NormalizedShape: []int64{d},
		Eps:             eps,
	}
	n.Init(n)
	return n
}

func (n *tfLayerNorm) reprName() string { return "LayerNorm" }

func (n *tfLayerNorm) ExtraRepr() string {
	dims := make([]string, len(n.NormalizedShape))
	for i, s := range n.NormalizedShape {
		dims[i] = fmt.Sprint(s)
	}
	shape := "(" + strings.Join(dims, ", ") + ")"
	if len(dims) == 1 {
		shape = "(" + dims[0] + ",)"
	}
	return fmt.Sprintf("%s, eps=%s, elementwise_affine=%s", shape, pyFloat(n.Eps), pyBool(n.Weight.Defined()))
}

func (n *tfLayerNorm) Forward(x torch.Tensor) torch.Tensor {
	opts := []torch.Option{torch.WithEps(n.Eps)}
	if n.Weight.Defined() {
		opts = append(opts, torch.WithWeight(n.Weight))
	}
	if n.Bias.Defined() {
		opts = append(opts, torch.WithBias(n.Bias))
	}
	return torch.LayerNorm(x, n.NormalizedShape, opts...)
}

type tfDropout struct {
	Module
	P float64
}

func newTfDropout(p float64) *tfDropout {
	d := &tfDropout{P: p}
	d.Init(d)
	return d
}

func (d *tfDropout) reprName() string { return "Dropout" }

func (d *tfDropout) ExtraRepr() string { return "p=" + pyFloat(d.P) + ", inplace=False" }

func (d *tfDropout) Forward(x torch.Tensor) torch.Tensor {
	if d.P == 0 || !d.IsTraining() {
		return x
	}
	return torch.Dropout(x, d.P, true)
}
