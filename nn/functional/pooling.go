package functional

import (
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

type poolFunc = func(torch.Tensor, []int64, ...torch.Option) (torch.Tensor, error)
type poolIdxFunc = func(torch.Tensor, []int64, ...torch.Option) (torch.Tensor, torch.Tensor, error)

func maxPoolOptions(op string, n int, opts []Option) ([]torch.Option, error) {
	a := args{padding: []int64{0}, dilation: []int64{1}}
	if err := a.parse(op, opts, "stride", "padding", "dilation", "ceil_mode"); err != nil {
		return nil, err
	}
	if a.paddingString != "" {
		return nil, errorf(op, "padding must be a number or a tuple, got the string '%s'", a.paddingString)
	}
	o := []torch.Option{torch.WithPadding(expand(a.padding, n)...),
		torch.WithDilation(expand(a.dilation, n)...), torch.WithCeilMode(a.ceilMode)}
	if a.has("stride") {
		o = append(o, torch.WithStride(expand(a.stride, n)...))
	}
	return o, nil
}

func maxPool(op string, n int, input torch.Tensor, kernelSize []int64, opts []Option, f poolFunc) (torch.Tensor, error) {
	o, err := maxPoolOptions(op, n, opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	return f(input, expand(kernelSize, n), o...)
}

func maxPoolIdx(op string, n int, input torch.Tensor, kernelSize []int64, opts []Option, f poolIdxFunc) (torch.Tensor, torch.Tensor, error) {
	o, err := maxPoolOptions(op, n, opts)
	if err != nil {
		return torch.Tensor{}, torch.Tensor{}, err
	}
	return f(input, expand(kernelSize, n), o...)
}

// MaxPool1d is F.max_pool1d over input (N, C, L) or (C, L).
//
// Options: WithStride (default kernelSize), WithPadding (0),
// WithDilation (1), WithCeilMode (false).
func MaxPool1d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) torch.Tensor {
	return must(TryMaxPool1d(input, kernelSize, opts...))
}

// TryMaxPool1d is MaxPool1d that returns its error.
func TryMaxPool1d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, error) {
	return maxPool("max_pool1d", 1, input, Ints(kernelSize), opts, torch.TryMaxPool1d)
}

// MaxPool2d is F.max_pool2d over input (N, C, H, W) or (C, H, W).
//
// Options: WithStride (default kernelSize), WithPadding (0),
// WithDilation (1), WithCeilMode (false).
func MaxPool2d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) torch.Tensor {
	return must(TryMaxPool2d(input, kernelSize, opts...))
}

// TryMaxPool2d is MaxPool2d that returns its error.
func TryMaxPool2d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, error) {
	return maxPool("max_pool2d", 2, input, Ints(kernelSize), opts, torch.TryMaxPool2d)
}

// MaxPool3d is F.max_pool3d over input (N, C, D, H, W) or (C, D, H, W).
//
// Options: WithStride (default kernelSize), WithPadding (0),
// WithDilation (1), WithCeilMode (false).
func MaxPool3d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) torch.Tensor {
	return must(TryMaxPool3d(input, kernelSize, opts...))
}

// TryMaxPool3d is MaxPool3d that returns its error.
func TryMaxPool3d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, error) {
	return maxPool("max_pool3d", 3, input, Ints(kernelSize), opts, torch.TryMaxPool3d)
}

// MaxPool1dWithIndices is F.max_pool1d_with_indices: MaxPool1d and the
// flat indices of the maxima (PyTorch's return_indices=True).
func MaxPool1dWithIndices[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, torch.Tensor) {
	return must2(TryMaxPool1dWithIndices(input, kernelSize, opts...))
}

// TryMaxPool1dWithIndices is MaxPool1dWithIndices that returns its error.
func TryMaxPool1dWithIndices[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, torch.Tensor, error) {
	return maxPoolIdx("max_pool1d_with_indices", 1, input, Ints(kernelSize), opts, torch.TryMaxPool1dWithIndices)
}

// MaxPool2dWithIndices is F.max_pool2d_with_indices: MaxPool2d and the
// flat indices of the maxima (PyTorch's return_indices=True).
func MaxPool2dWithIndices[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, torch.Tensor) {
	return must2(TryMaxPool2dWithIndices(input, kernelSize, opts...))
}

// TryMaxPool2dWithIndices is MaxPool2dWithIndices that returns its error.
func TryMaxPool2dWithIndices[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, torch.Tensor, error) {
	return maxPoolIdx("max_pool2d_with_indices", 2, input, Ints(kernelSize), opts, torch.TryMaxPool2dWithIndices)
}

// MaxPool3dWithIndices is F.max_pool3d_with_indices: MaxPool3d and the
// flat indices of the maxima (PyTorch's return_indices=True).
func MaxPool3dWithIndices[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, torch.Tensor) {
	return must2(TryMaxPool3dWithIndices(input, kernelSize, opts...))
}

// TryMaxPool3dWithIndices is MaxPool3dWithIndices that returns its error.
func TryMaxPool3dWithIndices[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, torch.Tensor, error) {
	return maxPoolIdx("max_pool3d_with_indices", 3, input, Ints(kernelSize), opts, torch.TryMaxPool3dWithIndices)
}

func avgPool(op string, n int, input torch.Tensor, kernelSize []int64, opts []Option, f poolFunc) (torch.Tensor, error) {
	a := args{padding: []int64{0}, countIncludePad: true}
	keywords := []string{"stride", "padding", "ceil_mode", "count_include_pad"}
	if n > 1 {
		keywords = append(keywords, "divisor_override")
	}
	if err := a.parse(op, opts, keywords...); err != nil {
		return torch.Tensor{}, err
	}
	if a.paddingString != "" {
		return torch.Tensor{}, errorf(op, "padding must be a number or a tuple, got the string '%s'", a.paddingString)
	}
	o := []torch.Option{torch.WithPadding(expand(a.padding, n)...),
		torch.WithCeilMode(a.ceilMode), torch.WithCountIncludePad(a.countIncludePad)}
	if a.has("stride") {
		o = append(o, torch.WithStride(expand(a.stride, n)...))
	}
	if a.has("divisor_override") {
		o = append(o, torch.WithDivisorOverride(a.divisorOverride))
	}
	return f(input, expand(kernelSize, n), o...)
}

// AvgPool1d is F.avg_pool1d over input (N, C, L) or (C, L).
//
// Options: WithStride (default kernelSize), WithPadding (0),
// WithCeilMode (false), WithCountIncludePad (true).
func AvgPool1d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) torch.Tensor {
	return must(TryAvgPool1d(input, kernelSize, opts...))
}

// TryAvgPool1d is AvgPool1d that returns its error.
func TryAvgPool1d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, error) {
	return avgPool("avg_pool1d", 1, input, Ints(kernelSize), opts, torch.TryAvgPool1d)
}

// AvgPool2d is F.avg_pool2d over input (N, C, H, W) or (C, H, W).
//
// Options: WithStride (default kernelSize), WithPadding (0),
// WithCeilMode (false), WithCountIncludePad (true), WithDivisorOverride
// (None).
func AvgPool2d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) torch.Tensor {
	return must(TryAvgPool2d(input, kernelSize, opts...))
}

// TryAvgPool2d is AvgPool2d that returns its error.
func TryAvgPool2d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, error) {
	return avgPool("avg_pool2d", 2, input, Ints(kernelSize), opts, torch.TryAvgPool2d)
}

// AvgPool3d is F.avg_pool3d over input (N, C, D, H, W) or (C, D, H, W).
//
// Options: WithStride (default kernelSize), WithPadding (0),
// WithCeilMode (false), WithCountIncludePad (true), WithDivisorOverride
// (None).
func AvgPool3d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) torch.Tensor {
	return must(TryAvgPool3d(input, kernelSize, opts...))
}

// TryAvgPool3d is AvgPool3d that returns its error.
func TryAvgPool3d[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, error) {
	return avgPool("avg_pool3d", 3, input, Ints(kernelSize), opts, torch.TryAvgPool3d)
}

// AdaptiveAvgPool1d is F.adaptive_avg_pool1d.
func AdaptiveAvgPool1d[K IntOrTuple](input torch.Tensor, outputSize K) torch.Tensor {
	return must(TryAdaptiveAvgPool1d(input, outputSize))
}

// TryAdaptiveAvgPool1d is AdaptiveAvgPool1d that returns its error.
func TryAdaptiveAvgPool1d[K IntOrTuple](input torch.Tensor, outputSize K) (torch.Tensor, error) {
	return torch.TryAdaptiveAvgPool1d(input, expand(Ints(outputSize), 1))
}

// AdaptiveAvgPool2d is F.adaptive_avg_pool2d.
func AdaptiveAvgPool2d[K IntOrTuple](input torch.Tensor, outputSize K) torch.Tensor {
	return must(TryAdaptiveAvgPool2d(input, outputSize))
}

// TryAdaptiveAvgPool2d is AdaptiveAvgPool2d that returns its error.
func TryAdaptiveAvgPool2d[K IntOrTuple](input torch.Tensor, outputSize K) (torch.Tensor, error) {
	return torch.TryAdaptiveAvgPool2d(input, expand(Ints(outputSize), 2))
}

// AdaptiveAvgPool3d is F.adaptive_avg_pool3d.
func AdaptiveAvgPool3d[K IntOrTuple](input torch.Tensor, outputSize K) torch.Tensor {
	return must(TryAdaptiveAvgPool3d(input, outputSize))
}

// TryAdaptiveAvgPool3d is AdaptiveAvgPool3d that returns its error.
func TryAdaptiveAvgPool3d[K IntOrTuple](input torch.Tensor, outputSize K) (torch.Tensor, error) {
	return torch.TryAdaptiveAvgPool3d(input, expand(Ints(outputSize), 3))
}

// AdaptiveMaxPool1d is F.adaptive_max_pool1d.
func AdaptiveMaxPool1d[K IntOrTuple](input torch.Tensor, outputSize K) torch.Tensor {
	return must(TryAdaptiveMaxPool1d(input, outputSize))
}

// TryAdaptiveMaxPool1d is AdaptiveMaxPool1d that returns its error.
func TryAdaptiveMaxPool1d[K IntOrTuple](input torch.Tensor, outputSize K) (torch.Tensor, error) {
	out, indices, err := TryAdaptiveMaxPool1dWithIndices(input, outputSize)
	temps.Free(indices, input, out)
	return out, err
}

// AdaptiveMaxPool1dWithIndices is F.adaptive_max_pool1d_with_indices.
func AdaptiveMaxPool1dWithIndices[K IntOrTuple](input torch.Tensor, outputSize K) (torch.Tensor, torch.Tensor) {
	return must2(TryAdaptiveMaxPool1dWithIndices(input, outputSize))
}

// TryAdaptiveMaxPool1dWithIndices is AdaptiveMaxPool1dWithIndices that
// returns its error.
func TryAdaptiveMaxPool1dWithIndices[K IntOrTuple](input torch.Tensor, outputSize K) (torch.Tensor, torch.Tensor, error) {
	return torch.TryAdaptiveMaxPool1d(input, expand(Ints(outputSize), 1))
}

// AdaptiveMaxPool2d is F.adaptive_max_pool2d.
func AdaptiveMaxPool2d[K IntOrTuple](input torch.Tensor, outputSize K) torch.Tensor {
	return must(TryAdaptiveMaxPool2d(input, outputSize))
}

// TryAdaptiveMaxPool2d is AdaptiveMaxPool2d that returns its error.
func TryAdaptiveMaxPool2d[K IntOrTuple](input torch.Tensor, outputSize K) (torch.Tensor, error) {
	out, indices, err := TryAdaptiveMaxPool2dWithIndices(input, outputSize)
	temps.Free(indices, input, out)
	return out, err
}

// AdaptiveMaxPool2dWithIndices is F.adaptive_max_pool2d_with_indices.
func AdaptiveMaxPool2dWithIndices[K IntOrTuple](input torch.Tensor, outputSize K) (torch.Tensor, torch.Tensor) {
	return must2(TryAdaptiveMaxPool2dWithIndices(input, outputSize))
}

// TryAdaptiveMaxPool2dWithIndices is AdaptiveMaxPool2dWithIndices that
// returns its error.
func TryAdaptiveMaxPool2dWithIndices[K IntOrTuple](input torch.Tensor, outputSize K) (torch.Tensor, torch.Tensor, error) {
	return torch.TryAdaptiveMaxPool2d(input, expand(Ints(outputSize), 2))
}

// AdaptiveMaxPool3d is F.adaptive_max_pool3d.
func AdaptiveMaxPool3d[K IntOrTuple](input torch.Tensor, outputSize K) torch.Tensor {
	return must(TryAdaptiveMaxPool3d(input, outputSize))
}

// TryAdaptiveMaxPool3d is AdaptiveMaxPool3d that returns its error.
func TryAdaptiveMaxPool3d[K IntOrTuple](input torch.Tensor, outputSize K) (torch.Tensor, error) {
	out, indices, err := TryAdaptiveMaxPool3dWithIndices(input, outputSize)
	temps.Free(indices, input, out)
	return out, err
}

// AdaptiveMaxPool3dWithIndices is F.adaptive_max_pool3d_with_indices.
func AdaptiveMaxPool3dWithIndices[K IntOrTuple](input torch.Tensor, outputSize K) (torch.Tensor, torch.Tensor) {
	return must2(TryAdaptiveMaxPool3dWithIndices(input, outputSize))
}

// TryAdaptiveMaxPool3dWithIndices is AdaptiveMaxPool3dWithIndices that
// returns its error.
func TryAdaptiveMaxPool3dWithIndices[K IntOrTuple](input torch.Tensor, outputSize K) (torch.Tensor, torch.Tensor, error) {
	return torch.TryAdaptiveMaxPool3d(input, expand(Ints(outputSize), 3))
}
