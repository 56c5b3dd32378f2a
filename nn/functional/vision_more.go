package functional

import (
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// Unfold is F.unfold: the sliding blocks of kernelSize of (N, C, H, W)
// or (C, H, W) input, as (N, C·∏kernel, L).
//
// Options: WithDilation (1), WithPadding (0), WithStride (1).
func Unfold[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) torch.Tensor {
	return must(TryUnfold(input, kernelSize, opts...))
}

// TryUnfold is Unfold that returns its error.
func TryUnfold[K IntOrTuple](input torch.Tensor, kernelSize K, opts ...Option) (torch.Tensor, error) {
	k, d, p, s, err := blockArgs("unfold", kernelSize, opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryIm2col(input, k, d, p, s)
}

// Fold is F.fold, the inverse of unfold: sums the blocks of (N,
// C·∏kernel, L) or (C·∏kernel, L) input into an outputSize image.
//
// Options: WithDilation (1), WithPadding (0), WithStride (1).
func Fold[O, K IntOrTuple](input torch.Tensor, outputSize O, kernelSize K, opts ...Option) torch.Tensor {
	return must(TryFold(input, outputSize, kernelSize, opts...))
}

// TryFold is Fold that returns its error.
func TryFold[O, K IntOrTuple](input torch.Tensor, outputSize O, kernelSize K, opts ...Option) (torch.Tensor, error) {
	k, d, p, s, err := blockArgs("fold", kernelSize, opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryCol2im(input, expand(Ints(outputSize), 2), k, d, p, s)
}

func blockArgs[K IntOrTuple](op string, kernelSize K, opts []Option) (k, d, p, s []int64, err error) {
	a := args{dilation: []int64{1}, padding: []int64{0}, stride: []int64{1}}
	if err = a.parse(op, opts, "dilation", "padding", "stride"); err != nil {
		return
	}
	if a.paddingString != "" {
		err = errorf(op, "padding must be a number or a tuple, got '%s'", a.paddingString)
		return
	}
	return expand(Ints(kernelSize), 2), expand(a.dilation, 2), expand(a.padding, 2), expand(a.stride, 2), nil
}

// ChannelShuffle is F.channel_shuffle: the channels of (N, C, ...) input
// split into groups and interleaved.
func ChannelShuffle(input torch.Tensor, groups int64) torch.Tensor {
	return must(TryChannelShuffle(input, groups))
}

// TryChannelShuffle is ChannelShuffle that returns its error.
func TryChannelShuffle(input torch.Tensor, groups int64) (torch.Tensor, error) {
	return torch.TryChannelShuffle(input, groups)
}

// LocalResponseNorm is F.local_response_norm: each element of (N, C, ...)
// input, with at least one dimension after C, divided by (k + alpha/size
// · Σ x²)^beta, the sum over size neighbouring channels.
//
// Options: WithAlpha (1e-4), WithBeta (0.75), WithK (1).
func LocalResponseNorm(input torch.Tensor, size int64, opts ...Option) torch.Tensor {
	return must(TryLocalResponseNorm(input, size, opts...))
}

// TryLocalResponseNorm is LocalResponseNorm that returns its error.
func TryLocalResponseNorm(input torch.Tensor, size int64, opts ...Option) (torch.Tensor, error) {
	const op = "local_response_norm"
	a := args{alpha: 1e-4, beta: 0.75, k: 1}
	if err := a.parse(op, opts, "alpha", "beta", "k"); err != nil {
		return torch.Tensor{}, err
	}
	if size < 1 {
		return torch.Tensor{}, errorf(op, "size must be positive, got %d", size)
	}
	s, err := shape(input)
	if err != nil {
		return torch.Tensor{}, err
	}
	if len(s) < 3 {
		return torch.Tensor{}, errorf(op, "Expected 3D or higher dimensionality input (got %d dimensions)", len(s))
	}
	if input.Numel() == 0 {
		return input, nil
	}
	before, after := size/2, (size-1)/2
	return temps.Run([]torch.Tensor{input}, func(tmp *temps.List) torch.Tensor {
		// The mean of x² over a window of size channels, zero-padded at
		// both ends, by average pooling.
		sq := tmp.Add(tmp.Add(input.Mul(input)).Unsqueeze(1))
		var div torch.Tensor
		if len(s) == 3 {
			sq = tmp.Add(Pad(sq, []int64{0, 0, before, after}))
			div = tmp.Add(tmp.Add(AvgPool2d(sq, []int64{size, 1}, WithStride(1))).SqueezeDim(1))
		} else {
			sq = tmp.Add(sq.View([]int64{s[0], 1, s[1], s[2], -1}))
			sq = tmp.Add(Pad(sq, []int64{0, 0, 0, 0, before, after}))
			div = tmp.Add(AvgPool3d(sq, []int64{size, 1, 1}, WithStride(1)))
			div = tmp.Add(tmp.Add(div.SqueezeDim(1)).View(s))
		}
		div = tmp.Add(tmp.Add(tmp.Add(div.MulScalar(torch.S(a.alpha))).AddScalar(torch.S(a.k))).PowTensorScalar(torch.S(a.beta)))
		return input.Div(div)
	})
}
