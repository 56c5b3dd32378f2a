package functional_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// max_unpool's output_size is checked as PyTorch's _unpool_output_size
// does.
func TestMaxUnpoolErrors(t *testing.T) {
	x, i := F.MaxPool2dWithIndices(torch.Ones([]int64{1, 1, 4, 4}), 2)
	for _, c := range []struct {
		name, want string
		opts       []F.Option
	}{
		{"length", "output_size should be a sequence containing 2 or 4 elements, but it has a length of '3'", []F.Option{F.WithOutputSize(1, 4, 4)}},
		{"range", `invalid output_size "[4, 6]" (dim 1 must be between 2 and 6)`, []F.Option{F.WithOutputSize(4, 6)}},
		{"stride", "stride must be one number or 2, got [1, 2, 3]", []F.Option{F.WithStride(1, 2, 3)}},
		{"option", "unexpected option dilation", []F.Option{F.WithDilation(1)}},
	} {
		_, err := F.TryMaxUnpool2d(x, i, 2, c.opts...)
		require.Error(t, err, c.name)
		assert.Contains(t, err.Error(), c.want, c.name)
	}
	_, err := F.TryMaxUnpool3d(torch.Ones([]int64{2, 2}), torch.Zeros([]int64{2, 2}, torch.WithDtype(torch.Int64)), 2)
	require.Error(t, err, "a 2-D input of max_unpool3d")
	assert.Contains(t, err.Error(), "expected an input of at least 3 dimensions, got 2D")
	// The default output size is the pool's input's, and the maxima go back.
	out := F.MaxUnpool2d(x, i, 2)
	assert.Equal(t, []int64{1, 1, 4, 4}, out.Shape())
	assert.InDelta(t, 4.0, out.Sum().Item(), 0)
}
