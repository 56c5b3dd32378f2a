package functional

import "github.com/gotorch/gotorch/torch"

var convKeywords = []string{"bias", "stride", "padding", "dilation", "groups"}

// conv runs a convolution over n spatial dimensions.
func conv(op string, n int, input, weight torch.Tensor, opts []Option,
	numeric func(torch.Tensor, torch.Tensor, ...torch.Option) (torch.Tensor, error),
	str func(torch.Tensor, torch.Tensor, ...torch.Option) (torch.Tensor, error)) (torch.Tensor, error) {
	a := args{stride: []int64{1}, padding: []int64{0}, dilation: []int64{1}, groups: 1}
	if err := a.parse(op, opts, convKeywords...); err != nil {
		return torch.Tensor{}, err
	}
	common := []torch.Option{torch.WithBias(a.bias), torch.WithStride(expand(a.stride, n)...),
		torch.WithDilation(expand(a.dilation, n)...), torch.WithGroups(a.groups)}
	if a.paddingString != "" {
		if a.paddingString != "same" && a.paddingString != "valid" {
			return torch.Tensor{}, errorf(op, "Invalid padding string '%s', should be one of {'valid', 'same'}", a.paddingString)
		}
		return str(input, weight, append(common, torch.WithPaddingString(a.paddingString))...)
	}
	return numeric(input, weight, append(common, torch.WithPadding(expand(a.padding, n)...))...)
}

// Conv1d is F.conv1d over input (N, C_in, L) or (C_in, L) with weight
// (C_out, C_in/groups, kW).
//
// Options: WithBias (None), WithStride (1), WithPadding (0) or
// WithPaddingString ("same", "valid"), WithDilation (1), WithGroups (1).
func Conv1d(input, weight torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryConv1d(input, weight, opts...))
}

// TryConv1d is Conv1d that returns its error.
func TryConv1d(input, weight torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return conv("conv1d", 1, input, weight, opts, torch.TryConv1d, torch.TryConv1dPadding)
}

// Conv2d is F.conv2d over input (N, C_in, H, W) or (C_in, H, W) with
// weight (C_out, C_in/groups, kH, kW).
//
// Options: WithBias (None), WithStride (1), WithPadding (0) or
// WithPaddingString ("same", "valid"), WithDilation (1), WithGroups (1).
func Conv2d(input, weight torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryConv2d(input, weight, opts...))
}

// TryConv2d is Conv2d that returns its error.
func TryConv2d(input, weight torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return conv("conv2d", 2, input, weight, opts, torch.TryConv2d, torch.TryConv2dPadding)
}

// Conv3d is F.conv3d over input (N, C_in, D, H, W) or (C_in, D, H, W) with
// weight (C_out, C_in/groups, kD, kH, kW).
//
// Options: WithBias (None), WithStride (1), WithPadding (0) or
// WithPaddingString ("same", "valid"), WithDilation (1), WithGroups (1).
func Conv3d(input, weight torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryConv3d(input, weight, opts...))
}

// TryConv3d is Conv3d that returns its error.
func TryConv3d(input, weight torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return conv("conv3d", 3, input, weight, opts, torch.TryConv3d, torch.TryConv3dPadding)
}

// convTranspose runs a transposed convolution over n spatial dimensions.
func convTranspose(op string, n int, input, weight torch.Tensor, opts []Option,
	f func(torch.Tensor, torch.Tensor, ...torch.Option) (torch.Tensor, error)) (torch.Tensor, error) {
	a := args{stride: []int64{1}, padding: []int64{0}, outputPadding: []int64{0}, dilation: []int64{1}, groups: 1}
	if err := a.parse(op, opts, "bias", "stride", "padding", "output_padding", "groups", "dilation"); err != nil {
		return torch.Tensor{}, err
	}
	if a.paddingString != "" {
		return torch.Tensor{}, errorf(op, "padding must be a number or a tuple, got the string '%s'", a.paddingString)
	}
	return f(input, weight, torch.WithBias(a.bias), torch.WithStride(expand(a.stride, n)...),
		torch.WithPadding(expand(a.padding, n)...), torch.WithOutputPadding(expand(a.outputPadding, n)...),
		torch.WithGroups(a.groups), torch.WithDilation(expand(a.dilation, n)...))
}

// ConvTranspose1d is F.conv_transpose1d with weight
// (C_in, C_out/groups, kW).
//
// Options: WithBias (None), WithStride (1), WithPadding (0),
// WithOutputPadding (0), WithGroups (1), WithDilation (1).
func ConvTranspose1d(input, weight torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryConvTranspose1d(input, weight, opts...))
}

// TryConvTranspose1d is ConvTranspose1d that returns its error.
func TryConvTranspose1d(input, weight torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return convTranspose("conv_transpose1d", 1, input, weight, opts, torch.TryConvTranspose1d)
}

// ConvTranspose2d is F.conv_transpose2d with weight
// (C_in, C_out/groups, kH, kW).
//
// Options: WithBias (None), WithStride (1), WithPadding (0),
// WithOutputPadding (0), WithGroups (1), WithDilation (1).
func ConvTranspose2d(input, weight torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryConvTranspose2d(input, weight, opts...))
}

// TryConvTranspose2d is ConvTranspose2d that returns its error.
func TryConvTranspose2d(input, weight torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return convTranspose("conv_transpose2d", 2, input, weight, opts, torch.TryConvTranspose2d)
}

// ConvTranspose3d is F.conv_transpose3d with weight
// (C_in, C_out/groups, kD, kH, kW).
//
// Options: WithBias (None), WithStride (1), WithPadding (0),
// WithOutputPadding (0), WithGroups (1), WithDilation (1).
func ConvTranspose3d(input, weight torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryConvTranspose3d(input, weight, opts...))
}

// TryConvTranspose3d is ConvTranspose3d that returns its error.
func TryConvTranspose3d(input, weight torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return convTranspose("conv_transpose3d", 3, input, weight, opts, torch.TryConvTranspose3d)
}
