package functional_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// affine_grid's and grid_sample's checks say what PyTorch's say.
func TestGridErrors(t *testing.T) {
	theta := torch.Zeros([]int64{2, 2, 3})
	x, grid := torch.Zeros([]int64{1, 1, 2, 2}), torch.Zeros([]int64{1, 2, 2, 2})
	for _, c := range []struct {
		name, want string
		f          func() (torch.Tensor, error)
	}{
		{"size rank", "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size [2, 3, 4].",
			func() (torch.Tensor, error) { return F.TryAffineGrid(theta, []int64{2, 3, 4}) }},
		{"theta shape", "Expected a batch of 3D affine matrices of shape Nx3x4 for size [2, 1, 2, 3, 4]. Got torch.Size([2, 2, 3]).",
			func() (torch.Tensor, error) { return F.TryAffineGrid(theta, []int64{2, 1, 2, 3, 4}) }},
		{"theta dtype", "Expected theta to have floating point type",
			func() (torch.Tensor, error) { return F.TryAffineGrid(torch.FromSlice([]int64{1}), []int64{1, 1, 2, 2}) }},
		{"empty size", "Expected non-zero, positive output size. Got [2, 1, 0, 4]",
			func() (torch.Tensor, error) { return F.TryAffineGrid(theta, []int64{2, 1, 0, 4}) }},
		{"undefined theta", "undefined tensor", func() (torch.Tensor, error) { return F.TryAffineGrid(torch.Tensor{}, []int64{2, 1, 3, 4}) }},
		{"mode", "expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'linear'",
			func() (torch.Tensor, error) { return F.TryGridSample(x, grid, F.WithMode("linear")) }},
		{"padding_mode", "expected padding_mode to be 'zeros', 'border', or 'reflection', but got: 'circular'",
			func() (torch.Tensor, error) { return F.TryGridSample(x, grid, F.WithPaddingMode("circular")) }},
		{"option", "unexpected option padding_mode", func() (torch.Tensor, error) {
			return F.TryAffineGrid(theta, []int64{2, 1, 3, 4}, F.WithPaddingMode("zeros"))
		}},
	} {
		_, err := c.f()
		require.Error(t, err, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
	}
	// A grid of the identity samples input where it is.
	id := F.AffineGrid(torch.FromNested([][][]float32{{{1, 0, 0}, {0, 1, 0}}}), []int64{1, 1, 2, 2}, F.WithAlignCorners(true))
	in := torch.FromNested([][][][]float32{{{{1, 2}, {3, 4}}}})
	assert.Equal(t, in.Float64s(), F.GridSample(in, id, F.WithAlignCorners(true)).Float64s())
}
