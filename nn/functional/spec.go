package functional

import "github.com/gotorch/gotorch/torch"

// The functions that are one torch op with options are each defined once
// as a spec (lossSpec for the losses, opSpec for the others): PyTorch's
// name, its options' defaults and keywords. One path parses the options,
// as PyTorch names them, and passes each to the torch op as the torch
// option of the same keyword (torchOption).

// opSpec is a function of one tensor that is one torch op with options.
type opSpec struct {
	op       string   // PyTorch's name, which errors name
	defaults args     // the options' defaults
	keywords []string // the options, as PyTorch orders them
}

// apply parses opts and computes f, the torch op, of input.
func (s opSpec) apply(f func(torch.Tensor, ...torch.Option) (torch.Tensor, error), input torch.Tensor, opts []Option) (torch.Tensor, error) {
	a := s.defaults
	if err := a.parse(s.op, opts, s.keywords...); err != nil {
		return torch.Tensor{}, err
	}
	o := make([]torch.Option, 0, len(s.keywords))
	for _, k := range s.keywords {
		o = append(o, a.torchOption(k))
	}
	return f(input, o...)
}

// torchOption is the torch option of the keyword: its value in a.
func (a *args) torchOption(keyword string) torch.Option {
	switch keyword {
	case "weight":
		return torch.WithWeight(a.weight)
	case "pos_weight":
		return torch.WithPosWeight(a.posWeight)
	case "ignore_index":
		return torch.WithIgnoreIndex(a.ignoreIndex)
	case "label_smoothing":
		return torch.WithLabelSmoothing(a.labelSmoothing)
	case "beta":
		return torch.WithBeta(a.beta)
	case "delta":
		return torch.WithDelta(a.delta)
	case "margin":
		return torch.WithMargin(a.margin)
	case "p":
		return torch.WithP(a.p)
	case "eps":
		return torch.WithEps(a.eps)
	case "swap":
		return torch.WithSwap(a.swap)
	case "blank":
		return torch.WithBlank(a.blank)
	case "zero_infinity":
		return torch.WithZeroInfinity(a.zeroInfinity)
	case "alpha":
		return torch.WithAlpha(a.alpha)
	case "negative_slope":
		return torch.WithNegativeSlope(a.negativeSlope)
	case "min_val":
		return torch.WithMinVal(a.minVal)
	case "max_val":
		return torch.WithMaxVal(a.maxVal)
	case "lower":
		return torch.WithLower(a.lower)
	case "upper":
		return torch.WithUpperNum(a.upper) // rrelu's upper; torch.WithUpper is a bool
	case "training":
		return torch.WithTraining(a.training)
	}
	panic("nn/functional: the keyword " + keyword + " has no torch option")
}
