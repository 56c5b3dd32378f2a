package torch

/*
#include "cgotorch.h"
*/
import "C"

func binary(op string, a, b Tensor, f func(a, b C.gt_tensor) C.gt_tensor_result) (Tensor, error) {
	pa, err := a.ptr(op, "self")
	if err != nil {
		return Tensor{}, err
	}
	pb, err := b.ptr(op, "other")
	if err != nil {
		return Tensor{}, err
	}
	r := f(pa, pb)
	a.keep()
	b.keep()
	return tensorResult(op, r)
}

func cAdd(a, b C.gt_tensor) C.gt_tensor_result { return C.gt_add(a, b) }
func cMM(a, b C.gt_tensor) C.gt_tensor_result  { return C.gt_mm(a, b) }

// TryAdd is Add that returns its error.
func TryAdd(a, b Tensor) (Tensor, error) { return binary("add", a, b, cAdd) }

// Add returns a + b, broadcasting.
func Add(a, b Tensor) Tensor { return must1(TryAdd(a, b)) }

// TryMM is MM that returns its error.
func TryMM(a, b Tensor) (Tensor, error) { return binary("mm", a, b, cMM) }

// MM is the matrix product of two 2-D tensors.
func MM(a, b Tensor) Tensor { return must1(TryMM(a, b)) }
