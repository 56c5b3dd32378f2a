package pt

/*
#cgo CFLAGS: -I${SRCDIR}/../../cgotorch
#include "ptstorage/ptstorage.h"
*/
import "C"

import (
	"unsafe"

	// The C++ behind ptstorage.h.
	_ "github.com/gotorch/gotorch/cgotorch/ptstorage"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/internal/native"
)

// storageInfo is where a tensor lives: its storage's identity (valid
// while the tensor lives) and size, and the tensor's offset in it.
type storageInfo struct {
	id     uintptr
	nbytes int64
	offset int64 // in elements of the tensor's dtype
}

func storageInfoOf(t torch.Tensor) (storageInfo, error) {
	const op = "pt.save"
	p, err := native.Borrow(t, op, "tensor")
	if err != nil {
		return storageInfo{}, err
	}
	r := C.gt_pt_storage_of(C.gt_tensor(p))
	native.Release(t)
	if r.err != nil {
		return storageInfo{}, native.Error(op, unsafe.Pointer(r.err))
	}
	return storageInfo{id: uintptr(r.id), nbytes: int64(r.nbytes), offset: int64(r.offset)}, nil
}
