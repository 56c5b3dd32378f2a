package torch

/*
#include "cgotorch.h"
*/
import "C"

import (
	"reflect"
	"runtime"
	"unsafe"
)

// int64Ptr returns a C pointer to s's elements (nil for an empty s).
func int64Ptr(s []int64) *C.int64_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.int64_t)(unsafe.Pointer(&s[0]))
}

func checkShape(op string, shape []int64) error {
	for i, n := range shape {
		if n < 0 {
			return newError(op, nil, "negative size %d at dimension %d of shape %v", n, i, shape)
		}
	}
	return nil
}

type factoryFn func(*C.int64_t, C.int64_t, C.int32_t, C.int32_t, C.int32_t, C.int) C.gt_tensor_result

func factory(op string, f factoryFn, shape []int64, opts []Option) (Tensor, error) {
	if err := checkShape(op, shape); err != nil {
		return Tensor{}, err
	}
	to, err := parseTensorOptions(op, opts)
	if err != nil {
		return Tensor{}, err
	}
	dt, dv, di, rg := to.c()
	return tensorResult(op, f(int64Ptr(shape), C.int64_t(len(shape)), dt, dv, di, C.int(rg)))
}

func cEmpty(s *C.int64_t, n C.int64_t, dt, dv, di C.int32_t, rg C.int) C.gt_tensor_result {
	return C.gt_empty(s, n, dt, dv, di, rg)
}
func cZeros(s *C.int64_t, n C.int64_t, dt, dv, di C.int32_t, rg C.int) C.gt_tensor_result {
	return C.gt_zeros(s, n, dt, dv, di, rg)
}
func cOnes(s *C.int64_t, n C.int64_t, dt, dv, di C.int32_t, rg C.int) C.gt_tensor_result {
	return C.gt_ones(s, n, dt, dv, di, rg)
}
func cRand(s *C.int64_t, n C.int64_t, dt, dv, di C.int32_t, rg C.int) C.gt_tensor_result {
	return C.gt_rand(s, n, dt, dv, di, rg)
}
func cRandn(s *C.int64_t, n C.int64_t, dt, dv, di C.int32_t, rg C.int) C.gt_tensor_result {
	return C.gt_randn(s, n, dt, dv, di, rg)
}

// TryEmpty is Empty that returns its error.
func TryEmpty(shape []int64, opts ...Option) (Tensor, error) {
	return factory("empty", cEmpty, shape, opts)
}

// Empty returns an uninitialised tensor (torch.empty). Options: WithDtype,
// WithDevice, WithRequiresGrad.
func Empty(shape []int64, opts ...Option) Tensor { return must1(TryEmpty(shape, opts...)) }

// TryZeros is Zeros that returns its error.
func TryZeros(shape []int64, opts ...Option) (Tensor, error) {
	return factory("zeros", cZeros, shape, opts)
}

// Zeros returns a tensor of zeros (torch.zeros).
func Zeros(shape []int64, opts ...Option) Tensor { return must1(TryZeros(shape, opts...)) }

// TryOnes is Ones that returns its error.
func TryOnes(shape []int64, opts ...Option) (Tensor, error) {
	return factory("ones", cOnes, shape, opts)
}

// Ones returns a tensor of ones (torch.ones).
func Ones(shape []int64, opts ...Option) Tensor { return must1(TryOnes(shape, opts...)) }

// TryRand is Rand that returns its error.
func TryRand(shape []int64, opts ...Option) (Tensor, error) {
	return factory("rand", cRand, shape, opts)
}

// Rand returns uniform samples from [0, 1) (torch.rand).
func Rand(shape []int64, opts ...Option) Tensor { return must1(TryRand(shape, opts...)) }

// TryRandN is RandN that returns its error.
func TryRandN(shape []int64, opts ...Option) (Tensor, error) {
	return factory("randn", cRandn, shape, opts)
}

// RandN returns standard normal samples (torch.randn).
func RandN(shape []int64, opts ...Option) Tensor { return must1(TryRandN(shape, opts...)) }

// TryFull is Full that returns its error.
func TryFull(shape []int64, value Scalar, opts ...Option) (Tensor, error) {
	const op = "full"
	if err := checkShape(op, shape); err != nil {
		return Tensor{}, err
	}
	to, err := parseTensorOptions(op, opts)
	if err != nil {
		return Tensor{}, err
	}
	dt, dv, di, rg := to.c()
	return tensorResult(op, C.gt_full(int64Ptr(shape), C.int64_t(len(shape)), value.c(), dt, dv, di, C.int(rg)))
}

// Full returns a tensor filled with value (torch.full). Its dtype follows
// value's kind unless WithDtype says otherwise: S(1) gives int64, S(1.0)
// float32.
func Full(shape []int64, value Scalar, opts ...Option) Tensor {
	return must1(TryFull(shape, value, opts...))
}

// TryArange is Arange that returns its error.
func TryArange(start, end, step Scalar, opts ...Option) (Tensor, error) {
	const op = "arange"
	to, err := parseTensorOptions(op, opts)
	if err != nil {
		return Tensor{}, err
	}
	dt, dv, di, rg := to.c()
	return tensorResult(op, C.gt_arange(start.c(), end.c(), step.c(), dt, dv, di, C.int(rg)))
}

// Arange returns the values start, start+step, … up to but excluding end
// (torch.arange(start, end, step)).
func Arange(start, end, step Scalar, opts ...Option) Tensor {
	return must1(TryArange(start, end, step, opts...))
}

// TryEye is Eye that returns its error.
func TryEye(n, m int64, opts ...Option) (Tensor, error) {
	const op = "eye"
	if n < 0 || m < 0 {
		return Tensor{}, newError(op, nil, "negative size (n=%d, m=%d)", n, m)
	}
	to, err := parseTensorOptions(op, opts)
	if err != nil {
		return Tensor{}, err
	}
	dt, dv, di, rg := to.c()
	return tensorResult(op, C.gt_eye(C.int64_t(n), C.int64_t(m), dt, dv, di, C.int(rg)))
}

// Eye returns an n×m matrix with ones on the diagonal (torch.eye(n, m)).
func Eye(n, m int64, opts ...Option) Tensor { return must1(TryEye(n, m, opts...)) }

// TryFromSlice is FromSlice that returns its error.
func TryFromSlice[T Element](data []T, shape ...int64) (Tensor, error) {
	const op = "from_slice"
	if shape == nil {
		shape = []int64{int64(len(data))}
	}
	if err := checkShape(op, shape); err != nil {
		return Tensor{}, err
	}
	n := int64(1)
	for _, s := range shape {
		n *= s
	}
	if n != int64(len(data)) {
		return Tensor{}, newError(op, nil, "shape %v needs %d elements, the slice has %d", shape, n, len(data))
	}
	var ptr unsafe.Pointer
	if len(data) > 0 {
		ptr = unsafe.Pointer(&data[0])
	}
	return tensorResult(op, C.gt_tensor_from_blob(ptr, int64Ptr(shape), C.int64_t(len(shape)), C.int32_t(DTypeOf[T]())))
}

// FromSlice copies data into a new CPU tensor of the given shape (the
// slice's length when no shape is given). The dtype follows T: float32
// gives Float32, int and int64 give Int64, bool gives Bool.
func FromSlice[T Element](data []T, shape ...int64) Tensor {
	return must1(TryFromSlice(data, shape...))
}

// TryFromNested is FromNested that returns its error.
func TryFromNested(v any) (Tensor, error) {
	const op = "from_nested"
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return Tensor{}, newError(op, nil, "nil value")
	}
	var shape []int64
	t := rv.Type()
	for k := t.Kind(); k == reflect.Slice || k == reflect.Array; k = t.Kind() {
		t = t.Elem()
	}
	elem := reflect.New(t).Elem().Interface()
	dtype, err := func() (d DType, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = newError(op, nil, "element type %s is not a number or bool", t)
			}
		}()
		return dtypeOfKind(elem), nil
	}()
	if err != nil {
		return Tensor{}, err
	}
	// Walk the first element of each level for the shape.
	for cur := rv; cur.Kind() == reflect.Slice || cur.Kind() == reflect.Array; {
		shape = append(shape, int64(cur.Len()))
		if cur.Len() == 0 {
			break
		}
		cur = cur.Index(0)
	}
	n := int64(1)
	for _, s := range shape {
		n *= s
	}
	flat := reflect.MakeSlice(reflect.SliceOf(t), 0, int(n))
	var walk func(cur reflect.Value, depth int) error
	walk = func(cur reflect.Value, depth int) error {
		if depth == len(shape) {
			flat = reflect.Append(flat, cur)
			return nil
		}
		if cur.Kind() != reflect.Slice && cur.Kind() != reflect.Array {
			return newError(op, nil, "ragged nested slice: expected a slice at depth %d", depth)
		}
		if int64(cur.Len()) != shape[depth] {
			return newError(op, nil, "ragged nested slice: length %d at depth %d, expected %d", cur.Len(), depth, shape[depth])
		}
		for i := 0; i < cur.Len(); i++ {
			if err := walk(cur.Index(i), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(rv, 0); err != nil {
		return Tensor{}, err
	}
	if flat.Type().Elem() != reflect.TypeOf(elem) {
		return Tensor{}, newError(op, nil, "unsupported element type %s", t)
	}
	var ptr unsafe.Pointer
	if flat.Len() > 0 {
		ptr = flat.Index(0).Addr().UnsafePointer()
	}
	r := C.gt_tensor_from_blob(ptr, int64Ptr(shape), C.int64_t(len(shape)), C.int32_t(dtype))
	runtime.KeepAlive(flat)
	return tensorResult(op, r)
}

// FromNested copies a Go value into a new CPU tensor: a number gives a
// 0-dim tensor, []T a vector, [][]T a matrix, and so on. Nested slices must
// not be ragged.
func FromNested(v any) Tensor { return must1(TryFromNested(v)) }
