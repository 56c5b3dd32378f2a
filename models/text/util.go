package text

import (
	"errors"
	"fmt"
	"math"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// ErrConfig is the cause of the errors of an invalid GPT2Config or
// BertConfig.
var ErrConfig = errors.New("invalid config")

// ErrInput is the cause of the errors of inputs a model cannot take (a
// wrong rank or dtype, too many positions, a cache of another batch).
var ErrInput = errors.New("invalid input")

// modelError is an error of this package: the model, and what is wrong.
func modelError(model string, cause error, format string, args ...any) error {
	return fmt.Errorf("text: %s: %s: %w", model, fmt.Sprintf(format, args...), cause)
}

// catch runs f and returns what it panicked with as an error, when that
// is the *torch.Error of an op or one of this package's input errors;
// anything else (a runtime error) panics again. The Try forms of the models are Forward
// under catch, as encoding/json recovers its own panics at its boundary.
func catch[T any](model string, f func() T) (out T, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			var te *torch.Error
			switch {
			case errors.As(e, &te):
				err = fmt.Errorf("text: %s: %w", model, e)
			case errors.Is(e, ErrInput) || errors.Is(e, ErrConfig):
				err = e
			default:
				panic(r) // a bug, not an input's fault
			}
		}
	}()
	return f(), nil
}

// must panics with err.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// temps records the tensors a forward pass makes, to free them once it
// has its result. Autograd keeps what it needs on its own, so freeing the
// handles is safe while training too.
type temps []torch.Tensor

func (t *temps) add(x torch.Tensor) torch.Tensor {
	*t = append(*t, x)
	return x
}

// free frees every recorded tensor but keep.
func (t *temps) free(keep ...torch.Tensor) {
outer:
	for _, x := range *t {
		for _, k := range keep {
			if x == k {
				continue outer
			}
		}
		x.Free()
	}
	*t = (*t)[:0]
}

// dropout is d on x, its result recorded; in eval mode it is x itself,
// without a call (F.dropout returns its input there): a model's eval
// forward then makes no handle, Go allocation or cgo call per dropout.
func (t *temps) dropout(d *nn.DropoutModule, x torch.Tensor) torch.Tensor {
	if d != nil && !d.IsTraining() {
		return x
	}
	return t.add(d.Forward(x))
}

// finfoMin is torch.finfo(dt).min, the value the models add or fill to
// mask a position out of attention, as transformers does.
func finfoMin(dt torch.DType) float64 {
	switch dt {
	case torch.Float64:
		return -math.MaxFloat64
	case torch.Float16:
		return -65504
	case torch.BFloat16:
		return -3.3895313892515355e38
	}
	return -math.MaxFloat32
}

// activation returns transformers' ACT2FN entry for name: "gelu" (erf),
// "gelu_new" and "gelu_pytorch_tanh" (tanh approximation; gelu_new is
// written out in transformers, the same function), "relu", "silu"/"swish"
// and "tanh".
func activation(name string) (func(torch.Tensor) torch.Tensor, bool) {
	switch name {
	case "gelu":
		return func(x torch.Tensor) torch.Tensor { return torch.Gelu(x) }, true
	case "gelu_new", "gelu_pytorch_tanh":
		return func(x torch.Tensor) torch.Tensor { return torch.Gelu(x, torch.WithApproximate("tanh")) }, true
	case "relu":
		return torch.Relu, true
	case "silu", "swish":
		return torch.Silu, true
	case "tanh":
		return torch.Tanh, true
	}
	return nil, false
}

// checkIDs checks that ids is a (batch, seq) tensor of token indices.
func checkIDs(model, what string, ids torch.Tensor) error {
	if !ids.Defined() {
		return modelError(model, ErrInput, "%s is undefined", what)
	}
	if ids.Dim() != 2 {
		return modelError(model, ErrInput, "%s must be (batch, seq), got shape %v", what, ids.Shape())
	}
	if dt := ids.DType(); dt != torch.Int64 && dt != torch.Int32 {
		return modelError(model, ErrInput, "%s must be int64 or int32 token indices, got %v", what, dt)
	}
	if ids.Size(0) == 0 || ids.Size(1) == 0 {
		return modelError(model, ErrInput, "%s is empty (shape %v)", what, ids.Shape())
	}
	return nil
}

// checkRange checks that every index of ids is in [0, n).
func checkRange(model, what string, ids torch.Tensor, n int64, name string) error {
	mn, mx := ids.Min(), ids.Max()
	lo, hi := mn.ItemInt(), mx.ItemInt()
	mn.Free()
	mx.Free()
	if lo < 0 || hi >= n {
		return modelError(model, ErrInput, "%s must be in [0, %s=%d), got values from %d to %d", what, name, n, lo, hi)
	}
	return nil
}

// uninitialized is the error of a model whose constructor was not used:
// a nil pointer, or a zero struct.
func uninitialized(model string) error {
	return fmt.Errorf("text: %s: nil or not made by its constructor: %w", model, nn.ErrUninitialized)
}
