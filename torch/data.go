package torch

/*
#include "cgotorch.h"
*/
import "C"

import (
	"sync"
	"syscall"
	"unsafe"
)

// hostMemory is the machine's physical memory in bytes (0 if unknown).
var hostMemory = sync.OnceValue(func() uint64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return uint64(si.Totalram) * uint64(si.Unit)
})

// checkHostBytes refuses a Go allocation of n elements of size bytes that
// the machine cannot hold: Go's runtime would end the process, beyond
// recover's reach. An Expand to 2^40 elements is one op away.
func checkHostBytes(op string, n, size int64) error {
	mem := hostMemory()
	if mem == 0 || n <= 0 {
		return nil
	}
	if n > int64(mem)/size {
		return newError(op, nil, "%d elements of %d bytes are more than this machine's memory (%d bytes)", n, size, mem)
	}
	return nil
}

// TryToSlice is ToSlice that returns its error.
func TryToSlice[T Element](t Tensor) ([]T, error) {
	const op = "to_slice"
	p, err := t.ptr(op, "self")
	if err != nil {
		return nil, err
	}
	n := C.gt_tensor_numel(p)
	var z T
	if err := checkHostBytes(op, int64(n), int64(unsafe.Sizeof(z))); err != nil {
		t.unpin()
		return nil, err
	}
	out := make([]T, int(n))
	var dst unsafe.Pointer
	if n > 0 {
		dst = unsafe.Pointer(&out[0])
	}
	e := C.gt_tensor_copy_to(p, dst, C.int64_t(int64(n)*int64(unsafe.Sizeof(z))), C.int32_t(DTypeOf[T]()))
	t.unpin()
	if err := cError(op, e); err != nil {
		return nil, err
	}
	return out, nil
}

// ToSlice copies t's elements, flattened in row-major order, into a new Go
// slice, converting them to T's dtype the way Tensor.To does.
func ToSlice[T Element](t Tensor) []T { return must1(TryToSlice[T](t)) }

// Float32s is ToSlice[float32](t).
func (t Tensor) Float32s() []float32 { return ToSlice[float32](t) }

// Float64s is ToSlice[float64](t).
func (t Tensor) Float64s() []float64 { return ToSlice[float64](t) }

// Int64s is ToSlice[int64](t).
func (t Tensor) Int64s() []int64 { return ToSlice[int64](t) }

// Bools is ToSlice[bool](t).
func (t Tensor) Bools() []bool { return ToSlice[bool](t) }

// TryItem is Item that returns its error.
func (t Tensor) TryItem() (float64, error) {
	p, err := t.ptr("item", "self")
	if err != nil {
		return 0, err
	}
	r := C.gt_tensor_item_double(p)
	t.unpin()
	return float64(r.v), cError("item", r.err)
}

// Item returns the value of a one-element tensor as a float64.
func (t Tensor) Item() float64 { return must1(t.TryItem()) }

// TryItemInt is ItemInt that returns its error.
func (t Tensor) TryItemInt() (int64, error) {
	p, err := t.ptr("item", "self")
	if err != nil {
		return 0, err
	}
	r := C.gt_tensor_item_int(p)
	t.unpin()
	return int64(r.v), cError("item", r.err)
}

// ItemInt returns the value of a one-element tensor as an int64, exactly
// for integer tensors.
func (t Tensor) ItemInt() int64 { return must1(t.TryItemInt()) }

// ItemBool returns the value of a one-element tensor as a bool: whether it
// is nonzero, as Python's bool(t) says (true for 0.5 and for NaN).
func (t Tensor) ItemBool() bool { return t.ItemComplex() != 0 }

// TryItemComplex is ItemComplex that returns its error.
func (t Tensor) TryItemComplex() (complex128, error) {
	p, err := t.ptr("item", "self")
	if err != nil {
		return 0, err
	}
	var buf [2]float64
	e := C.gt_tensor_item_complex(p, (*C.double)(&buf[0]))
	t.unpin()
	return complex(buf[0], buf[1]), cError("item", e)
}

// ItemComplex returns the value of a one-element tensor as a complex128.
func (t Tensor) ItemComplex() complex128 { return must1(t.TryItemComplex()) }

// Target is where Tensor.To sends a tensor: a DType or a Device.
type Target interface{ target() }

func (DType) target()  {}
func (Device) target() {}

// TryTo is To that returns its error.
func (t Tensor) TryTo(targets ...Target) (Tensor, error) {
	const op = "to"
	dt, dv, di := C.int32_t(-1), C.int32_t(-1), C.int32_t(-1)
	for _, x := range targets {
		switch v := x.(type) {
		case DType:
			if !v.valid() {
				return Tensor{}, newError(op, nil, "invalid dtype %d", int(v))
			}
			dt = C.int32_t(v)
		case Device:
			dv, di = C.int32_t(v.Type), C.int32_t(v.Index)
		default:
			return Tensor{}, newError(op, nil, "unsupported target %T", x)
		}
	}
	p, err := t.ptr(op, "self")
	if err != nil {
		return Tensor{}, err
	}
	r := C.gt_tensor_to(p, dt, dv, di, 0)
	t.unpin()
	return tensorResult(op, r)
}

// To converts t to a dtype and/or moves it to a device:
// t.To(torch.Float64), t.To(torch.CUDA(0)), t.To(dev, torch.Float16).
// Like PyTorch, it returns t itself (a new handle to it) when nothing
// changes.
func (t Tensor) To(targets ...Target) Tensor { return must1(t.TryTo(targets...)) }

// Share returns a second handle to the same tensor. Freeing one handle does
// not free the other.
func (t Tensor) Share() Tensor {
	p := t.mustPtr("share")
	s := newTensorQ(C.gt_tensor_share(p))
	t.unpin()
	return s
}
