// Package temps frees the tensors that package nn's modules and
// nn/functional's functions make for their own use (an unsqueezed input, a
// broadcast view, a chain of reshapes) once they have their results,
// instead of leaving them to the collector. Only tensors the caller made,
// and that cannot have escaped it, may be passed here; never an argument,
// never a result. Freeing drops GoTorch's reference only: autograd keeps
// what it saved for the backward pass.
package temps

import "github.com/gotorch/gotorch/torch"

// Free frees t, a tensor that the caller made for its own use, unless it
// is the same tensor (handle) as one of keep: a result, or an argument
// that an op handed back. The zero Tensor and freed tensors are skipped.
func Free(t torch.Tensor, keep ...torch.Tensor) {
	for _, k := range keep {
		if t == k {
			return
		}
	}
	t.Free()
}

// List collects the temporaries of a function.
type List []torch.Tensor

// Add records t and returns it.
func (ts *List) Add(t torch.Tensor) torch.Tensor {
	*ts = append(*ts, t)
	return t
}

// Free frees every recorded tensor but those in keep.
func (ts List) Free(keep ...torch.Tensor) {
	for _, t := range ts {
		Free(t, keep...)
	}
}

// Run runs f, which makes its result from temporaries it records in tmp,
// and frees them but keep (the arguments) and the result; a *torch.Error
// that f panics with is returned as the error, any other panic goes on.
func Run(keep []torch.Tensor, f func(tmp *List) torch.Tensor) (t torch.Tensor, err error) {
	var tmp List
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*torch.Error)
			if !ok {
				panic(r)
			}
			t, err = torch.Tensor{}, e
		}
		tmp.Free(append(keep, t)...)
	}()
	return f(&tmp), nil
}
