package nn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

func init() {
	layerCases["cross_map_lrn2d"] = l(func() nn.Moduler { return nn.CrossMapLRN2d(3) })
	layerCases["cross_map_lrn2d_even"] = l(func() nn.Moduler {
		return nn.CrossMapLRN2d(4, nn.WithAlpha(0.01), nn.WithBeta(0.5), nn.WithK(2))
	})
	layerCases["cross_map_lrn2d_wide"] = l(func() nn.Moduler { return nn.CrossMapLRN2d(7, nn.WithAlpha(0.1), nn.WithBeta(1.5)) })
	layerCases["cross_map_lrn2d_two"] = l(func() nn.Moduler { return nn.CrossMapLRN2d(2, nn.WithAlpha(0.2)) })
	layerCases["cross_map_lrn2d_size1"] = layerCase{build: func() nn.Moduler { return nn.CrossMapLRN2d(1, nn.WithAlpha(0.5)) },
		call: func(m nn.Moduler, i layIn) (layOut, error) {
			out, err := m.(*nn.CrossMapLRN2dModule).TryForward(i["y"])
			return layOut{out}, err
		}}
}

func TestCrossMapLRN2dErrors(t *testing.T) {
	var te *torch.Error
	require.ErrorAs(t, catchPanic(func() { nn.CrossMapLRN2d(0) }), &te)
	assert.Equal(t, "size must be positive, got 0", te.Msg)
	assert.Error(t, catchPanic(func() { nn.CrossMapLRN2d(3, nn.WithEps(1)) }), "an option CrossMapLRN2d does not take")

	m := nn.CrossMapLRN2d(3)
	_, err := m.TryForward(torch.Zeros([]int64{2, 3, 4}))
	assert.ErrorContains(t, err, "expected a 4D input (N, C, H, W), got 3D [2 3 4]")
	_, err = m.TryForward(torch.Zeros([]int64{1, 2, 2, 2}, torch.WithDtype(torch.Int64)))
	assert.ErrorContains(t, err, "expected a floating-point input, got torch.int64")
	_, err = m.TryForward(torch.Tensor{})
	assert.ErrorContains(t, err, "undefined tensor")
	var nilM *nn.CrossMapLRN2dModule
	_, err = nilM.TryForward(torch.Zeros([]int64{1, 1, 1, 1}))
	assert.ErrorIs(t, err, nn.ErrUninitialized)

	// Size 1: no gradient, as in PyTorch, but a forward pass without one.
	one := nn.CrossMapLRN2d(1)
	x := torch.Ones([]int64{1, 2, 1, 1}).SetRequiresGrad(true)
	_, err = one.TryForward(x)
	assert.ErrorContains(t, err, "size 1 has no gradient in PyTorch")
	torch.NoGrad(func() {
		out, err := one.TryForward(x)
		require.NoError(t, err)
		assert.Equal(t, []int64{1, 2, 1, 1}, out.Shape())
	})
	assert.Equal(t, "CrossMapLRN2d(5, alpha=0.0001, beta=0.75, k=1.5)", nn.CrossMapLRN2d(5, nn.WithK(1.5)).String())
	assert.Empty(t, m.StateDict())
}
