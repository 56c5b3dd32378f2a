package nn

import (
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// WithDistanceFunction is TripletMarginWithDistanceLoss's
// distance_function: a Go function of two batches of embeddings that
// returns their distances, one per row (F.PairwiseDistance when not
// given). The loss frees its results.
func WithDistanceFunction(f func(x1, x2 torch.Tensor) torch.Tensor) Option {
	return Option{name: "distance_function", v: f}
}

// TripletMarginWithDistanceLossModule is max(d(a, p) - d(a, n) + Margin,
// 0) of anchors, positives and negatives for a distance function d
// (torch.nn.TripletMarginWithDistanceLoss).
type TripletMarginWithDistanceLossModule struct {
	Module
	// DistanceFunction is the distance given by WithDistanceFunction; when
	// it is nil, Distance is, as in PyTorch, a PairwiseDistance child.
	DistanceFunction func(x1, x2 torch.Tensor) torch.Tensor `gotorch:"-"`
	Distance         *PairwiseDistanceModule                `gotorch:"name=distance_function"`
	Margin           float64
	Swap             bool   // use d(p, n) where it is smaller than d(a, n)
	Reduction        string // "mean", "sum" or "none"
}

// TripletMarginWithDistanceLoss returns a
// TripletMarginWithDistanceLossModule. It panics when margin is not
// positive, as PyTorch's __init__ raises.
//
// Options: WithDistanceFunction (F.PairwiseDistance), WithMargin (1.0),
// WithSwap (false), WithReduction ("mean").
func TripletMarginWithDistanceLoss(opts ...Option) *TripletMarginWithDistanceLossModule {
	const layer = "TripletMarginWithDistanceLoss"
	a := lossArgs(layer, opts, "distance_function", "margin", "swap")
	m := &TripletMarginWithDistanceLossModule{Margin: a.float("margin", 1.0), Swap: a.bool("swap", false),
		Reduction: a.str("reduction", "mean")}
	if o, ok := a.opts["distance_function"]; ok {
		f, ok := o.v.(func(x1, x2 torch.Tensor) torch.Tensor)
		if !ok || f == nil {
			layerPanic(layer, "distance_function must be a non-nil func(x1, x2 torch.Tensor) torch.Tensor")
		}
		m.DistanceFunction = f
	} else {
		m.Distance = PairwiseDistance()
	}
	if !(m.Margin > 0) {
		layerPanic(layer, "expected margin to be greater than 0, got %v instead", m.Margin)
	}
	m.Init(m)
	return m
}

// Forward returns the loss of the triplets.
func (m *TripletMarginWithDistanceLossModule) Forward(anchor, positive, negative torch.Tensor) torch.Tensor {
	return must(m.TryForward(anchor, positive, negative))
}

// TryForward is Forward that returns its error.
func (m *TripletMarginWithDistanceLossModule) TryForward(anchor, positive, negative torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	opts := []F.Option{F.WithMargin(m.Margin), F.WithSwap(m.Swap), F.WithReduction(m.Reduction)}
	switch {
	case m.DistanceFunction != nil:
		opts = append(opts, F.WithDistanceFunction(m.DistanceFunction))
	case m.Distance != nil:
		opts = append(opts, F.WithDistanceFunction(m.Distance.Forward))
	}
	return F.TryTripletMarginWithDistanceLoss(anchor, positive, negative, opts...)
}
