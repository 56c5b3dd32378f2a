package torch

/*
#include "cgotorch.h"
*/
import "C"

import (
	"fmt"
	"math"
	"reflect"
)

// Scalar is a number passed to an op that takes a libtorch Scalar (the
// alpha of add, the value of full). Make one with S.
type Scalar struct {
	i      int64
	re, im float64
	kind   int32 // 0 int, 1 float, 2 bool, 3 complex
}

// intScalar and floatScalar make the generated code's default Scalars
// without S's type switch, which Go does not resolve at compile time for
// generic functions (10 ns of a 4×4 add).
func intScalar(v int64) Scalar     { return Scalar{i: v} }
func floatScalar(v float64) Scalar { return Scalar{re: v, kind: 1} }

// S makes a Scalar from any Go number or bool.
func S[T Element](v T) Scalar {
	switch x := any(v).(type) {
	case float32:
		return Scalar{re: float64(x), kind: 1}
	case float64:
		return Scalar{re: x, kind: 1}
	case complex64:
		return Scalar{re: float64(real(x)), im: float64(imag(x)), kind: 3}
	case complex128:
		return Scalar{re: real(x), im: imag(x), kind: 3}
	case bool:
		if x {
			return Scalar{i: 1, kind: 2}
		}
		return Scalar{kind: 2}
	case int:
		return Scalar{i: int64(x)}
	case int64:
		return Scalar{i: x}
	case int32:
		return Scalar{i: int64(x)}
	case int16:
		return Scalar{i: int64(x)}
	case int8:
		return Scalar{i: int64(x)}
	case uint8:
		return Scalar{i: int64(x)}
	}
	return scalarOfKind(reflect.ValueOf(v))
}

func scalarOfKind(v reflect.Value) Scalar {
	switch {
	case v.CanInt():
		return Scalar{i: v.Int()}
	case v.CanUint():
		u := v.Uint()
		if u > math.MaxInt64 {
			// As Python's "Overflow when unpacking long": libtorch's
			// Scalar has no unsigned 64-bit kind, and the bits as an
			// int64 would be a negative number.
			panic(newError("scalar", nil, "%s value %d overflows int64, the widest integer a Scalar holds", v.Type(), u))
		}
		return Scalar{i: int64(u)}
	case v.CanFloat():
		return Scalar{re: v.Float(), kind: 1}
	case v.CanComplex():
		c := v.Complex()
		return Scalar{re: real(c), im: imag(c), kind: 3}
	case v.Kind() == reflect.Bool:
		if v.Bool() {
			return Scalar{i: 1, kind: 2}
		}
		return Scalar{kind: 2}
	}
	panic(fmt.Sprintf("torch: %s is not a number", v.Type()))
}

// Float returns the scalar as a float64 (the real part of a complex).
func (s Scalar) Float() float64 {
	if s.kind == 1 || s.kind == 3 {
		return s.re
	}
	return float64(s.i)
}

func (s Scalar) String() string {
	switch s.kind {
	case 1:
		return fmt.Sprint(s.re)
	case 2:
		return fmt.Sprint(s.i != 0)
	case 3:
		return fmt.Sprint(complex(s.re, s.im))
	}
	return fmt.Sprint(s.i)
}

func (s Scalar) c() C.gt_scalar {
	return C.gt_scalar{i: C.int64_t(s.i), re: C.double(s.re), im: C.double(s.im), kind: C.int32_t(s.kind)}
}
