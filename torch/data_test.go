package torch_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// roundTrip checks FromSlice then ToSlice for one Go element type: as a
// vector, with an explicit 2-D shape, and empty.
func roundTrip[T torch.Element](t *testing.T, data []T, dtype torch.DType) {
	t.Helper()
	require.Len(t, data, 6)
	assert.Equal(t, dtype, torch.DTypeOf[T]())

	x := torch.FromSlice(data)
	defer x.Free()
	assert.Equal(t, dtype, x.DType())
	assert.Equal(t, []int64{6}, x.Shape())
	assert.Equal(t, data, torch.ToSlice[T](x))
	assert.Equal(t, int64(6*dtype.Size()), x.NBytes())

	m := torch.FromSlice(data, 2, 3)
	defer m.Free()
	assert.Equal(t, []int64{2, 3}, m.Shape())
	assert.Equal(t, data, torch.ToSlice[T](m))

	s := torch.FromSlice(data[:1], []int64{}...)
	defer s.Free()
	assert.Equal(t, int64(0), s.Dim(), "an explicit empty shape gives a 0-dim tensor")
	assert.Equal(t, data[:1], torch.ToSlice[T](s))

	e := torch.FromSlice([]T{})
	defer e.Free()
	assert.Equal(t, dtype, e.DType())
	assert.Equal(t, []int64{0}, e.Shape())
	got := torch.ToSlice[T](e)
	assert.NotNil(t, got)
	assert.Empty(t, got)

	// The slice was copied: changing it does not change the tensor.
	orig := append([]T(nil), data...)
	data[0] = data[1]
	assert.Equal(t, orig, torch.ToSlice[T](x))
	copy(data, orig)
}

type myFloat float32
type myInt int16

func TestFromSliceToSliceRoundTrip(t *testing.T) {
	f32Inf, f32NaN := float32(math.Inf(1)), float32(math.NaN())
	t.Run("uint8", func(t *testing.T) { roundTrip(t, []uint8{0, 1, 2, 127, 128, 255}, torch.Uint8) })
	t.Run("int8", func(t *testing.T) { roundTrip(t, []int8{-128, -1, 0, 1, 2, 127}, torch.Int8) })
	t.Run("int16", func(t *testing.T) { roundTrip(t, []int16{math.MinInt16, -1, 0, 1, 300, math.MaxInt16}, torch.Int16) })
	t.Run("int32", func(t *testing.T) { roundTrip(t, []int32{math.MinInt32, -1, 0, 1, 70000, math.MaxInt32}, torch.Int32) })
	t.Run("int64", func(t *testing.T) {
		roundTrip(t, []int64{math.MinInt64, -1, 0, 1, 1<<53 + 1, math.MaxInt64}, torch.Int64)
	})
	t.Run("int", func(t *testing.T) { roundTrip(t, []int{math.MinInt64, -1, 0, 1, 1 << 40, math.MaxInt64}, torch.Int64) })
	t.Run("float32", func(t *testing.T) {
		roundTrip(t, []float32{-1.5, 0, 0.1, math.MaxFloat32, math.SmallestNonzeroFloat32, -f32Inf}, torch.Float32)
	})
	t.Run("float64", func(t *testing.T) {
		roundTrip(t, []float64{-1.5, 0, 0.1, math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(1)}, torch.Float64)
	})
	t.Run("complex64", func(t *testing.T) {
		roundTrip(t, []complex64{1 + 2i, -0.5i, 0, 3, complex(f32Inf, -1), 1e30 - 1e-30i}, torch.Complex64)
	})
	t.Run("complex128", func(t *testing.T) {
		roundTrip(t, []complex128{1 + 2i, -0.5i, 0, 3, complex(math.Inf(-1), 1), 1e300 - 1e-300i}, torch.Complex128)
	})
	t.Run("bool", func(t *testing.T) { roundTrip(t, []bool{true, false, false, true, true, false}, torch.Bool) })
	t.Run("named float32", func(t *testing.T) { roundTrip(t, []myFloat{1, 2, 3, 4, 5, 6.5}, torch.Float32) })
	t.Run("named int16", func(t *testing.T) { roundTrip(t, []myInt{1, -2, 3, 4, 5, 6}, torch.Int16) })
	t.Run("nan", func(t *testing.T) {
		x := torch.FromSlice([]float32{f32NaN, 1})
		got := x.Float32s()
		assert.True(t, math.IsNaN(float64(got[0])))
		assert.Equal(t, float32(1), got[1])
	})
}

// Types with no Go element type go through To: made from a Go slice,
// converted, read back.
func TestRoundTripThroughTo(t *testing.T) {
	cases := []struct {
		dtype torch.DType
		in    []float32
		want  []float32 // after rounding to dtype
	}{
		// 0.1 rounds to 0x2E66 in float16 and 0x3DCD in bfloat16; 3e38
		// (0x7F61B1E6) rounds up to 0x7F62 in bfloat16.
		{torch.Float16, []float32{1.5, -2, 0.1, 65504, 1e-3, 0}, []float32{1.5, -2, 0.0999755859375, 65504, 0.0010004043579101562, 0}},
		{torch.BFloat16, []float32{1.5, -2, 0.1, 3e38, 256, 0}, []float32{1.5, -2, math.Float32frombits(0x3DCD0000), math.Float32frombits(0x7F620000), 256, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.dtype.String(), func(t *testing.T) {
			x := torch.FromSlice(tc.in, 2, 3).To(tc.dtype)
			assert.Equal(t, tc.dtype, x.DType())
			assert.Equal(t, []int64{2, 3}, x.Shape())
			assert.Equal(t, int64(12), x.NBytes())
			assert.Equal(t, tc.want, x.Float32s())
			assert.Equal(t, tc.want, torch.ToSlice[float32](x.To(torch.Float32)))
			back := make([]float64, len(tc.want))
			for i, v := range tc.want {
				back[i] = float64(v)
			}
			assert.Equal(t, back, x.Float64s())
		})
	}

	t.Run("torch.complex32", func(t *testing.T) {
		in := []complex64{1 + 2i, -0.5 - 0.25i, 0, 65504i}
		x, err := torch.FromSlice(in).TryTo(torch.Complex32)
		if err != nil {
			t.Skipf("this libtorch cannot convert to complex32 (ComplexHalf): %v", err)
		}
		assert.Equal(t, torch.Complex32, x.DType())
		assert.Equal(t, int64(16), x.NBytes())
		got, err := torch.TryToSlice[complex64](x)
		if err != nil {
			t.Skipf("this libtorch cannot convert from complex32 (ComplexHalf): %v", err)
		}
		assert.Equal(t, in, got)
	})
}

// ToSlice converts the way To does.
func TestToSliceConverts(t *testing.T) {
	x := f32(1.7, -2.5, 0, 300)
	assert.Equal(t, []int64{1, -2, 0, 300}, x.Int64s(), "float to int truncates")
	assert.Equal(t, []bool{true, true, false, true}, x.Bools())
	assert.Equal(t, []float64{float64(float32(1.7)), -2.5, 0, 300}, x.Float64s())
	assert.Equal(t, []complex128{complex(float64(float32(1.7)), 0), -2.5, 0, 300}, torch.ToSlice[complex128](x))
	assert.Equal(t, []int{1, -2, 0, 300}, torch.ToSlice[int](x))

	b := torch.FromSlice([]bool{true, false})
	assert.Equal(t, []float32{1, 0}, b.Float32s())
	i := torch.FromSlice([]int64{3, -4})
	assert.Equal(t, []float64{3, -4}, i.Float64s())
	assert.Equal(t, []int8{3, -4}, torch.ToSlice[int8](i))
	// The conversion does not change the tensor.
	assert.Equal(t, torch.Int64, i.DType())
}

// TestToSliceSparse: a sparse tensor has no flat elements; the error says
// what to do, on every libtorch (2.x's own message is an internal error).
func TestToSliceSparse(t *testing.T) {
	s := f32(0, 2, 0, 3).ToSparseSparseDim(1)
	_, err := torch.TryToSlice[float32](s)
	te := requireTorchErr(t, "to_slice", err)
	assert.Contains(t, te.Msg, "layout")
	assert.Contains(t, te.Msg, "call to_dense first")
	assert.Equal(t, []float32{0, 2, 0, 3}, s.ToDense().Float32s())
}

func TestFromSliceErrors(t *testing.T) {
	cases := []struct {
		name  string
		data  []float32
		shape []int64
		msg   string
	}{
		{"too few", []float32{1, 2, 3}, i64s(2, 2), "shape [2 2] needs 4 elements, the slice has 3"},
		{"too many", []float32{1, 2, 3}, i64s(2), "needs 2 elements"},
		{"0-dim of two", []float32{1, 2}, []int64{}, "needs 1 elements"},
		{"negative", []float32{1, 2, 3}, i64s(-1, -3), "negative size -1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := torch.TryFromSlice(tc.data, tc.shape...)
			te := requireTorchErr(t, "from_slice", err)
			assert.Contains(t, te.Msg, tc.msg)
			pe := mustPanicErr(t, "from_slice", func() { torch.FromSlice(tc.data, tc.shape...) })
			assert.Equal(t, te.Msg, pe.Msg)
			ok(t)
		})
	}
}

func TestFromNested(t *testing.T) {
	cases := []struct {
		name  string
		v     any
		dtype torch.DType
		shape []int64
		want  []float64
	}{
		{"float64 scalar", 2.5, torch.Float64, []int64{}, []float64{2.5}},
		{"int scalar", 7, torch.Int64, []int64{}, []float64{7}},
		{"bool scalar", true, torch.Bool, []int64{}, []float64{1}},
		{"uint8 scalar", uint8(200), torch.Uint8, []int64{}, []float64{200}},
		{"vector", []float32{1, 2, 3}, torch.Float32, []int64{3}, []float64{1, 2, 3}},
		{"matrix", [][]int32{{1, 2, 3}, {4, 5, 6}}, torch.Int32, []int64{2, 3}, []float64{1, 2, 3, 4, 5, 6}},
		{"3-d", [][][]int8{{{1}, {2}}, {{3}, {4}}, {{5}, {6}}}, torch.Int8, []int64{3, 2, 1}, []float64{1, 2, 3, 4, 5, 6}},
		{"array", [2][3]float64{{1, 2, 3}, {4, 5, 6}}, torch.Float64, []int64{2, 3}, []float64{1, 2, 3, 4, 5, 6}},
		{"slice of arrays", [][2]int16{{1, 2}, {3, 4}}, torch.Int16, []int64{2, 2}, []float64{1, 2, 3, 4}},
		{"named type", [][]myFloat{{1.5}, {2.5}}, torch.Float32, []int64{2, 1}, []float64{1.5, 2.5}},
		{"complex", []complex128{1 + 1i, 2}, torch.Complex128, []int64{2}, []float64{1, 2}},
		{"empty", []float64{}, torch.Float64, []int64{0}, []float64{}},
		{"empty rows", [][]float32{{}, {}}, torch.Float32, []int64{2, 0}, []float64{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := torch.FromNested(tc.v)
			defer x.Free()
			assert.Equal(t, tc.dtype, x.DType())
			assert.Equal(t, tc.shape, x.Shape())
			assert.Equal(t, tc.want, x.Float64s())
		})
	}
	// Values survive exactly, not just through float64.
	assert.Equal(t, []int64{1<<53 + 1, -1}, torch.FromNested([]int64{1<<53 + 1, -1}).Int64s())
	assert.Equal(t, []bool{true, false}, torch.FromNested([][]bool{{true}, {false}}).Bools())
}

func TestFromNestedErrors(t *testing.T) {
	cases := []struct {
		name string
		v    any
		msg  string
	}{
		{"ragged rows", [][]float32{{1, 2}, {3}}, "ragged nested slice: length 1 at depth 1, expected 2"},
		{"ragged longer", [][]float32{{1}, {2, 3}}, "ragged nested slice"},
		{"ragged empty first", [][]float32{{}, {1}}, "ragged nested slice"},
		{"ragged deep", [][][]int{{{1, 2}, {3, 4}}, {{5, 6}, {7}}}, "at depth 2"},
		{"nil", nil, "nil value"},
		{"string", "abc", "not a number or bool"},
		{"any elements", []any{1.0, 2.0}, "not a number or bool"},
		{"uint", []uint{1}, "not a number or bool"},
		{"uintptr", uintptr(1), "not a number or bool"},
		{"pointer", new(float32), "not a number or bool"},
		{"map", map[int]float32{1: 2}, "not a number or bool"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x, err := torch.TryFromNested(tc.v)
			te := requireTorchErr(t, "from_nested", err)
			assert.Contains(t, te.Msg, tc.msg)
			assert.False(t, x.Defined())
			pe := mustPanicErr(t, "from_nested", func() { torch.FromNested(tc.v) })
			assert.Equal(t, te.Msg, pe.Msg)
			ok(t)
		})
	}
}

func TestItem(t *testing.T) {
	assert.Equal(t, 2.5, torch.FromNested(float32(2.5)).Item())
	assert.Equal(t, 2.5, f32(2.5).Item(), "a one-element vector")
	assert.Equal(t, 2.5, torch.FromSlice([]float32{2.5}, 1, 1).Item())
	assert.Equal(t, 7.0, torch.FromNested(7).Item())
	assert.Equal(t, 1.0, torch.FromNested(true).Item())
	assert.True(t, math.IsNaN(torch.FromNested(math.NaN()).Item()))
	assert.True(t, math.IsInf(torch.FromNested(float32(math.Inf(-1))).Item(), -1))
	assert.Equal(t, 3.0, torch.FromNested(complex64(3)).Item(), "a complex with no imaginary part")

	assert.Equal(t, int64(1<<53+1), torch.FromNested(int64(1<<53+1)).ItemInt(), "exact for int64")
	assert.Equal(t, int64(-128), torch.FromNested(int8(-128)).ItemInt())
	assert.Equal(t, int64(2), f32(2.7).ItemInt(), "truncates like int()")
	assert.Equal(t, int64(-2), f32(-2.7).ItemInt())
	assert.Equal(t, int64(1), torch.FromNested(true).ItemInt())

	// ItemBool is Python's bool(t): nonzero is true.
	for _, tc := range []struct {
		x    torch.Tensor
		want bool
	}{
		{torch.FromNested(true), true},
		{torch.FromNested(false), false},
		{torch.FromNested(3), true},
		{torch.FromNested(0), false},
		{f32(0.5), true},
		{f32(0), false},
		{f32(float32(math.NaN())), true},
		{torch.FromNested(complex64(1i)), true},
		{torch.FromNested(complex64(0)), false},
	} {
		assert.Equal(t, tc.want, tc.x.ItemBool(), "%v", tc.x)
	}

	assert.Equal(t, complex(1, 2), torch.FromNested(complex64(1+2i)).ItemComplex())
	assert.Equal(t, complex(-3, -0.5), torch.FromNested(complex(-3, -0.5)).ItemComplex())
	assert.Equal(t, complex(4, 0), torch.FromNested(int16(4)).ItemComplex())
}

func TestItemErrors(t *testing.T) {
	two, empty := f32(1, 2), torch.Zeros(i64s(0))
	cases := []struct {
		name string
		x    torch.Tensor
		msg  string
	}{
		{"two elements", two, "a Tensor with 2 elements cannot be converted to Scalar"},
		{"empty", empty, "a Tensor with 0 elements"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := tc.x
			for form, f := range map[string]func() error{
				"Item":        func() error { _, err := x.TryItem(); return err },
				"ItemInt":     func() error { _, err := x.TryItemInt(); return err },
				"ItemComplex": func() error { _, err := x.TryItemComplex(); return err },
			} {
				te := requireTorchErr(t, "item", f())
				assert.Contains(t, te.Msg, tc.msg, form)
			}
			for form, f := range map[string]func(){
				"Item":        func() { x.Item() },
				"ItemInt":     func() { x.ItemInt() },
				"ItemBool":    func() { x.ItemBool() },
				"ItemComplex": func() { x.ItemComplex() },
			} {
				pe := mustPanicErr(t, "item", f)
				assert.Contains(t, pe.Msg, tc.msg, form)
			}
			ok(t)
		})
	}
	// A NaN has no int64 value, and a complex with an imaginary part no
	// float64 value.
	_, err := f32(float32(math.NaN())).TryItemInt()
	requireTorchErr(t, "item", err)
	_, err = torch.FromNested(1 + 2i).TryItem()
	requireTorchErr(t, "item", err)
	ok(t)
}

func TestTo(t *testing.T) {
	x := f32(1.5, -2.5, 3)

	d := x.To(torch.Float64)
	assert.Equal(t, torch.Float64, d.DType())
	assert.Equal(t, []float64{1.5, -2.5, 3}, d.Float64s())
	assert.Equal(t, torch.Float32, x.DType(), "To returns a new tensor")

	i := x.To(torch.Int32)
	assert.Equal(t, torch.Int32, i.DType())
	assert.Equal(t, []int32{1, -2, 3}, torch.ToSlice[int32](i))

	b := x.To(torch.Bool)
	assert.Equal(t, []bool{true, true, true}, b.Bools())

	c := x.To(torch.Complex64)
	assert.Equal(t, []complex64{1.5, -2.5, 3}, torch.ToSlice[complex64](c))

	both := x.To(torch.CPU, torch.Float16)
	assert.Equal(t, torch.Float16, both.DType())
	assert.Equal(t, torch.CPU, both.Device())
	assert.Equal(t, torch.Float64, x.To(torch.Float16, torch.Float64).DType(), "the last dtype wins")
	assert.Equal(t, torch.Float32, x.To().DType())
	assert.Equal(t, torch.CPU, x.To(torch.ParseDevice("cpu")).Device())
}

// When nothing changes, To returns t itself (a new handle), like PyTorch:
// the same autograd leaf rather than a copy with a grad_fn.
func TestToSameIsSameTensor(t *testing.T) {
	a := leaf(1, 2)
	for _, same := range []torch.Tensor{a.To(torch.Float32), a.To(torch.CPU), a.To()} {
		assert.True(t, same.IsLeaf())
		assert.Equal(t, "", same.GradFn())
		// Backward through a result made from the handle reaches a.
		torch.Add(same, f32(0, 0)).Backward(torch.WithGradient(f32(1, 1)))
		same.Free() // freeing the new handle leaves a alone
	}
	assert.Equal(t, []float32{3, 3}, a.Grad().Float32s())
	assert.Equal(t, []float32{1, 2}, a.Float32s())

	conv := a.To(torch.Float64)
	assert.False(t, conv.IsLeaf())
	assert.Equal(t, "ToCopyBackward0", conv.GradFn())
}

func TestToErrors(t *testing.T) {
	x := f32(1, 2)
	_, err := x.TryTo(torch.DType(50))
	te := requireTorchErr(t, "to", err)
	assert.Contains(t, te.Msg, "invalid dtype 50")
	mustPanicErr(t, "to", func() { x.To(torch.DType(-1)) })
	ok(t)

	if torch.CUDAIsAvailable() {
		g := x.To(torch.CUDA(0))
		assert.Equal(t, torch.CUDA(0), g.Device())
		assert.Equal(t, []float32{1, 2}, g.To(torch.CPU).Float32s())
		assert.Equal(t, []float32{1, 2}, g.Float32s(), "ToSlice copies from the device")
	} else {
		_, err := x.TryTo(torch.CUDA(0))
		requireTorchErr(t, "to", err)
		mustPanicErr(t, "to", func() { x.To(torch.CUDA(0)) })
		ok(t)
	}
}

func TestCloneDetachContiguous(t *testing.T) {
	a := torch.FromSlice([]float32{1, 2, 3, 4}, 2, 2).SetRequiresGrad(true)

	c := a.Clone()
	assert.Equal(t, a.Float32s(), c.Float32s())
	assert.Equal(t, a.Shape(), c.Shape())
	assert.Equal(t, "CloneBackward0", c.GradFn())
	assert.True(t, c.RequiresGrad())
	// Gradients flow back through a clone.
	c.Backward(torch.WithGradient(torch.Full(i64s(2, 2), torch.S(float32(2)))))
	assert.Equal(t, []float32{2, 2, 2, 2}, a.Grad().Float32s())
	c.Free()
	assert.True(t, a.Defined(), "freeing the clone leaves the original")

	d := a.Detach()
	assert.Equal(t, a.Float32s(), d.Float32s())
	assert.False(t, d.RequiresGrad())
	assert.True(t, d.IsLeaf())
	assert.Equal(t, "", d.GradFn())
	assert.True(t, a.RequiresGrad(), "Detach leaves the original alone")
	// Nothing done with d reaches a.
	e := torch.Add(d, d)
	assert.False(t, e.RequiresGrad())
	d.Free()
	assert.Equal(t, []float32{1, 2, 3, 4}, a.Float32s())

	k := a.Contiguous()
	assert.Equal(t, a.Float32s(), k.Float32s())
	assert.Equal(t, a.Shape(), k.Shape())

	// All three on every dtype class.
	for _, x := range []torch.Tensor{
		torch.FromSlice([]int64{1, 2}), torch.FromSlice([]bool{true}), torch.FromSlice([]complex64{1i}),
		f32(1, 2).To(torch.BFloat16), torch.Zeros(i64s(0, 2)),
	} {
		for _, y := range []torch.Tensor{x.Clone(), x.Detach(), x.Contiguous()} {
			assert.Equal(t, x.DType(), y.DType())
			assert.Equal(t, x.Shape(), y.Shape())
			assert.Equal(t, torch.ToSlice[complex128](x), torch.ToSlice[complex128](y))
		}
	}
}
