package torch

// Helpers for the generated bindings in ops_gen.go, which call the cgo glue
// in cgotorch/ops/shard* with Go-typed arguments.

/*
#include "cgotorch.h"
*/
import "C"

import "unsafe"

// tensorResultP is tensorResult for the glue's (tensor, error) pair.
func tensorResultP(op string, t, e unsafe.Pointer, nbytes int64) (Tensor, error) {
	if e != nil {
		return Tensor{}, cError(op, C.gt_error(e))
	}
	yieldEvery()
	return newTensor(C.gt_tensor(t), nbytes), nil
}

// oomRetry reports whether e, the error of a generated op's call, is
// libtorch's out of memory. If it is, it frees e and collects the
// unreachable tensors, and the op runs once more; a second failure is the
// op's error. (Its OutOfMemoryError.Collected counts the second
// collection, which follows the second failure.)
func oomRetry(e unsafe.Pointer) bool {
	if e == nil {
		return false
	}
	if classifyOOM(C.GoString(C.gt_error(e))) == nil {
		return false
	}
	C.gt_free_error(C.gt_error(e))
	onOutOfMemory()
	oomRetries.Add(1)
	return true
}

func cErrorP(op string, e unsafe.Pointer) error {
	if e == nil {
		return nil
	}
	return cError(op, C.gt_error(e))
}

func newTensorP(t unsafe.Pointer) Tensor { return newTensorQ(C.gt_tensor(t)) }

func b32(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// optLen is the C length of an optional list: -1 stands for None.
func optLen(n int, none bool) int64 {
	if none {
		return -1
	}
	return int64(n)
}

func i64p(s []int64) *int64 {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

func f64p(s []float64) *float64 {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

func boolMask(bs []bool) int32 {
	var m int32
	for i, b := range bs {
		if b {
			m |= 1 << i
		}
	}
	return m
}

// tensorPtrs pins the tensors of a list, as ptr does, and returns their
// native handles; unpinAll ends the call. On an error nothing stays
// pinned.
func tensorPtrs(op, arg string, ts []Tensor) ([]C.gt_tensor, error) {
	return pinList(op, arg, ts, Tensor.ptr)
}

// optTensorPtrs is tensorPtrs for Tensor?[]: the zero Tensor is None.
func optTensorPtrs(op, arg string, ts []Tensor) ([]C.gt_tensor, error) {
	return pinList(op, arg, ts, Tensor.optPtr)
}

func pinList(op, arg string, ts []Tensor, pin func(Tensor, string, string) (C.gt_tensor, error)) ([]C.gt_tensor, error) {
	ps := make([]C.gt_tensor, len(ts))
	for i, t := range ts {
		p, err := pin(t, op, arg)
		if err != nil {
			unpinAll(ts[:i])
			return nil, err
		}
		ps[i] = p
	}
	return ps, nil
}

// unpinAll unpins the tensors that tensorPtrs or optTensorPtrs pinned.
func unpinAll(ts []Tensor) {
	for _, t := range ts {
		t.unpin()
	}
}

func tensorsPtr(ps []C.gt_tensor) unsafe.Pointer {
	if len(ps) == 0 {
		return nil
	}
	return unsafe.Pointer(&ps[0])
}

func scalarsC(s []Scalar) []C.gt_scalar {
	out := make([]C.gt_scalar, len(s))
	for i, v := range s {
		out[i] = v.c()
	}
	return out
}

func scalarsPtr(s []C.gt_scalar) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// tensorList takes ownership of a C array of handles.
func tensorList(p unsafe.Pointer, n int64) []Tensor {
	if p == nil {
		return nil
	}
	defer C.gt_free_tensor_array((*C.gt_tensor)(p))
	src := unsafe.Slice((*C.gt_tensor)(p), int(n))
	out := make([]Tensor, len(src))
	for i, h := range src {
		out[i] = newTensorQ(h)
	}
	return out
}

// int64List takes ownership of a C array of integers.
func int64List(p unsafe.Pointer, n int64) []int64 {
	if p == nil {
		return nil
	}
	defer C.gt_free_int_array((*C.int64_t)(p))
	return append([]int64(nil), unsafe.Slice((*int64)(p), int(n))...)
}
