package functional_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

func TestGumbelSoftmaxErrors(t *testing.T) {
	x := torch.Zeros([]int64{2, 3})
	_, err := F.TryGumbelSoftmax(x, F.WithTau(0))
	assert.ErrorContains(t, err, "tau must be positive, but got 0.0")
	_, err = F.TryGumbelSoftmax(x, F.WithP(0.5))
	assert.ErrorContains(t, err, "unexpected option p")
	_, err = F.TryGumbelSoftmax(x, F.WithDim(2))
	require.Error(t, err)
	var te *torch.Error
	assert.ErrorAs(t, err, &te)
	_, err = F.TryGumbelSoftmax(torch.Tensor{})
	assert.Error(t, err)
	assert.Panics(t, func() { F.GumbelSoftmax(x, F.WithTau(-1)) })

	// hard gives one one-hot row per sample along dim.
	torch.ManualSeed(1)
	y := F.GumbelSoftmax(x, F.WithHard(true))
	assert.Equal(t, []float64{1, 1}, y.SumAlong(1).Float64s())
}
