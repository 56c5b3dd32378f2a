package functional

import "github.com/gotorch/gotorch/torch"

// Linear is F.linear: input·weightᵀ + bias.
//
// Options: WithBias (default None).
func Linear(input, weight torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryLinear(input, weight, opts...))
}

// TryLinear is Linear that returns its error.
func TryLinear(input, weight torch.Tensor, opts ...Option) (torch.Tensor, error) {
	var a args
	if err := a.parse("linear", opts, "bias"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryLinear(input, weight, torch.WithBias(a.bias))
}

// Bilinear is F.bilinear: input1ᵀ·weight·input2 + bias.
//
// Options: WithBias (default None).
func Bilinear(input1, input2, weight torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryBilinear(input1, input2, weight, opts...))
}

// TryBilinear is Bilinear that returns its error.
func TryBilinear(input1, input2, weight torch.Tensor, opts ...Option) (torch.Tensor, error) {
	var a args
	if err := a.parse("bilinear", opts, "bias"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryBilinear(input1, input2, weight, torch.WithBias(a.bias))
}
