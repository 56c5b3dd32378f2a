package jit

/*
#include <stdlib.h>
#include "jit/jit.h"
*/
import "C"

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"unsafe"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/internal/native"
)

// Kwargs, as the last argument of Forward or Method, passes keyword
// arguments by name, as Python's m.method(x, k=3) does.
type Kwargs map[string]any

// MaxDepth bounds the nesting of the values that cross between Go and
// TorchScript, both ways: a slice, map or tuple inside another counts one
// level. A deeper argument or result is an error that names the limit
// (libtorch converts them recursively, on the native stack), and so is a
// Go value that contains itself.
const MaxDepth = 1000

// MaxValues bounds the values in one call's arguments, and in its result,
// all levels together; a slice reached twice counts twice, as it is
// converted twice.
const MaxValues = 1 << 22

// The C side's limits (jit.h) are the same: either index is a compile
// error otherwise.
var (
	_ = [1]struct{}{}[MaxDepth-C.GT_JIT_MAX_DEPTH]
	_ = [1]struct{}{}[MaxValues-C.GT_JIT_MAX_VALUES]
)

// encoder lays Go values out as the flat tree of jit.h. It borrows every
// tensor it meets; release ends the borrows.
type encoder struct {
	op       string
	nodes    []C.gt_jit_value
	strs     []byte
	borrowed []torch.Tensor
	depth    int            // of the value being encoded
	open     map[visit]bool // the slices, maps and pointers being encoded
}

// visit is a container's identity: a slice's is its array and length.
type visit struct {
	p uintptr
	n int
	t reflect.Type
}

// enter starts encoding a container (rv: a slice, map or pointer); leave
// ends it. A container met again inside itself is a cycle.
func (e *encoder) enter(rv reflect.Value, v any) error {
	if e.depth >= MaxDepth {
		return e.errorf("jit: an argument nested more than %d deep (the limit)", MaxDepth)
	}
	e.depth++
	if rv.Kind() == reflect.Array || (rv.Kind() == reflect.Slice && rv.Len() == 0) {
		return nil
	}
	k := visit{rv.Pointer(), 0, rv.Type()}
	if rv.Kind() == reflect.Slice {
		k.n = rv.Len()
	}
	if e.open[k] {
		e.depth--
		return e.errorf("jit: an argument that contains itself (a %T inside itself)", v)
	}
	if e.open == nil {
		e.open = map[visit]bool{}
	}
	e.open[k] = true
	return nil
}

func (e *encoder) leave(rv reflect.Value) {
	e.depth--
	if rv.Kind() == reflect.Array || (rv.Kind() == reflect.Slice && rv.Len() == 0) {
		return
	}
	k := visit{rv.Pointer(), 0, rv.Type()}
	if rv.Kind() == reflect.Slice {
		k.n = rv.Len()
	}
	delete(e.open, k)
}

func (e *encoder) release() {
	for _, t := range e.borrowed {
		native.Release(t)
	}
	e.borrowed = nil
}

func (e *encoder) add(kind C.int32_t) int {
	e.nodes = append(e.nodes, C.gt_jit_value{kind: kind})
	return len(e.nodes) - 1
}

// full reports whether another node would pass MaxValues.
func (e *encoder) full() error {
	if len(e.nodes) >= MaxValues {
		return e.errorf("jit: arguments of more than %d values (the limit; a slice reached twice counts twice)", MaxValues)
	}
	return nil
}

func (e *encoder) errorf(format string, args ...any) error {
	return &torch.Error{Op: e.op, Msg: fmt.Sprintf(format, args...)}
}

// kindOf is the node kind of a Go element type, for typed lists and dicts;
// 0 when the type says nothing (any).
func kindOf(t reflect.Type) C.int32_t {
	if t == tensorType {
		return C.GT_JIT_TENSOR
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return C.GT_JIT_INT
	case reflect.Float32, reflect.Float64:
		return C.GT_JIT_DOUBLE
	case reflect.Bool:
		return C.GT_JIT_BOOL
	case reflect.String:
		return C.GT_JIT_STRING
	}
	return 0
}

var (
	tensorType = reflect.TypeFor[torch.Tensor]()
	deviceType = reflect.TypeFor[torch.Device]()
)

func (e *encoder) encode(v any) error {
	if err := e.full(); err != nil {
		return err
	}
	switch x := v.(type) {
	case nil:
		e.add(C.GT_JIT_NONE)
		return nil
	case torch.Tensor:
		// An undefined or freed tensor is an error; None is nil.
		p, err := native.Borrow(x, e.op, "argument")
		if err != nil {
			return err
		}
		i := e.add(C.GT_JIT_TENSOR)
		e.borrowed = append(e.borrowed, x)
		e.nodes[i].t = C.gt_tensor(p)
		return nil
	case torch.Device:
		i := e.add(C.GT_JIT_DEVICE)
		e.nodes[i].i = C.int64_t(x.Type)
		e.nodes[i].i2 = C.int64_t(x.Index)
		return nil
	case string:
		i := e.add(C.GT_JIT_STRING)
		e.nodes[i].i = C.int64_t(len(e.strs))
		e.nodes[i].n = C.int64_t(len(x))
		e.strs = append(e.strs, x...)
		return nil
	case bool:
		i := e.add(C.GT_JIT_BOOL)
		if x {
			e.nodes[i].i = 1
		}
		return nil
	case complex128:
		i := e.add(C.GT_JIT_COMPLEX)
		e.nodes[i].d, e.nodes[i].d2 = C.double(real(x)), C.double(imag(x))
		return nil
	case complex64:
		return e.encode(complex128(x))
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.nodes[e.add(C.GT_JIT_INT)].i = C.int64_t(rv.Int())
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return e.errorf("jit: %d (%T) does not fit TorchScript's int (int64)", u, v)
		}
		e.nodes[e.add(C.GT_JIT_INT)].i = C.int64_t(u)
		return nil
	case reflect.Float32, reflect.Float64:
		e.nodes[e.add(C.GT_JIT_DOUBLE)].d = C.double(rv.Float())
		return nil
	case reflect.Slice, reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 && rv.Kind() == reflect.Slice {
			return e.errorf("jit: cannot pass a []byte; convert it to a tensor or a string")
		}
		if err := e.enter(rv, v); err != nil {
			return err
		}
		defer e.leave(rv)
		i := e.add(C.GT_JIT_LIST)
		e.nodes[i].n = C.int64_t(rv.Len())
		e.nodes[i].elem = kindOf(rv.Type().Elem())
		for j := 0; j < rv.Len(); j++ {
			if err := e.encode(rv.Index(j).Interface()); err != nil {
				return err
			}
		}
		return nil
	case reflect.Map:
		if k := kindOf(rv.Type().Key()); k != C.GT_JIT_STRING && k != C.GT_JIT_INT && k != C.GT_JIT_BOOL && k != C.GT_JIT_DOUBLE {
			return e.errorf("jit: cannot pass a %T: TorchScript dict keys are str, int, float or bool", v)
		}
		if err := e.enter(rv, v); err != nil {
			return err
		}
		defer e.leave(rv)
		i := e.add(C.GT_JIT_DICT)
		e.nodes[i].n = C.int64_t(rv.Len())
		e.nodes[i].elem = kindOf(rv.Type().Elem())
		keys := rv.MapKeys()
		sort.Slice(keys, func(a, b int) bool { return lessKey(keys[a], keys[b]) })
		for _, k := range keys {
			if err := e.encode(k.Interface()); err != nil {
				return err
			}
			if err := e.encode(rv.MapIndex(k).Interface()); err != nil {
				return err
			}
		}
		return nil
	case reflect.Pointer:
		if rv.IsNil() {
			e.add(C.GT_JIT_NONE)
			return nil
		}
		if err := e.enter(rv, v); err != nil {
			return err
		}
		defer e.leave(rv)
		return e.encode(rv.Elem().Interface())
	}
	return e.errorf("jit: cannot convert a Go value of type %T to an IValue", v)
}

// lessKey orders map keys, so that a dict is built in the same order on
// every call.
func lessKey(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.String:
		return a.String() < b.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() < b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() < b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() < b.Float()
	case reflect.Bool:
		return !a.Bool() && b.Bool()
	}
	return false
}

// decoder turns a result tree into Go values. Every tensor handle in the
// tree is adopted up front, so none leaks whatever happens after.
type decoder struct {
	nodes   []C.gt_jit_value
	strs    []byte
	tensors map[int]torch.Tensor
	pos     int
	depth   int
}

func newDecoder(r *C.gt_jit_values) *decoder {
	d := &decoder{tensors: map[int]torch.Tensor{}}
	if r.n > 0 {
		d.nodes = unsafe.Slice(r.v, int(r.n))
	}
	if r.nstrs > 0 {
		d.strs = C.GoBytes(unsafe.Pointer(r.strs), C.int(r.nstrs))
	}
	for i, n := range d.nodes {
		if n.kind == C.GT_JIT_TENSOR && n.t != nil {
			d.tensors[i] = native.Adopt(unsafe.Pointer(n.t)).(torch.Tensor)
		}
	}
	return d
}

func (d *decoder) decode() any {
	i := d.pos
	n := d.nodes[i]
	d.pos++
	// The C side refuses deeper results; this keeps a broken tree from
	// recursing without bound all the same.
	if d.depth++; d.depth > MaxDepth {
		panic(fmt.Sprintf("jit: a result from C nested more than %d deep", MaxDepth))
	}
	defer func() { d.depth-- }()
	switch n.kind {
	case C.GT_JIT_NONE:
		return nil
	case C.GT_JIT_TENSOR:
		return d.tensors[i] // the zero Tensor for an undefined one
	case C.GT_JIT_INT:
		return int64(n.i)
	case C.GT_JIT_DOUBLE:
		return float64(n.d)
	case C.GT_JIT_BOOL:
		return n.i != 0
	case C.GT_JIT_COMPLEX:
		return complex(float64(n.d), float64(n.d2))
	case C.GT_JIT_STRING:
		return string(d.strs[n.i : n.i+n.n])
	case C.GT_JIT_DEVICE:
		return torch.Device{Type: torch.DeviceType(n.i), Index: int(n.i2)}
	case C.GT_JIT_TUPLE:
		return decodeSlice[any](d, int(n.n))
	case C.GT_JIT_LIST:
		switch n.elem {
		case C.GT_JIT_TENSOR:
			return decodeSlice[torch.Tensor](d, int(n.n))
		case C.GT_JIT_INT:
			return decodeSlice[int64](d, int(n.n))
		case C.GT_JIT_DOUBLE:
			return decodeSlice[float64](d, int(n.n))
		case C.GT_JIT_BOOL:
			return decodeSlice[bool](d, int(n.n))
		case C.GT_JIT_STRING:
			return decodeSlice[string](d, int(n.n))
		}
		return decodeSlice[any](d, int(n.n))
	case C.GT_JIT_DICT:
		if int(n.n) == 0 {
			// The key kind is unknown without a key; empty dicts of str
			// keys are by far the most common.
			return decodeDictValues[string](d, n, 0)
		}
		switch d.nodes[d.pos].kind {
		case C.GT_JIT_STRING:
			return decodeDictValues[string](d, n, int(n.n))
		case C.GT_JIT_INT:
			return decodeDictValues[int64](d, n, int(n.n))
		case C.GT_JIT_DOUBLE:
			return decodeDictValues[float64](d, n, int(n.n))
		case C.GT_JIT_BOOL:
			return decodeDictValues[bool](d, n, int(n.n))
		}
	}
	panic(fmt.Sprintf("jit: unexpected value kind %d from C", n.kind))
}

func decodeSlice[T any](d *decoder, n int) []T {
	s := make([]T, n)
	for i := range s {
		v := d.decode()
		if v != nil {
			s[i] = v.(T)
		}
	}
	return s
}

func decodeDictValues[K comparable](d *decoder, n C.gt_jit_value, count int) any {
	switch n.elem {
	case C.GT_JIT_TENSOR:
		return decodeDict[K, torch.Tensor](d, count)
	case C.GT_JIT_INT:
		return decodeDict[K, int64](d, count)
	case C.GT_JIT_DOUBLE:
		return decodeDict[K, float64](d, count)
	case C.GT_JIT_BOOL:
		return decodeDict[K, bool](d, count)
	case C.GT_JIT_STRING:
		return decodeDict[K, string](d, count)
	}
	return decodeDict[K, any](d, count)
}

func decodeDict[K comparable, V any](d *decoder, n int) map[K]V {
	m := make(map[K]V, n)
	for range n {
		k := d.decode().(K)
		var v V
		if x := d.decode(); x != nil {
			v = x.(V)
		}
		m[k] = v
	}
	return m
}
