package torch_test

import (
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// factories are the creation functions that take a shape and options.
var factories = []struct {
	name string
	op   string
	try  func(shape []int64, opts ...torch.Option) (torch.Tensor, error)
	must func(shape []int64, opts ...torch.Option) torch.Tensor
	// check the values (as float64); nil when they are arbitrary.
	check func(t *testing.T, v []float64)
}{
	{"Zeros", "zeros", torch.TryZeros, torch.Zeros, each(func(v float64) bool { return v == 0 })},
	{"Ones", "ones", torch.TryOnes, torch.Ones, each(func(v float64) bool { return v == 1 })},
	{"Empty", "empty", torch.TryEmpty, torch.Empty, nil},
	{"Rand", "rand", torch.TryRand, torch.Rand, each(func(v float64) bool { return v >= 0 && v < 1 })},
	{"RandN", "randn", torch.TryRandn, torch.Randn, each(func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) })},
	{
		"Full", "full",
		func(s []int64, o ...torch.Option) (torch.Tensor, error) { return torch.TryFull(s, torch.S(2.5), o...) },
		func(s []int64, o ...torch.Option) torch.Tensor { return torch.Full(s, torch.S(2.5), o...) },
		each(func(v float64) bool { return v == 2.5 }),
	},
}

func each(ok func(float64) bool) func(*testing.T, []float64) {
	return func(t *testing.T, v []float64) {
		t.Helper()
		for i, x := range v {
			if !ok(x) {
				t.Errorf("element %d = %v", i, x)
				return
			}
		}
	}
}

func TestFactories(t *testing.T) {
	for _, f := range factories {
		t.Run(f.name, func(t *testing.T) {
			t.Run("defaults", func(t *testing.T) {
				x := f.must(i64s(2, 3))
				defer x.Free()
				assert.Equal(t, []int64{2, 3}, x.Shape())
				assert.Equal(t, torch.Float32, x.DType())
				assert.Equal(t, torch.CPU, x.Device())
				assert.False(t, x.RequiresGrad())
				assert.True(t, x.IsLeaf())
				if f.check != nil {
					f.check(t, x.Float64s())
				}
			})
			t.Run("dtype", func(t *testing.T) {
				x := f.must(i64s(4), torch.WithDtype(torch.Float64))
				assert.Equal(t, torch.Float64, x.DType())
				assert.Equal(t, int64(32), x.NBytes())
				if f.check != nil {
					f.check(t, x.Float64s())
				}
			})
			t.Run("device", func(t *testing.T) {
				x := f.must(i64s(2), torch.WithDevice(torch.CPU))
				assert.Equal(t, torch.CPU, x.Device())
				y := f.must(i64s(2), torch.WithDevice(torch.ParseDevice("cpu:0")))
				assert.Equal(t, torch.CPUDevice, y.Device().Type)
			})
			t.Run("requires_grad", func(t *testing.T) {
				x := f.must(i64s(2, 2), torch.WithRequiresGrad(true), torch.WithDtype(torch.Float64))
				assert.True(t, x.RequiresGrad())
				assert.True(t, x.IsLeaf())
				assert.Equal(t, "", x.GradFn())
				assert.Equal(t, torch.Float64, x.DType())
				assert.False(t, f.must(i64s(1), torch.WithRequiresGrad(false)).RequiresGrad())
			})
			t.Run("0-dim and empty", func(t *testing.T) {
				s := f.must(nil)
				assert.Equal(t, int64(0), s.Dim())
				assert.Equal(t, int64(1), s.Numel())
				e := f.must(i64s(3, 0))
				assert.Equal(t, []int64{3, 0}, e.Shape())
				assert.Equal(t, int64(0), e.Numel())
			})
			t.Run("negative size", func(t *testing.T) {
				_, err := f.try(i64s(2, -1))
				te := requireTorchErr(t, f.op, err)
				assert.Contains(t, te.Msg, "negative")
				mustPanicErr(t, f.op, func() { f.must(i64s(-2)) })
				ok(t)
			})
			t.Run("invalid dtype", func(t *testing.T) {
				_, err := f.try(i64s(2), torch.WithDtype(torch.DType(99)))
				te := requireTorchErr(t, f.op, err)
				assert.Contains(t, te.Msg, "invalid dtype 99")
				ok(t)
			})
			t.Run("requires_grad on int64", func(t *testing.T) {
				_, err := f.try(i64s(2), torch.WithDtype(torch.Int64), torch.WithRequiresGrad(true))
				te := requireTorchErr(t, f.op, err)
				// Rand and Randn have no int64 kernel; the others say
				// integers cannot require gradients.
				assert.NotEmpty(t, te.Msg)
				ok(t)
			})
			t.Run("cuda", func(t *testing.T) {
				if torch.CUDAIsAvailable() {
					x := f.must(i64s(2), torch.WithDevice(torch.CUDA(0)))
					assert.Equal(t, torch.CUDA(0), x.Device())
					return
				}
				_, err := f.try(i64s(2), torch.WithDevice(torch.CUDA(0)))
				requireTorchErr(t, f.op, err)
				ok(t)
			})
		})
	}
}

func TestFactoryIntegerDTypes(t *testing.T) {
	for _, d := range []torch.DType{torch.Uint8, torch.Int8, torch.Int16, torch.Int32, torch.Int64, torch.Bool} {
		t.Run(d.String(), func(t *testing.T) {
			z := torch.Zeros(i64s(3), torch.WithDtype(d))
			o := torch.Ones(i64s(3), torch.WithDtype(d))
			assert.Equal(t, d, z.DType())
			assert.Equal(t, []int64{0, 0, 0}, z.Int64s())
			assert.Equal(t, []int64{1, 1, 1}, o.Int64s())
			assert.Equal(t, int64(3*d.Size()), o.NBytes())
		})
	}
	_, err := torch.TryOnes(i64s(2), torch.WithDtype(torch.Int64), torch.WithRequiresGrad(true))
	te := requireTorchErr(t, "ones", err)
	assert.Contains(t, te.Msg, "Only Tensors of floating point and complex dtype can require gradients")
}

func TestMetaDevice(t *testing.T) {
	meta, err := torch.TryParseDevice("meta")
	require.NoError(t, err)
	x := torch.Zeros(i64s(2, 3), torch.WithDevice(meta))
	assert.Equal(t, torch.MetaDevice, x.Device().Type)
	assert.Equal(t, []int64{2, 3}, x.Shape())
	assert.Equal(t, torch.Float32, x.DType())
	// A meta tensor has no data to copy out.
	_, err = torch.TryToSlice[float32](x)
	te := requireTorchErr(t, "to_slice", err)
	assert.Contains(t, te.Msg, "meta")
	ok(t)
}

func TestFull(t *testing.T) {
	cases := []struct {
		name  string
		value torch.Scalar
		opts  []torch.Option
		dtype torch.DType
		want  []complex128
	}{
		{"int gives int64", torch.S(3), nil, torch.Int64, []complex128{3, 3}},
		{"int8 gives int64", torch.S(int8(-3)), nil, torch.Int64, []complex128{-3, -3}},
		{"float64 gives float32", torch.S(1.5), nil, torch.Float32, []complex128{1.5, 1.5}},
		{"float32 gives float32", torch.S(float32(0.25)), nil, torch.Float32, []complex128{0.25, 0.25}},
		{"bool gives bool", torch.S(true), nil, torch.Bool, []complex128{1, 1}},
		{"complex gives complex64", torch.S(1 + 2i), nil, torch.Complex64, []complex128{1 + 2i, 1 + 2i}},
		{"dtype overrides", torch.S(3), []torch.Option{torch.WithDtype(torch.Float64)}, torch.Float64, []complex128{3, 3}},
		{"float into int", torch.S(2.0), []torch.Option{torch.WithDtype(torch.Int16)}, torch.Int16, []complex128{2, 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := torch.Full(i64s(2), tc.value, tc.opts...)
			assert.Equal(t, tc.dtype, x.DType())
			assert.Equal(t, tc.want, torch.ToSlice[complex128](x))
		})
	}
	// As in PyTorch, a fractional value is truncated into an integer dtype.
	assert.Equal(t, []int64{2, 2}, torch.Full(i64s(2), torch.S(2.5), torch.WithDtype(torch.Int64)).Int64s())
	// A complex value does not fit a real dtype.
	_, err := torch.TryFull(i64s(2), torch.S(1+2i), torch.WithDtype(torch.Float32))
	requireTorchErr(t, "full", err)
	ok(t)
}

func TestArange(t *testing.T) {
	cases := []struct {
		name       string
		start, end torch.Scalar
		step       torch.Option
		opts       []torch.Option
		dtype      torch.DType
		want       []float64
	}{
		{"ints", torch.S(0), torch.S(5), torch.WithStep(1), nil, torch.Int64, []float64{0, 1, 2, 3, 4}},
		{"int step", torch.S(1), torch.S(10), torch.WithStep(3), nil, torch.Int64, []float64{1, 4, 7}},
		{"negative step", torch.S(5), torch.S(0), torch.WithStep(-2), nil, torch.Int64, []float64{5, 3, 1}},
		{"floats", torch.S(0.0), torch.S(1.0), torch.WithStep(0.25), nil, torch.Float32, []float64{0, 0.25, 0.5, 0.75}},
		{"mixed", torch.S(0), torch.S(2.0), torch.WithStep(1), nil, torch.Float32, []float64{0, 1}},
		{"dtype", torch.S(0), torch.S(3), torch.WithStep(1), []torch.Option{torch.WithDtype(torch.Float64)}, torch.Float64, []float64{0, 1, 2}},
		{"empty", torch.S(3), torch.S(3), torch.WithStep(1), nil, torch.Int64, []float64{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := arange(tc.start, tc.end, tc.step, tc.opts...)
			assert.Equal(t, tc.dtype, x.DType())
			assert.Equal(t, []int64{int64(len(tc.want))}, x.Shape())
			assert.Equal(t, tc.want, x.Float64s())
		})
	}
	x := arange(torch.S(0.0), torch.S(2.0), torch.WithStep(1.0), torch.WithRequiresGrad(true))
	assert.True(t, x.RequiresGrad())
	assert.Equal(t, []int64{0, 1, 2}, torch.Arange(torch.S(3)).Int64s(), "arange(end)")

	for _, tc := range []struct {
		name       string
		start, end torch.Scalar
		step       torch.Option
		msg        string
	}{
		{"zero step", torch.S(0), torch.S(1), torch.WithStep(0), "step must be nonzero"},
		{"wrong sign", torch.S(5), torch.S(1), torch.WithStep(1), "inconsistent with step sign"},
	} {
		_, err := tryArange(tc.start, tc.end, tc.step)
		te := requireTorchErr(t, "arange", err)
		assert.Contains(t, te.Msg, tc.msg, tc.name)
		pe := mustPanicErr(t, "arange", func() { arange(tc.start, tc.end, tc.step) })
		assert.Equal(t, te.Msg, pe.Msg)
		ok(t)
	}
}

func TestEye(t *testing.T) {
	assert.Equal(t, []float32{1, 0, 0, 1}, torch.Eye(2).Float32s())
	assert.Equal(t, []float32{1, 0, 0, 0, 1, 0}, eye(2, 3).Float32s())
	assert.Equal(t, []int64{2, 3}, eye(2, 3).Shape())
	assert.Equal(t, []int64{1, 0, 0, 1, 0, 0}, eye(3, 2, torch.WithDtype(torch.Int64)).Int64s())
	assert.Equal(t, torch.Int64, eye(3, 2, torch.WithDtype(torch.Int64)).DType())
	assert.Equal(t, []int64{0, 4}, eye(0, 4).Shape())
	assert.True(t, eye(2, 2, torch.WithRequiresGrad(true)).RequiresGrad())

	_, err := tryEye(-1, 2)
	te := requireTorchErr(t, "eye", err)
	assert.Contains(t, te.Msg, "-1")
	mustPanicErr(t, "eye", func() { eye(2, -1) })
	ok(t)
}

func TestManualSeed(t *testing.T) {
	torch.ManualSeed(42)
	a := torch.Rand(i64s(8)).Float32s()
	an := torch.Randn(i64s(8)).Float32s()
	torch.ManualSeed(42)
	b := torch.Rand(i64s(8)).Float32s()
	bn := torch.Randn(i64s(8)).Float32s()
	assert.Equal(t, a, b)
	assert.Equal(t, an, bn)
	assert.NotEqual(t, a, torch.Rand(i64s(8)).Float32s())
}

func TestSettings(t *testing.T) {
	// GetNumThreads reads the calling OS thread's setting, which SetNumThreads
	// changes along with the process-wide one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	g := loadGolden(t)
	// Any libtorch from 1.13 on; the goldens come from the reference
	// PyTorch, 1.13.
	assert.Regexp(t, `^(1\.1[3-9]|[2-9]\.\d+)\.\d+`, torch.LibtorchVersion())
	assert.Regexp(t, `^1\.13\.`, g.TorchVersion, "golden.json must come from the reference PyTorch, 1.13")

	n := torch.GetNumThreads()
	require.GreaterOrEqual(t, n, 1)
	torch.SetNumThreads(1)
	assert.Equal(t, 1, torch.GetNumThreads())
	torch.SetNumThreads(n)
	assert.Equal(t, n, torch.GetNumThreads())
	err := mustPanicErr(t, "set_num_threads", func() { torch.SetNumThreads(0) })
	assert.Contains(t, err.Msg, "must be positive")
	assert.Equal(t, n, torch.GetNumThreads())

	if torch.CUDAIsAvailable() {
		assert.Positive(t, torch.CUDADeviceCount())
	} else {
		assert.Equal(t, 0, torch.CUDADeviceCount())
	}
}

func TestSetThreadNumThreads(t *testing.T) {
	def := torch.GetNumThreads()
	got := make(chan []int)
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := torch.TrySetThreadNumThreads(1); err != nil {
			errc <- err
			return
		}
		x := torch.Ones(i64s(256, 256)) // large enough for a parallel op
		sum := torch.Add(x, x).Sum().Item()
		got <- []int{torch.GetNumThreads(), int(sum)}
	}()
	select {
	case err := <-errc:
		require.ErrorContains(t, err, "need a libtorch built with OpenMP")
		t.Skipf("this libtorch has no per-thread setting: %v", err)
	case v := <-got:
		assert.Equal(t, []int{1, 2 * 256 * 256}, v)
	}
	assert.Equal(t, def, torch.GetNumThreads(), "other threads keep their setting")

	err := mustPanicErr(t, "set_thread_num_threads", func() { torch.SetThreadNumThreads(0) })
	assert.Contains(t, err.Msg, "must be positive")
	assert.ErrorContains(t, torch.TrySetThreadNumThreads(-3), "must be positive, got -3")
	assert.Equal(t, def, torch.GetNumThreads())
}

func TestInvalidEnumValuesAreErrorsNotAborts(t *testing.T) {
	x := torch.Ones(i64s(2))
	_, err := x.TryCumsum(0, torch.WithDtype(torch.DType(99)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "invalid dtype 99")
	_, err = torch.TryZeros(i64s(2), torch.WithLayout(torch.Layout(42)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "invalid layout 42")
	_, err = x.TryContiguous(torch.WithMemoryFormat(torch.MemoryFormat(9)))
	require.Error(t, err)
	_, err = torch.TryZeros(i64s(2), torch.WithDevice(torch.Device{Type: 100}))
	require.Error(t, err)
	assert.Equal(t, float32(2), x.Sum().Float32s()[0], "the next op works")
}
