package torch

/*
#include "cgotorch.h"
*/
import "C"

// Tensor is a handle to a libtorch tensor.
//
// Copies of a Tensor value share one handle: freeing one frees them all.
// The zero Tensor{} is "undefined": it stands for None in optional
// arguments, and any op that needs a tensor rejects it with ErrUndefined.
type Tensor struct {
	// The handle is embedded, not named, for Go+: a few generated methods
	// (Sum, View, …) are methods of *handle, promoted to Tensor, so that
	// Go+ can overload those names on Tensor itself (see gop_overloads.go).
	*handle
}

// tensorResult turns a C result into a Tensor or an error.
func tensorResult(op string, r C.gt_tensor_result) (Tensor, error) {
	if r.err != nil {
		return Tensor{}, cError(op, r.err)
	}
	return newTensor(r.t, int64(r.nbytes)), nil
}

// ptr pins t's native tensor for one C call and returns it, or returns an
// error naming op and the argument, pinning nothing. Every ptr that
// succeeds is paired with one unpin after the call: until then a Free on
// another goroutine leaves the native tensor alone.
func (t Tensor) ptr(op, arg string) (C.gt_tensor, error) {
	h := t.handle
	if h == nil {
		return nil, newError(op, ErrUndefined, "argument %s: %v", arg, ErrUndefined)
	}
	if !h.pin() {
		return nil, newError(op, ErrFreed, "argument %s: %v", arg, ErrFreed)
	}
	return h.p, nil
}

// optPtr is ptr for optional arguments: the zero Tensor gives NULL.
func (t Tensor) optPtr(op, arg string) (C.gt_tensor, error) {
	if t.handle == nil {
		return nil, nil
	}
	return t.ptr(op, arg)
}

// mustPtr is ptr that panics; it too is paired with unpin.
func (t Tensor) mustPtr(op string) C.gt_tensor {
	p, err := t.ptr(op, "self")
	if err != nil {
		panic(err)
	}
	return p
}

// unpin ends the C call that ptr, optPtr or mustPtr started. It also keeps
// t's handle reachable, and so its native tensor alive, until this point.
// On the zero Tensor, which optPtr does not pin, it does nothing.
func (t Tensor) unpin() {
	if t.handle != nil {
		t.handle.unpin()
	}
}

// Defined reports whether t holds a live tensor: false for the zero
// Tensor{} and after Free.
func (t Tensor) Defined() bool { return t.handle != nil && t.handle.live() }

// Free releases the native tensor now instead of when Go collects t.
// Calling it again, or on the zero Tensor, does nothing; using t afterwards
// panics with ErrFreed. Tensors of under 16 KiB are released a few at a
// time, in one C call, by the Free calls that follow (at most five wait),
// or at the latest by the next GC(); statistics count them as freed at
// once.
func (t Tensor) Free() {
	if t.handle != nil {
		t.handle.free()
	}
}

// Dim is the number of dimensions.
func (t Tensor) Dim() int64 {
	n := int64(C.gt_tensor_dim(t.mustPtr("dim")))
	t.unpin()
	return n
}

// Shape returns the sizes of the dimensions.
func (t Tensor) Shape() []int64 {
	p := t.mustPtr("shape")
	var buf [8]int64
	n := int64(C.gt_tensor_sizes(p, (*C.int64_t)(&buf[0]), 8))
	if n <= 8 {
		out := make([]int64, n)
		copy(out, buf[:n])
		t.unpin()
		return out
	}
	out := make([]int64, n)
	C.gt_tensor_sizes(p, (*C.int64_t)(&out[0]), C.int64_t(n))
	t.unpin()
	return out
}

// Size returns the size of dimension d; negative d counts from the end.
func (t Tensor) Size(d int64) int64 {
	s := t.Shape()
	i := d
	if i < 0 {
		i += int64(len(s))
	}
	if i < 0 || i >= int64(len(s)) {
		panic(newError("size", nil, "dimension out of range (expected to be in range of [%d, %d], but got %d)", -len(s), len(s)-1, d))
	}
	return s[i]
}

// Numel is the number of elements.
func (t Tensor) Numel() int64 {
	n := int64(C.gt_tensor_numel(t.mustPtr("numel")))
	t.unpin()
	return n
}

// DType is the element type.
func (t Tensor) DType() DType {
	d := DType(C.gt_tensor_dtype(t.mustPtr("dtype")))
	t.unpin()
	return d
}

// Device is where the tensor lives.
func (t Tensor) Device() Device {
	p := t.mustPtr("device")
	d := Device{DeviceType(C.gt_tensor_device_type(p)), int(C.gt_tensor_device_index(p))}
	t.unpin()
	return d
}

// NBytes is the size of the tensor's storage in bytes.
func (t Tensor) NBytes() int64 {
	n := int64(C.gt_tensor_nbytes(t.mustPtr("nbytes")))
	t.unpin()
	return n
}
