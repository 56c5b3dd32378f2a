package nn

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/internal/optname"
	"github.com/gotorch/gotorch/torch"
)

// Option is an optional (keyword) argument of a layer constructor, named
// With plus PyTorch's keyword in CamelCase, as the options of package torch
// and nn/functional are:
//
//	nn.Linear(784, 10, nn.WithBias(false))                  // nn.Linear(784, 10, bias=False)
//	nn.Conv2d(1, 32, 3, nn.WithStride(2), nn.WithPadding(1)) // nn.Conv2d(1, 32, 3, stride=2, padding=1)
//	nn.BatchNorm2d(32, nn.WithMomentum(0.01))                // nn.BatchNorm2d(32, momentum=0.01)
//	nn.Dropout(nn.WithP(0.1))                                // nn.Dropout(p=0.1)
//
// The layers' arguments follow one rule: what PyTorch requires is a
// parameter, in PyTorch's order (nn.Linear(in, out), nn.Softmax(dim));
// what has a default in PyTorch is an Option, and leaving it out gives
// PyTorch's default. Each constructor's documentation lists the options it
// takes; any other option makes it panic with a *torch.Error, as PyTorch
// raises on a bad argument. A size that PyTorch takes as an int or a tuple
// is an int or a []int64 where it is a parameter (nn.MaxPool2d(2),
// nn.Conv2d(1, 8, []int64{3, 5})) and a variadic list in an option
// (nn.WithStride(2), nn.WithStride(2, 1)); a single number stands for every
// dimension.
//
// Layers whose parameters PyTorch creates with device= and dtype= take
// WithDevice and WithDtype; the parameters are then initialized there, as
// PyTorch does.
type Option struct {
	name   string
	ints   []int64
	f      float64
	fs     []float64
	b      bool
	s      string
	t      torch.Tensor
	dtype  torch.DType
	device torch.Device
	v      any // a function or module (WithActivationFn, WithNorm)
}

// IntOrTuple is a size given as one number for every dimension or as one
// number per dimension, as PyTorch's int-or-tuple arguments are.
type IntOrTuple = F.IntOrTuple

// WithBias is bias: false leaves the layer without a bias (default true).
func WithBias(on bool) Option { return Option{name: "bias", b: on} }

// WithStride is the stride of convolutions and pooling.
func WithStride(v ...int64) Option { return Option{name: "stride", ints: v} }

// WithPadding is the implicit padding of convolutions and pooling.
func WithPadding(v ...int64) Option { return Option{name: "padding", ints: v} }

// WithPaddingString is a convolution's padding given as "same" or "valid".
func WithPaddingString(s string) Option { return Option{name: "padding", s: s, b: true} }

// WithDilation is the dilation of convolutions and max pooling.
func WithDilation(v ...int64) Option { return Option{name: "dilation", ints: v} }

// WithOutputPadding is a transposed convolution's output_padding.
func WithOutputPadding(v ...int64) Option { return Option{name: "output_padding", ints: v} }

// WithGroups is a convolution's number of blocked connections.
func WithGroups(n int64) Option { return Option{name: "groups", ints: []int64{n}} }

// WithPaddingMode is a convolution's padding_mode: "zeros" (the default),
// "reflect", "replicate" or "circular".
func WithPaddingMode(s string) Option { return Option{name: "padding_mode", s: s} }

// WithEps is the epsilon that normalization layers add to the variance,
// and the one of the distances and of PoissonNLLLoss and GaussianNLLLoss.
func WithEps(eps float64) Option { return Option{name: "eps", f: eps} }

// WithMomentum is the weight of the newest batch in BatchNorm's running
// statistics (default 0.1).
func WithMomentum(m float64) Option { return Option{name: "momentum", f: m} }

// WithMomentumNone is PyTorch's momentum=None: BatchNorm's running
// statistics are the cumulative average of all batches.
func WithMomentumNone() Option { return Option{name: "momentum", b: true} }

// WithAffine is affine: false leaves BatchNorm or GroupNorm without weight
// and bias (default true).
func WithAffine(on bool) Option { return Option{name: "affine", b: on} }

// WithTrackRunningStats is BatchNorm's track_running_stats (default true).
func WithTrackRunningStats(on bool) Option { return Option{name: "track_running_stats", b: on} }

// WithElementwiseAffine is LayerNorm's elementwise_affine (default true).
func WithElementwiseAffine(on bool) Option { return Option{name: "elementwise_affine", b: on} }

// WithPaddingIdx is Embedding's padding_idx: the row that is initialized to
// zeros and gets no gradient (default None); negative counts from the end.
func WithPaddingIdx(i int64) Option { return Option{name: "padding_idx", ints: []int64{i}} }

// WithMaxNorm is Embedding's max_norm (default None).
func WithMaxNorm(v float64) Option { return Option{name: "max_norm", f: v} }

// WithNormType is Embedding's norm_type (default 2).
func WithNormType(v float64) Option { return Option{name: "norm_type", f: v} }

// WithScaleGradByFreq is Embedding's scale_grad_by_freq (default false).
func WithScaleGradByFreq(on bool) Option { return Option{name: "scale_grad_by_freq", b: on} }

// WithSparse is Embedding's sparse (default false).
func WithSparse(on bool) Option { return Option{name: "sparse", b: on} }

// WithCeilMode is the pools' ceil_mode (default false).
func WithCeilMode(on bool) Option { return Option{name: "ceil_mode", b: on} }

// WithCountIncludePad is AvgPool's count_include_pad (default true).
func WithCountIncludePad(on bool) Option { return Option{name: "count_include_pad", b: on} }

// WithDivisorOverride is AvgPool's divisor_override (default None).
func WithDivisorOverride(n int64) Option { return Option{name: "divisor_override", ints: []int64{n}} }

// WithP is the probability of the dropout layers (default 0.5), and the
// norm degree of PairwiseDistance (2), TripletMarginLoss (2) and
// MultiMarginLoss (1).
func WithP(p float64) Option { return Option{name: "p", f: p} }

// WithNegativeSlope is LeakyReLU's negative_slope (default 0.01).
func WithNegativeSlope(v float64) Option { return Option{name: "negative_slope", f: v} }

// WithAlpha is the alpha of ELU and CELU (default 1.0) and of
// LocalResponseNorm (1e-4).
func WithAlpha(v float64) Option { return Option{name: "alpha", f: v} }

// WithLower is RReLU's lower bound of the negative slope (default 1/8).
func WithLower(v float64) Option { return Option{name: "lower", f: v} }

// WithUpper is RReLU's upper bound of the negative slope (default 1/3).
func WithUpper(v float64) Option { return Option{name: "upper", f: v} }

// WithLambd is the lambd of Hardshrink and Softshrink (default 0.5).
func WithLambd(v float64) Option { return Option{name: "lambd", f: v} }

// WithApproximate is GELU's approximate: "none" (the default) or "tanh".
func WithApproximate(s string) Option { return Option{name: "approximate", s: s} }

// WithMinVal is Hardtanh's min_val (default -1).
func WithMinVal(v float64) Option { return Option{name: "min_val", f: v} }

// WithMaxVal is Hardtanh's max_val (default 1).
func WithMaxVal(v float64) Option { return Option{name: "max_val", f: v} }

// WithBeta is Softplus's beta (default 1), SmoothL1Loss's (1.0) and
// LocalResponseNorm's (0.75).
func WithBeta(v float64) Option { return Option{name: "beta", f: v} }

// WithThreshold is Softplus's threshold (default 20).
func WithThreshold(v float64) Option { return Option{name: "threshold", f: v} }

// WithDim is GLU's dim (default -1) and CosineSimilarity's (1).
func WithDim(d int64) Option { return Option{name: "dim", ints: []int64{d}} }

// WithStartDim is Flatten's start_dim (default 1).
func WithStartDim(d int64) Option { return Option{name: "start_dim", ints: []int64{d}} }

// WithEndDim is Flatten's end_dim (default -1).
func WithEndDim(d int64) Option { return Option{name: "end_dim", ints: []int64{d}} }

// WithNumParameters is PReLU's num_parameters (default 1).
func WithNumParameters(n int64) Option { return Option{name: "num_parameters", ints: []int64{n}} }

// WithInit is PReLU's init, the initial slope (default 0.25).
func WithInit(v float64) Option { return Option{name: "init", f: v} }

// WithWeight is a loss's weight (default None). Losses keep it as a
// buffer, as PyTorch does.
func WithWeight(t torch.Tensor) Option { return Option{name: "weight", t: t} }

// WithPosWeight is BCEWithLogitsLoss's pos_weight (default None).
func WithPosWeight(t torch.Tensor) Option { return Option{name: "pos_weight", t: t} }

// WithReduction is a loss's reduction: "mean" (the default), "sum" or
// "none" (and "batchmean" for KLDivLoss).
func WithReduction(s string) Option { return Option{name: "reduction", s: s} }

// WithIgnoreIndex is the ignore_index of CrossEntropyLoss and NLLLoss
// (default -100).
func WithIgnoreIndex(i int64) Option { return Option{name: "ignore_index", ints: []int64{i}} }

// WithLabelSmoothing is CrossEntropyLoss's label_smoothing (default 0).
func WithLabelSmoothing(v float64) Option { return Option{name: "label_smoothing", f: v} }

// WithDelta is HuberLoss's delta (default 1.0).
func WithDelta(v float64) Option { return Option{name: "delta", f: v} }

// WithLogTarget is KLDivLoss's log_target (default false).
func WithLogTarget(on bool) Option { return Option{name: "log_target", b: on} }

// WithSize is Upsample's output size (default None): one number for every
// spatial dimension, or one each.
func WithSize(v ...int64) Option { return Option{name: "size", ints: v} }

// WithScaleFactor is Upsample's scale_factor (default None): one factor
// for every spatial dimension, or one each.
func WithScaleFactor(v ...float64) Option { return Option{name: "scale_factor", fs: v} }

// WithMode is Upsample's mode ("nearest"; or "linear", "bilinear",
// "bicubic", "trilinear") and EmbeddingBag's ("mean"; or "sum", "max").
func WithMode(s string) Option { return Option{name: "mode", s: s} }

// WithAlignCorners is Upsample's align_corners (default None: false, and
// only the interpolating modes take it).
func WithAlignCorners(on bool) Option { return Option{name: "align_corners", b: on} }

// WithRecomputeScaleFactor is Upsample's recompute_scale_factor (default
// None).
func WithRecomputeScaleFactor(on bool) Option { return Option{name: "recompute_scale_factor", b: on} }

// WithK is LocalResponseNorm's additive constant k (default 1).
func WithK(v float64) Option { return Option{name: "k", f: v} }

// WithKeepdim is PairwiseDistance's keepdim (default false).
func WithKeepdim(on bool) Option { return Option{name: "keepdim", b: on} }

// WithIncludeLastOffset is EmbeddingBag's include_last_offset (default
// false).
func WithIncludeLastOffset(on bool) Option { return Option{name: "include_last_offset", b: on} }

// WithMargin is the margin of the margin losses (default 1, or 0 for
// MarginRankingLoss and CosineEmbeddingLoss).
func WithMargin(v float64) Option { return Option{name: "margin", f: v} }

// WithSwap is TripletMarginLoss's swap (default false).
func WithSwap(on bool) Option { return Option{name: "swap", b: on} }

// WithBlank is CTCLoss's blank label (default 0).
func WithBlank(i int64) Option { return Option{name: "blank", ints: []int64{i}} }

// WithZeroInfinity is CTCLoss's zero_infinity (default false).
func WithZeroInfinity(on bool) Option { return Option{name: "zero_infinity", b: on} }

// WithLogInput is PoissonNLLLoss's log_input (default true).
func WithLogInput(on bool) Option { return Option{name: "log_input", b: on} }

// WithFull is the full of PoissonNLLLoss and GaussianNLLLoss (default
// false).
func WithFull(on bool) Option { return Option{name: "full", b: on} }

// WithDtype is the dtype of a layer's parameters and floating-point
// buffers (default torch's default, Float32).
func WithDtype(d torch.DType) Option { return Option{name: "dtype", dtype: d} }

// WithDevice is the device of a layer's parameters and buffers (default
// the CPU).
func WithDevice(d torch.Device) Option { return Option{name: "device", device: d} }

// Sequence models (transformer, recurrent).

// WithNumLayers is num_layers: the recurrent layers stacked in RNN, LSTM
// and GRU (default 1).
func WithNumLayers(n int64) Option { return Option{name: "num_layers", ints: []int64{n}} }

// WithNonlinearity is RNN's nonlinearity: "tanh" (the default) or "relu".
func WithNonlinearity(s string) Option { return Option{name: "nonlinearity", s: s} }

// WithBatchFirst is batch_first: batched input and output are (batch,
// seq, feature) instead of (seq, batch, feature) (default false).
func WithBatchFirst(on bool) Option { return Option{name: "batch_first", b: on} }

// WithDropout is the dropout keyword of the recurrent layers, attention
// and transformers (defaults: 0 for RNN, LSTM, GRU and MultiheadAttention,
// 0.1 for the transformers).
func WithDropout(p float64) Option { return Option{name: "dropout", f: p} }

// WithBidirectional is bidirectional: RNN, LSTM and GRU run a second,
// reversed direction per layer (default false).
func WithBidirectional(on bool) Option { return Option{name: "bidirectional", b: on} }

// WithProjSize is LSTM's proj_size: the size h is projected to (default
// 0, no projection).
func WithProjSize(n int64) Option { return Option{name: "proj_size", ints: []int64{n}} }

// WithAddBiasKV is MultiheadAttention's add_bias_kv (default false).
func WithAddBiasKV(on bool) Option { return Option{name: "add_bias_kv", b: on} }

// WithAddZeroAttn is MultiheadAttention's add_zero_attn (default false).
func WithAddZeroAttn(on bool) Option { return Option{name: "add_zero_attn", b: on} }

// WithKdim is MultiheadAttention's kdim, the features of the keys
// (default embed_dim).
func WithKdim(n int64) Option { return Option{name: "kdim", ints: []int64{n}} }

// WithVdim is MultiheadAttention's vdim, the features of the values
// (default embed_dim).
func WithVdim(n int64) Option { return Option{name: "vdim", ints: []int64{n}} }

// WithDModel is Transformer's d_model (default 512).
func WithDModel(n int64) Option { return Option{name: "d_model", ints: []int64{n}} }

// WithNhead is Transformer's nhead (default 8).
func WithNhead(n int64) Option { return Option{name: "nhead", ints: []int64{n}} }

// WithNumEncoderLayers is Transformer's num_encoder_layers (default 6).
func WithNumEncoderLayers(n int64) Option {
	return Option{name: "num_encoder_layers", ints: []int64{n}}
}

// WithNumDecoderLayers is Transformer's num_decoder_layers (default 6).
func WithNumDecoderLayers(n int64) Option {
	return Option{name: "num_decoder_layers", ints: []int64{n}}
}

// WithDimFeedforward is the transformers' dim_feedforward (default 2048).
func WithDimFeedforward(n int64) Option { return Option{name: "dim_feedforward", ints: []int64{n}} }

// WithActivation is the transformers' activation, "relu" (the default) or
// "gelu".
func WithActivation(s string) Option { return Option{name: "activation", s: s} }

// WithActivationFn is the transformers' activation given as a function
// (PyTorch's callable activation).
func WithActivationFn(f func(torch.Tensor) torch.Tensor) Option {
	return Option{name: "activation", v: f}
}

// WithLayerNormEps is the transformers' layer_norm_eps (default 1e-5).
func WithLayerNormEps(eps float64) Option { return Option{name: "layer_norm_eps", f: eps} }

// WithNormFirst is the transformers' norm_first: LayerNorm before the
// attention and feed-forward blocks (default false).
func WithNormFirst(on bool) Option { return Option{name: "norm_first", b: on} }

// WithCustomEncoder is Transformer's custom_encoder: the module used as
// its encoder instead of a TransformerEncoder (default None).
func WithCustomEncoder(m EncoderModule) Option { return Option{name: "custom_encoder", v: m} }

// WithCustomDecoder is Transformer's custom_decoder: the module used as
// its decoder instead of a TransformerDecoder (default None).
func WithCustomDecoder(m DecoderModule) Option { return Option{name: "custom_decoder", v: m} }

// WithNorm is TransformerEncoder's and TransformerDecoder's norm, applied
// to the output of the last layer (default None).
func WithNorm(n *LayerNormModule) Option { return Option{name: "norm", v: n} }

// WithEnableNestedTensor is TransformerEncoder's enable_nested_tensor
// (default true). GoTorch has no nested tensors; it is kept for the repr.
func WithEnableNestedTensor(on bool) Option { return Option{name: "enable_nested_tensor", b: on} }

// WithMaskCheck is TransformerEncoder's mask_check (default true), which
// PyTorch uses only on its nested-tensor path; it is kept for the record.
func WithMaskCheck(on bool) Option { return Option{name: "mask_check", b: on} }

// WithKeyPaddingMask is MultiheadAttention.Forward's key_padding_mask,
// (batch, S) or (S) unbatched: true (bool) marks a key to ignore; a float
// mask is added to the scores.
func WithKeyPaddingMask(t torch.Tensor) Option { return Option{name: "key_padding_mask", t: t} }

// WithAttnMask is MultiheadAttention.Forward's attn_mask, (L, S) or
// (batch*num_heads, L, S): true (bool or uint8) stops attention; a float
// mask is added to the scores.
func WithAttnMask(t torch.Tensor) Option { return Option{name: "attn_mask", t: t} }

// WithNeedWeights is MultiheadAttention.Forward's need_weights (default
// true); false returns an undefined tensor for the weights.
func WithNeedWeights(on bool) Option { return Option{name: "need_weights", b: on} }

// WithAverageAttnWeights is MultiheadAttention.Forward's
// average_attn_weights (default true); false returns every head's weights.
func WithAverageAttnWeights(on bool) Option { return Option{name: "average_attn_weights", b: on} }

// WithMask is TransformerEncoder.Forward's mask, the attention mask of
// every layer.
func WithMask(t torch.Tensor) Option { return Option{name: "mask", t: t} }

// WithSrcMask is the src_mask of TransformerEncoderLayer and Transformer.
func WithSrcMask(t torch.Tensor) Option { return Option{name: "src_mask", t: t} }

// WithTgtMask is the transformer decoders' tgt_mask, often
// GenerateSquareSubsequentMask(tgt_len).
func WithTgtMask(t torch.Tensor) Option { return Option{name: "tgt_mask", t: t} }

// WithMemoryMask is the transformer decoders' memory_mask.
func WithMemoryMask(t torch.Tensor) Option { return Option{name: "memory_mask", t: t} }

// WithSrcKeyPaddingMask is the transformer encoders' src_key_padding_mask.
func WithSrcKeyPaddingMask(t torch.Tensor) Option {
	return Option{name: "src_key_padding_mask", t: t}
}

// WithTgtKeyPaddingMask is the transformer decoders' tgt_key_padding_mask.
func WithTgtKeyPaddingMask(t torch.Tensor) Option {
	return Option{name: "tgt_key_padding_mask", t: t}
}

// WithMemoryKeyPaddingMask is the transformer decoders'
// memory_key_padding_mask.
func WithMemoryKeyPaddingMask(t torch.Tensor) Option {
	return Option{name: "memory_key_padding_mask", t: t}
}

// WithEnforceSorted is PackPaddedSequence's enforce_sorted (default
// true): the lengths must be in decreasing order.
func WithEnforceSorted(on bool) Option { return Option{name: "enforce_sorted", b: on} }

// WithPaddingValue is PadPackedSequence's padding_value (default 0).
func WithPaddingValue(v float64) Option { return Option{name: "padding_value", f: v} }

// WithTotalLength is PadPackedSequence's total_length: pad to this length
// (default the longest sequence).
func WithTotalLength(n int64) Option { return Option{name: "total_length", ints: []int64{n}} }

// layerArgs holds the options of a constructor, a Forward or a function
// (PackPaddedSequence) by keyword. It is the one place where nn reads
// options: parse (or parseArgs, which returns the error instead of
// panicking) checks the keywords against the ones the caller takes, has
// says whether one was given, and float, int, bool, str, ints, floats,
// tensor and value read its value, or the default (PyTorch's) where it was
// not given. A new keyword needs only its With function.
type layerArgs struct {
	layer string
	opts  map[string]Option // the options given, by keyword; the last of a keyword wins
}

// parse applies opts, allowing only the keywords in allowed, and panics
// with a *torch.Error on any other.
func (a *layerArgs) parse(layer string, opts []Option, allowed ...string) {
	var err error
	if *a, err = parseArgs(layer, opts, allowed...); err != nil {
		panic(err)
	}
}

// parseArgs is parse that returns the *torch.Error of an option not in
// allowed, for the functions that return errors.
func parseArgs(layer string, opts []Option, allowed ...string) (layerArgs, error) {
	a := layerArgs{layer: layer}
	for _, o := range opts {
		if name, ok := optname.Check(o.name, allowed); !ok {
			return a, layerError(layer, "unexpected option %s (this layer takes %s)", name, strings.Join(allowed, ", "))
		}
		if a.opts == nil {
			a.opts = map[string]Option{}
		}
		a.opts[o.name] = o
	}
	return a, nil
}

// mustParseArgs is parse as an expression: a := mustParseArgs(...).
func mustParseArgs(layer string, opts []Option, allowed ...string) layerArgs {
	var a layerArgs
	a.parse(layer, opts, allowed...)
	return a
}

func (a *layerArgs) has(name string) bool {
	_, ok := a.opts[name]
	return ok
}

// float, int, bool, str, ints, floats and tensor are the value of the
// option named name, or def where it was not given. Layers read their
// newer options with them, so that a keyword needs no field here.
func (a *layerArgs) float(name string, def float64) float64 {
	if o, ok := a.opts[name]; ok {
		return o.f
	}
	return def
}

func (a *layerArgs) int(name string, def int64) int64 {
	if o, ok := a.opts[name]; ok {
		return o.ints[0]
	}
	return def
}

func (a *layerArgs) bool(name string, def bool) bool {
	if o, ok := a.opts[name]; ok {
		return o.b
	}
	return def
}

func (a *layerArgs) str(name, def string) string {
	if o, ok := a.opts[name]; ok {
		return o.s
	}
	return def
}

// ints returns a copy, which the layer may keep.
func (a *layerArgs) ints(name string, def []int64) []int64 {
	if o, ok := a.opts[name]; ok {
		def = o.ints
	}
	if def == nil {
		return nil
	}
	return append([]int64(nil), def...)
}

func (a *layerArgs) floats(name string, def []float64) []float64 {
	if o, ok := a.opts[name]; ok {
		return o.fs
	}
	return def
}

func (a *layerArgs) tensor(name string) torch.Tensor { return a.opts[name].t }

// value is an option given as a function or module (WithActivationFn,
// WithNorm), or nil.
func (a *layerArgs) value(name string) any { return a.opts[name].v }

// pick returns the options among names that were given, in the order of
// names, for a module to pass on to its parts.
func (a *layerArgs) pick(names ...string) []Option {
	var out []Option
	for _, n := range names {
		if o, ok := a.opts[n]; ok {
			out = append(out, o)
		}
	}
	return out
}

// paddingString is the padding given as a string (WithPaddingString), or
// "" where it was given as sizes or not at all.
func (a *layerArgs) paddingString() string {
	if o, ok := a.opts["padding"]; ok && o.b {
		return o.s
	}
	return ""
}

// zero and one are the defaults of sizes: padding, and stride or dilation.
var (
	zero = []int64{0}
	one  = []int64{1}
)

// factory returns the dtype and device options for a new parameter.
func (a *layerArgs) factory() []torch.Option {
	var o []torch.Option
	if a.has("dtype") {
		o = append(o, torch.WithDtype(a.opts["dtype"].dtype))
	}
	if a.has("device") {
		o = append(o, torch.WithDevice(a.opts["device"].device))
	}
	return o
}

// param makes an uninitialized parameter of the given shape.
func (a *layerArgs) param(shape ...int64) torch.Tensor {
	return torch.Empty(shape, a.factory()...).SetRequiresGrad(true)
}

// layerPanic panics with the *torch.Error of a bad constructor argument.
func layerPanic(layer, format string, v ...any) {
	panic(layerError(layer, format, v...))
}

func layerError(layer, format string, v ...any) error {
	return &torch.Error{Op: "nn." + layer, Msg: fmt.Sprintf(format, v...)}
}

// must returns t or panics with err.
func must(t torch.Tensor, err error) torch.Tensor {
	if err != nil {
		panic(err)
	}
	return t
}

// dims expands one size to n dimensions (PyTorch's _pair, _triple).
func dims(v []int64, n int) []int64 {
	if len(v) == 1 && n > 1 {
		out := make([]int64, n)
		for i := range out {
			out[i] = v[0]
		}
		return out
	}
	return append([]int64(nil), v...)
}

// Python-style formatting for ExtraRepr.

// pyFloat formats v as Python's repr of a float: 0.1, 1.0, 1e-05.
func pyFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(v, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if v != 0 && (exp < -4 || exp >= 16) {
		return e
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// pyTuple formats sizes as a Python tuple: (3, 3), (4,).
func pyTuple(v []int64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatInt(x, 10)
	}
	if len(v) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// pyIntOrTuple formats a size as it was given: one number as an int,
// several as a tuple.
func pyIntOrTuple(v []int64) string {
	if len(v) == 1 {
		return strconv.FormatInt(v[0], 10)
	}
	return pyTuple(v)
}
