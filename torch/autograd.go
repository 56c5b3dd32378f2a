package torch

/*
#include <stdlib.h>
#include "cgotorch.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// RequiresGrad reports whether autograd records operations on t.
func (t Tensor) RequiresGrad() bool {
	v := C.gt_tensor_requires_grad(t.mustPtr("requires_grad")) != 0
	t.unpin()
	return v
}

// TrySetRequiresGrad is SetRequiresGrad that returns its error.
func (t Tensor) TrySetRequiresGrad(on bool) (Tensor, error) {
	p, err := t.ptr("requires_grad_", "self")
	if err != nil {
		return t, err
	}
	v := C.int(0)
	if on {
		v = 1
	}
	if !on && C.gt_tensor_is_leaf(p) == 0 {
		// libtorch's C++ set_requires_grad(false) ignores a non-leaf;
		// PyTorch's requires_grad_ rejects it with this message.
		t.unpin()
		return t, newError("requires_grad_", nil, "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")
	}
	e := C.gt_tensor_set_requires_grad(p, v)
	t.unpin()
	return t, cError("requires_grad_", e)
}

// SetRequiresGrad turns gradient recording on or off for a leaf tensor and
// returns t (PyTorch's requires_grad_).
func (t Tensor) SetRequiresGrad(on bool) Tensor { return must1(t.TrySetRequiresGrad(on)) }

// IsLeaf reports whether t was made by the user rather than by an op that
// autograd recorded.
func (t Tensor) IsLeaf() bool {
	v := C.gt_tensor_is_leaf(t.mustPtr("is_leaf")) != 0
	t.unpin()
	return v
}

// GradFn is the name of the autograd node that made t ("AddBackward0"), or
// "" for a leaf.
func (t Tensor) GradFn() string {
	s := C.gt_tensor_grad_fn_name(t.mustPtr("grad_fn"))
	t.unpin()
	if s == nil {
		return ""
	}
	defer C.free(unsafe.Pointer(s))
	return C.GoString(s)
}

// TryBackward is Backward that returns its error.
func (t Tensor) TryBackward(opts ...Option) error {
	const op = "backward"
	var grad Tensor
	retain, create := C.int(-1), C.int(0)
	for _, o := range opts {
		switch o.key {
		case optGradient:
			grad = o.t
		case optRetainGraph:
			retain = 0
			if o.b {
				retain = 1
			}
		case optCreateGraph:
			create = 0
			if o.b {
				create = 1
			}
		default:
			return badOption(op, o)
		}
	}
	p, err := t.ptr(op, "self")
	if err != nil {
		return err
	}
	g, err := grad.optPtr(op, "gradient")
	if err != nil {
		t.unpin()
		return err
	}
	gradMu.RLock()
	e := C.gt_tensor_backward(p, g, retain, create)
	gradMu.RUnlock()
	t.unpin()
	grad.unpin()
	return cError(op, e)
}

// Backward computes the gradients of t with respect to the leaves that
// require them, accumulating into their Grad: Python's t.backward().
//
// Options: WithGradient (the gradient of t, required unless t has one
// element), WithRetainGraph (default: the value of create_graph) and
// WithCreateGraph (false), as in Python's
// t.backward(gradient=g, retain_graph=True).
func (t Tensor) Backward(opts ...Option) { must(t.TryBackward(opts...)) }

// gradMu keeps the gradients that a backward pass accumulates into from
// being read or replaced while it runs. Backward passes share it (libtorch
// locks each gradient's accumulation itself); Grad, ZeroGrad and SetData
// wait for every running pass. Without it, a ZeroGrad on one goroutine
// during a Backward on another freed the gradient that the pass was
// writing, and corrupted the heap.
var gradMu sync.RWMutex

// lockGrad takes gradMu for writing, waiting for running backward passes,
// unless the caller is a hook (RegisterHook) inside one of them: that pass
// holds gradMu for reading on this very thread, so waiting would wait for
// itself, forever. A hook reads and sets gradients as PyTorch's may, under
// its pass's read lock. It reports whether it took the lock; inHook is
// asked only when the lock is busy, so the common case stays one atomic.
func lockGrad() bool {
	if gradMu.TryLock() {
		return true
	}
	if inHook() {
		return false
	}
	gradMu.Lock()
	return true
}

// Grad returns the accumulated gradient of t, or the zero Tensor if there
// is none yet. It waits for running Backward calls.
func (t Tensor) Grad() Tensor {
	p := t.mustPtr("grad")
	locked := lockGrad()
	r := C.gt_tensor_grad(p)
	if locked {
		gradMu.Unlock()
	}
	t.unpin()
	return must1(tensorResult("grad", r))
}

// ZeroGrad drops t's accumulated gradient (PyTorch's set_to_none=True).
// It waits for running Backward calls.
func (t Tensor) ZeroGrad() {
	p := t.mustPtr("zero_grad")
	locked := lockGrad()
	e := C.gt_tensor_zero_grad(p)
	if locked {
		gradMu.Unlock()
	}
	t.unpin()
	must(cError("zero_grad", e))
}

// IsGradEnabled reports whether autograd records ops on the calling OS
// thread.
func IsGradEnabled() bool { return C.gt_grad_enabled() != 0 }

// NoGrad runs f with gradient recording off, like Python's
// `with torch.no_grad():`. libtorch keeps this mode per OS thread, so NoGrad
// pins the calling goroutine to its thread while f runs; goroutines that f
// starts are not covered and need their own NoGrad.
func NoGrad(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prev := C.gt_grad_enabled()
	C.gt_set_grad_enabled(0)
	defer C.gt_set_grad_enabled(prev)
	f()
}

// TrySetData is SetData that returns its error.
func (t Tensor) TrySetData(src Tensor) error {
	const op = "set_data"
	p, err := t.ptr(op, "self")
	if err != nil {
		return err
	}
	s, err := src.ptr(op, "src")
	if err != nil {
		t.unpin()
		return err
	}
	locked := lockGrad()
	e := C.gt_tensor_set_data(p, s)
	if locked {
		gradMu.Unlock()
	}
	if e == nil {
		t.handle.recount(int64(C.gt_tensor_nbytes(p))) // while pinned
	}
	t.unpin()
	src.unpin()
	return cError(op, e)
}

// SetData makes t hold src's data (storage, dtype, device) while staying
// the same tensor: handles to t, such as an optimizer's, see the change.
// It is how modules move their parameters in To.
func (t Tensor) SetData(src Tensor) { must(t.TrySetData(src)) }
