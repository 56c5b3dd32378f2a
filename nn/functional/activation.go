package functional

import (
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// Relu is F.relu: max(0, x).
func Relu(input torch.Tensor) torch.Tensor { return must(TryRelu(input)) }

// TryRelu is Relu that returns its error.
func TryRelu(input torch.Tensor) (torch.Tensor, error) { return torch.TryRelu(input) }

// Relu6 is F.relu6: min(max(0, x), 6).
func Relu6(input torch.Tensor) torch.Tensor { return must(TryRelu6(input)) }

// TryRelu6 is Relu6 that returns its error.
func TryRelu6(input torch.Tensor) (torch.Tensor, error) { return torch.TryRelu6(input) }

// LeakyRelu is F.leaky_relu: max(0, x) + negative_slope·min(0, x).
//
// Options: WithNegativeSlope (0.01).
func LeakyRelu(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryLeakyRelu(input, opts...))
}

// TryLeakyRelu is LeakyRelu that returns its error.
func TryLeakyRelu(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{negativeSlope: 0.01}
	if err := a.parse("leaky_relu", opts, "negative_slope"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryLeakyRelu(input, torch.WithNegativeSlope(a.negativeSlope))
}

// Elu is F.elu: x for x > 0, alpha·(exp(x)-1) otherwise.
//
// Options: WithAlpha (1.0).
func Elu(input torch.Tensor, opts ...Option) torch.Tensor { return must(TryElu(input, opts...)) }

// TryElu is Elu that returns its error.
func TryElu(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{alpha: 1}
	if err := a.parse("elu", opts, "alpha"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryElu(input, torch.WithAlpha(a.alpha))
}

// Selu is F.selu, the scaled ELU.
func Selu(input torch.Tensor) torch.Tensor { return must(TrySelu(input)) }

// TrySelu is Selu that returns its error.
func TrySelu(input torch.Tensor) (torch.Tensor, error) { return torch.TrySelu(input) }

// Celu is F.celu: max(0, x) + min(0, alpha·(exp(x/alpha)-1)).
//
// Options: WithAlpha (1.0).
func Celu(input torch.Tensor, opts ...Option) torch.Tensor { return must(TryCelu(input, opts...)) }

// TryCelu is Celu that returns its error.
func TryCelu(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{alpha: 1}
	if err := a.parse("celu", opts, "alpha"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryCelu(input, torch.WithAlpha(a.alpha))
}

// Gelu is F.gelu, exact or with the tanh approximation.
//
// Options: WithApproximate ("none"; or "tanh").
func Gelu(input torch.Tensor, opts ...Option) torch.Tensor { return must(TryGelu(input, opts...)) }

// TryGelu is Gelu that returns its error.
func TryGelu(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{approximate: "none"}
	if err := a.parse("gelu", opts, "approximate"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryGelu(input, torch.WithApproximate(a.approximate))
}

// Silu is F.silu: x·sigmoid(x).
func Silu(input torch.Tensor) torch.Tensor { return must(TrySilu(input)) }

// TrySilu is Silu that returns its error.
func TrySilu(input torch.Tensor) (torch.Tensor, error) { return torch.TrySilu(input) }

// Mish is F.mish: x·tanh(softplus(x)).
func Mish(input torch.Tensor) torch.Tensor { return must(TryMish(input)) }

// TryMish is Mish that returns its error.
func TryMish(input torch.Tensor) (torch.Tensor, error) { return torch.TryMish(input) }

// Hardswish is F.hardswish.
func Hardswish(input torch.Tensor) torch.Tensor { return must(TryHardswish(input)) }

// TryHardswish is Hardswish that returns its error.
func TryHardswish(input torch.Tensor) (torch.Tensor, error) { return torch.TryHardswish(input) }

// Hardsigmoid is F.hardsigmoid.
func Hardsigmoid(input torch.Tensor) torch.Tensor { return must(TryHardsigmoid(input)) }

// TryHardsigmoid is Hardsigmoid that returns its error.
func TryHardsigmoid(input torch.Tensor) (torch.Tensor, error) { return torch.TryHardsigmoid(input) }

// Hardtanh is F.hardtanh: x clamped to [min_val, max_val].
//
// Options: WithMinVal (-1), WithMaxVal (1).
func Hardtanh(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryHardtanh(input, opts...))
}

// TryHardtanh is Hardtanh that returns its error.
func TryHardtanh(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{minVal: -1, maxVal: 1}
	if err := a.parse("hardtanh", opts, "min_val", "max_val"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryHardtanh(input, torch.WithMinVal(a.minVal), torch.WithMaxVal(a.maxVal))
}

// Tanh is F.tanh.
func Tanh(input torch.Tensor) torch.Tensor { return must(TryTanh(input)) }

// TryTanh is Tanh that returns its error.
func TryTanh(input torch.Tensor) (torch.Tensor, error) { return torch.TryTanh(input) }

// Sigmoid is F.sigmoid: 1/(1+exp(-x)).
func Sigmoid(input torch.Tensor) torch.Tensor { return must(TrySigmoid(input)) }

// TrySigmoid is Sigmoid that returns its error.
func TrySigmoid(input torch.Tensor) (torch.Tensor, error) { return torch.TrySigmoid(input) }

// Logsigmoid is F.logsigmoid: log(sigmoid(x)).
func Logsigmoid(input torch.Tensor) torch.Tensor { return must(TryLogsigmoid(input)) }

// TryLogsigmoid is Logsigmoid that returns its error.
func TryLogsigmoid(input torch.Tensor) (torch.Tensor, error) { return torch.TryLogSigmoid(input) }

// Softplus is F.softplus: log(1+exp(beta·x))/beta, linear above
// threshold.
//
// Options: WithBeta (1), WithThreshold (20).
func Softplus(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TrySoftplus(input, opts...))
}

// TrySoftplus is Softplus that returns its error.
func TrySoftplus(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{beta: 1, threshold: 20}
	if err := a.parse("softplus", opts, "beta", "threshold"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TrySoftplus(input, torch.WithBeta(a.beta), torch.WithThreshold(a.threshold))
}

// Softsign is F.softsign: x/(1+|x|).
func Softsign(input torch.Tensor) torch.Tensor { return must(TrySoftsign(input)) }

// TrySoftsign is Softsign that returns its error.
func TrySoftsign(input torch.Tensor) (torch.Tensor, error) {
	abs, err := input.TryAbs()
	if err != nil {
		return torch.Tensor{}, err
	}
	d, err := abs.TryAddScalar(torch.S(1))
	temps.Free(abs, input, d)
	if err != nil {
		return torch.Tensor{}, err
	}
	r, err := input.TryDiv(d)
	temps.Free(d, input, r)
	return r, err
}

// Tanhshrink is F.tanhshrink: x - tanh(x).
func Tanhshrink(input torch.Tensor) torch.Tensor { return must(TryTanhshrink(input)) }

// TryTanhshrink is Tanhshrink that returns its error.
func TryTanhshrink(input torch.Tensor) (torch.Tensor, error) {
	t, err := input.TryTanh()
	if err != nil {
		return torch.Tensor{}, err
	}
	r, err := input.TrySub(t)
	temps.Free(t, input, r)
	return r, err
}

// Softshrink is F.softshrink.
//
// Options: WithLambd (0.5).
func Softshrink(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TrySoftshrink(input, opts...))
}

// TrySoftshrink is Softshrink that returns its error.
func TrySoftshrink(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{lambd: 0.5}
	if err := a.parse("softshrink", opts, "lambd"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TrySoftshrink(input, torch.WithLambd(a.lambd))
}

// Hardshrink is F.hardshrink.
//
// Options: WithLambd (0.5).
func Hardshrink(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryHardshrink(input, opts...))
}

// TryHardshrink is Hardshrink that returns its error.
func TryHardshrink(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{lambd: 0.5}
	if err := a.parse("hardshrink", opts, "lambd"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryHardshrink(input, torch.WithLambd(a.lambd))
}

// Threshold is F.threshold: x where x > threshold, value elsewhere.
func Threshold(input torch.Tensor, threshold, value float64) torch.Tensor {
	return must(TryThreshold(input, threshold, value))
}

// TryThreshold is Threshold that returns its error.
func TryThreshold(input torch.Tensor, threshold, value float64) (torch.Tensor, error) {
	return torch.TryThreshold(input, torch.S(threshold), torch.S(value))
}

// Glu is F.glu: a·sigmoid(b), where a and b are the halves of input
// along dim.
//
// Options: WithDim (-1).
func Glu(input torch.Tensor, opts ...Option) torch.Tensor { return must(TryGlu(input, opts...)) }

// TryGlu is Glu that returns its error.
func TryGlu(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "glu"
	a := args{dim: -1}
	if err := a.parse(op, opts, "dim"); err != nil {
		return torch.Tensor{}, err
	}
	s, err := shape(input)
	if err != nil {
		return torch.Tensor{}, err
	}
	if len(s) == 0 {
		return torch.Tensor{}, errorf(op, "glu does not support scalars because halving size must be even")
	}
	return torch.TryGlu(input, torch.WithDim(a.dim))
}

// Prelu is F.prelu: max(0, x) + weight·min(0, x), with weight a scalar or
// one value per channel.
func Prelu(input, weight torch.Tensor) torch.Tensor { return must(TryPrelu(input, weight)) }

// TryPrelu is Prelu that returns its error.
func TryPrelu(input, weight torch.Tensor) (torch.Tensor, error) { return torch.TryPrelu(input, weight) }

func softmaxDtype(op string, opts []Option) ([]torch.Option, error) {
	for _, o := range opts {
		if o.name == "dim" {
			// F.Softmax(x, 1, F.WithDim(0)): say where dim goes.
			goName := map[string]string{"softmax": "Softmax", "log_softmax": "LogSoftmax", "softmin": "Softmin"}[op]
			return nil, errorf(op, "unexpected option dim: dim is %s's second argument, %s(input, dim, ...), not an option", goName, goName)
		}
	}
	var a args
	if err := a.parse(op, opts, "dtype"); err != nil {
		return nil, err
	}
	if a.has("dtype") {
		return []torch.Option{torch.WithDtype(a.dtype)}, nil
	}
	return nil, nil
}

// Softmax is F.softmax along dim.
//
// Options: WithDtype (None; the input is cast to it first).
func Softmax(input torch.Tensor, dim int64, opts ...Option) torch.Tensor {
	return must(TrySoftmax(input, dim, opts...))
}

// TrySoftmax is Softmax that returns its error.
func TrySoftmax(input torch.Tensor, dim int64, opts ...Option) (torch.Tensor, error) {
	o, err := softmaxDtype("softmax", opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TrySoftmax(input, dim, o...)
}

// LogSoftmax is F.log_softmax along dim.
//
// Options: WithDtype (None; the input is cast to it first).
func LogSoftmax(input torch.Tensor, dim int64, opts ...Option) torch.Tensor {
	return must(TryLogSoftmax(input, dim, opts...))
}

// TryLogSoftmax is LogSoftmax that returns its error.
func TryLogSoftmax(input torch.Tensor, dim int64, opts ...Option) (torch.Tensor, error) {
	o, err := softmaxDtype("log_softmax", opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryLogSoftmax(input, dim, o...)
}

// Softmin is F.softmin along dim: softmax(-x).
//
// Options: WithDtype (None; the input is cast to it first).
func Softmin(input torch.Tensor, dim int64, opts ...Option) torch.Tensor {
	return must(TrySoftmin(input, dim, opts...))
}

// TrySoftmin is Softmin that returns its error.
func TrySoftmin(input torch.Tensor, dim int64, opts ...Option) (torch.Tensor, error) {
	o, err := softmaxDtype("softmin", opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	neg, err := input.TryNeg()
	if err != nil {
		return torch.Tensor{}, err
	}
	r, err := torch.TrySoftmax(neg, dim, o...)
	temps.Free(neg, input, r)
	return r, err
}
