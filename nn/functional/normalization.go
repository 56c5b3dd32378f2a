package functional

import (
	"fmt"
	"strings"

	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// shape returns t's shape, or the *torch.Error of using an undefined or
// freed tensor.
func shape(t torch.Tensor) (s []int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	return t.Shape(), nil
}

// pyList formats integers as Python prints a list.
func pyList(s []int64) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprint(v)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// torchSize formats a shape as Python prints a torch.Size.
func torchSize(s []int64) string { return "torch.Size(" + pyList(s) + ")" }

// verifyBatchSize is PyTorch's _verify_batch_size.
func verifyBatchSize(op string, size []int64, shown string) error {
	if len(size) < 2 {
		return nil // libtorch reports it
	}
	prod := size[0]
	for _, s := range size[2:] {
		prod *= s
	}
	if prod == 1 {
		return errorf(op, "Expected more than 1 value per channel when training, got input size %s", shown)
	}
	return nil
}

// BatchNorm is F.batch_norm. runningMean and runningVar may be the zero
// Tensor (None); in training they are updated in place.
//
// Options: WithWeight (None), WithBias (None), WithTraining (false),
// WithMomentum (0.1), WithEps (1e-5).
func BatchNorm(input, runningMean, runningVar torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryBatchNorm(input, runningMean, runningVar, opts...))
}

// TryBatchNorm is BatchNorm that returns its error.
func TryBatchNorm(input, runningMean, runningVar torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "batch_norm"
	a := args{momentum: 0.1, eps: 1e-5}
	if err := a.parse(op, opts, "weight", "bias", "training", "momentum", "eps"); err != nil {
		return torch.Tensor{}, err
	}
	if a.training {
		s, err := shape(input)
		if err != nil {
			return torch.Tensor{}, err
		}
		if err := verifyBatchSize(op, s, torchSize(s)); err != nil {
			return torch.Tensor{}, err
		}
	}
	return torch.TryBatchNorm(input, a.weight, a.bias, runningMean, runningVar, a.training, a.momentum, a.eps, true)
}

// InstanceNorm is F.instance_norm.
//
// Options: WithRunningMean (None), WithRunningVar (None), WithWeight
// (None), WithBias (None), WithUseInputStats (true), WithMomentum (0.1),
// WithEps (1e-5).
func InstanceNorm(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryInstanceNorm(input, opts...))
}

// TryInstanceNorm is InstanceNorm that returns its error.
func TryInstanceNorm(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "instance_norm"
	a := args{useInputStats: true, momentum: 0.1, eps: 1e-5}
	if err := a.parse(op, opts, "running_mean", "running_var", "weight", "bias", "use_input_stats", "momentum", "eps"); err != nil {
		return torch.Tensor{}, err
	}
	if a.useInputStats {
		s, err := shape(input)
		if err != nil {
			return torch.Tensor{}, err
		}
		prod := int64(1)
		for i := 2; i < len(s); i++ {
			prod *= s[i]
		}
		if prod == 1 {
			return torch.Tensor{}, errorf(op, "Expected more than 1 spatial element when training, got input size %s", torchSize(s))
		}
	}
	return torch.TryInstanceNorm(input, a.weight, a.bias, a.runningMean, a.runningVar, a.useInputStats, a.momentum, a.eps, true)
}

// LayerNorm is F.layer_norm over the last dimensions, normalizedShape.
//
// Options: WithWeight (None), WithBias (None), WithEps (1e-5).
func LayerNorm(input torch.Tensor, normalizedShape []int64, opts ...Option) torch.Tensor {
	return must(TryLayerNorm(input, normalizedShape, opts...))
}

// TryLayerNorm is LayerNorm that returns its error.
func TryLayerNorm(input torch.Tensor, normalizedShape []int64, opts ...Option) (torch.Tensor, error) {
	a := args{eps: 1e-5}
	if err := a.parse("layer_norm", opts, "weight", "bias", "eps"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryLayerNorm(input, normalizedShape, torch.WithWeight(a.weight), torch.WithBias(a.bias), torch.WithEps(a.eps))
}

// GroupNorm is F.group_norm: the channels, input.size(1), are split in
// numGroups groups, normalized separately.
//
// Options: WithWeight (None), WithBias (None), WithEps (1e-5).
func GroupNorm(input torch.Tensor, numGroups int64, opts ...Option) torch.Tensor {
	return must(TryGroupNorm(input, numGroups, opts...))
}

// TryGroupNorm is GroupNorm that returns its error.
func TryGroupNorm(input torch.Tensor, numGroups int64, opts ...Option) (torch.Tensor, error) {
	const op = "group_norm"
	a := args{eps: 1e-5}
	if err := a.parse(op, opts, "weight", "bias", "eps"); err != nil {
		return torch.Tensor{}, err
	}
	s, err := shape(input)
	if err != nil {
		return torch.Tensor{}, err
	}
	if len(s) >= 2 && numGroups > 0 {
		v := append([]int64{s[0] * s[1] / numGroups, numGroups}, s[2:]...)
		if err := verifyBatchSize(op, v, pyList(v)); err != nil {
			return torch.Tensor{}, err
		}
	}
	return torch.TryGroupNorm(input, numGroups, torch.WithWeight(a.weight), torch.WithBias(a.bias), torch.WithEps(a.eps))
}

// Normalize is F.normalize: input divided by its p-norm along dim (at
// least eps).
//
// Options: WithP (2), WithDim (1), WithEps (1e-12).
func Normalize(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryNormalize(input, opts...))
}

// TryNormalize is Normalize that returns its error.
func TryNormalize(input torch.Tensor, opts ...Option) (out torch.Tensor, err error) {
	a := args{p: 2, dim: 1, eps: 1e-12}
	if err := a.parse("normalize", opts, "p", "dim", "eps"); err != nil {
		return torch.Tensor{}, err
	}
	var tmp temps.List // the norm, clamped, expanded
	defer func() { tmp.Free(input, out) }()
	norm, err := torch.TryNormScalarOptDim(input, []int64{a.dim}, torch.WithP(a.p), torch.WithKeepdim(true))
	if err != nil {
		return torch.Tensor{}, err
	}
	denom, err := tmp.Add(norm).TryClampMin(torch.S(a.eps))
	if err != nil {
		return torch.Tensor{}, err
	}
	if denom, err = tmp.Add(denom).TryExpandAs(input); err != nil {
		return torch.Tensor{}, err
	}
	return input.TryDiv(tmp.Add(denom))
}
