package functional

import (
	"fmt"

	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// The inverses of max pooling, F.max_unpool1d, 2d and 3d: each value of
// input goes to the place that indices, the pool's indices, say; the
// others are zero.

// MaxUnpool1d is F.max_unpool1d of input (N, C, L) or (C, L).
//
// Options: WithStride (the kernel size), WithPadding (0), WithOutputSize
// (the default output size).
func MaxUnpool1d[K IntOrTuple](input, indices torch.Tensor, kernelSize K, opts ...Option) torch.Tensor {
	return must(TryMaxUnpool1d(input, indices, kernelSize, opts...))
}

// TryMaxUnpool1d is MaxUnpool1d that returns its error.
func TryMaxUnpool1d[K IntOrTuple](input, indices torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, error) {
	return maxUnpool("max_unpool1d", 1, input, indices, Ints(kernelSize), opts)
}

// MaxUnpool2d is F.max_unpool2d of input (N, C, H, W) or (C, H, W).
//
// Options: WithStride (the kernel size), WithPadding (0), WithOutputSize
// (the default output size).
func MaxUnpool2d[K IntOrTuple](input, indices torch.Tensor, kernelSize K, opts ...Option) torch.Tensor {
	return must(TryMaxUnpool2d(input, indices, kernelSize, opts...))
}

// TryMaxUnpool2d is MaxUnpool2d that returns its error.
func TryMaxUnpool2d[K IntOrTuple](input, indices torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, error) {
	return maxUnpool("max_unpool2d", 2, input, indices, Ints(kernelSize), opts)
}

// MaxUnpool3d is F.max_unpool3d of input (N, C, D, H, W) or (C, D, H, W).
//
// Options: WithStride (the kernel size), WithPadding (0), WithOutputSize
// (the default output size).
func MaxUnpool3d[K IntOrTuple](input, indices torch.Tensor, kernelSize K, opts ...Option) torch.Tensor {
	return must(TryMaxUnpool3d(input, indices, kernelSize, opts...))
}

// TryMaxUnpool3d is MaxUnpool3d that returns its error.
func TryMaxUnpool3d[K IntOrTuple](input, indices torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, error) {
	return maxUnpool("max_unpool3d", 3, input, indices, Ints(kernelSize), opts)
}

// nInts is v for n dimensions: one number stands for all of them.
func nInts(op, name string, n int, v []int64) ([]int64, error) {
	if len(v) == 1 && n > 1 {
		out := make([]int64, n)
		for i := range out {
			out[i] = v[0]
		}
		return out, nil
	}
	if len(v) != n {
		return nil, errorf(op, "%s must be one number or %d, got %s", name, n, pyList(v))
	}
	return v, nil
}

// maxUnpool is PyTorch's max_unpool over n dimensions, with its
// _unpool_output_size.
func maxUnpool(op string, n int, input, indices torch.Tensor, kernel []int64, opts []Option) (torch.Tensor, error) {
	a := args{padding: []int64{0}}
	if err := a.parse(op, opts, "stride", "padding", "output_size"); err != nil {
		return torch.Tensor{}, err
	}
	if a.stride == nil {
		a.stride = kernel
	}
	var err error
	if kernel, err = nInts(op, "kernel_size", n, kernel); err != nil {
		return torch.Tensor{}, err
	}
	if a.stride, err = nInts(op, "stride", n, a.stride); err != nil {
		return torch.Tensor{}, err
	}
	if a.padding, err = nInts(op, "padding", n, a.padding); err != nil {
		return torch.Tensor{}, err
	}
	in, err := shape(input)
	if err != nil {
		return torch.Tensor{}, err
	}
	if len(in) < n {
		return torch.Tensor{}, errorf(op, "expected an input of at least %d dimensions, got %dD", n, len(in))
	}
	size := make([]int64, n)
	for d := range size {
		size[d] = (in[len(in)-n+d]-1)*a.stride[d] + kernel[d] - 2*a.padding[d]
	}
	if out := a.outputSize; out != nil {
		if len(out) == n+2 {
			out = out[2:]
		}
		if len(out) != n {
			return torch.Tensor{}, errorf(op, "output_size should be a sequence containing %d or %d elements, but it has a length of '%d'", n, n+2, len(out))
		}
		for d := range size {
			if lo, hi := size[d]-a.stride[d], size[d]+a.stride[d]; out[d] <= lo || out[d] >= hi {
				return torch.Tensor{}, errorf(op, "invalid output_size \"%s\" (dim %d must be between %d and %d)", pyList(a.outputSize), d, lo, hi)
			}
		}
		size = out
	}
	switch n {
	case 1:
		return temps.Run([]torch.Tensor{input, indices}, func(tmp *temps.List) torch.Tensor {
			t := tmp.Add
			x, i := t(input.Unsqueeze(-1)), t(indices.Unsqueeze(-1))
			return t(torch.MaxUnpool2d(x, i, []int64{size[0], 1})).SqueezeDim(-1)
		})
	case 2:
		return torch.TryMaxUnpool2d(input, indices, size)
	case 3:
		return torch.TryMaxUnpool3d(input, indices, size, a.stride, a.padding)
	}
	panic(fmt.Sprintf("nn/functional: max_unpool of %d dimensions", n))
}
