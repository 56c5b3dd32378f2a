package nn

import (
	"math"
	"reflect"

	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// TransformerLayerSettings are the settings of TransformerEncoderLayer and
// TransformerDecoderLayer, named after PyTorch's constructor keywords and
// set by the With options; their defaults are PyTorch's.
type TransformerLayerSettings struct {
	DModel, Nhead  int64
	DimFeedforward int64   // dim_feedforward (WithDimFeedforward, default 2048)
	Dropout        float64 // dropout (WithDropout, default 0.1)
	// Activation of the feed-forward block: "relu" (the default) or
	// "gelu" (WithActivation), or "" when ActivationFn is set.
	Activation string
	// ActivationFn, when set, is the activation instead
	// (WithActivationFn, PyTorch's callable activation).
	ActivationFn func(torch.Tensor) torch.Tensor
	LayerNormEps float64 // layer_norm_eps (WithLayerNormEps, default 1e-5)
	BatchFirst   bool    // batch_first: input and output are (batch, seq, feature) (WithBatchFirst)
	NormFirst    bool    // norm_first: LayerNorm before attention and feed-forward (WithNormFirst)
}

var transformerLayerKeywords = []string{"dim_feedforward", "dropout", "activation", "layer_norm_eps", "batch_first", "norm_first",
	"dtype", "device"}

// transformerLayerSetup parses and checks a layer's settings, panicking
// as PyTorch raises.
func transformerLayerSetup(op string, dModel, nhead int64, opts []Option) (TransformerLayerSettings, []Option) {
	a := mustParseArgs(op, opts, transformerLayerKeywords...)
	s := TransformerLayerSettings{
		DModel: dModel, Nhead: nhead,
		DimFeedforward: a.int("dim_feedforward", 2048),
		Dropout:        a.float("dropout", 0.1),
		Activation:     a.str("activation", "relu"),
		LayerNormEps:   a.float("layer_norm_eps", 1e-5),
		BatchFirst:     a.bool("batch_first", false),
		NormFirst:      a.bool("norm_first", false),
	}
	if f, ok := a.value("activation").(func(torch.Tensor) torch.Tensor); ok && f != nil {
		s.ActivationFn, s.Activation = f, ""
	} else if s.Activation != "relu" && s.Activation != "gelu" {
		panic(layerError(op, "activation should be relu/gelu, not %s", s.Activation))
	}
	if s.DimFeedforward <= 0 {
		panic(layerError(op, "dim_feedforward must be positive, got %d", s.DimFeedforward))
	}
	if !(s.Dropout >= 0 && s.Dropout <= 1) {
		panic(layerError(op, "dropout probability has to be between 0 and 1, but got %v", s.Dropout))
	}
	return s, a.pick("dtype", "device")
}

// options returns the With options that build a layer of settings s.
func (s TransformerLayerSettings) options() []Option {
	opts := []Option{WithDimFeedforward(s.DimFeedforward), WithDropout(s.Dropout), WithLayerNormEps(s.LayerNormEps),
		WithBatchFirst(s.BatchFirst), WithNormFirst(s.NormFirst)}
	if s.ActivationFn != nil {
		return append(opts, WithActivationFn(s.ActivationFn))
	}
	return append(opts, WithActivation(s.Activation))
}

// TransformerEncoderLayerModule is self-attention and a feed-forward
// network, each with a residual connection and LayerNorm
// (torch.nn.TransformerEncoderLayer). Its sub-modules and parameters are
// named as PyTorch's: self_attn.*, linear1.*, linear2.*, norm1.*, norm2.*.
//
// As in PyTorch, l.Dropout is the feed-forward block's Dropout layer; the
// dropout probability is l.TransformerLayerSettings.Dropout.
type TransformerEncoderLayerModule struct {
	Module
	SelfAttn *MultiheadAttentionModule
	Linear1  *LinearModule  // d_model → dim_feedforward
	Dropout  *DropoutModule // inside the feed-forward block
	Linear2  *LinearModule  // dim_feedforward → d_model
	Norm1    *LayerNormModule
	Norm2    *LayerNormModule
	Dropout1 *DropoutModule // after self-attention
	Dropout2 *DropoutModule // after the feed-forward block

	TransformerLayerSettings
}

// TransformerEncoderLayer returns an encoder layer of model width dModel
// with nhead attention heads, initialized as PyTorch does. It panics on
// invalid settings.
//
// Options: WithDimFeedforward (2048), WithDropout (0.1), WithActivation
// ("relu") or WithActivationFn, WithLayerNormEps (1e-5), WithBatchFirst
// (false), WithNormFirst (false), WithDtype, WithDevice.
//
//	layer := nn.TransformerEncoderLayer(512, 8, nn.WithBatchFirst(true), nn.WithNormFirst(true))
//	y := layer.Forward(x, nn.WithSrcKeyPaddingMask(pad))
func TransformerEncoderLayer(dModel, nhead int64, opts ...Option) *TransformerEncoderLayerModule {
	s, f := transformerLayerSetup("TransformerEncoderLayer", dModel, nhead, opts)
	l := &TransformerEncoderLayerModule{
		SelfAttn:                 MultiheadAttention(dModel, nhead, joinOpts(f, WithDropout(s.Dropout), WithBatchFirst(s.BatchFirst))...),
		Linear1:                  Linear(dModel, s.DimFeedforward, f...),
		Dropout:                  Dropout(WithP(s.Dropout)),
		Linear2:                  Linear(s.DimFeedforward, dModel, f...),
		Norm1:                    LayerNorm(dModel, joinOpts(f, WithEps(s.LayerNormEps))...),
		Norm2:                    LayerNorm(dModel, joinOpts(f, WithEps(s.LayerNormEps))...),
		Dropout1:                 Dropout(WithP(s.Dropout)),
		Dropout2:                 Dropout(WithP(s.Dropout)),
		TransformerLayerSettings: s,
	}
	l.Init(l)
	return l
}

// tfBlock runs the blocks of a transformer layer, recording the tensors
// it makes so that they can be freed once the layer has its result. It
// never frees what a user's ActivationFn has seen or returned (it may keep
// them), nor the caller's tensors (keep).
type tfBlock struct {
	tmp  temps.List
	keep []torch.Tensor
}

func (b *tfBlock) add(t torch.Tensor) torch.Tensor { return b.tmp.Add(t) }

// done frees the temporaries but out and the caller's tensors.
func (b *tfBlock) done(out torch.Tensor) torch.Tensor {
	b.tmp.Free(append(b.keep, out)...)
	return out
}

// attend is PyTorch's _sa_block and _mha_block: attention without weights,
// then dropout.
func (b *tfBlock) attend(attn *MultiheadAttentionModule, drop *DropoutModule, q, kv, mask, kpm torch.Tensor) torch.Tensor {
	y, _ := attn.Forward(q, kv, kv, WithAttnMask(mask), WithKeyPaddingMask(kpm), WithNeedWeights(false))
	return b.add(drop.Forward(b.add(y)))
}

// feedForward is PyTorch's _ff_block.
func (b *tfBlock) feedForward(s *TransformerLayerSettings, l1, l2 *LinearModule, drop, dropOut *DropoutModule, x torch.Tensor) torch.Tensor {
	h := l1.Forward(x)
	var a torch.Tensor
	switch {
	case s.ActivationFn != nil:
		a = s.ActivationFn(h)
		b.keep = append(b.keep, h, a)
	case s.Activation == "gelu":
		a = b.add(torch.Gelu(b.add(h)))
	default:
		a = b.add(torch.Relu(b.add(h)))
	}
	d := b.add(drop.Forward(a))
	return b.add(dropOut.Forward(b.add(l2.Forward(d))))
}

// residual is x + y, or norm(x + y) when norm is given.
func (b *tfBlock) residual(x, y torch.Tensor, norm *LayerNormModule) torch.Tensor {
	s := b.add(x.Add(y))
	if norm == nil {
		return s
	}
	return b.add(norm.Forward(s))
}

// checkKeyPaddingMask is the dtype check of PyTorch's forward.
func checkKeyPaddingMask(op, name string, kpm torch.Tensor) {
	if kpm.Defined() && kpm.DType() != torch.Bool && !kpm.DType().IsFloatingPoint() {
		panic(layerError(op, "only bool and floating types of key_padding_mask are supported (%s is %v)", name, kpm.DType()))
	}
}

// Forward runs the layer on src, (seq, batch, d_model), (batch, seq,
// d_model) with BatchFirst, or (seq, d_model) unbatched. Dropout applies
// in training. It panics with an error on bad input; TryForward returns
// it.
//
// Options: WithSrcMask (PyTorch's src_mask, the attention mask),
// WithSrcKeyPaddingMask.
//
// Unlike PyTorch, it never takes the fused inference fast path
// (at::_transformer_encoder_layer_fwd); the results agree within float
// rounding.
func (l *TransformerEncoderLayerModule) Forward(src torch.Tensor, opts ...Option) torch.Tensor {
	const op = "TransformerEncoderLayer"
	if l == nil {
		panic(nilLayer(l))
	}
	mustModule(l)
	a := mustParseArgs(op, opts, "src_mask", "src_key_padding_mask")
	mask, kpm := a.tensor("src_mask"), a.tensor("src_key_padding_mask")
	checkKeyPaddingMask(op, "src_key_padding_mask", kpm)
	if !src.Defined() {
		panic(layerError(op, "src is an undefined tensor"))
	}
	b := &tfBlock{keep: []torch.Tensor{src}}
	s := &l.TransformerLayerSettings
	x := src
	if l.NormFirst {
		n1 := b.add(l.Norm1.Forward(x))
		x = b.residual(x, b.attend(l.SelfAttn, l.Dropout1, n1, n1, mask, kpm), nil)
		n2 := b.add(l.Norm2.Forward(x))
		x = b.residual(x, b.feedForward(s, l.Linear1, l.Linear2, l.Dropout, l.Dropout2, n2), nil)
	} else {
		x = b.residual(x, b.attend(l.SelfAttn, l.Dropout1, x, x, mask, kpm), l.Norm1)
		x = b.residual(x, b.feedForward(s, l.Linear1, l.Linear2, l.Dropout, l.Dropout2, x), l.Norm2)
	}
	return b.done(x)
}

// TryForward is Forward that returns its error: a *torch.Error from
// libtorch, or an error naming the bad shape or argument.
func (l *TransformerEncoderLayerModule) TryForward(src torch.Tensor, opts ...Option) (out torch.Tensor, err error) {
	err = rnnCatchError(func() { out = l.Forward(src, opts...) })
	return
}

// TransformerDecoderLayerModule is self-attention, attention to the
// encoder's output (memory) and a feed-forward network, each with a
// residual connection and LayerNorm (torch.nn.TransformerDecoderLayer).
// Its sub-modules and parameters are named as PyTorch's.
type TransformerDecoderLayerModule struct {
	Module
	SelfAttn      *MultiheadAttentionModule
	MultiheadAttn *MultiheadAttentionModule // attention to memory
	Linear1       *LinearModule
	Dropout       *DropoutModule
	Linear2       *LinearModule
	Norm1         *LayerNormModule
	Norm2         *LayerNormModule
	Norm3         *LayerNormModule
	Dropout1      *DropoutModule // after self-attention
	Dropout2      *DropoutModule // after attention to memory
	Dropout3      *DropoutModule // after the feed-forward block

	TransformerLayerSettings
}

// TransformerDecoderLayer returns a decoder layer of model width dModel
// with nhead attention heads, initialized as PyTorch does. It panics on
// invalid settings.
//
// Options: WithDimFeedforward (2048), WithDropout (0.1), WithActivation
// ("relu") or WithActivationFn, WithLayerNormEps (1e-5), WithBatchFirst
// (false), WithNormFirst (false), WithDtype, WithDevice.
//
//	layer := nn.TransformerDecoderLayer(512, 8)
//	y := layer.Forward(tgt, memory, nn.WithTgtMask(nn.GenerateSquareSubsequentMask(tgtLen)))
func TransformerDecoderLayer(dModel, nhead int64, opts ...Option) *TransformerDecoderLayerModule {
	s, f := transformerLayerSetup("TransformerDecoderLayer", dModel, nhead, opts)
	l := &TransformerDecoderLayerModule{
		SelfAttn:                 MultiheadAttention(dModel, nhead, joinOpts(f, WithDropout(s.Dropout), WithBatchFirst(s.BatchFirst))...),
		MultiheadAttn:            MultiheadAttention(dModel, nhead, joinOpts(f, WithDropout(s.Dropout), WithBatchFirst(s.BatchFirst))...),
		Linear1:                  Linear(dModel, s.DimFeedforward, f...),
		Dropout:                  Dropout(WithP(s.Dropout)),
		Linear2:                  Linear(s.DimFeedforward, dModel, f...),
		Norm1:                    LayerNorm(dModel, joinOpts(f, WithEps(s.LayerNormEps))...),
		Norm2:                    LayerNorm(dModel, joinOpts(f, WithEps(s.LayerNormEps))...),
		Norm3:                    LayerNorm(dModel, joinOpts(f, WithEps(s.LayerNormEps))...),
		Dropout1:                 Dropout(WithP(s.Dropout)),
		Dropout2:                 Dropout(WithP(s.Dropout)),
		Dropout3:                 Dropout(WithP(s.Dropout)),
		TransformerLayerSettings: s,
	}
	l.Init(l)
	return l
}

var decoderKeywords = []string{"tgt_mask", "memory_mask", "tgt_key_padding_mask", "memory_key_padding_mask"}

// Forward runs the layer on tgt, (T, batch, d_model), (batch, T, d_model)
// with BatchFirst, or (T, d_model) unbatched, attending to memory, the
// encoder's output, shaped alike. Dropout applies in training. It panics
// with an error on bad input; TryForward returns it.
//
// Options: WithTgtMask, WithMemoryMask, WithTgtKeyPaddingMask,
// WithMemoryKeyPaddingMask.
func (l *TransformerDecoderLayerModule) Forward(tgt, memory torch.Tensor, opts ...Option) torch.Tensor {
	const op = "TransformerDecoderLayer"
	if l == nil {
		panic(nilLayer(l))
	}
	mustModule(l)
	a := mustParseArgs(op, opts, decoderKeywords...)
	tgtMask, memMask := a.tensor("tgt_mask"), a.tensor("memory_mask")
	tgtKPM, memKPM := a.tensor("tgt_key_padding_mask"), a.tensor("memory_key_padding_mask")
	checkKeyPaddingMask(op, "tgt_key_padding_mask", tgtKPM)
	checkKeyPaddingMask(op, "memory_key_padding_mask", memKPM)
	if !tgt.Defined() || !memory.Defined() {
		panic(layerError(op, "tgt and memory must be defined tensors"))
	}
	b := &tfBlock{keep: []torch.Tensor{tgt, memory}}
	s := &l.TransformerLayerSettings
	x := tgt
	if l.NormFirst {
		n1 := b.add(l.Norm1.Forward(x))
		x = b.residual(x, b.attend(l.SelfAttn, l.Dropout1, n1, n1, tgtMask, tgtKPM), nil)
		n2 := b.add(l.Norm2.Forward(x))
		x = b.residual(x, b.attend(l.MultiheadAttn, l.Dropout2, n2, memory, memMask, memKPM), nil)
		n3 := b.add(l.Norm3.Forward(x))
		x = b.residual(x, b.feedForward(s, l.Linear1, l.Linear2, l.Dropout, l.Dropout3, n3), nil)
	} else {
		x = b.residual(x, b.attend(l.SelfAttn, l.Dropout1, x, x, tgtMask, tgtKPM), l.Norm1)
		x = b.residual(x, b.attend(l.MultiheadAttn, l.Dropout2, x, memory, memMask, memKPM), l.Norm2)
		x = b.residual(x, b.feedForward(s, l.Linear1, l.Linear2, l.Dropout, l.Dropout3, x), l.Norm3)
	}
	return b.done(x)
}

// TryForward is Forward that returns its error.
func (l *TransformerDecoderLayerModule) TryForward(tgt, memory torch.Tensor, opts ...Option) (out torch.Tensor, err error) {
	err = rnnCatchError(func() { out = l.Forward(tgt, memory, opts...) })
	return
}

// joinOpts is a new slice of the options a and then b.
func joinOpts(a []Option, b ...Option) []Option {
	return append(append([]Option(nil), a...), b...)
}

// factoryOf returns the dtype and device options of m's parameters.
func factoryOf(m interface{ Parameters() []torch.Tensor }) []Option {
	ps := m.Parameters()
	if len(ps) == 0 {
		return nil
	}
	return []Option{WithDtype(ps[0].DType()), WithDevice(ps[0].Device())}
}

// clone is a new layer with the settings and parameter values of l, as
// PyTorch's copy.deepcopy makes the layers of a stack.
func cloneLayer[M interface {
	Moduler
	StateDict() map[string]torch.Tensor
	LoadStateDict(map[string]torch.Tensor, bool) error
}](l M, fresh M) M {
	if err := fresh.LoadStateDict(l.StateDict(), true); err != nil {
		panic(err)
	}
	return fresh
}

// TransformerEncoderModule is a stack of encoder layers with an optional
// final norm (torch.nn.TransformerEncoder). Its parameters are named
// layers.0.*, layers.1.*, …, norm.*.
type TransformerEncoderModule struct {
	Module
	Layers    *ModuleListModule // of *TransformerEncoderLayerModule
	Norm      *LayerNormModule  // nil without WithNorm
	NumLayers int64
	// EnableNestedTensor and MaskCheck are PyTorch's enable_nested_tensor
	// and mask_check; GoTorch has no nested tensors and ignores them.
	EnableNestedTensor, MaskCheck bool
}

// TransformerEncoder returns a stack of numLayers copies of encoderLayer,
// each with encoderLayer's parameter values, as PyTorch's deep copies.
// It panics on invalid settings.
//
// Options: WithNorm (none), WithEnableNestedTensor (true), WithMaskCheck
// (true).
//
//	enc := nn.TransformerEncoder(nn.TransformerEncoderLayer(512, 8), 6, nn.WithNorm(nn.LayerNorm(512)))
//	y := enc.Forward(x, nn.WithMask(mask))
func TransformerEncoder(encoderLayer *TransformerEncoderLayerModule, numLayers int64, opts ...Option) *TransformerEncoderModule {
	const op = "TransformerEncoder"
	a := mustParseArgs(op, opts, "norm", "enable_nested_tensor", "mask_check")
	if encoderLayer == nil {
		panic(layerError(op, "encoder_layer is a nil *TransformerEncoderLayerModule"))
	}
	mustModule(encoderLayer)
	if numLayers < 0 {
		panic(layerError(op, "num_layers must be non-negative, got %d", numLayers))
	}
	layers := make([]Moduler, numLayers)
	s := encoderLayer.TransformerLayerSettings
	for i := range layers {
		layers[i] = cloneLayer(encoderLayer, TransformerEncoderLayer(s.DModel, s.Nhead, joinOpts(s.options(), factoryOf(encoderLayer)...)...))
	}
	e := &TransformerEncoderModule{Layers: ModuleList(layers...), NumLayers: numLayers,
		EnableNestedTensor: a.bool("enable_nested_tensor", true), MaskCheck: a.bool("mask_check", true)}
	e.Norm, _ = a.value("norm").(*LayerNormModule)
	e.Init(e)
	return e
}

// ExtraRepr is empty, as PyTorch's.
func (e *TransformerEncoderModule) ExtraRepr() string { return "" }

// Forward runs the layers in turn on src, then the norm. It panics with
// an error on bad input; TryForward returns it.
//
// Options: WithMask (the attention mask of every layer),
// WithSrcKeyPaddingMask.
func (e *TransformerEncoderModule) Forward(src torch.Tensor, opts ...Option) torch.Tensor {
	const op = "TransformerEncoder"
	if e == nil {
		panic(nilLayer(e))
	}
	mustModule(e)
	a := mustParseArgs(op, opts, "mask", "src_key_padding_mask")
	checkKeyPaddingMask(op, "src_key_padding_mask", a.tensor("src_key_padding_mask"))
	layerOpts := []Option{WithSrcMask(a.tensor("mask")), WithSrcKeyPaddingMask(a.tensor("src_key_padding_mask"))}
	return runStack(op, e.Layers, e.Norm, src, func(m Moduler, x torch.Tensor) (torch.Tensor, bool) {
		l, ok := m.(*TransformerEncoderLayerModule)
		if !ok {
			return torch.Tensor{}, false
		}
		return l.Forward(x, layerOpts...), true
	})
}

// TryForward is Forward that returns its error.
func (e *TransformerEncoderModule) TryForward(src torch.Tensor, opts ...Option) (out torch.Tensor, err error) {
	err = rnnCatchError(func() { out = e.Forward(src, opts...) })
	return
}

// runStack runs the layers of a ModuleList in turn, then norm, freeing
// the intermediate outputs.
func runStack(op string, layers *ModuleListModule, norm *LayerNormModule, x torch.Tensor, run func(Moduler, torch.Tensor) (torch.Tensor, bool)) torch.Tensor {
	if layers == nil {
		panic(layerError(op, "Layers is nil"))
	}
	in := x
	for i, m := range layers.Items {
		y, ok := run(m, x)
		if !ok {
			panic(layerError(op, "layer %d is a %T, not a transformer layer of this stack", i, m))
		}
		temps.Free(x, in, y)
		x = y
	}
	if norm != nil {
		y := norm.Forward(x)
		temps.Free(x, in, y)
		x = y
	}
	return x
}

// TransformerDecoderModule is a stack of decoder layers with an optional
// final norm (torch.nn.TransformerDecoder). Its parameters are named
// layers.0.*, layers.1.*, …, norm.*.
type TransformerDecoderModule struct {
	Module
	Layers    *ModuleListModule // of *TransformerDecoderLayerModule
	Norm      *LayerNormModule  // nil without WithNorm
	NumLayers int64
}

// TransformerDecoder returns a stack of numLayers copies of decoderLayer,
// each with decoderLayer's parameter values. It panics on invalid
// settings.
//
// Options: WithNorm (none).
func TransformerDecoder(decoderLayer *TransformerDecoderLayerModule, numLayers int64, opts ...Option) *TransformerDecoderModule {
	const op = "TransformerDecoder"
	a := mustParseArgs(op, opts, "norm")
	if decoderLayer == nil {
		panic(layerError(op, "decoder_layer is a nil *TransformerDecoderLayerModule"))
	}
	mustModule(decoderLayer)
	if numLayers < 0 {
		panic(layerError(op, "num_layers must be non-negative, got %d", numLayers))
	}
	layers := make([]Moduler, numLayers)
	s := decoderLayer.TransformerLayerSettings
	for i := range layers {
		layers[i] = cloneLayer(decoderLayer, TransformerDecoderLayer(s.DModel, s.Nhead, joinOpts(s.options(), factoryOf(decoderLayer)...)...))
	}
	d := &TransformerDecoderModule{Layers: ModuleList(layers...), NumLayers: numLayers}
	d.Norm, _ = a.value("norm").(*LayerNormModule)
	d.Init(d)
	return d
}

// ExtraRepr is empty, as PyTorch's.
func (d *TransformerDecoderModule) ExtraRepr() string { return "" }

// Forward runs the layers in turn on tgt, each attending to memory, then
// the norm. It panics with an error on bad input; TryForward returns it.
//
// Options: WithTgtMask, WithMemoryMask, WithTgtKeyPaddingMask,
// WithMemoryKeyPaddingMask.
func (d *TransformerDecoderModule) Forward(tgt, memory torch.Tensor, opts ...Option) torch.Tensor {
	const op = "TransformerDecoder"
	if d == nil {
		panic(nilLayer(d))
	}
	mustModule(d)
	a := mustParseArgs(op, opts, decoderKeywords...)
	layerOpts := a.pick(decoderKeywords...)
	if !memory.Defined() {
		panic(layerError(op, "memory is an undefined tensor"))
	}
	return runStack(op, d.Layers, d.Norm, tgt, func(m Moduler, x torch.Tensor) (torch.Tensor, bool) {
		l, ok := m.(*TransformerDecoderLayerModule)
		if !ok {
			return torch.Tensor{}, false
		}
		return l.Forward(x, memory, layerOpts...), true
	})
}

// TryForward is Forward that returns its error.
func (d *TransformerDecoderModule) TryForward(tgt, memory torch.Tensor, opts ...Option) (out torch.Tensor, err error) {
	err = rnnCatchError(func() { out = d.Forward(tgt, memory, opts...) })
	return
}

// EncoderModule is what a Transformer's encoder is: a
// *TransformerEncoderModule, or a module of one's own passed with
// WithCustomEncoder (PyTorch's custom_encoder). Transformer calls
// Forward(src, WithMask(srcMask), WithSrcKeyPaddingMask(m)), as PyTorch
// calls encoder(src, mask=..., src_key_padding_mask=...).
type EncoderModule interface {
	Moduler
	Forward(src torch.Tensor, opts ...Option) torch.Tensor
}

// DecoderModule is what a Transformer's decoder is: a
// *TransformerDecoderModule, or a module of one's own passed with
// WithCustomDecoder (PyTorch's custom_decoder). Transformer calls
// Forward(tgt, memory, opts...) with WithTgtMask, WithMemoryMask,
// WithTgtKeyPaddingMask and WithMemoryKeyPaddingMask.
type DecoderModule interface {
	Moduler
	Forward(tgt, memory torch.Tensor, opts ...Option) torch.Tensor
}

// TransformerModule is an encoder-decoder transformer
// (torch.nn.Transformer): a TransformerEncoder and a TransformerDecoder,
// each with a final LayerNorm, or the custom encoder and decoder given.
// Its parameters are named encoder.* and decoder.*, as PyTorch's.
type TransformerModule struct {
	Module
	Encoder EncoderModule // a *TransformerEncoderModule unless WithCustomEncoder
	Decoder DecoderModule // a *TransformerDecoderModule unless WithCustomDecoder

	DModel, Nhead int64
	BatchFirst    bool
}

// Transformer returns an encoder-decoder transformer, its weight matrices
// initialized with xavier_uniform_ as PyTorch's _reset_parameters does
// (those of a custom encoder or decoder too, as in PyTorch). It panics on
// invalid settings.
//
// Options: WithDModel (512), WithNhead (8), WithNumEncoderLayers (6),
// WithNumDecoderLayers (6), WithDimFeedforward (2048), WithDropout (0.1),
// WithActivation ("relu") or WithActivationFn, WithCustomEncoder (None),
// WithCustomDecoder (None), WithLayerNormEps (1e-5), WithBatchFirst
// (false), WithNormFirst (false), WithDtype, WithDevice.
//
//	t := nn.Transformer(nn.WithDModel(64), nn.WithNhead(4), nn.WithBatchFirst(true))
//	y := t.Forward(src, tgt, nn.WithTgtMask(nn.GenerateSquareSubsequentMask(tgt.Size(1))))
func Transformer(opts ...Option) *TransformerModule {
	const op = "Transformer"
	a := mustParseArgs(op, opts, append([]string{"d_model", "nhead", "num_encoder_layers", "num_decoder_layers",
		"custom_encoder", "custom_decoder"}, transformerLayerKeywords...)...)
	dModel, nhead := a.int("d_model", 512), a.int("nhead", 8)
	layerOpts := a.pick(transformerLayerKeywords...)
	eps := a.float("layer_norm_eps", 1e-5)
	t := &TransformerModule{DModel: dModel, Nhead: nhead, BatchFirst: a.bool("batch_first", false)}
	norm := func() Option {
		return WithNorm(LayerNorm(dModel, joinOpts(a.pick("dtype", "device"), WithEps(eps))...))
	}
	if enc := customModule[EncoderModule](op, &a, "custom_encoder"); enc != nil {
		t.Encoder = enc
	} else {
		t.Encoder = TransformerEncoder(TransformerEncoderLayer(dModel, nhead, layerOpts...), a.int("num_encoder_layers", 6), norm())
	}
	if dec := customModule[DecoderModule](op, &a, "custom_decoder"); dec != nil {
		t.Decoder = dec
	} else {
		t.Decoder = TransformerDecoder(TransformerDecoderLayer(dModel, nhead, layerOpts...), a.int("num_decoder_layers", 6), norm())
	}
	t.Init(t)
	t.ResetParameters()
	return t
}

// ResetParameters draws every parameter of more than one dimension from
// xavier_uniform_, as PyTorch's _reset_parameters.
func (t *TransformerModule) ResetParameters() {
	for _, p := range t.Parameters() {
		if p.Dim() > 1 {
			nninit.XavierUniform_(p)
		}
	}
}

// ExtraRepr is empty, as PyTorch's.
func (t *TransformerModule) ExtraRepr() string { return "" }

// Forward encodes src and decodes tgt attending to it: src is (S, batch,
// d_model), tgt (T, batch, d_model), batch first with BatchFirst, or
// without the batch dimension for unbatched input. The result is shaped
// as tgt. It panics with an error on bad input; TryForward returns it.
//
// Options: WithSrcMask, WithTgtMask, WithMemoryMask,
// WithSrcKeyPaddingMask, WithTgtKeyPaddingMask, WithMemoryKeyPaddingMask.
func (t *TransformerModule) Forward(src, tgt torch.Tensor, opts ...Option) torch.Tensor {
	const op = "Transformer"
	if t == nil {
		panic(nilLayer(t))
	}
	mustModule(t)
	a := mustParseArgs(op, opts, append([]string{"src_mask", "src_key_padding_mask"}, decoderKeywords...)...)
	if !src.Defined() || !tgt.Defined() {
		panic(layerError(op, "src and tgt must be defined tensors"))
	}
	batchDim := int64(1)
	if t.BatchFirst {
		batchDim = 0
	}
	switch {
	case src.Dim() == 0 || tgt.Dim() == 0:
		panic(layerError(op, "src and tgt must not be 0-D"))
	case src.Dim() == 3 && tgt.Dim() == 3 && src.Size(batchDim) != tgt.Size(batchDim):
		panic(layerError(op, "the batch number of src and tgt must be equal"))
	case src.Size(-1) != t.DModel || tgt.Size(-1) != t.DModel:
		panic(layerError(op, "the feature number of src and tgt must be equal to d_model"))
	}
	memory := t.Encoder.Forward(src, WithMask(a.tensor("src_mask")), WithSrcKeyPaddingMask(a.tensor("src_key_padding_mask")))
	out := t.Decoder.Forward(tgt, memory, a.pick(decoderKeywords...)...)
	temps.Free(memory, src, out)
	return out
}

// TryForward is Forward that returns its error.
func (t *TransformerModule) TryForward(src, tgt torch.Tensor, opts ...Option) (out torch.Tensor, err error) {
	err = rnnCatchError(func() { out = t.Forward(src, tgt, opts...) })
	return
}

// customModule returns the module given as keyword (nil when it is not
// given), panicking when it is nil or not initialized.
func customModule[M Moduler](op string, a *layerArgs, keyword string) M {
	var zero M
	if !a.has(keyword) {
		return zero
	}
	m, _ := a.value(keyword).(M)
	if v := reflect.ValueOf(m); !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
		panic(layerError(op, "%s is nil", keyword))
	}
	mustModule(m)
	return m
}

// GenerateSquareSubsequentMask is the causal mask of a sequence of length
// sz (torch.nn.Transformer.generate_square_subsequent_mask): an (sz, sz)
// float mask, -inf above the diagonal and 0 elsewhere, so that position i
// attends to positions up to i only.
//
// Options: WithDevice (the CPU).
func GenerateSquareSubsequentMask(sz int64, opts ...Option) torch.Tensor {
	a := mustParseArgs("GenerateSquareSubsequentMask", opts, "device")
	if sz < 0 {
		panic(layerError("GenerateSquareSubsequentMask", "sz must be non-negative, got %d", sz))
	}
	full := torch.Full([]int64{sz, sz}, torch.S(math.Inf(-1)), a.factory()...)
	m := torch.Triu(full, torch.WithDiagonal(1))
	full.Free()
	return m
}
