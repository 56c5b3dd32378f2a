// Package native is the seam between package torch and the packages beside
// it that carry C++ of their own (torch/jit, torch/cuda, torch/distributed).
//
// Their C functions take and return cgotorch's gt_tensor handles and
// gt_error messages (cgotorch/cgotorch.h, cgotorch/internal.h). This package
// lets them do so with torch's rules: a tensor argument is pinned for the
// call (so a concurrent Free waits for it), a returned handle is adopted
// into torch's memory accounting and collector, and an error becomes a
// *torch.Error, ErrUnsupported included.
//
// Package torch fills the hooks in at init. Tensors travel as any, because
// this package cannot import torch; callers assert torch.Tensor.
package native

import "unsafe"

// Hooks are package torch's implementations.
type Hooks struct {
	// Borrow pins t (a torch.Tensor) for one C call and returns its
	// gt_tensor handle. op and arg name the call in the error for an
	// undefined or freed tensor. Every successful Borrow is paired with
	// one Release.
	Borrow func(t any, op, arg string) (unsafe.Pointer, error)
	// Release unpins what Borrow pinned.
	Release func(t any)
	// Adopt takes ownership of a new gt_tensor reference and returns it as
	// a torch.Tensor (the zero Tensor for NULL).
	Adopt func(p unsafe.Pointer) any
	// Error converts and frees a gt_error (nil for NULL).
	Error func(op string, e unsafe.Pointer) error
}

var hooks Hooks

// Register is called once, by package torch.
func Register(h Hooks) { hooks = h }

// Borrow pins t for one C call; see Hooks.Borrow.
func Borrow(t any, op, arg string) (unsafe.Pointer, error) { return hooks.Borrow(t, op, arg) }

// Release ends a Borrow.
func Release(t any) { hooks.Release(t) }

// Adopt wraps a new gt_tensor reference; see Hooks.Adopt.
func Adopt(p unsafe.Pointer) any { return hooks.Adopt(p) }

// Error converts and frees a gt_error.
func Error(op string, e unsafe.Pointer) error { return hooks.Error(op, e) }
