// Package gopkg is GoTorch's XGo (Go+) vocabulary: the functions that XGo code
// in *_train.gox and *_model.gox files calls without a package name,
// spelled as in PyTorch.
//
//	x := tensor([[1, 2], [3, 4]])   // Int64, like torch.tensor
//	w := randn(2, 3).requiresGrad_()
//	y := (x.float.matmul(w) + 1).relu
//	echo sum(y), sum(y, 1), mean(y, 0, true), argmax(y, 1)
//	z := view(y, -1)
//
// The root gox.mod (and gop.mod, for gop v1.4) lists this package on the
// project lines of GoTorch's classfiles, so XGo finds tensor as
// gopkg.Tensor, ones(2, 3) as gopkg.Ones__0(2, 3) and so on. Plain Go code can call it too, but has
// torch's own API.
//
// # The split between torch and gopkg
//
// XGo compiles operators into method calls (a + b is a.XGo_Add(b); gop
// v1.4 wrote a.Gop_Add(b), and torch has both) and
// x.argmax(1) into x.ArgmaxAlong(1) (an overload, below). Go only allows methods on torch.Tensor in
// package torch, so the operators and the Pythonic methods live there
// (torch/gop.go). Everything that is a function lives here.
//
// XGo overloads functions by name suffix (Ones__0, Ones__1) in a package
// that declares XGoPackage (or GopPackage), as this one does: ones(2, 3)
// and ones(x.shape), arange(5) and arange(0, 1, 0.1).
//
// Dimensions and sizes are int64, as everywhere in GoTorch, so x.size(0)
// and a model's int64 fields pass as they are: randn(x.size(0), latent).
// Python has one integer type and Go+ scripts hold counts in int
// variables (n := 64), so the factories and view and reshape also take
// sizes as ints: randn(n, 16). One call takes one or the other, not a mix. Package torch declares it too, for its
// methods (torch/gop_overloads.go):
//
//   - x.sum, x.sum(1), x.sum(1, true), and likewise mean, prod, std,
//     var, amax, amin, argmax, argmin, max and min (values, indices :=
//     x.max(1));
//   - x.view(-1, 784), x.reshape(2, 3), x.permute(0, 2, 1), x.flatten(1),
//     x.squeeze(1);
//   - operators take their right operand as any, so that x + 1, x + 0.5
//     and x + y all work and keep Python's int/float distinction;
//
// The functional forms are here as well, as in PyTorch (torch.sum(x, 1)):
// sum(x, 1), mean(x, 1, true), amax(x, 1), view(x, -1, 784),
// reshape(x, 2, 3), flatten(x, 1).
//
// max and min are left to Go's builtins (a gopkg Max would hide them);
// amax, amin, argmax and argmin cover PyTorch's torch.max(x, dim).
//
// A number on the left of an operator (2 * x) does not compile, since Go+
// looks for the operator's method on the left operand: write x * 2.
//
// Images, as torchvision.utils does it: makeGrid(x) and makeGrid(x, nrow)
// tile a batch [N, C, H, W] into one image; saveImage(x, path) and
// saveImage(x, path, nrow) write such a grid as a PNG (see
// examples/dcgan).
package gopkg

import (
	"fmt"
	"reflect"

	"github.com/gotorch/gotorch/torch"
)

// XGoPackage marks the package for XGo: it declares overloaded functions.
// GopPackage is the same mark for gop v1.4.
const (
	XGoPackage = true
	GopPackage = true
)

func ints64(s []int) []int64 {
	out := make([]int64, len(s))
	for i, v := range s {
		out[i] = int64(v)
	}
	return out
}

// Tensor__0 is Python's torch.tensor(data): a new tensor copied from a
// number, a bool or a (nested) Go+ slice. As in PyTorch, integers give
// Int64, floats Float32 and bools Bool; tensor([1.0, 2]) is Float32.
// A tensor gives a copy that does not require grad (x.detach().clone()),
// and a slice of tensors a stack of copies.
func Tensor__0(data any) torch.Tensor { return tensorOf(data, -1) }

// Tensor__1 is Python's torch.tensor(data, dtype=dtype).
func Tensor__1(data any, dtype torch.DType) torch.Tensor { return tensorOf(data, dtype) }

func tensorOf(data any, dtype torch.DType) torch.Tensor {
	var t torch.Tensor
	switch v := data.(type) {
	case torch.Tensor:
		t = v.Detach().Clone()
	case []torch.Tensor:
		cp := make([]torch.Tensor, len(v))
		for i, x := range v {
			cp[i] = x.Detach()
		}
		t = torch.Stack(cp)
	default:
		if hasInterface(reflect.TypeOf(data)) {
			// Go+ types [[1.0, 2], [3, 4]] as []any{[]float64, []int}.
			var err error
			if t, err = fromLiteral(data); err != nil {
				panic(fmt.Errorf("tensor(%s): %w", typeName(data), err))
			}
			break
		}
		var err error
		t, err = torch.TryFromNested(data)
		if err != nil {
			panic(fmt.Errorf("tensor(%s): %w", typeName(data), err))
		}
		// Go+ makes float64 slices from float literals; Python's default
		// float dtype is float32.
		if dtype < 0 && t.DType() == torch.Float64 && elemKind(data) == reflect.Float64 {
			dtype = torch.Float32
		}
	}
	if dtype >= 0 && t.DType() != dtype {
		t = t.To(dtype)
	}
	return t
}

// hasInterface reports whether t is or holds an interface type.
func hasInterface(t reflect.Type) bool {
	if t == nil {
		return false
	}
	for t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t.Kind() == reflect.Interface
}

// literal gathers the numbers of a nested literal with elements of mixed
// types.
type literal struct {
	shape  []int64
	leaf   int // depth of the numbers, -1 until the first
	floats []float64
	ints   []int64
	bools  []bool
	float  bool // some number is a float
	number bool // some element is a number, not a bool
}

// fromLiteral makes a tensor of a nested literal whose elements may be
// interfaces: Float32 if any number is a float, else Int64 if any is a
// number, else Bool, as torch.tensor does.
func fromLiteral(data any) (torch.Tensor, error) {
	l := &literal{leaf: -1}
	if err := l.walk(reflect.ValueOf(data), 0); err != nil {
		return torch.Tensor{}, err
	}
	switch {
	case l.float:
		f := make([]float32, len(l.floats))
		for i, v := range l.floats {
			f[i] = float32(v)
		}
		return torch.TryFromSlice(f, l.shape...)
	case l.number:
		return torch.TryFromSlice(l.ints, l.shape...)
	case len(l.bools) > 0:
		return torch.TryFromSlice(l.bools, l.shape...)
	}
	return torch.TryFromSlice([]float32{}, l.shape...)
}

func (l *literal) walk(v reflect.Value, depth int) error {
	for v.Kind() == reflect.Interface {
		if v.IsNil() {
			return fmt.Errorf("nil element at depth %d", depth)
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		if l.leaf >= 0 && depth >= l.leaf {
			return fmt.Errorf("ragged literal: a list where a number was expected at depth %d", depth)
		}
		n := int64(v.Len())
		if depth == len(l.shape) {
			l.shape = append(l.shape, n)
		} else if l.shape[depth] != n {
			return fmt.Errorf("ragged literal: length %d at depth %d, expected %d", n, depth, l.shape[depth])
		}
		if n == 0 && l.leaf < 0 {
			return nil
		}
		for i := 0; i < v.Len(); i++ {
			if err := l.walk(v.Index(i), depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if l.leaf < 0 {
		if depth != len(l.shape) {
			return fmt.Errorf("ragged literal: a number at depth %d", depth)
		}
		l.leaf = depth
	} else if depth != l.leaf {
		return fmt.Errorf("ragged literal: a number at depth %d, expected %d", depth, l.leaf)
	}
	var f float64
	var i int64
	var b bool
	switch {
	case v.CanInt():
		i, f = v.Int(), float64(v.Int())
		l.number = true
	case v.CanUint():
		i, f = int64(v.Uint()), float64(v.Uint())
		l.number = true
	case v.CanFloat():
		f = v.Float()
		i = int64(f)
		l.number, l.float = true, true
	case v.Kind() == reflect.Bool:
		b = v.Bool()
		if b {
			i, f = 1, 1
		}
	default:
		if t, ok := v.Interface().(torch.Tensor); ok && t.Defined() && t.Numel() == 1 {
			f = t.Item()
			i = int64(f)
			l.number = true
			if t.DType().IsFloatingPoint() {
				l.float = true
			}
			break
		}
		return fmt.Errorf("element of type %s is not a number or bool", v.Type())
	}
	l.floats = append(l.floats, f)
	l.ints = append(l.ints, i)
	l.bools = append(l.bools, b)
	return nil
}

func typeName(v any) string {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v).String()
}

// elemKind is the kind of the innermost element type of a nested slice.
func elemKind(v any) reflect.Kind {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t.Kind()
}

// Ones__0 is torch.ones(*size): ones(2, 3). Like every factory here it
// makes Float32 tensors; convert with x.double, x.long, x.to(dtype).
func Ones__0(size ...int64) torch.Tensor { return torch.Ones(size) }

// Ones__1 is torch.ones(size) for a shape: ones(x.shape), ones([2, 3]).
func Ones__1(size []int64) torch.Tensor { return torch.Ones(size) }

// Ones__2 is Ones__0 for sizes held in Go+ ints: n := 64; ones(n, 16).
func Ones__2(size ...int) torch.Tensor { return torch.Ones(ints64(size)) }

// Zeros__0 is torch.zeros(*size).
func Zeros__0(size ...int64) torch.Tensor { return torch.Zeros(size) }

// Zeros__1 is torch.zeros(size) for a shape.
func Zeros__1(size []int64) torch.Tensor { return torch.Zeros(size) }

// Zeros__2 is Zeros__0 for sizes held in Go+ ints: n := 64; zeros(n, 16).
func Zeros__2(size ...int) torch.Tensor { return torch.Zeros(ints64(size)) }

// Rand__0 is torch.rand(*size): uniform on [0, 1).
func Rand__0(size ...int64) torch.Tensor { return torch.Rand(size) }

// Rand__1 is torch.rand(size) for a shape.
func Rand__1(size []int64) torch.Tensor { return torch.Rand(size) }

// Rand__2 is Rand__0 for sizes held in Go+ ints: n := 64; rand(n, 16).
func Rand__2(size ...int) torch.Tensor { return torch.Rand(ints64(size)) }

// Randn__0 is torch.randn(*size): standard normal.
func Randn__0(size ...int64) torch.Tensor { return torch.Randn(size) }

// Randn__1 is torch.randn(size) for a shape.
func Randn__1(size []int64) torch.Tensor { return torch.Randn(size) }

// Randn__2 is Randn__0 for sizes held in Go+ ints: n := 64; randn(n, 16).
func Randn__2(size ...int) torch.Tensor { return torch.Randn(ints64(size)) }

// Full__0 is torch.full(size, value) for an integer value: an Int64 tensor.
func Full__0(size []int64, value int) torch.Tensor {
	return torch.Full(size, torch.S(int64(value)), torch.WithDtype(torch.Int64))
}

// Full__1 is torch.full(size, value) for a float value: a Float32 tensor.
func Full__1(size []int64, value float64) torch.Tensor {
	return torch.Full(size, torch.S(value), torch.WithDtype(torch.Float32))
}

// Full__2 is torch.full(size, value) for a bool: a Bool tensor.
func Full__2(size []int64, value bool) torch.Tensor {
	return torch.Full(size, torch.S(value), torch.WithDtype(torch.Bool))
}

// Randint__0 is torch.randint(high, size): Int64 values in [0, high).
func Randint__0(high int, size []int64) torch.Tensor { return torch.Randint(int64(high), size) }

// Randint__1 is torch.randint(low, high, size): Int64 values in
// [low, high).
func Randint__1(low, high int, size []int64) torch.Tensor {
	return torch.RandintLow(int64(low), int64(high), size)
}

// Arange__0 is torch.arange(end) with an integer end: 0, 1, …, end-1 as
// Int64.
func Arange__0(end int) torch.Tensor { return torch.Arange(torch.S(int64(end))) }

// Arange__1 is torch.arange(start, end) with integers.
func Arange__1(start, end int) torch.Tensor {
	return torch.ArangeStart(torch.S(int64(start)), torch.S(int64(end)))
}

// Arange__2 is torch.arange(start, end, step) with integers.
func Arange__2(start, end, step int) torch.Tensor {
	return torch.ArangeStartStep(torch.S(int64(start)), torch.S(int64(end)), torch.WithStep(int64(step)))
}

// Arange__3 is torch.arange(end) with a float end: Float32.
func Arange__3(end float64) torch.Tensor { return torch.Arange(torch.S(end)) }

// Arange__4 is torch.arange(start, end) with floats.
func Arange__4(start, end float64) torch.Tensor {
	return torch.ArangeStart(torch.S(start), torch.S(end))
}

// Arange__5 is torch.arange(start, end, step) with floats: arange(0, 1, 0.1).
func Arange__5(start, end, step float64) torch.Tensor {
	return torch.ArangeStartStep(torch.S(start), torch.S(end), torch.WithStep(step))
}

// Linspace is torch.linspace(start, end, steps).
func Linspace(start, end float64, steps int64) torch.Tensor {
	return torch.Linspace(torch.S(start), torch.S(end), steps)
}

// Eye__0 is torch.eye(n).
func Eye__0(n int64) torch.Tensor { return torch.Eye(n) }

// Eye__1 is torch.eye(n, m).
func Eye__1(n, m int64) torch.Tensor { return torch.EyeM(n, m) }

// OnesLike is torch.ones_like(x).
func OnesLike(x torch.Tensor) torch.Tensor { return torch.OnesLike(x) }

// ZerosLike is torch.zeros_like(x).
func ZerosLike(x torch.Tensor) torch.Tensor { return torch.ZerosLike(x) }

// RandLike is torch.rand_like(x).
func RandLike(x torch.Tensor) torch.Tensor { return torch.RandLike(x) }

// RandnLike is torch.randn_like(x).
func RandnLike(x torch.Tensor) torch.Tensor { return torch.RandnLike(x) }

// NoGrad runs f with gradient recording off, Python's
// `with torch.no_grad():`. In Go+: noGrad => { ... }.
func NoGrad(f func()) { torch.NoGrad(f) }

// ManualSeed is torch.manual_seed(seed).
func ManualSeed(seed int) { torch.ManualSeed(uint64(seed)) }
