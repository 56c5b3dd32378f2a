package functional_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

func TestTripletMarginWithDistanceLossErrors(t *testing.T) {
	a := torch.Zeros([]int64{2, 3})
	_, err := F.TryTripletMarginWithDistanceLoss(a, a, a, F.WithMargin(0))
	assert.ErrorContains(t, err, "expected margin to be greater than 0, got 0.0 instead")
	_, err = F.TryTripletMarginWithDistanceLoss(a, a, torch.Zeros([]int64{3}))
	assert.ErrorContains(t, err, "anchor 2D, positive 2D, and negative 1D inputs")
	_, err = F.TryTripletMarginWithDistanceLoss(a, a, a, F.WithReduction("max"))
	assert.Error(t, err)
	_, err = F.TryTripletMarginWithDistanceLoss(a, a, a, F.WithP(3))
	assert.ErrorContains(t, err, "unexpected option p")
	// A distance function that fails: its *torch.Error is the loss's error.
	bad := func(x, y torch.Tensor) torch.Tensor { return x.Matmul(y) }
	_, err = F.TryTripletMarginWithDistanceLoss(a, a, a, F.WithDistanceFunction(bad))
	var te *torch.Error
	assert.ErrorAs(t, err, &te)
	assert.Panics(t, func() { F.TripletMarginWithDistanceLoss(a, a, a, F.WithMargin(-1)) })
	// Equal embeddings: each loss is the margin.
	l := F.TripletMarginWithDistanceLoss(a, a, a, F.WithMargin(0.25), F.WithReduction("sum"))
	assert.InDelta(t, 0.5, l.Item(), 1e-6)
}
