package functional

import (
	"math"
	"slices"

	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// The margin, embedding and likelihood losses: F.margin_ranking_loss,
// hinge_embedding_loss, cosine_embedding_loss, soft_margin_loss,
// multilabel_margin_loss, multilabel_soft_margin_loss, multi_margin_loss,
// triplet_margin_loss, poisson_nll_loss, gaussian_nll_loss and ctc_loss.
// The modules of package nn (nn.MarginRankingLoss, …) call these.

// reduceBy applies the reduction r ("none", "mean" or "sum").
func reduceBy(l torch.Tensor, r string) torch.Tensor {
	switch r {
	case "mean":
		return l.Mean()
	case "sum":
		return l.Sum()
	}
	return l
}

// sameShape reports whether the shapes a and b are equal.
func sameShape(a, b []int64) bool { return slices.Equal(a, b) }

// MarginRankingLoss is F.margin_ranking_loss, max(0, -y·(x1 - x2) +
// margin) of the ranking target y (1 or -1) of x1 and x2.
//
// Options: WithMargin (0), WithReduction ("mean").
func MarginRankingLoss(x1, x2, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryMarginRankingLoss(x1, x2, target, opts...))
}

// TryMarginRankingLoss is MarginRankingLoss that returns its error.
func TryMarginRankingLoss(x1, x2, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return marginRankingSpec.call(opts, func(o []torch.Option) (torch.Tensor, error) {
		s1, err1 := shape(x1)
		s2, err2 := shape(x2)
		st, err3 := shape(target)
		if err1 == nil && err2 == nil && err3 == nil && (len(s1) != len(s2) || len(s1) != len(st)) {
			return torch.Tensor{}, errorf(marginRankingSpec.op, "All input tensors should have same dimension but got sizes: input1: %s, input2: %s, target: %s",
				torchSize(s1), torchSize(s2), torchSize(st))
		}
		return torch.TryMarginRankingLoss(x1, x2, target, o...)
	})
}

// HingeEmbeddingLoss is F.hinge_embedding_loss: input where target is 1,
// max(0, margin - input) where it is -1.
//
// Options: WithMargin (1), WithReduction ("mean").
func HingeEmbeddingLoss(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryHingeEmbeddingLoss(input, target, opts...))
}

// TryHingeEmbeddingLoss is HingeEmbeddingLoss that returns its error.
func TryHingeEmbeddingLoss(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return hingeEmbeddingSpec.apply(torch.TryHingeEmbeddingLoss, input, target, opts)
}

// CosineEmbeddingLoss is F.cosine_embedding_loss: 1 - cos(x1, x2) where
// target is 1, max(0, cos(x1, x2) - margin) where it is -1.
//
// Options: WithMargin (0), WithReduction ("mean").
func CosineEmbeddingLoss(x1, x2, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryCosineEmbeddingLoss(x1, x2, target, opts...))
}

// TryCosineEmbeddingLoss is CosineEmbeddingLoss that returns its error.
func TryCosineEmbeddingLoss(x1, x2, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return cosineEmbeddingSpec.call(opts, func(o []torch.Option) (torch.Tensor, error) {
		return torch.TryCosineEmbeddingLoss(x1, x2, target, o...)
	})
}

// SoftMarginLoss is F.soft_margin_loss, log(1 + exp(-y·x)), the logistic
// loss of target y (1 or -1).
//
// Options: WithReduction ("mean").
func SoftMarginLoss(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TrySoftMarginLoss(input, target, opts...))
}

// TrySoftMarginLoss is SoftMarginLoss that returns its error.
func TrySoftMarginLoss(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return softMarginSpec.apply(torch.TrySoftMarginLoss, input, target, opts)
}

// MultilabelMarginLoss is F.multilabel_margin_loss, the multi-class hinge
// loss of input (N, C) or (C) against target, the int64 indices of each
// sample's classes padded with -1.
//
// Options: WithReduction ("mean").
func MultilabelMarginLoss(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryMultilabelMarginLoss(input, target, opts...))
}

// TryMultilabelMarginLoss is MultilabelMarginLoss that returns its error.
func TryMultilabelMarginLoss(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return multilabelMarginSpec.apply(torch.TryMultilabelMarginLoss, input, target, opts)
}

// MultilabelSoftMarginLoss is F.multilabel_soft_margin_loss, the binary
// cross entropy of each class of input (N, C) against target (0 or 1),
// averaged over the classes.
//
// Options: WithWeight (None; a weight per class), WithReduction ("mean").
func MultilabelSoftMarginLoss(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryMultilabelSoftMarginLoss(input, target, opts...))
}

// TryMultilabelSoftMarginLoss is MultilabelSoftMarginLoss that returns its
// error.
func TryMultilabelSoftMarginLoss(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a, _, err := multilabelSoftSpec.parse(opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	s, err := shape(input)
	if err != nil {
		return torch.Tensor{}, err
	}
	if len(s) == 0 {
		return torch.Tensor{}, errorf(multilabelSoftSpec.op, "input must have a class dimension, got a scalar")
	}
	classDim := int64(len(s) - 1)
	return temps.Run([]torch.Tensor{input, target, a.weight}, func(tmp *temps.List) torch.Tensor {
		// -(y·log σ(x) + (1 - y)·log σ(-x)), summed over the classes.
		t := tmp.Add
		pos := t(target.Mul(t(torch.LogSigmoid(input))))
		neg := t(t(t(target.Neg()).AddScalar(torch.S(1))).Mul(t(torch.LogSigmoid(t(input.Neg())))))
		l := t(t(pos.Add(neg)).Neg())
		if a.weight.Defined() {
			l = t(l.Mul(a.weight))
		}
		l = t(t(l.SumDimIntList([]int64{classDim})).DivScalar(torch.S(s[classDim])))
		return reduceBy(l, a.reduction)
	})
}

// MultiMarginLoss is F.multi_margin_loss, the multi-class hinge loss of
// input (N, C) or (C) against the class indices target.
//
// Options: WithP (1; 1 or 2), WithMargin (1), WithWeight (None; a weight
// per class), WithReduction ("mean").
func MultiMarginLoss(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryMultiMarginLoss(input, target, opts...))
}

// TryMultiMarginLoss is MultiMarginLoss that returns its error.
func TryMultiMarginLoss(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "multi_margin_loss"
	a, r, err := multiMarginSpec.parse(opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	if a.p != 1 && a.p != 2 {
		return torch.Tensor{}, errorf(op, "only p == 1 and p == 2 supported")
	}
	if a.weight.Defined() && a.weight.Dim() != 1 {
		return torch.Tensor{}, errorf(op, "weight must be one-dimensional")
	}
	// p as an integer, as PyTorch passes it.
	return torch.TryMultiMarginLoss(input, target, torch.WithP(int64(a.p)), torch.WithMargin(a.margin),
		torch.WithWeight(a.weight), torch.WithReduction(r))
}

// TripletMarginLoss is F.triplet_margin_loss, max(d(a, p) - d(a, n) +
// margin, 0) with d the p-norm distance, of anchors, positives and
// negatives.
//
// Options: WithMargin (1), WithP (2), WithEps (1e-6), WithSwap (false),
// WithReduction ("mean").
func TripletMarginLoss(anchor, positive, negative torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryTripletMarginLoss(anchor, positive, negative, opts...))
}

// TryTripletMarginLoss is TripletMarginLoss that returns its error.
func TryTripletMarginLoss(anchor, positive, negative torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return tripletMarginSpec.call(opts, func(o []torch.Option) (torch.Tensor, error) {
		return torch.TryTripletMarginLoss(anchor, positive, negative, o...)
	})
}

// PoissonNllLoss is F.poisson_nll_loss, the negative log likelihood of
// target under a Poisson distribution of mean exp(input) (input itself
// with WithLogInput(false)).
//
// Options: WithLogInput (true), WithFull (false), WithEps (1e-8),
// WithReduction ("mean").
func PoissonNllLoss(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryPoissonNllLoss(input, target, opts...))
}

// TryPoissonNllLoss is PoissonNllLoss that returns its error.
func TryPoissonNllLoss(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a, r, err := poissonNllSpec.parse(opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryPoissonNllLoss(input, target, a.logInput, a.full, a.eps, r)
}

// GaussianNllLoss is F.gaussian_nll_loss, the negative log likelihood of
// target under a Gaussian of mean input and variance variance: shaped
// like input, or like it without its last dimension, or with 1 as its
// last dimension (one variance for each row).
//
// Options: WithFull (false), WithEps (1e-6), WithReduction ("mean").
func GaussianNllLoss(input, target, variance torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryGaussianNllLoss(input, target, variance, opts...))
}

// TryGaussianNllLoss is GaussianNllLoss that returns its error.
func TryGaussianNllLoss(input, target, variance torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "gaussian_nll_loss"
	a, _, err := gaussianNllSpec.parse(opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	is, err := shape(input)
	if err != nil {
		return torch.Tensor{}, err
	}
	vs, err := shape(variance)
	if err != nil {
		return torch.Tensor{}, err
	}
	unsqueeze := false
	if !sameShape(vs, is) {
		switch {
		case len(is) > 0 && sameShape(is[:len(is)-1], vs):
			unsqueeze = true
		case len(is) > 0 && len(vs) == len(is) && sameShape(is[:len(is)-1], vs[:len(vs)-1]) && vs[len(vs)-1] == 1:
		default:
			return torch.Tensor{}, errorf(op, "var is of incorrect size")
		}
	}
	return temps.Run([]torch.Tensor{input, target, variance}, func(tmp *temps.List) torch.Tensor {
		t := tmp.Add
		v := variance
		if unsqueeze {
			v = t(v.Unsqueeze(-1))
		}
		if t(t(v.LtScalar(torch.S(0))).Any()).Item() != 0 {
			panic(errorf(op, "var has negative entry/entries"))
		}
		v = t(v.Clone())
		torch.NoGrad(func() { v.ClampMin_(torch.S(a.eps)) })
		d := t(input.Sub(target))
		l := t(t(t(v.Log()).Add(t(t(d.Mul(d)).Div(v)))).MulScalar(torch.S(0.5)))
		if a.full {
			l = t(l.AddScalar(torch.S(0.5 * math.Log(2*math.Pi))))
		}
		return reduceBy(l, a.reduction)
	})
}

// CtcLoss is F.ctc_loss, the connectionist temporal classification loss
// of log-probabilities (T, N, C) or (T, C) against targets, (N, S) padded
// or the N sequences concatenated, with the int64 lengths inputLengths
// and targetLengths (N).
//
// Options: WithBlank (0), WithReduction ("mean": over the target lengths,
// then the batch), WithZeroInfinity (false).
func CtcLoss(logProbs, targets, inputLengths, targetLengths torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryCtcLoss(logProbs, targets, inputLengths, targetLengths, opts...))
}

// TryCtcLoss is CtcLoss that returns its error.
func TryCtcLoss(logProbs, targets, inputLengths, targetLengths torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return ctcLossSpec.call(opts, func(o []torch.Option) (torch.Tensor, error) {
		return torch.TryCtcLoss(logProbs, targets, inputLengths, targetLengths, o...)
	})
}
