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
func int64Ptr(s []int64) *C.int64_t { return (*C.int64_t)(unsafe.Pointer(i64p(s))) }

func checkShape(op string, shape []int64) error {
	for i, n := range shape {
		if n < 0 {
			return newError(op, nil, "negative size %d at dimension %d of shape %v", n, i, shape)
		}
	}
	return nil
}

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
