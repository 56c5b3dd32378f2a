package functional

import (
	"slices"

	"github.com/gotorch/gotorch/torch"
)

// The spatial transformer's functions: F.affine_grid makes a sampling
// grid from affine matrices, F.grid_sample samples input at a grid's
// points. PyTorch's align_corners=None means false, with a warning there;
// here false is the default.

// AffineGrid is F.affine_grid: the (N, H, W, 2) grid of the points that
// the affine matrices theta (N, 2, 3) map the output of size (N, C, H, W)
// to, or the (N, D, H, W, 3) grid of theta (N, 3, 4) and size (N, C, D, H,
// W).
//
// Options: WithAlignCorners (false).
func AffineGrid(theta torch.Tensor, size []int64, opts ...Option) torch.Tensor {
	return must(TryAffineGrid(theta, size, opts...))
}

// TryAffineGrid is AffineGrid that returns its error.
func TryAffineGrid(theta torch.Tensor, size []int64, opts ...Option) (torch.Tensor, error) {
	const op = "affine_grid"
	var a args
	if err := a.parse(op, opts, "align_corners"); err != nil {
		return torch.Tensor{}, err
	}
	ts, err := shape(theta)
	if err != nil {
		return torch.Tensor{}, err
	}
	if !theta.DType().IsFloatingPoint() {
		return torch.Tensor{}, errorf(op, "Expected theta to have floating point type, but got %s", theta.DType())
	}
	var want []int64 // theta's shape but for N
	switch len(size) {
	case 4:
		want = []int64{2, 3}
	case 5:
		want = []int64{3, 4}
	default:
		return torch.Tensor{}, errorf(op, "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. Got size %s.", pyList(size))
	}
	if len(ts) != 3 || !slices.Equal(ts[1:], want) {
		return torch.Tensor{}, errorf(op, "Expected a batch of %dD affine matrices of shape Nx%dx%d for size %s. Got %s.",
			want[0], want[0], want[1], pyList(size), torchSize(ts))
	}
	spatial := size[len(size)-int(want[0]):]
	if !(a.alignCorners && slices.Min(spatial) == 1) && slices.Min(size) <= 0 {
		return torch.Tensor{}, errorf(op, "Expected non-zero, positive output size. Got %s", pyList(size))
	}
	return torch.TryAffineGridGenerator(theta, size, a.alignCorners)
}

// GridSample is F.grid_sample: input (N, C, H, W) sampled at the points of
// grid (N, H', W', 2), x and y in [-1, 1] (or (N, C, D, H, W) at the
// points of (N, D', H', W', 3)).
//
// Options: WithMode ("bilinear"; also "nearest" and "bicubic"),
// WithPaddingMode ("zeros"; also "border" and "reflection"),
// WithAlignCorners (false).
func GridSample(input, grid torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryGridSample(input, grid, opts...))
}

// TryGridSample is GridSample that returns its error.
func TryGridSample(input, grid torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "grid_sample"
	a := args{mode: "bilinear", paddingMode: "zeros"}
	if err := a.parse(op, opts, "mode", "padding_mode", "align_corners"); err != nil {
		return torch.Tensor{}, err
	}
	mode := slices.Index([]string{"bilinear", "nearest", "bicubic"}, a.mode)
	if mode < 0 {
		return torch.Tensor{}, errorf(op, "expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '%s'", a.mode)
	}
	padding := slices.Index([]string{"zeros", "border", "reflection"}, a.paddingMode)
	if padding < 0 {
		return torch.Tensor{}, errorf(op, "expected padding_mode to be 'zeros', 'border', or 'reflection', but got: '%s'", a.paddingMode)
	}
	return torch.TryGridSampler(input, grid, int64(mode), int64(padding), a.alignCorners)
}
