package torch

import "reflect"

// Go+ operators and Pythonic methods.
//
// Go+ turns a + b into a.Gop_Add(b), a += b into a.Gop_AddAssign(b), a < b
// into a.Gop_LT(b), -a into a.Gop_Neg(), and so on. Go only allows methods
// on Tensor in this package, so they live here; the rest of the Go+
// vocabulary (tensor literals, ones, sum(x, 1), …) is in package gopkg.
//
// The right operand is any: a Tensor, a Scalar, or a Go number (any int,
// uint, float or complex type, or bool), rather than an overload per
// type: with any, x + 2 adds the integer 2 and x + 2.0 the float 2.0, as
// in Python, and x * n works for a
// variable n of any number type. A right operand of another type panics
// with an error naming the operator. A number on the left (2 * x) does not
// compile: Go+ only looks for the method on the left operand's type, so
// write x * 2.
//
// Comparisons give Bool tensors, as in PyTorch: x < 0.5, x == y.
//
// Assignment operators (+=, -=, *=, /=) work in place, like Python's: the
// tensor that t holds changes, and every other Tensor value that shares it
// (a module's parameter, say) sees the change. As in Python, an in-place op
// on a leaf that requires grad is an error unless gradients are off
// (torch.NoGrad). On the zero Tensor{} they assign instead, as if it were
// 0 (1 for *=), so that a sum can start from a zero-valued variable:
//
//	var total torch.Tensor
//	for ... { total += loss }

// gopOperand sorts the right operand of a Go+ operator into a tensor or a
// scalar.
func gopOperand(op string, o any) (t Tensor, s Scalar, isTensor bool) {
	switch v := o.(type) {
	case Tensor:
		return v, Scalar{}, true
	case *Tensor:
		if v == nil {
			panic(newError(op, nil, "right operand is a nil *Tensor"))
		}
		return *v, Scalar{}, true
	case TempTensor:
		return v.t, Scalar{}, true
	case Scalar:
		return Tensor{}, v, false
	case int:
		return Tensor{}, Scalar{i: int64(v)}, false
	case float64:
		return Tensor{}, Scalar{re: v, kind: 1}, false
	case nil:
		panic(newError(op, nil, "right operand is nil; want a Tensor or a number"))
	}
	rv := reflect.ValueOf(o)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.Bool:
		return Tensor{}, scalarOfKind(rv), false
	}
	panic(newError(op, nil, "right operand has type %T; want a Tensor or a number", o))
}

// Gop_Add is a + b.
func (t Tensor) Gop_Add(b any) Tensor {
	if x, s, ok := gopOperand("+", b); ok {
		return releaseTemp(b, t.Add(x))
	} else {
		return t.AddScalar(s)
	}
}

// Gop_Sub is a - b.
func (t Tensor) Gop_Sub(b any) Tensor {
	if x, s, ok := gopOperand("-", b); ok {
		return releaseTemp(b, t.Sub(x))
	} else {
		return t.SubScalar(s)
	}
}

// Gop_Mul is a * b, elementwise (use Matmul for the matrix product).
func (t Tensor) Gop_Mul(b any) Tensor {
	if x, s, ok := gopOperand("*", b); ok {
		return releaseTemp(b, t.Mul(x))
	} else {
		return t.MulScalar(s)
	}
}

// Gop_Quo is a / b, true division as in Python 3: integer tensors give
// floats.
func (t Tensor) Gop_Quo(b any) Tensor {
	if x, s, ok := gopOperand("/", b); ok {
		return releaseTemp(b, t.Div(x))
	} else {
		return t.DivScalar(s)
	}
}

// Gop_Rem is a % b, Python's remainder: its sign follows b's.
func (t Tensor) Gop_Rem(b any) Tensor {
	if x, s, ok := gopOperand("%", b); ok {
		return releaseTemp(b, t.Remainder(x))
	} else {
		return t.RemainderScalar(s)
	}
}

// Gop_And is a & b: logical and of Bool tensors, bitwise and of integers.
func (t Tensor) Gop_And(b any) Tensor {
	if x, s, ok := gopOperand("&", b); ok {
		return releaseTemp(b, t.BitwiseAnd(x))
	} else {
		return t.BitwiseAndScalar(s)
	}
}

// Gop_Or is a | b: logical or of Bool tensors, bitwise or of integers.
func (t Tensor) Gop_Or(b any) Tensor {
	if x, s, ok := gopOperand("|", b); ok {
		return releaseTemp(b, t.BitwiseOr(x))
	} else {
		return t.BitwiseOrScalar(s)
	}
}

// Gop_Xor is a ^ b: logical xor of Bool tensors, bitwise xor of integers.
func (t Tensor) Gop_Xor(b any) Tensor {
	if x, s, ok := gopOperand("^", b); ok {
		return releaseTemp(b, t.BitwiseXor(x))
	} else {
		return t.BitwiseXorScalar(s)
	}
}

// Gop_Neg is -a.
func (t Tensor) Gop_Neg() Tensor { return t.Neg() }

// Gop_Dup is +a: a itself.
func (t Tensor) Gop_Dup() Tensor { return t }

// Gop_Not is ^a, Python's ~a: logical not of a Bool tensor, bitwise not of
// integers.
func (t Tensor) Gop_Not() Tensor { return t.BitwiseNot() }

// Gop_LT is a < b, a Bool tensor.
func (t Tensor) Gop_LT(b any) Tensor {
	if x, s, ok := gopOperand("<", b); ok {
		return releaseTemp(b, t.Lt(x))
	} else {
		return t.LtScalar(s)
	}
}

// Gop_LE is a <= b, a Bool tensor.
func (t Tensor) Gop_LE(b any) Tensor {
	if x, s, ok := gopOperand("<=", b); ok {
		return releaseTemp(b, t.Le(x))
	} else {
		return t.LeScalar(s)
	}
}

// Gop_GT is a > b, a Bool tensor.
func (t Tensor) Gop_GT(b any) Tensor {
	if x, s, ok := gopOperand(">", b); ok {
		return releaseTemp(b, t.Gt(x))
	} else {
		return t.GtScalar(s)
	}
}

// Gop_GE is a >= b, a Bool tensor.
func (t Tensor) Gop_GE(b any) Tensor {
	if x, s, ok := gopOperand(">=", b); ok {
		return releaseTemp(b, t.Ge(x))
	} else {
		return t.GeScalar(s)
	}
}

// Gop_EQ is a == b, elementwise: a Bool tensor (Equal tells whether two
// tensors are equal as a whole).
func (t Tensor) Gop_EQ(b any) Tensor {
	if x, s, ok := gopOperand("==", b); ok {
		return releaseTemp(b, t.Eq(x))
	} else {
		return t.EqScalar(s)
	}
}

// Gop_NE is a != b, elementwise: a Bool tensor.
func (t Tensor) Gop_NE(b any) Tensor {
	if x, s, ok := gopOperand("!=", b); ok {
		return releaseTemp(b, t.Ne(x))
	} else {
		return t.NeScalar(s)
	}
}

// gopAssign applies an in-place operator, or assigns if *t is the zero
// Tensor (identity is the value the zero Tensor stands for: 0 or 1).
func (t *Tensor) gopAssign(op string, b any, identity int64, inplace func(Tensor, bool, Tensor, Scalar)) {
	if t == nil {
		panic(newError(op, nil, "nil *Tensor"))
	}
	x, s, isTensor := gopOperand(op, b)
	if t.handle == nil {
		id := Scalar{i: identity}
		switch {
		case op == "-=" && isTensor:
			*t = x.Neg()
		case op == "-=":
			*t = pyScalarTensor(id).SubScalar(s)
		case op == "/=" && isTensor:
			*t = x.Reciprocal()
		case op == "/=":
			*t = pyScalarTensor(id).DivScalar(s)
		case isTensor:
			*t = x.Clone()
		default:
			*t = pyScalarTensor(s)
		}
		releaseTemp(b, *t)
		return
	}
	inplace(*t, isTensor, x, s)
	releaseTemp(b, *t)
}

// FullLike0 returns a 0-dim tensor holding s (torch.tensor(s) in Python):
// Int64 for an integer, Float32 for a float, Bool for a bool.
func pyScalarTensor(s Scalar) Tensor {
	switch s.kind {
	case 1:
		return Full([]int64{}, s, WithDtype(Float32))
	case 2:
		return Full([]int64{}, s, WithDtype(Bool))
	case 3:
		return Full([]int64{}, s, WithDtype(ComplexFloat))
	}
	return Full([]int64{}, s, WithDtype(Int64))
}

// Gop_AddAssign is a += b, in place.
func (t *Tensor) Gop_AddAssign(b any) {
	t.gopAssign("+=", b, 0, func(a Tensor, isT bool, x Tensor, s Scalar) {
		if isT {
			a.Add_(x)
		} else {
			a.AddScalar_(s)
		}
	})
}

// Gop_SubAssign is a -= b, in place.
func (t *Tensor) Gop_SubAssign(b any) {
	t.gopAssign("-=", b, 0, func(a Tensor, isT bool, x Tensor, s Scalar) {
		if isT {
			a.Sub_(x)
		} else {
			a.SubScalar_(s)
		}
	})
}

// Gop_MulAssign is a *= b, in place.
func (t *Tensor) Gop_MulAssign(b any) {
	t.gopAssign("*=", b, 1, func(a Tensor, isT bool, x Tensor, s Scalar) {
		if isT {
			a.Mul_(x)
		} else {
			a.MulScalar_(s)
		}
	})
}

// Gop_QuoAssign is a /= b, in place (the tensor must be a float tensor, as
// in Python).
func (t *Tensor) Gop_QuoAssign(b any) {
	t.gopAssign("/=", b, 1, func(a Tensor, isT bool, x Tensor, s Scalar) {
		if isT {
			a.Div_(x)
		} else {
			a.DivScalar_(s)
		}
	})
}

// Pythonic methods. Go+ calls x.float() as x.Float(). Names that the
// generated ops use with Go signatures (Sum, Argmax, View, …) get Python's
// through Go+ overloads instead (gop_overloads.go).

// Float is Python's x.float(): t as Float32.
func (t Tensor) Float() Tensor { return t.To(Float32) }

// Double is Python's x.double(): t as Float64.
func (t Tensor) Double() Tensor { return t.To(Float64) }

// Long is Python's x.long(): t as Int64.
func (t Tensor) Long() Tensor { return t.To(Int64) }

// Int is Python's x.int(): t as Int32.
func (t Tensor) Int() Tensor { return t.To(Int32) }

// Bool is Python's x.bool(): t as Bool.
func (t Tensor) Bool() Tensor { return t.To(Bool) }

// Cpu is Python's x.cpu(): t on the CPU.
func (t Tensor) Cpu() Tensor { return t.To(CPU) }

// Cuda is Python's x.cuda(): t on the current CUDA device.
func (t Tensor) Cuda() Tensor { return t.To(Device{CUDADevice, -1}) }

// RequiresGrad_ is Python's x.requires_grad_(on=True): SetRequiresGrad,
// with on defaulting to true.
func (t Tensor) RequiresGrad_(on ...bool) Tensor {
	if len(on) > 1 {
		panic(newError("requires_grad_", nil, "takes at most 1 argument, got %d", len(on)))
	}
	return t.SetRequiresGrad(len(on) == 0 || on[0])
}

// Dtype is Python's x.dtype: DType. (Go+ spells x.dtype as x.Dtype.)
func (t Tensor) Dtype() DType { return t.DType() }

// Ndim is Python's x.ndim: Dim.
func (t Tensor) Ndim() int64 { return t.Dim() }
