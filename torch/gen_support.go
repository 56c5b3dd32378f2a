package torch

// Helpers for the generated bindings in ops_gen.go.

/*
#include "cgotorch.h"
*/
import "C"

import "unsafe"

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// optLen is the C length of an optional list: -1 stands for None.
func optLen(n int, none bool) C.int64_t {
	if none {
		return -1
	}
	return C.int64_t(n)
}

func float64Ptr(s []float64) *C.double {
	if len(s) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&s[0]))
}

func boolMask(bs []bool) C.int {
	m := 0
	for i, b := range bs {
		if b {
			m |= 1 << i
		}
	}
	return C.int(m)
}

// tensorPtrs returns the native handles of a tensor list.
func tensorPtrs(op, arg string, ts []Tensor) ([]C.gt_tensor, error) {
	ps := make([]C.gt_tensor, len(ts))
	for i, t := range ts {
		p, err := t.ptr(op, arg)
		if err != nil {
			return nil, err
		}
		ps[i] = p
	}
	return ps, nil
}

// optTensorPtrs is tensorPtrs for Tensor?[]: the zero Tensor is None.
func optTensorPtrs(op, arg string, ts []Tensor) ([]C.gt_tensor, error) {
	ps := make([]C.gt_tensor, len(ts))
	for i, t := range ts {
		p, err := t.optPtr(op, arg)
		if err != nil {
			return nil, err
		}
		ps[i] = p
	}
	return ps, nil
}

func tensorsPtr(ps []C.gt_tensor) *C.gt_tensor {
	if len(ps) == 0 {
		return nil
	}
	return &ps[0]
}

func scalarsC(s []Scalar) []C.gt_scalar {
	out := make([]C.gt_scalar, len(s))
	for i, v := range s {
		out[i] = v.c()
	}
	return out
}

func scalarsPtr(s []C.gt_scalar) *C.gt_scalar {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

func scalarFromC(s C.gt_scalar) Scalar {
	return Scalar{i: int64(s.i), re: float64(s.re), im: float64(s.im), kind: int32(s.kind)}
}

// tensorList takes ownership of a C array of handles.
func tensorList(p *C.gt_tensor, n C.int64_t) []Tensor {
	if p == nil {
		return nil
	}
	defer C.gt_free_tensor_array(p)
	src := unsafe.Slice(p, int(n))
	out := make([]Tensor, len(src))
	for i, h := range src {
		out[i] = newTensor(h)
	}
	return out
}

// int64List takes ownership of a C array of integers.
func int64List(p *C.int64_t, n C.int64_t) []int64 {
	if p == nil {
		return nil
	}
	defer C.gt_free_int_array(p)
	return append([]int64(nil), unsafe.Slice((*int64)(unsafe.Pointer(p)), int(n))...)
}
