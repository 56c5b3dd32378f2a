package functional

import "github.com/gotorch/gotorch/torch"

// The functions of nn.functional that are one ATen op with positional
// arguments only: conv_tbc and native_channel_shuffle.

// ConvTbc is F.conv_tbc: the 1-d convolution of input (T, B, C_in), time
// first, with weight (K, C_in, C_out) and bias (C_out), padding pad steps
// at each end of the time dimension (PyTorch's default pad is 0).
func ConvTbc(input, weight, bias torch.Tensor, pad int64) torch.Tensor {
	return must(TryConvTbc(input, weight, bias, pad))
}

// TryConvTbc is ConvTbc that returns its error.
func TryConvTbc(input, weight, bias torch.Tensor, pad int64) (torch.Tensor, error) {
	return torch.TryConvTbc(input, weight, bias, torch.WithPad(pad))
}

// NativeChannelShuffle is F.native_channel_shuffle, ChannelShuffle by
// ATen's native kernel.
func NativeChannelShuffle(input torch.Tensor, groups int64) torch.Tensor {
	return must(TryNativeChannelShuffle(input, groups))
}

// TryNativeChannelShuffle is NativeChannelShuffle that returns its error.
func TryNativeChannelShuffle(input torch.Tensor, groups int64) (torch.Tensor, error) {
	return torch.TryNativeChannelShuffle(input, groups)
}
