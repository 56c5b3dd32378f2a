package nn

import "github.com/gotorch/gotorch/torch"

// Temporaries. A Forward of this package frees the tensors it makes for
// its own use (an unsqueezed input, a zero initial state, a chain of
// reshapes) once it has its results, instead of leaving them to the
// collector. Only tensors made by the Forward itself, and never given to
// user code (TransformerEncoderLayer's ActivationFn), are freed, and only
// on its normal return: a panic leaves them to the collector. Freeing
// drops GoTorch's reference only; autograd keeps what it saved.

// freeTemp frees t, a tensor that the caller made for its own use, unless
// it is the same tensor (handle) as one of keep: a result, or an argument
// that an op handed back. The zero Tensor and freed tensors are skipped.
func freeTemp(t torch.Tensor, keep ...torch.Tensor) {
	for _, k := range keep {
		if t == k {
			return
		}
	}
	t.Free()
}

// temps collects the temporaries of a Forward.
type temps []torch.Tensor

// add records t and returns it.
func (ts *temps) add(t torch.Tensor) torch.Tensor {
	*ts = append(*ts, t)
	return t
}

// free frees every recorded tensor but those in keep.
func (ts temps) free(keep ...torch.Tensor) {
	for _, t := range ts {
		freeTemp(t, keep...)
	}
}
