package functional

import (
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// WithDistanceFunction is triplet_margin_with_distance_loss's
// distance_function: a Go function of two batches of embeddings that
// returns their distances, one per row (PairwiseDistance when not given).
// Its result belongs to the loss, which frees it.
func WithDistanceFunction(f func(x1, x2 torch.Tensor) torch.Tensor) Option {
	return Option{name: "distance_function", dist: f}
}

var tripletDistanceSpec = lossSpec{op: "triplet_margin_with_distance_loss", defaults: args{margin: 1},
	keywords: []string{"distance_function", "margin", "swap"}}

// TripletMarginWithDistanceLoss is F.triplet_margin_with_distance_loss:
// max(d(anchor, positive) - d(anchor, negative) + margin, 0) for a
// distance function d, with swap d(anchor, negative) replaced by the
// smaller of it and d(positive, negative).
//
// Options: WithDistanceFunction (PairwiseDistance), WithMargin (1, > 0),
// WithSwap (false), WithReduction ("mean").
func TripletMarginWithDistanceLoss(anchor, positive, negative torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryTripletMarginWithDistanceLoss(anchor, positive, negative, opts...))
}

// TryTripletMarginWithDistanceLoss is TripletMarginWithDistanceLoss that
// returns its error; a *torch.Error that the distance function panics
// with is returned too.
func TryTripletMarginWithDistanceLoss(anchor, positive, negative torch.Tensor, opts ...Option) (torch.Tensor, error) {
	op := tripletDistanceSpec.op
	a, _, err := tripletDistanceSpec.parse(opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	if !(a.margin > 0) {
		return torch.Tensor{}, errorf(op, "expected margin to be greater than 0, got %s instead", pyFloat(a.margin))
	}
	var dims [3]int
	for i, x := range []torch.Tensor{anchor, positive, negative} {
		s, err := shape(x)
		if err != nil {
			return torch.Tensor{}, err
		}
		dims[i] = len(s)
	}
	if dims[0] != dims[1] || dims[1] != dims[2] {
		return torch.Tensor{}, errorf(op, "The anchor, positive, and negative tensors are expected to have "+
			"the same number of dimensions, but got: anchor %dD, positive %dD, and negative %dD inputs",
			dims[0], dims[1], dims[2])
	}
	d := a.distanceFunction
	if d == nil {
		d = func(x1, x2 torch.Tensor) torch.Tensor { return PairwiseDistance(x1, x2) }
	}
	return temps.Run([]torch.Tensor{anchor, positive, negative}, func(tmp *temps.List) torch.Tensor {
		t := tmp.Add
		pos := t(d(anchor, positive))
		neg := t(d(anchor, negative))
		if a.swap {
			neg = t(torch.Minimum(neg, t(d(positive, negative))))
		}
		l := t(t(t(pos.Sub(neg)).AddScalar(torch.S(a.margin))).ClampMin(torch.S(0)))
		return reduceBy(l, a.reduction)
	})
}
