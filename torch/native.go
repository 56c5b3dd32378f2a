package torch

/*
#include "cgotorch.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gotorch/gotorch/torch/internal/native"
)

// The packages beside torch with C++ of their own (torch/jit, torch/cuda,
// torch/distributed) reach tensors through torch/internal/native.
func init() {
	native.Register(native.Hooks{
		Borrow: func(t any, op, arg string) (unsafe.Pointer, error) {
			p, err := t.(Tensor).ptr(op, arg)
			return unsafe.Pointer(p), err
		},
		Release: func(t any) { t.(Tensor).unpin() },
		Adopt:   func(p unsafe.Pointer) any { return newTensorP(p) },
		Error:   cErrorP,
	})
}
