package functional

import (
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

func dropoutArgs(op string, opts []Option, training bool) (args, error) {
	a := args{p: 0.5, training: training}
	if err := a.parse(op, opts, "p", "training"); err != nil {
		return a, err
	}
	if a.p < 0 || a.p > 1 {
		return a, errorf(op, "dropout probability has to be between 0 and 1, but got %s", pyFloat(a.p))
	}
	return a, nil
}

// Dropout is F.dropout: in training, each element is zeroed with
// probability p and the others are scaled by 1/(1-p).
//
// Options: WithP (0.5), WithTraining (true).
func Dropout(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryDropout(input, opts...))
}

// TryDropout is Dropout that returns its error.
func TryDropout(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a, err := dropoutArgs("dropout", opts, true)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryDropout(input, a.p, a.training)
}

// Dropout1d is F.dropout1d: whole channels of input (N, C, L) or (C, L)
// are zeroed.
//
// Options: WithP (0.5), WithTraining (true).
func Dropout1d(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryDropout1d(input, opts...))
}

// TryDropout1d is Dropout1d that returns its error.
func TryDropout1d(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "dropout1d"
	a, err := dropoutArgs(op, opts, true)
	if err != nil {
		return torch.Tensor{}, err
	}
	s, err := shape(input)
	if err != nil {
		return torch.Tensor{}, err
	}
	if len(s) != 2 && len(s) != 3 {
		return torch.Tensor{}, errorf(op, "dropout1d: Expected 2D or 3D input, but received a %dD input. "+
			"Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "+
			"spatial dimension, a channel dimension, and an optional batch dimension "+
			"(i.e. 2D or 3D inputs).", len(s))
	}
	return featureDropout(input, len(s) == 3, a)
}

// featureDropout runs feature_dropout, adding a batch dimension to
// unbatched input.
func featureDropout(input torch.Tensor, batched bool, a args) (torch.Tensor, error) {
	if batched {
		return torch.TryFeatureDropout(input, a.p, a.training)
	}
	x, err := input.TryUnsqueeze(0)
	if err != nil {
		return torch.Tensor{}, err
	}
	d, err := torch.TryFeatureDropout(x, a.p, a.training)
	temps.Free(x, input, d)
	if err != nil {
		return torch.Tensor{}, err
	}
	r, err := d.TrySqueezeDim(0)
	temps.Free(d, input, r)
	return r, err
}

// Dropout2d is F.dropout2d: whole channels of input (N, C, H, W) are
// zeroed. As in PyTorch 1.13, a 3-D input is taken as (N, C, L).
//
// Options: WithP (0.5), WithTraining (true).
func Dropout2d(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryDropout2d(input, opts...))
}

// TryDropout2d is Dropout2d that returns its error.
func TryDropout2d(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a, err := dropoutArgs("dropout2d", opts, true)
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryFeatureDropout(input, a.p, a.training)
}

// Dropout3d is F.dropout3d: whole channels of input (N, C, D, H, W) or
// (C, D, H, W) are zeroed.
//
// Options: WithP (0.5), WithTraining (true).
func Dropout3d(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryDropout3d(input, opts...))
}

// TryDropout3d is Dropout3d that returns its error.
func TryDropout3d(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "dropout3d"
	a, err := dropoutArgs(op, opts, true)
	if err != nil {
		return torch.Tensor{}, err
	}
	s, err := shape(input)
	if err != nil {
		return torch.Tensor{}, err
	}
	return featureDropout(input, len(s) == 5, a)
}

// AlphaDropout is F.alpha_dropout, which keeps the mean and variance of
// SELU activations. Note PyTorch's default training=false here.
//
// Options: WithP (0.5), WithTraining (false).
func AlphaDropout(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryAlphaDropout(input, opts...))
}

// TryAlphaDropout is AlphaDropout that returns its error.
func TryAlphaDropout(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return alphaDropout("alpha_dropout", torch.TryAlphaDropout, input, opts)
}

// FeatureAlphaDropout is F.feature_alpha_dropout, AlphaDropout of whole
// channels (the elements of input (N, C, ...) at one n and c). Note
// PyTorch's default training=false here.
//
// Options: WithP (0.5), WithTraining (false).
func FeatureAlphaDropout(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryFeatureAlphaDropout(input, opts...))
}

// TryFeatureAlphaDropout is FeatureAlphaDropout that returns its error.
func TryFeatureAlphaDropout(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return alphaDropout("feature_alpha_dropout", torch.TryFeatureAlphaDropout, input, opts)
}

// alphaDropout parses the options of op, alpha_dropout or
// feature_alpha_dropout, and computes f, its torch op.
func alphaDropout(op string, f func(torch.Tensor, float64, bool) (torch.Tensor, error), input torch.Tensor, opts []Option) (torch.Tensor, error) {
	a, err := dropoutArgs(op, opts, false)
	if err != nil {
		return torch.Tensor{}, err
	}
	return f(input, a.p, a.training)
}
