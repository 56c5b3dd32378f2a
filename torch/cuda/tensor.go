package cuda

/*
#include "cuda/cuda.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/internal/native"
)

// borrow pins t for one C call.
func borrow(t torch.Tensor, op string) (C.gt_tensor, error) {
	p, err := native.Borrow(t, "cuda."+op, "self")
	return C.gt_tensor(p), err
}

// PinMemory returns a copy of the CPU tensor t in page-locked host memory,
// from which copies to a GPU can be asynchronous (Tensor.pin_memory). It
// needs a CUDA device.
func PinMemory(t torch.Tensor) (torch.Tensor, error) {
	if err := noDevice("pin_memory"); err != nil {
		return torch.Tensor{}, err
	}
	p, err := borrow(t, "pin_memory")
	if err != nil {
		return torch.Tensor{}, err
	}
	var out C.gt_tensor
	var nb C.int64_t
	e := C.gt_cuda_pin_memory(p, &out, &nb)
	native.Release(t)
	if e != nil {
		return torch.Tensor{}, cErr("pin_memory", e)
	}
	return native.Adopt(unsafe.Pointer(out)).(torch.Tensor), nil
}

// IsPinned reports whether t is in page-locked host memory
// (Tensor.is_pinned); false without CUDA.
func IsPinned(t torch.Tensor) (bool, error) {
	p, err := borrow(t, "is_pinned")
	if err != nil {
		return false, err
	}
	var v C.int
	e := C.gt_cuda_is_pinned(p, &v)
	native.Release(t)
	return v != 0, cErr("is_pinned", e)
}

// To copies t to dev, asynchronously with respect to the host when
// nonBlocking and the copy allows it (pinned host memory to a GPU, or a GPU
// to host): Tensor.to(dev, non_blocking=True). A non-blocking copy to the
// host is complete only after a Synchronize of its stream.
func To(t torch.Tensor, dev torch.Device, nonBlocking bool) (torch.Tensor, error) {
	p, err := borrow(t, "to")
	if err != nil {
		return torch.Tensor{}, err
	}
	nb := C.int(0)
	if nonBlocking {
		nb = 1
	}
	var out C.gt_tensor
	var n C.int64_t
	e := C.gt_cuda_to(p, C.int32_t(dev.Type), C.int32_t(dev.Index), nb, &out, &n)
	native.Release(t)
	if e != nil {
		return torch.Tensor{}, cErr("to", e)
	}
	return native.Adopt(unsafe.Pointer(out)).(torch.Tensor), nil
}

// RecordStream tells the caching allocator that t is used on s, so that
// its memory is not reused before s's queued work is done
// (Tensor.record_stream): needed when a tensor made on one stream is used
// on another.
func RecordStream(t torch.Tensor, s *Stream) error {
	if err := s.check("record_stream"); err != nil {
		return err
	}
	p, err := borrow(t, "record_stream")
	if err != nil {
		return err
	}
	e := C.gt_cuda_record_stream(p, s.p)
	native.Release(t)
	return cErr("record_stream", e)
}
