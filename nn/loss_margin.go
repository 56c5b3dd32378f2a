package nn

import (
	"math"

	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// The margin, embedding and likelihood losses of torch.nn that ATen
// computes in one op (or, for MultiLabelSoftMarginLoss and
// GaussianNLLLoss, that PyTorch composes in Python). Each keeps its
// settings as fields, prints as PyTorch does ("MarginRankingLoss()"), and
// checks its reduction when it runs, as PyTorch does.

// reduction is ATen's enum of a loss's reduction.
func reduction(layer, r string) (int64, error) {
	switch r {
	case "none":
		return 0, nil
	case "mean":
		return 1, nil
	case "sum":
		return 2, nil
	}
	return 0, layerError(layer, "%s is not a valid value for reduction", r)
}

// reduce applies r to the elementwise loss l.
func reduce(l torch.Tensor, r string) torch.Tensor {
	switch r {
	case "mean":
		return l.Mean()
	case "sum":
		return l.Sum()
	}
	return l
}

// MarginRankingLossModule is max(0, -y·(x1 - x2) + Margin) of the ranking
// y (1 or -1) of x1 and x2 (torch.nn.MarginRankingLoss).
type MarginRankingLossModule struct {
	Module
	Margin    float64
	Reduction string // "mean", "sum" or "none"
}

// MarginRankingLoss returns a MarginRankingLossModule.
//
// Options: WithMargin (0), WithReduction ("mean").
func MarginRankingLoss(opts ...Option) *MarginRankingLossModule {
	a := lossArgs("MarginRankingLoss", opts, "margin")
	m := &MarginRankingLossModule{Margin: a.float("margin", 0), Reduction: a.str("reduction", "mean")}
	m.Init(m)
	return m
}

// Forward returns the loss of x1 ranked against x2 by target.
func (m *MarginRankingLossModule) Forward(x1, x2, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(x1, x2, target))
}

// TryForward is Forward that returns its error.
func (m *MarginRankingLossModule) TryForward(x1, x2, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	const layer = "MarginRankingLoss"
	r, err := reduction(layer, m.Reduction)
	if err != nil {
		return torch.Tensor{}, err
	}
	s1, err1 := tensorShape(x1)
	s2, err2 := tensorShape(x2)
	st, err3 := tensorShape(target)
	if err1 == nil && err2 == nil && err3 == nil && (len(s1) != len(s2) || len(s1) != len(st)) {
		return torch.Tensor{}, layerError(layer, "All input tensors should have same dimension but got sizes: input1: %s, input2: %s, target: %s",
			torchSize(s1), torchSize(s2), torchSize(st))
	}
	return torch.TryMarginRankingLoss(x1, x2, target, torch.WithMargin(m.Margin), torch.WithReduction(r))
}

// HingeEmbeddingLossModule is x where y is 1 and max(0, Margin - x) where
// y is -1 (torch.nn.HingeEmbeddingLoss).
type HingeEmbeddingLossModule struct {
	Module
	Margin    float64
	Reduction string // "mean", "sum" or "none"
}

// HingeEmbeddingLoss returns a HingeEmbeddingLossModule.
//
// Options: WithMargin (1), WithReduction ("mean").
func HingeEmbeddingLoss(opts ...Option) *HingeEmbeddingLossModule {
	a := lossArgs("HingeEmbeddingLoss", opts, "margin")
	m := &HingeEmbeddingLossModule{Margin: a.float("margin", 1), Reduction: a.str("reduction", "mean")}
	m.Init(m)
	return m
}

// Forward returns the loss of input (distances) against target (1 or -1).
func (m *HingeEmbeddingLossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *HingeEmbeddingLossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	r, err := reduction("HingeEmbeddingLoss", m.Reduction)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryHingeEmbeddingLoss(input, target, torch.WithMargin(m.Margin), torch.WithReduction(r))
}

// CosineEmbeddingLossModule is 1 - cos(x1, x2) where y is 1 and max(0,
// cos(x1, x2) - Margin) where y is -1 (torch.nn.CosineEmbeddingLoss).
type CosineEmbeddingLossModule struct {
	Module
	Margin    float64
	Reduction string // "mean", "sum" or "none"
}

// CosineEmbeddingLoss returns a CosineEmbeddingLossModule.
//
// Options: WithMargin (0), WithReduction ("mean").
func CosineEmbeddingLoss(opts ...Option) *CosineEmbeddingLossModule {
	a := lossArgs("CosineEmbeddingLoss", opts, "margin")
	m := &CosineEmbeddingLossModule{Margin: a.float("margin", 0), Reduction: a.str("reduction", "mean")}
	m.Init(m)
	return m
}

// Forward returns the loss of the rows of x1 and x2 against target (1 or
// -1 per row).
func (m *CosineEmbeddingLossModule) Forward(x1, x2, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(x1, x2, target))
}

// TryForward is Forward that returns its error.
func (m *CosineEmbeddingLossModule) TryForward(x1, x2, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	r, err := reduction("CosineEmbeddingLoss", m.Reduction)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryCosineEmbeddingLoss(x1, x2, target, torch.WithMargin(m.Margin), torch.WithReduction(r))
}

// SoftMarginLossModule is log(1 + exp(-y·x)), the logistic loss of y (1
// or -1) (torch.nn.SoftMarginLoss).
type SoftMarginLossModule struct {
	Module
	Reduction string // "mean", "sum" or "none"
}

// SoftMarginLoss returns a SoftMarginLossModule.
//
// Options: WithReduction ("mean").
func SoftMarginLoss(opts ...Option) *SoftMarginLossModule {
	a := lossArgs("SoftMarginLoss", opts)
	m := &SoftMarginLossModule{Reduction: a.str("reduction", "mean")}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target.
func (m *SoftMarginLossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *SoftMarginLossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	r, err := reduction("SoftMarginLoss", m.Reduction)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TrySoftMarginLoss(input, target, torch.WithReduction(r))
}

// MultiLabelMarginLossModule is the multi-class hinge loss of input (N, C)
// or (C) against target, the indices of each sample's classes padded with
// -1 (torch.nn.MultiLabelMarginLoss).
type MultiLabelMarginLossModule struct {
	Module
	Reduction string // "mean", "sum" or "none"
}

// MultiLabelMarginLoss returns a MultiLabelMarginLossModule.
//
// Options: WithReduction ("mean").
func MultiLabelMarginLoss(opts ...Option) *MultiLabelMarginLossModule {
	a := lossArgs("MultiLabelMarginLoss", opts)
	m := &MultiLabelMarginLossModule{Reduction: a.str("reduction", "mean")}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target (int64, shaped like
// input).
func (m *MultiLabelMarginLossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *MultiLabelMarginLossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	r, err := reduction("MultiLabelMarginLoss", m.Reduction)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryMultilabelMarginLoss(input, target, torch.WithReduction(r))
}

// MultiLabelSoftMarginLossModule is the binary cross entropy of each
// class of input (N, C) against target (0 or 1), averaged over the
// classes (torch.nn.MultiLabelSoftMarginLoss).
type MultiLabelSoftMarginLossModule struct {
	Module
	Weight    torch.Tensor `gotorch:"buffer"` // a weight per class; undefined for none
	Reduction string       // "mean", "sum" or "none"
}

// MultiLabelSoftMarginLoss returns a MultiLabelSoftMarginLossModule.
//
// Options: WithWeight (None), WithReduction ("mean").
func MultiLabelSoftMarginLoss(opts ...Option) *MultiLabelSoftMarginLossModule {
	a := lossArgs("MultiLabelSoftMarginLoss", opts, "weight")
	m := &MultiLabelSoftMarginLossModule{Weight: a.tensor("weight"), Reduction: a.str("reduction", "mean")}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target.
func (m *MultiLabelSoftMarginLossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *MultiLabelSoftMarginLossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	const layer = "MultiLabelSoftMarginLoss"
	if _, err := reduction(layer, m.Reduction); err != nil {
		return torch.Tensor{}, err
	}
	shape, err := tensorShape(input)
	if err != nil {
		return torch.Tensor{}, err
	}
	if len(shape) == 0 {
		return torch.Tensor{}, layerError(layer, "input must have a class dimension, got a scalar")
	}
	classDim := int64(len(shape) - 1)
	return catch([]torch.Tensor{input, target, m.Weight}, func(tmp *temps.List) torch.Tensor {
		// -(y·log σ(x) + (1 - y)·log σ(-x)), summed over the classes.
		t := tmp.Add
		pos := t(target.Mul(t(torch.LogSigmoid(input))))
		neg := t(t(t(target.Neg()).AddScalar(torch.S(1))).Mul(t(torch.LogSigmoid(t(input.Neg())))))
		l := t(t(pos.Add(neg)).Neg())
		if m.Weight.Defined() {
			l = t(l.Mul(m.Weight))
		}
		l = t(t(l.SumDimIntList([]int64{classDim})).DivScalar(torch.S(shape[classDim])))
		return reduce(l, m.Reduction)
	})
}

// MultiMarginLossModule is the multi-class hinge loss of input (N, C) or
// (C) against the class indices target (torch.nn.MultiMarginLoss).
type MultiMarginLossModule struct {
	Module
	P         int64        // 1 or 2
	Margin    float64      //
	Weight    torch.Tensor `gotorch:"buffer"` // a weight per class; undefined for none
	Reduction string       // "mean", "sum" or "none"
}

// MultiMarginLoss returns a MultiMarginLossModule.
//
// Options: WithP (1; 1 or 2), WithMargin (1), WithWeight (None),
// WithReduction ("mean").
func MultiMarginLoss(opts ...Option) *MultiMarginLossModule {
	const layer = "MultiMarginLoss"
	a := lossArgs(layer, opts, "p", "margin", "weight")
	p := a.float("p", 1)
	if p != 1 && p != 2 {
		layerPanic(layer, "only p == 1 and p == 2 supported")
	}
	if w := a.tensor("weight"); w.Defined() && w.Dim() != 1 {
		layerPanic(layer, "weight must be one-dimensional")
	}
	m := &MultiMarginLossModule{P: int64(p), Margin: a.float("margin", 1), Weight: a.tensor("weight"), Reduction: a.str("reduction", "mean")}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target.
func (m *MultiMarginLossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *MultiMarginLossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	r, err := reduction("MultiMarginLoss", m.Reduction)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryMultiMarginLoss(input, target, torch.WithP(m.P), torch.WithMargin(m.Margin), torch.WithWeight(m.Weight),
		torch.WithReduction(r))
}

// TripletMarginLossModule is max(d(a, p) - d(a, n) + Margin, 0), d the
// P-norm distance, of anchors, positives and negatives
// (torch.nn.TripletMarginLoss).
type TripletMarginLossModule struct {
	Module
	Margin    float64
	P         float64 // the norm degree
	Eps       float64
	Swap      bool   // use d(p, n) where it is smaller than d(a, n)
	Reduction string // "mean", "sum" or "none"
}

// TripletMarginLoss returns a TripletMarginLossModule.
//
// Options: WithMargin (1), WithP (2), WithEps (1e-6), WithSwap (false),
// WithReduction ("mean").
func TripletMarginLoss(opts ...Option) *TripletMarginLossModule {
	a := lossArgs("TripletMarginLoss", opts, "margin", "p", "eps", "swap")
	m := &TripletMarginLossModule{Margin: a.float("margin", 1), P: a.float("p", 2), Eps: a.float("eps", 1e-6),
		Swap: a.bool("swap", false), Reduction: a.str("reduction", "mean")}
	m.Init(m)
	return m
}

// Forward returns the loss of the triplets.
func (m *TripletMarginLossModule) Forward(anchor, positive, negative torch.Tensor) torch.Tensor {
	return must(m.TryForward(anchor, positive, negative))
}

// TryForward is Forward that returns its error.
func (m *TripletMarginLossModule) TryForward(anchor, positive, negative torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	r, err := reduction("TripletMarginLoss", m.Reduction)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryTripletMarginLoss(anchor, positive, negative, torch.WithMargin(m.Margin), torch.WithP(m.P),
		torch.WithEps(m.Eps), torch.WithSwap(m.Swap), torch.WithReduction(r))
}

// PoissonNLLLossModule is the negative log likelihood of target under a
// Poisson distribution of mean input (or exp(input), by default)
// (torch.nn.PoissonNLLLoss).
type PoissonNLLLossModule struct {
	Module
	LogInput  bool // input is the log of the mean
	Full      bool // add Stirling's approximation of log(target!)
	Eps       float64
	Reduction string // "mean", "sum" or "none"
}

// PoissonNLLLoss returns a PoissonNLLLossModule.
//
// Options: WithLogInput (true), WithFull (false), WithEps (1e-8),
// WithReduction ("mean").
func PoissonNLLLoss(opts ...Option) *PoissonNLLLossModule {
	a := lossArgs("PoissonNLLLoss", opts, "log_input", "full", "eps")
	m := &PoissonNLLLossModule{LogInput: a.bool("log_input", true), Full: a.bool("full", false), Eps: a.float("eps", 1e-8),
		Reduction: a.str("reduction", "mean")}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target.
func (m *PoissonNLLLossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *PoissonNLLLossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	r, err := reduction("PoissonNLLLoss", m.Reduction)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryPoissonNllLoss(input, target, m.LogInput, m.Full, m.Eps, r)
}

// GaussianNLLLossModule is the negative log likelihood of target under a
// Gaussian of mean input and variance var (torch.nn.GaussianNLLLoss).
type GaussianNLLLossModule struct {
	Module
	Full      bool    // add the constant log(2π)/2
	Eps       float64 // the least variance used
	Reduction string  // "mean", "sum" or "none"
}

// GaussianNLLLoss returns a GaussianNLLLossModule.
//
// Options: WithFull (false), WithEps (1e-6), WithReduction ("mean").
func GaussianNLLLoss(opts ...Option) *GaussianNLLLossModule {
	a := lossArgs("GaussianNLLLoss", opts, "full", "eps")
	m := &GaussianNLLLossModule{Full: a.bool("full", false), Eps: a.float("eps", 1e-6), Reduction: a.str("reduction", "mean")}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target, with variance
// variance: shaped like input, or like it without its last dimension, or
// with 1 as its last dimension (one variance for each row).
func (m *GaussianNLLLossModule) Forward(input, target, variance torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target, variance))
}

// TryForward is Forward that returns its error.
func (m *GaussianNLLLossModule) TryForward(input, target, variance torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	const layer = "GaussianNLLLoss"
	is, err := tensorShape(input)
	if err != nil {
		return torch.Tensor{}, err
	}
	vs, err := tensorShape(variance)
	if err != nil {
		return torch.Tensor{}, err
	}
	unsqueeze := false
	if !equalShape(vs, is) {
		switch {
		case len(is) > 0 && equalShape(is[:len(is)-1], vs):
			unsqueeze = true
		case len(is) > 0 && len(vs) == len(is) && equalShape(is[:len(is)-1], vs[:len(vs)-1]) && vs[len(vs)-1] == 1:
		default:
			return torch.Tensor{}, layerError(layer, "var is of incorrect size")
		}
	}
	if _, err := reduction(layer, m.Reduction); err != nil {
		return torch.Tensor{}, err
	}
	return catch([]torch.Tensor{input, target, variance}, func(tmp *temps.List) torch.Tensor {
		t := tmp.Add
		v := variance
		if unsqueeze {
			v = t(v.Unsqueeze(-1))
		}
		if t(t(v.LtScalar(torch.S(0))).Any()).Item() != 0 {
			panic(layerError(layer, "var has negative entry/entries"))
		}
		v = t(v.Clone())
		torch.NoGrad(func() { v.ClampMin_(torch.S(m.Eps)) })
		d := t(input.Sub(target))
		l := t(t(t(v.Log()).Add(t(t(d.Mul(d)).Div(v)))).MulScalar(torch.S(0.5)))
		if m.Full {
			l = t(l.AddScalar(torch.S(0.5 * math.Log(2*math.Pi))))
		}
		return reduce(l, m.Reduction)
	})
}

// CTCLossModule is the connectionist temporal classification loss of
// log-probabilities (T, N, C) or (T, C) against unaligned target
// sequences (torch.nn.CTCLoss).
type CTCLossModule struct {
	Module
	Blank        int64  // the blank label
	Reduction    string // "mean" (over the target lengths, then the batch), "sum" or "none"
	ZeroInfinity bool   // zero the infinite losses (and their gradients)
}

// CTCLoss returns a CTCLossModule.
//
// Options: WithBlank (0), WithReduction ("mean"), WithZeroInfinity (false).
func CTCLoss(opts ...Option) *CTCLossModule {
	a := lossArgs("CTCLoss", opts, "blank", "zero_infinity")
	m := &CTCLossModule{Blank: a.int("blank", 0), Reduction: a.str("reduction", "mean"), ZeroInfinity: a.bool("zero_infinity", false)}
	m.Init(m)
	return m
}

// Forward returns the loss of logProbs (T, N, C) against targets, (N, S)
// padded or the N sequences concatenated, with the lengths inputLengths
// and targetLengths (N) (int64 tensors).
func (m *CTCLossModule) Forward(logProbs, targets, inputLengths, targetLengths torch.Tensor) torch.Tensor {
	return must(m.TryForward(logProbs, targets, inputLengths, targetLengths))
}

// TryForward is Forward that returns its error.
func (m *CTCLossModule) TryForward(logProbs, targets, inputLengths, targetLengths torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	r, err := reduction("CTCLoss", m.Reduction)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryCtcLoss(logProbs, targets, inputLengths, targetLengths, torch.WithBlank(m.Blank), torch.WithReduction(r),
		torch.WithZeroInfinity(m.ZeroInfinity))
}
