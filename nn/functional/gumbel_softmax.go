package functional

import (
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// WithTau is gumbel_softmax's tau: the temperature, > 0.
func WithTau(v float64) Option { return Option{name: "tau", f: v} }

// WithHard is gumbel_softmax's hard: return one-hot samples whose gradient
// is that of the soft samples.
func WithHard(on bool) Option { return Option{name: "hard", b: on} }

// GumbelSoftmax is F.gumbel_softmax: samples of the Gumbel-softmax
// distribution over dim, softmax((logits + g) / tau) with g drawn from
// Gumbel(0, 1) by torch's default generator (torch.ManualSeed seeds it, as
// torch.manual_seed does in Python). With hard, the result is one-hot at
// each sample's maximum, with the gradient of the soft sample.
//
// Options: WithTau (1), WithHard (false), WithEps (1e-10, unused, as in
// PyTorch), WithDim (-1).
func GumbelSoftmax(logits torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryGumbelSoftmax(logits, opts...))
}

// TryGumbelSoftmax is GumbelSoftmax that returns its error.
func TryGumbelSoftmax(logits torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "gumbel_softmax"
	a := args{tau: 1, eps: 1e-10, dim: -1}
	if err := a.parse(op, opts, "tau", "hard", "eps", "dim"); err != nil {
		return torch.Tensor{}, err
	}
	if !(a.tau > 0) {
		return torch.Tensor{}, errorf(op, "tau must be positive, but got %s", pyFloat(a.tau))
	}
	return temps.Run([]torch.Tensor{logits}, func(tmp *temps.List) torch.Tensor {
		t := tmp.Add
		// -log(Exponential(1)) is Gumbel(0, 1), drawn as PyTorch draws it.
		g := t(t(t(torch.EmptyLike(logits).Exponential_()).Log()).Neg())
		ySoft := t(t(t(logits.Add(g)).DivScalar(torch.S(a.tau))).Softmax(a.dim))
		if !a.hard {
			return ySoft
		}
		v, index := ySoft.MaxDim(a.dim, torch.WithKeepdim(true))
		t(v)
		yHard := t(t(torch.ZerosLike(logits)).ScatterValue_(a.dim, t(index), torch.S(1.0)))
		return t(yHard.Sub(t(ySoft.Detach()))).Add(ySoft)
	})
}
