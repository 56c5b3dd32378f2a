package torch

import (
	"fmt"
	"reflect"
)

// DType is a tensor element type. The values are libtorch's c10::ScalarType.
type DType int8

// The element types, named as in PyTorch (torch.float32 is Float32).
const (
	Uint8      DType = 0
	Int8       DType = 1
	Int16      DType = 2
	Int32      DType = 3
	Int64      DType = 4
	Float16    DType = 5
	Float32    DType = 6
	Float64    DType = 7
	Complex32  DType = 8
	Complex64  DType = 9
	Complex128 DType = 10
	Bool       DType = 11
	QInt8      DType = 12
	QUint8     DType = 13
	QInt32     DType = 14
	BFloat16   DType = 15
	QUint4x2   DType = 16
	QUint2x4   DType = 17
	// libtorch 2.x adds these (ErrUnsupported where the linked libtorch
	// lacks one): the bit types, float8 in four encodings (2.1 and 2.2),
	// and unsigned integers (2.3).
	Bits1x8        DType = 18
	Bits2x4        DType = 19
	Bits4x2        DType = 20
	Bits8          DType = 21
	Bits16         DType = 22
	Float8E5M2     DType = 23
	Float8E4M3FN   DType = 24
	Float8E5M2FNUZ DType = 25
	Float8E4M3FNUZ DType = 26
	Uint16         DType = 27
	Uint32         DType = 28
	Uint64         DType = 29
	numDTypes            = 30
	dtypeUnset     DType = -1
	defaultDType         = Float32
)

// PyTorch's other names for the same types.
const (
	Half          = Float16
	Float         = Float32
	Double        = Float64
	Long          = Int64
	Int           = Int32
	Short         = Int16
	ComplexFloat  = Complex64
	ComplexDouble = Complex128
)

var dtypeNames = [numDTypes]string{
	"uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
	"complex32", "complex64", "complex128", "bool", "qint8", "quint8", "qint32",
	"bfloat16", "quint4x2", "quint2x4",
	"bits1x8", "bits2x4", "bits4x2", "bits8", "bits16",
	"float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz",
	"uint16", "uint32", "uint64",
}

var dtypeSizes = [numDTypes]int{1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4, 2, 1, 1,
	1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 4, 8}

// String returns PyTorch's name, for example "torch.float32".
func (d DType) String() string {
	if d >= 0 && d < numDTypes {
		return "torch." + dtypeNames[d]
	}
	return fmt.Sprintf("torch.DType(%d)", int(d))
}

// ParseDType parses "float32", "torch.float32" or an alias such as "float".
func ParseDType(s string) (DType, error) {
	name := s
	if len(name) > 6 && name[:6] == "torch." {
		name = name[6:]
	}
	for i, n := range dtypeNames {
		if n == name {
			return DType(i), nil
		}
	}
	aliases := map[string]DType{
		"half": Half, "float": Float, "double": Double, "long": Long,
		"int": Int, "short": Short, "cfloat": Complex64, "cdouble": Complex128,
	}
	if d, ok := aliases[name]; ok {
		return d, nil
	}
	return dtypeUnset, fmt.Errorf("torch: unknown dtype %q", s)
}

// Size is the size of one element in bytes.
func (d DType) Size() int {
	if d >= 0 && d < numDTypes {
		return dtypeSizes[d]
	}
	return 0
}

// IsFloatingPoint reports whether d is a real floating-point type.
func (d DType) IsFloatingPoint() bool {
	return d == Float16 || d == Float32 || d == Float64 || d == BFloat16 ||
		(d >= Float8E5M2 && d <= Float8E4M3FNUZ)
}

// IsComplex reports whether d is a complex type.
func (d DType) IsComplex() bool {
	return d == Complex32 || d == Complex64 || d == Complex128
}

func (d DType) valid() bool { return d >= 0 && d < numDTypes }

// Element is the set of Go types that map directly onto a tensor dtype.
// int maps to Int64 (Go's int is 64 bits on every platform GoTorch supports).
// uint16, uint32 and uint64 map to the unsigned dtypes of libtorch 2.3 and
// later; with an older libtorch, a tensor of them is ErrUnsupported.
type Element interface {
	~uint8 | ~int8 | ~int16 | ~int32 | ~int64 | ~int |
		~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64 | ~complex64 | ~complex128 | ~bool
}

// DTypeOf returns the dtype that holds Go values of type T.
func DTypeOf[T Element]() DType {
	var z T
	switch any(z).(type) {
	case uint8:
		return Uint8
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64, int:
		return Int64
	case uint16:
		return Uint16
	case uint32:
		return Uint32
	case uint64:
		return Uint64
	case float32:
		return Float32
	case float64:
		return Float64
	case complex64:
		return Complex64
	case complex128:
		return Complex128
	case bool:
		return Bool
	}
	// A named type (~T): fall back on its kind.
	return dtypeOfKind(z)
}

func dtypeOfKind(v any) DType {
	switch reflect.ValueOf(v).Kind() {
	case reflect.Uint8:
		return Uint8
	case reflect.Int8:
		return Int8
	case reflect.Int16:
		return Int16
	case reflect.Int32:
		return Int32
	case reflect.Int64, reflect.Int:
		return Int64
	case reflect.Uint16:
		return Uint16
	case reflect.Uint32:
		return Uint32
	case reflect.Uint64:
		return Uint64
	case reflect.Float32:
		return Float32
	case reflect.Float64:
		return Float64
	case reflect.Complex64:
		return Complex64
	case reflect.Complex128:
		return Complex128
	case reflect.Bool:
		return Bool
	}
	panic(fmt.Sprintf("torch: no dtype for Go type %T", v))
}
