package functional_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

func TestFractionalMaxPoolErrors(t *testing.T) {
	x := torch.Zeros([]int64{1, 2, 6, 6})
	_, err := F.TryFractionalMaxPool2d(x, 2)
	assert.ErrorContains(t, err, "fractional_max_pool2d requires specifying either an output_size or an output_ratio")
	_, err = F.TryFractionalMaxPool2d(x, 2, F.WithOutputSize(3), F.WithOutputRatio(0.5))
	assert.ErrorContains(t, err, "not both")
	_, err = F.TryFractionalMaxPool2d(x, 2, F.WithOutputRatio(1.5))
	assert.ErrorContains(t, err, "output_ratio must be between 0 and 1")
	_, err = F.TryFractionalMaxPool2d(x, 2, F.WithOutputRatio(0.5, 0.5, 0.5))
	assert.ErrorContains(t, err, "output_ratio must have 1 or 2 values, got 3")
	_, _, err = F.TryFractionalMaxPool3dWithIndices(torch.Zeros([]int64{2, 6, 6}), 2, F.WithOutputSize(2))
	assert.ErrorContains(t, err, "expected a 4D or 5D input, got 3D")
	_, err = F.TryFractionalMaxPool2d(torch.Zeros([]int64{6}), 2, F.WithOutputSize(3))
	assert.ErrorContains(t, err, "expected a 3D or 4D input, got 1D")
	_, err = F.TryFractionalMaxPool2d(x, 2, F.WithOutputSize(3), F.WithP(0.5))
	assert.ErrorContains(t, err, "unexpected option p")
	_, err = F.TryFractionalMaxPool2d(x, 4, F.WithOutputSize(5)) // output + kernel - 1 > input
	var te *torch.Error
	assert.ErrorAs(t, err, &te)
	assert.Panics(t, func() { F.FractionalMaxPool2d(x, 2) })
	assert.Panics(t, func() { F.FractionalMaxPool3d(torch.Tensor{}, 2, F.WithOutputSize(2)) })
	y := F.FractionalMaxPool2d(x, 2, F.WithOutputRatio(0.5))
	assert.Equal(t, []int64{1, 2, 3, 3}, y.Shape())
}
