package torch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

func TestDTypes(t *testing.T) {
	cases := []struct {
		d        torch.DType
		name     string
		size     int
		floating bool
		complex  bool
	}{
		{torch.Uint8, "torch.uint8", 1, false, false},
		{torch.Int8, "torch.int8", 1, false, false},
		{torch.Int16, "torch.int16", 2, false, false},
		{torch.Int32, "torch.int32", 4, false, false},
		{torch.Int64, "torch.int64", 8, false, false},
		{torch.Float16, "torch.float16", 2, true, false},
		{torch.Float32, "torch.float32", 4, true, false},
		{torch.Float64, "torch.float64", 8, true, false},
		{torch.Complex32, "torch.complex32", 4, false, true},
		{torch.Complex64, "torch.complex64", 8, false, true},
		{torch.Complex128, "torch.complex128", 16, false, true},
		{torch.Bool, "torch.bool", 1, false, false},
		{torch.QInt8, "torch.qint8", 1, false, false},
		{torch.QUint8, "torch.quint8", 1, false, false},
		{torch.QInt32, "torch.qint32", 4, false, false},
		{torch.BFloat16, "torch.bfloat16", 2, true, false},
		{torch.QUint4x2, "torch.quint4x2", 1, false, false},
		{torch.QUint2x4, "torch.quint2x4", 1, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.name, tc.d.String())
			assert.Equal(t, tc.size, tc.d.Size())
			assert.Equal(t, tc.floating, tc.d.IsFloatingPoint())
			assert.Equal(t, tc.complex, tc.d.IsComplex())
			for _, s := range []string{tc.name, tc.name[len("torch."):]} {
				d, err := torch.ParseDType(s)
				require.NoError(t, err, s)
				assert.Equal(t, tc.d, d, s)
			}
			// libtorch agrees on the element size of the plain types.
			switch tc.d {
			case torch.QInt8, torch.QUint8, torch.QInt32, torch.QUint4x2, torch.QUint2x4:
			default:
				x := torch.Empty(i64s(5), torch.WithDtype(tc.d))
				assert.Equal(t, tc.d, x.DType())
				assert.Equal(t, int64(5*tc.size), x.NBytes())
			}
		})
	}
	assert.Equal(t, "torch.DType(-1)", torch.DType(-1).String())
	assert.Equal(t, "torch.DType(42)", torch.DType(42).String())
	assert.Equal(t, 0, torch.DType(42).Size())
	assert.Equal(t, 0, torch.DType(-1).Size())
}

func TestParseDType(t *testing.T) {
	cases := []struct {
		in   string
		want torch.DType
	}{
		{"float32", torch.Float32},
		{"torch.float32", torch.Float32},
		{"float", torch.Float32},
		{"torch.float", torch.Float32},
		{"double", torch.Float64},
		{"half", torch.Float16},
		{"torch.half", torch.Float16},
		{"bfloat16", torch.BFloat16},
		{"long", torch.Int64},
		{"int", torch.Int32},
		{"short", torch.Int16},
		{"cfloat", torch.Complex64},
		{"cdouble", torch.Complex128},
		{"bool", torch.Bool},
		{"uint8", torch.Uint8},
	}
	for _, tc := range cases {
		d, err := torch.ParseDType(tc.in)
		if assert.NoError(t, err, tc.in) {
			assert.Equal(t, tc.want, d, tc.in)
		}
	}
	assert.Equal(t, torch.Half, torch.Float16)
	assert.Equal(t, torch.Double, torch.Float64)
	assert.Equal(t, torch.Long, torch.Int64)
	assert.Equal(t, torch.Int, torch.Int32)
	assert.Equal(t, torch.ComplexFloat, torch.Complex64)

	for _, bad := range []string{"", "torch.", "float128", "Float32", "FLOAT", "torch.torch.float32", "int4", " float32", "torch.cuda.FloatTensor"} {
		_, err := torch.ParseDType(bad)
		if assert.Error(t, err, "%q", bad) {
			assert.Contains(t, err.Error(), "unknown dtype")
		}
	}
}

func TestDTypeOf(t *testing.T) {
	assert.Equal(t, torch.Uint8, torch.DTypeOf[uint8]())
	assert.Equal(t, torch.Int8, torch.DTypeOf[int8]())
	assert.Equal(t, torch.Int16, torch.DTypeOf[int16]())
	assert.Equal(t, torch.Int32, torch.DTypeOf[int32]())
	assert.Equal(t, torch.Int64, torch.DTypeOf[int64]())
	assert.Equal(t, torch.Int64, torch.DTypeOf[int]())
	assert.Equal(t, torch.Float32, torch.DTypeOf[float32]())
	assert.Equal(t, torch.Float64, torch.DTypeOf[float64]())
	assert.Equal(t, torch.Complex64, torch.DTypeOf[complex64]())
	assert.Equal(t, torch.Complex128, torch.DTypeOf[complex128]())
	assert.Equal(t, torch.Bool, torch.DTypeOf[bool]())
	assert.Equal(t, torch.Float32, torch.DTypeOf[myFloat]())
	assert.Equal(t, torch.Int16, torch.DTypeOf[myInt]())
	type myBool bool
	assert.Equal(t, torch.Bool, torch.DTypeOf[myBool]())
}

func TestParseDevice(t *testing.T) {
	cases := []struct {
		in   string
		want torch.Device
		str  string
	}{
		{"cpu", torch.CPU, "cpu"},
		{"cpu:0", torch.Device{Type: torch.CPUDevice, Index: 0}, "cpu:0"},
		{" cpu ", torch.CPU, "cpu"},
		{"cuda", torch.Device{Type: torch.CUDADevice, Index: -1}, "cuda"},
		{"cuda:0", torch.CUDA(0), "cuda:0"},
		{"cuda:1", torch.CUDA(1), "cuda:1"},
		{"cuda:12", torch.CUDA(12), "cuda:12"},
		{"mps", torch.Device{Type: torch.MPSDevice, Index: -1}, "mps"},
		{"mps:0", torch.Device{Type: torch.MPSDevice, Index: 0}, "mps:0"},
		{"meta", torch.Device{Type: torch.MetaDevice, Index: -1}, "meta"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			d, err := torch.TryParseDevice(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, d)
			assert.Equal(t, tc.str, d.String())
			back, err := torch.TryParseDevice(d.String())
			require.NoError(t, err)
			assert.Equal(t, d, back, "String parses back")
			assert.Equal(t, d, torch.ParseDevice(tc.in))
		})
	}

	for _, bad := range []string{"", "gpu", "CUDA", "cuda:", "cuda:x", "cuda:-1", "cuda:1:2", "cpu:1", "cuda0", ":0", "tpu:0"} {
		t.Run("bad "+bad, func(t *testing.T) {
			_, err := torch.TryParseDevice(bad)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "torch: ")
			assert.Panics(t, func() { torch.ParseDevice(bad) })
		})
	}
}

func TestDeviceNames(t *testing.T) {
	assert.Equal(t, "cpu", torch.CPU.String())
	assert.Equal(t, torch.Device{Type: torch.CUDADevice, Index: 3}, torch.CUDA(3))
	assert.Equal(t, "cuda:3", torch.CUDA(3).String())
	assert.Equal(t, "cpu", torch.CPUDevice.String())
	assert.Equal(t, "cuda", torch.CUDADevice.String())
	assert.Equal(t, "mps", torch.MPSDevice.String())
	assert.Equal(t, "meta", torch.MetaDevice.String())
	assert.Equal(t, "device5", torch.DeviceType(5).String())
	assert.Equal(t, "device5:1", torch.Device{Type: 5, Index: 1}.String())
}

func TestScalar(t *testing.T) {
	type myBool bool
	type myUint8 uint8
	type myComplex complex64
	type myInt64 int64
	cases := []struct {
		s     torch.Scalar
		str   string
		float float64
	}{
		{torch.S(3), "3", 3},
		{torch.S(int8(-3)), "-3", -3},
		{torch.S(uint8(200)), "200", 200},
		{torch.S(2.5), "2.5", 2.5},
		{torch.S(float32(0.25)), "0.25", 0.25},
		{torch.S(true), "true", 1},
		{torch.S(false), "false", 0},
		{torch.S(1 + 2i), "(1+2i)", 1},
		{torch.S(myFloat(1.5)), "1.5", 1.5},
		{torch.S(myInt(-7)), "-7", -7},
		{torch.S(myInt64(-8)), "-8", -8},
		{torch.S(myUint8(9)), "9", 9},
		{torch.S(myBool(true)), "true", 1},
		{torch.S(myBool(false)), "false", 0},
		{torch.S(myComplex(2 - 1i)), "(2-1i)", 2},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.str, tc.s.String())
		assert.Equal(t, tc.float, tc.s.Float(), tc.str)
	}
}
