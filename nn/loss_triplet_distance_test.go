package nn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

func TestTripletMarginWithDistanceLossErrors(t *testing.T) {
	func() {
		defer func() {
			e, ok := recover().(*torch.Error)
			assert.True(t, ok)
			assert.Equal(t, "expected margin to be greater than 0, got 0 instead", e.Msg)
		}()
		nn.TripletMarginWithDistanceLoss(nn.WithMargin(0))
	}()
	assert.Panics(t, func() { nn.TripletMarginWithDistanceLoss(nn.WithDistanceFunction(nil)) })
	var m *nn.TripletMarginWithDistanceLossModule
	a := torch.Zeros([]int64{2, 3})
	_, err := m.TryForward(a, a, a)
	assert.Error(t, err)
	_, err = nn.TripletMarginWithDistanceLoss().TryForward(a, a, torch.Zeros([]int64{3}))
	assert.ErrorContains(t, err, "anchor 2D, positive 2D, and negative 1D inputs")
	assert.Empty(t, nn.TripletMarginWithDistanceLoss().StateDict())
}
