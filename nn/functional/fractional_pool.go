package functional

import (
	"fmt"
	"slices"

	"github.com/gotorch/gotorch/torch"
)

// The fractional max pools, F.fractional_max_pool2d/3d: max pooling with
// pseudo-random, overlapping windows whose output size is given, or is a
// ratio of the input's. The windows come from _random_samples, a tensor
// (N, C, n) of values in [0, 1), drawn by torch.rand from torch's default
// generator unless WithRandomSamples gives it.

// WithOutputRatio is the fractional pools' output_ratio: the output size
// as a fraction of the input's, one value for all dimensions or one each.
func WithOutputRatio(v ...float64) Option { return Option{name: "output_ratio", floats: v} }

// WithRandomSamples is the fractional pools' _random_samples: the (N, C,
// n) tensor of values in [0, 1) that places the pooling windows.
func WithRandomSamples(t torch.Tensor) Option { return Option{name: "_random_samples", t: t} }

// FractionalMaxPool2d is F.fractional_max_pool2d over input (N, C, H, W)
// or (C, H, W).
//
// Options: WithOutputSize or WithOutputRatio (one of them is required),
// WithRandomSamples (drawn by torch.rand).
func FractionalMaxPool2d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) torch.Tensor {
	out, idx := must2(TryFractionalMaxPool2dWithIndices(input, kernelSize, opts...))
	idx.Free()
	return out
}

// TryFractionalMaxPool2d is FractionalMaxPool2d that returns its error.
func TryFractionalMaxPool2d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, error) {
	out, idx, err := TryFractionalMaxPool2dWithIndices(input, kernelSize, opts...)
	idx.Free()
	return out, err
}

// FractionalMaxPool2dWithIndices is F.fractional_max_pool2d_with_indices:
// FractionalMaxPool2d and the flat indices of the maxima (PyTorch's
// return_indices=True).
func FractionalMaxPool2dWithIndices[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, torch.Tensor) {
	return must2(TryFractionalMaxPool2dWithIndices(input, kernelSize, opts...))
}

// TryFractionalMaxPool2dWithIndices is FractionalMaxPool2dWithIndices that
// returns its error.
func TryFractionalMaxPool2dWithIndices[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, torch.Tensor, error) {
	return fractionalMaxPool("fractional_max_pool2d", 2, input, Ints(kernelSize), opts, torch.TryFractionalMaxPool2d)
}

// FractionalMaxPool3d is F.fractional_max_pool3d over input (N, C, D, H,
// W) or (C, D, H, W).
//
// Options: WithOutputSize or WithOutputRatio (one of them is required),
// WithRandomSamples (drawn by torch.rand).
func FractionalMaxPool3d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) torch.Tensor {
	out, idx := must2(TryFractionalMaxPool3dWithIndices(input, kernelSize, opts...))
	idx.Free()
	return out
}

// TryFractionalMaxPool3d is FractionalMaxPool3d that returns its error.
func TryFractionalMaxPool3d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, error) {
	out, idx, err := TryFractionalMaxPool3dWithIndices(input, kernelSize, opts...)
	idx.Free()
	return out, err
}

// FractionalMaxPool3dWithIndices is F.fractional_max_pool3d_with_indices:
// FractionalMaxPool3d and the flat indices of the maxima.
func FractionalMaxPool3dWithIndices[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, torch.Tensor) {
	return must2(TryFractionalMaxPool3dWithIndices(input, kernelSize, opts...))
}

// TryFractionalMaxPool3dWithIndices is FractionalMaxPool3dWithIndices that
// returns its error.
func TryFractionalMaxPool3dWithIndices[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, torch.Tensor, error) {
	return fractionalMaxPool("fractional_max_pool3d", 3, input, Ints(kernelSize), opts, torch.TryFractionalMaxPool3d)
}

type fractionalFunc func(self torch.Tensor, kernelSize, outputSize []int64, randomSamples torch.Tensor) (torch.Tensor, torch.Tensor, error)

// fractionalMaxPool is PyTorch's fractional_max_pool{n}d_with_indices: it
// works out output_size from output_ratio and draws _random_samples.
func fractionalMaxPool(op string, n int, input torch.Tensor, kernelSize []int64, opts []Option, f fractionalFunc) (torch.Tensor, torch.Tensor, error) {
	var a args
	if err := a.parse(op, opts, "output_size", "output_ratio", "_random_samples"); err != nil {
		return torch.Tensor{}, torch.Tensor{}, err
	}
	s, err := shape(input)
	if err != nil {
		return torch.Tensor{}, torch.Tensor{}, err
	}
	if len(s) != n+1 && len(s) != n+2 {
		return torch.Tensor{}, torch.Tensor{}, errorf(op, "expected a %dD or %dD input, got %dD %v", n+1, n+2, len(s), s)
	}
	outputSize := expand(a.outputSize, n)
	switch {
	case a.set["output_size"] && a.set["output_ratio"]:
		return torch.Tensor{}, torch.Tensor{}, errorf(op, "give output_size or output_ratio, not both")
	case a.set["output_ratio"]:
		r := a.outputRatio
		if len(r) == 1 {
			r = slices.Repeat(r, n)
		}
		if len(r) != n {
			return torch.Tensor{}, torch.Tensor{}, errorf(op, "output_ratio must have 1 or %d values, got %d", n, len(r))
		}
		outputSize = make([]int64, n)
		for i, v := range r {
			if !(v > 0 && v < 1) {
				return torch.Tensor{}, torch.Tensor{}, errorf(op, "output_ratio must be between 0 and 1 (got %s)", fmt.Sprint(r))
			}
			outputSize[i] = int64(float64(s[len(s)-n+i]) * v)
		}
	case !a.set["output_size"]:
		return torch.Tensor{}, torch.Tensor{}, errorf(op, "%s requires specifying either an output_size or an output_ratio", op)
	}
	samples := a.randomSamples
	if !a.set["_random_samples"] {
		batch := int64(1)
		if len(s) == n+2 {
			batch = s[0]
		}
		c := s[len(s)-n-1]
		samples, err = torch.TryRand([]int64{batch, c, int64(n)}, torch.WithDtype(input.DType()), torch.WithDevice(input.Device()))
		if err != nil {
			return torch.Tensor{}, torch.Tensor{}, err
		}
		defer samples.Free()
	}
	return f(input, expand(kernelSize, n), outputSize, samples)
}
