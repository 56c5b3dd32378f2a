package functional

import "github.com/gotorch/gotorch/torch"

// The in-place activations, F.relu_, F.elu_, …, and F.rrelu: each is a
// torch op with the options of its out-of-place form, defined once as an
// opSpec. An in-place form changes input and returns it, as PyTorch's do;
// like them, it fails on a leaf that requires grad.

var (
	rreluSpec = opSpec{op: "rrelu", defaults: args{lower: 1.0 / 8, upper: 1.0 / 3},
		keywords: []string{"lower", "upper", "training"}}
	rreluInplaceSpec = opSpec{op: "rrelu_", defaults: rreluSpec.defaults, keywords: rreluSpec.keywords}
	eluInplaceSpec   = opSpec{op: "elu_", defaults: args{alpha: 1}, keywords: []string{"alpha"}}
	celuInplaceSpec  = opSpec{op: "celu_", defaults: args{alpha: 1}, keywords: []string{"alpha"}}
	leakyReluInplace = opSpec{op: "leaky_relu_", defaults: args{negativeSlope: 0.01}, keywords: []string{"negative_slope"}}
	hardtanhInplace  = opSpec{op: "hardtanh_", defaults: args{minVal: -1, maxVal: 1}, keywords: []string{"min_val", "max_val"}}
)

// Rrelu is F.rrelu, the randomized leaky ReLU: in training, each negative
// element is scaled by a slope drawn uniformly from [lower, upper]
// (torch.ManualSeed makes the draws PyTorch's); otherwise by their mean.
//
// Options: WithLower (1/8), WithUpper (1/3), WithTraining (false).
func Rrelu(input torch.Tensor, opts ...Option) torch.Tensor { return must(TryRrelu(input, opts...)) }

// TryRrelu is Rrelu that returns its error.
func TryRrelu(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return rreluSpec.apply(torch.TryRrelu, input, opts)
}

// Rrelu_ is F.rrelu_, Rrelu in place.
func Rrelu_(input torch.Tensor, opts ...Option) torch.Tensor { return must(TryRrelu_(input, opts...)) }

// TryRrelu_ is Rrelu_ that returns its error.
func TryRrelu_(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return rreluInplaceSpec.apply(torch.TryRrelu_, input, opts)
}

// Relu_ is F.relu_, Relu in place.
func Relu_(input torch.Tensor) torch.Tensor { return must(TryRelu_(input)) }

// TryRelu_ is Relu_ that returns its error.
func TryRelu_(input torch.Tensor) (torch.Tensor, error) {
	return torch.TryRelu_(input)
}

// Selu_ is F.selu_, Selu in place.
func Selu_(input torch.Tensor) torch.Tensor { return must(TrySelu_(input)) }

// TrySelu_ is Selu_ that returns its error.
func TrySelu_(input torch.Tensor) (torch.Tensor, error) {
	return torch.TrySelu_(input)
}

// Elu_ is F.elu_, Elu in place.
//
// Options: WithAlpha (1.0).
func Elu_(input torch.Tensor, opts ...Option) torch.Tensor { return must(TryElu_(input, opts...)) }

// TryElu_ is Elu_ that returns its error.
func TryElu_(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return eluInplaceSpec.apply(torch.TryElu_, input, opts)
}

// Celu_ is F.celu_, Celu in place.
//
// Options: WithAlpha (1.0).
func Celu_(input torch.Tensor, opts ...Option) torch.Tensor { return must(TryCelu_(input, opts...)) }

// TryCelu_ is Celu_ that returns its error.
func TryCelu_(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return celuInplaceSpec.apply(torch.TryCelu_, input, opts)
}

// LeakyRelu_ is F.leaky_relu_, LeakyRelu in place.
//
// Options: WithNegativeSlope (0.01).
func LeakyRelu_(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryLeakyRelu_(input, opts...))
}

// TryLeakyRelu_ is LeakyRelu_ that returns its error.
func TryLeakyRelu_(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return leakyReluInplace.apply(torch.TryLeakyRelu_, input, opts)
}

// Hardtanh_ is F.hardtanh_, Hardtanh in place.
//
// Options: WithMinVal (-1), WithMaxVal (1).
func Hardtanh_(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryHardtanh_(input, opts...))
}

// TryHardtanh_ is Hardtanh_ that returns its error.
func TryHardtanh_(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return hardtanhInplace.apply(torch.TryHardtanh_, input, opts)
}

// Threshold_ is F.threshold_, Threshold in place: value where input is
// not above threshold.
func Threshold_(input torch.Tensor, threshold, value float64) torch.Tensor {
	return must(TryThreshold_(input, threshold, value))
}

// TryThreshold_ is Threshold_ that returns its error.
func TryThreshold_(input torch.Tensor, threshold, value float64) (torch.Tensor, error) {
	return torch.TryThreshold_(input, torch.S(threshold), torch.S(value))
}
