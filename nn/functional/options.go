package functional

import (
	"fmt"
	"strings"

	"github.com/gotorch/gotorch/nn/internal/optname"
	"github.com/gotorch/gotorch/torch"
)

// Option is an optional (keyword) argument, made by one of the With
// functions: F.WithStride(2) is PyTorch's stride=2.
type Option struct {
	name   string // PyTorch's keyword
	ints   []int64
	floats []float64
	f      float64
	b      bool
	s      string
	t      torch.Tensor
	dtype  torch.DType
	dist   func(x1, x2 torch.Tensor) torch.Tensor
}

// IntOrTuple is a size given as one number for every dimension or as one
// number per dimension, as PyTorch's int-or-tuple arguments are:
// F.MaxPool2d(x, 2) or F.MaxPool2d(x, []int64{2, 3}).
type IntOrTuple interface {
	int | int64 | []int64
}

// Ints returns the sizes of v: a number gives a list of one, which the
// functions expand to every dimension.
func Ints[T IntOrTuple](v T) []int64 {
	switch x := any(v).(type) {
	case int:
		return []int64{int64(x)}
	case int64:
		return []int64{x}
	case []int64:
		return append([]int64(nil), x...)
	}
	panic("unreachable")
}

// Tensor options.

// WithBias is the bias argument (default None).
func WithBias(t torch.Tensor) Option { return Option{name: "bias", t: t} }

// WithWeight is the weight argument (default None).
func WithWeight(t torch.Tensor) Option { return Option{name: "weight", t: t} }

// WithPosWeight is binary_cross_entropy_with_logits's pos_weight.
func WithPosWeight(t torch.Tensor) Option { return Option{name: "pos_weight", t: t} }

// WithAttnMask is scaled_dot_product_attention's attn_mask: a bool mask
// (true takes part in attention) or a float mask added to the scores.
func WithAttnMask(t torch.Tensor) Option { return Option{name: "attn_mask", t: t} }

// WithRunningMean is instance_norm's running_mean.
func WithRunningMean(t torch.Tensor) Option { return Option{name: "running_mean", t: t} }

// WithRunningVar is instance_norm's running_var.
func WithRunningVar(t torch.Tensor) Option { return Option{name: "running_var", t: t} }

// Size options: one number stands for every dimension.

// WithStride is the stride of convolutions and pooling.
func WithStride(v ...int64) Option { return Option{name: "stride", ints: v} }

// WithPadding is the implicit padding of convolutions and pooling.
func WithPadding(v ...int64) Option { return Option{name: "padding", ints: v} }

// WithOutputSize is the output size of max_unpool1d, 2d and 3d: the
// spatial sizes, or with N and C before them (default: the size that the
// pool's input had, for the smallest such).
func WithOutputSize(v ...int64) Option { return Option{name: "output_size", ints: v} }

// WithPaddingString is conv's padding given as "same" or "valid".
func WithPaddingString(s string) Option { return Option{name: "padding", s: s, b: true} }

// WithDilation is the dilation of convolutions and max pooling.
func WithDilation(v ...int64) Option { return Option{name: "dilation", ints: v} }

// WithOutputPadding is the output_padding of transposed convolutions.
func WithOutputPadding(v ...int64) Option { return Option{name: "output_padding", ints: v} }

// WithSize is interpolate's output size.
func WithSize(v ...int64) Option { return Option{name: "size", ints: v} }

// WithScaleFactor is interpolate's scale_factor.
func WithScaleFactor(v ...float64) Option { return Option{name: "scale_factor", floats: v} }

// Integer options.

// WithGroups is the number of blocked connections of convolutions.
func WithGroups(n int64) Option { return Option{name: "groups", ints: []int64{n}} }

// WithDivisorOverride is avg_pool's divisor_override.
func WithDivisorOverride(n int64) Option { return Option{name: "divisor_override", ints: []int64{n}} }

// WithPaddingIdx is embedding's padding_idx; negative counts from the end.
func WithPaddingIdx(i int64) Option { return Option{name: "padding_idx", ints: []int64{i}} }

// WithIgnoreIndex is the ignore_index of cross_entropy and nll_loss.
func WithIgnoreIndex(i int64) Option { return Option{name: "ignore_index", ints: []int64{i}} }

// WithNumClasses is one_hot's num_classes.
func WithNumClasses(n int64) Option { return Option{name: "num_classes", ints: []int64{n}} }

// WithDim is the dimension of normalize, glu and cosine_similarity.
func WithDim(d int64) Option { return Option{name: "dim", ints: []int64{d}} }

// Float options.

// WithP is the probability of the dropouts, or the norm degree of
// normalize and pairwise_distance.
func WithP(p float64) Option { return Option{name: "p", f: p} }

// WithEps is the epsilon added for numerical stability.
func WithEps(eps float64) Option { return Option{name: "eps", f: eps} }

// WithMomentum is batch_norm's and instance_norm's momentum.
func WithMomentum(m float64) Option { return Option{name: "momentum", f: m} }

// WithMaxNorm is embedding's max_norm (default None).
func WithMaxNorm(v float64) Option { return Option{name: "max_norm", f: v} }

// WithNormType is embedding's norm_type.
func WithNormType(v float64) Option { return Option{name: "norm_type", f: v} }

// WithNegativeSlope is leaky_relu's negative_slope.
func WithNegativeSlope(v float64) Option { return Option{name: "negative_slope", f: v} }

// WithAlpha is the alpha of elu and celu.
func WithAlpha(v float64) Option { return Option{name: "alpha", f: v} }

// WithBeta is the beta of smooth_l1_loss and softplus.
func WithBeta(v float64) Option { return Option{name: "beta", f: v} }

// WithDelta is huber_loss's delta.
func WithDelta(v float64) Option { return Option{name: "delta", f: v} }

// WithThreshold is softplus's threshold.
func WithThreshold(v float64) Option { return Option{name: "threshold", f: v} }

// WithLambd is the lambd of softshrink and hardshrink.
func WithLambd(v float64) Option { return Option{name: "lambd", f: v} }

// WithLower is rrelu's lower bound of the negative slope.
func WithLower(v float64) Option { return Option{name: "lower", f: v} }

// WithUpper is rrelu's upper bound of the negative slope.
func WithUpper(v float64) Option { return Option{name: "upper", f: v} }

// WithMinVal is hardtanh's min_val.
func WithMinVal(v float64) Option { return Option{name: "min_val", f: v} }

// WithMaxVal is hardtanh's max_val.
func WithMaxVal(v float64) Option { return Option{name: "max_val", f: v} }

// WithLabelSmoothing is cross_entropy's label_smoothing.
func WithLabelSmoothing(v float64) Option { return Option{name: "label_smoothing", f: v} }

// WithValue is pad's fill value for mode "constant".
func WithValue(v float64) Option { return Option{name: "value", f: v} }

// WithDropoutP is scaled_dot_product_attention's dropout_p.
func WithDropoutP(p float64) Option { return Option{name: "dropout_p", f: p} }

// WithScale is scaled_dot_product_attention's scale (default
// 1/sqrt(query.size(-1))).
func WithScale(v float64) Option { return Option{name: "scale", f: v} }

// Boolean options.

// WithTraining is the training flag of the dropouts and batch_norm.
func WithTraining(on bool) Option { return Option{name: "training", b: on} }

// WithUseInputStats is instance_norm's use_input_stats.
func WithUseInputStats(on bool) Option { return Option{name: "use_input_stats", b: on} }

// WithCeilMode is the pools' ceil_mode.
func WithCeilMode(on bool) Option { return Option{name: "ceil_mode", b: on} }

// WithCountIncludePad is avg_pool's count_include_pad.
func WithCountIncludePad(on bool) Option { return Option{name: "count_include_pad", b: on} }

// WithScaleGradByFreq is embedding's scale_grad_by_freq.
func WithScaleGradByFreq(on bool) Option { return Option{name: "scale_grad_by_freq", b: on} }

// WithSparse is embedding's sparse.
func WithSparse(on bool) Option { return Option{name: "sparse", b: on} }

// WithLogTarget is kl_div's log_target.
func WithLogTarget(on bool) Option { return Option{name: "log_target", b: on} }

// WithAlignCorners is interpolate's align_corners.
func WithAlignCorners(on bool) Option { return Option{name: "align_corners", b: on} }

// WithRecomputeScaleFactor is interpolate's recompute_scale_factor.
func WithRecomputeScaleFactor(on bool) Option {
	return Option{name: "recompute_scale_factor", b: on}
}

// WithAntialias is interpolate's antialias (bilinear and bicubic modes,
// 4-D input).
func WithAntialias(on bool) Option { return Option{name: "antialias", b: on} }

// WithIsCausal is scaled_dot_product_attention's is_causal.
func WithIsCausal(on bool) Option { return Option{name: "is_causal", b: on} }

// WithKeepdim is pairwise_distance's keepdim.
func WithKeepdim(on bool) Option { return Option{name: "keepdim", b: on} }

// WithPerSampleWeights is embedding_bag's per_sample_weights (default
// None).
func WithPerSampleWeights(t torch.Tensor) Option { return Option{name: "per_sample_weights", t: t} }

// WithIncludeLastOffset is embedding_bag's include_last_offset (default
// false).
func WithIncludeLastOffset(on bool) Option { return Option{name: "include_last_offset", b: on} }

// WithK is local_response_norm's additive factor k (default 1).
func WithK(v float64) Option { return Option{name: "k", f: v} }

// WithMargin is the margin of margin_ranking_loss (default 0),
// hinge_embedding_loss (1), cosine_embedding_loss (0), multi_margin_loss
// (1) and triplet_margin_loss (1).
func WithMargin(v float64) Option { return Option{name: "margin", f: v} }

// WithSwap is triplet_margin_loss's swap (default false).
func WithSwap(on bool) Option { return Option{name: "swap", b: on} }

// WithLogInput is poisson_nll_loss's log_input (default true).
func WithLogInput(on bool) Option { return Option{name: "log_input", b: on} }

// WithFull is poisson_nll_loss's and gaussian_nll_loss's full (default
// false).
func WithFull(on bool) Option { return Option{name: "full", b: on} }

// WithBlank is ctc_loss's blank label (default 0).
func WithBlank(n int64) Option { return Option{name: "blank", ints: []int64{n}} }

// WithZeroInfinity is ctc_loss's zero_infinity (default false).
func WithZeroInfinity(on bool) Option { return Option{name: "zero_infinity", b: on} }

// String options.

// WithReduction is a loss's reduction: "none", "mean" or "sum" (and
// "batchmean" for kl_div).
func WithReduction(s string) Option { return Option{name: "reduction", s: s} }

// WithMode is pad's mode ("constant", "reflect", "replicate",
// "circular") or interpolate's ("nearest", "linear", "bilinear",
// "bicubic", "trilinear", "area", "nearest-exact").
func WithMode(s string) Option { return Option{name: "mode", s: s} }

// WithPaddingMode is grid_sample's padding_mode: "zeros" (the default),
// "border" or "reflection".
func WithPaddingMode(s string) Option { return Option{name: "padding_mode", s: s} }

// WithApproximate is gelu's approximate: "none" or "tanh".
func WithApproximate(s string) Option { return Option{name: "approximate", s: s} }

// Other options.

// WithDtype is the dtype that softmax, log_softmax and softmin cast the
// input to first.
func WithDtype(d torch.DType) Option { return Option{name: "dtype", dtype: d} }

// args holds the parsed options of one call. Callers set PyTorch's
// defaults first, then parse.
type args struct {
	op  string
	set map[string]bool

	bias, weight, posWeight, attnMask, runningMean, runningVar, perSampleWeights, randomSamples torch.Tensor

	stride, padding, dilation, outputPadding, size, outputSize []int64
	paddingString                                              string
	scaleFactor, outputRatio                                   []float64

	groups, divisorOverride, paddingIdx, ignoreIndex, numClasses, dim, blank int64

	p, eps, momentum, maxNorm, normType, negativeSlope, alpha, beta, delta,
	threshold, lambd, minVal, maxVal, labelSmoothing, value, dropoutP, scale, margin, k float64
	lower, upper, tau float64

	training, useInputStats, ceilMode, countIncludePad, scaleGradByFreq, sparse,
	logTarget, alignCorners, recomputeScaleFactor, antialias, isCausal, keepdim bool
	swap, logInput, full, zeroInfinity, includeLastOffset, hard bool

	reduction, mode, approximate, paddingMode string
	dtype                                     torch.DType
	distanceFunction                          func(x1, x2 torch.Tensor) torch.Tensor
}

// parse applies opts, allowing only the keywords in allowed.
func (a *args) parse(op string, opts []Option, allowed ...string) error {
	a.op = op
	for _, o := range opts {
		if name, ok := optname.Check(o.name, allowed); !ok {
			return errorf(op, "unexpected option %s (this function takes %s)", name, strings.Join(allowed, ", "))
		}
		if a.set == nil {
			a.set = map[string]bool{}
		}
		if a.set[o.name] {
			return errorf(op, "option %s given twice", o.name)
		}
		a.set[o.name] = true
		a.apply(o)
	}
	return nil
}

func (a *args) apply(o Option) {
	switch o.name {
	case "bias":
		a.bias = o.t
	case "weight":
		a.weight = o.t
	case "pos_weight":
		a.posWeight = o.t
	case "attn_mask":
		a.attnMask = o.t
	case "running_mean":
		a.runningMean = o.t
	case "running_var":
		a.runningVar = o.t
	case "stride":
		a.stride = o.ints
	case "padding":
		if o.b {
			a.paddingString = o.s
			a.padding = nil
		} else {
			a.padding = o.ints
		}
	case "dilation":
		a.dilation = o.ints
	case "output_padding":
		a.outputPadding = o.ints
	case "size":
		a.size = o.ints
	case "scale_factor":
		a.scaleFactor = o.floats
	case "groups":
		a.groups = o.ints[0]
	case "divisor_override":
		a.divisorOverride = o.ints[0]
	case "padding_idx":
		a.paddingIdx = o.ints[0]
	case "ignore_index":
		a.ignoreIndex = o.ints[0]
	case "num_classes":
		a.numClasses = o.ints[0]
	case "dim":
		a.dim = o.ints[0]
	case "p":
		a.p = o.f
	case "eps":
		a.eps = o.f
	case "momentum":
		a.momentum = o.f
	case "max_norm":
		a.maxNorm = o.f
	case "norm_type":
		a.normType = o.f
	case "negative_slope":
		a.negativeSlope = o.f
	case "alpha":
		a.alpha = o.f
	case "beta":
		a.beta = o.f
	case "delta":
		a.delta = o.f
	case "threshold":
		a.threshold = o.f
	case "lambd":
		a.lambd = o.f
	case "padding_mode":
		a.paddingMode = o.s
	case "output_size":
		a.outputSize = o.ints
	case "lower":
		a.lower = o.f
	case "upper":
		a.upper = o.f
	case "min_val":
		a.minVal = o.f
	case "max_val":
		a.maxVal = o.f
	case "label_smoothing":
		a.labelSmoothing = o.f
	case "value":
		a.value = o.f
	case "dropout_p":
		a.dropoutP = o.f
	case "scale":
		a.scale = o.f
	case "training":
		a.training = o.b
	case "use_input_stats":
		a.useInputStats = o.b
	case "ceil_mode":
		a.ceilMode = o.b
	case "count_include_pad":
		a.countIncludePad = o.b
	case "scale_grad_by_freq":
		a.scaleGradByFreq = o.b
	case "sparse":
		a.sparse = o.b
	case "log_target":
		a.logTarget = o.b
	case "align_corners":
		a.alignCorners = o.b
	case "recompute_scale_factor":
		a.recomputeScaleFactor = o.b
	case "antialias":
		a.antialias = o.b
	case "is_causal":
		a.isCausal = o.b
	case "keepdim":
		a.keepdim = o.b
	case "margin":
		a.margin = o.f
	case "k":
		a.k = o.f
	case "per_sample_weights":
		a.perSampleWeights = o.t
	case "include_last_offset":
		a.includeLastOffset = o.b
	case "blank":
		a.blank = o.ints[0]
	case "swap":
		a.swap = o.b
	case "output_ratio":
		a.outputRatio = o.floats
	case "_random_samples":
		a.randomSamples = o.t
	case "distance_function":
		a.distanceFunction = o.dist
	case "tau":
		a.tau = o.f
	case "hard":
		a.hard = o.b
	case "log_input":
		a.logInput = o.b
	case "full":
		a.full = o.b
	case "zero_infinity":
		a.zeroInfinity = o.b
	case "reduction":
		a.reduction = o.s
	case "mode":
		a.mode = o.s
	case "approximate":
		a.approximate = o.s
	case "dtype":
		a.dtype = o.dtype
	}
}

// has reports whether the option was given.
func (a *args) has(name string) bool { return a.set[name] }

// reductionEnum turns a reduction name into ATen's enum.
func (a *args) reductionEnum() (int64, error) {
	switch a.reduction {
	case "none":
		return 0, nil
	case "mean":
		return 1, nil
	case "sum":
		return 2, nil
	}
	return 0, errorf(a.op, "%s is not a valid value for reduction", a.reduction)
}

// errorf makes the *torch.Error of a check done here.
func errorf(op, format string, v ...any) error {
	return &torch.Error{Op: "nn.functional." + op, Msg: fmt.Sprintf(format, v...)}
}

func must(t torch.Tensor, err error) torch.Tensor {
	if err != nil {
		panic(err)
	}
	return t
}

func must2(a, b torch.Tensor, err error) (torch.Tensor, torch.Tensor) {
	if err != nil {
		panic(err)
	}
	return a, b
}

// expand turns a list of one size into n copies of it, as PyTorch does
// with an int given for an int[n] argument; other lists are returned as
// they are, for libtorch to check.
func expand(v []int64, n int) []int64 {
	if len(v) != 1 || n == 1 {
		return v
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = v[0]
	}
	return out
}
