package functional

import (
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// The power-average pools, F.lp_pool1d and F.lp_pool2d: the p-norm of
// each window, computed as PyTorch does from avg_pool of input^p.

// LpPool1d is F.lp_pool1d: the normType-norm of each window of kernelSize
// of input (N, C, L) or (C, L).
//
// Options: WithStride (the kernel size), WithCeilMode (false).
func LpPool1d[K IntOrTuple](input torch.Tensor, normType float64, kernelSize K, opts ...Option) torch.Tensor {
	return must(TryLpPool1d(input, normType, kernelSize, opts...))
}

// TryLpPool1d is LpPool1d that returns its error.
func TryLpPool1d[K IntOrTuple](input torch.Tensor, normType float64, kernelSize K, opts ...Option) (torch.Tensor, error) {
	return lpPool("lp_pool1d", 1, input, normType, Ints(kernelSize), opts)
}

// LpPool2d is F.lp_pool2d: the normType-norm of each window of kernelSize
// (one number for both dimensions, or two) of input (N, C, H, W) or (C,
// H, W).
//
// Options: WithStride (the kernel size), WithCeilMode (false).
func LpPool2d[K IntOrTuple](input torch.Tensor, normType float64, kernelSize K, opts ...Option) torch.Tensor {
	return must(TryLpPool2d(input, normType, kernelSize, opts...))
}

// TryLpPool2d is LpPool2d that returns its error.
func TryLpPool2d[K IntOrTuple](input torch.Tensor, normType float64, kernelSize K, opts ...Option) (torch.Tensor, error) {
	return lpPool("lp_pool2d", 2, input, normType, Ints(kernelSize), opts)
}

// lpPool is (sign(a)·relu(|a|)·|window|)^(1/p), a the avg_pool of
// input^p, over n dimensions.
func lpPool(op string, n int, input torch.Tensor, normType float64, kernel []int64, opts []Option) (torch.Tensor, error) {
	var a args
	if err := a.parse(op, opts, "stride", "ceil_mode"); err != nil {
		return torch.Tensor{}, err
	}
	if len(kernel) == 1 {
		for len(kernel) < n {
			kernel = append(kernel, kernel[0])
		}
	}
	if len(kernel) != n {
		return torch.Tensor{}, errorf(op, "kernel_size must be one number or %d, got %s", n, pyList(kernel))
	}
	window := int64(1)
	for _, k := range kernel {
		window *= k
	}
	pool := []Option{WithCeilMode(a.ceilMode)}
	if a.stride != nil {
		pool = append(pool, WithStride(a.stride...))
	}
	return temps.Run([]torch.Tensor{input}, func(tmp *temps.List) torch.Tensor {
		t := tmp.Add
		p := t(input.PowTensorScalar(torch.S(normType)))
		var out torch.Tensor
		if n == 1 {
			out = t(AvgPool1d(p, kernel, pool...))
		} else {
			out = t(AvgPool2d(p, kernel, pool...))
		}
		out = t(t(out.Sign()).Mul(t(t(out.Abs()).Relu())))
		return t(out.MulScalar(torch.S(window))).PowTensorScalar(torch.S(1 / normType))
	})
}
