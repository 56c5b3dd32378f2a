package golden_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/torch"
)

func TestFor(t *testing.T) {
	f32 := golden.For(torch.Float32)
	assert.Equal(t, golden.AtolEps*0x1p-23, f32.Atol)
	assert.Equal(t, golden.RtolEps*0x1p-23, f32.Rtol)
	assert.Equal(t, f32, golden.For(torch.Complex64))
	f64 := golden.For(torch.Float64)
	assert.Equal(t, golden.AtolEps*0x1p-52, f64.Atol)
	assert.Equal(t, golden.RtolEps*0x1p-52, f64.Rtol)
	assert.Equal(t, golden.Tolerance{}, golden.For(torch.Int64), "integers compare exactly")
	assert.Equal(t, golden.Tolerance{}, golden.For(torch.Bool))
	assert.Greater(t, golden.For(torch.BFloat16).Rtol, golden.For(torch.Float16).Rtol)
	assert.Equal(t, golden.Tolerance{Atol: 3 * f32.Atol, Rtol: 3 * f32.Rtol}, f32.Times(3))
}

func TestClose(t *testing.T) {
	tol := golden.Tolerance{Atol: 1e-6, Rtol: 1e-4}
	for _, c := range []struct {
		want, got float64
		ok        bool
	}{
		{1, 1, true},
		{1, 1 + 1.009e-4, true}, // 1e-6 + 1e-4
		{1, 1 + 1.02e-4, false},
		{-100, -100.0099, true}, // 1e-6 + 1e-2
		{-100, -100.0101, false},
		{0, 0.9e-6, true}, // atol near zero
		{0, 1.1e-6, false},
		{math.NaN(), math.NaN(), true},
		{math.NaN(), 0, false},
		{0, math.NaN(), false},
		{math.Inf(1), math.Inf(1), true},
		{math.Inf(1), math.Inf(-1), false},
		{math.Inf(-1), -1e300, false},
		{1e300, math.Inf(1), false},
	} {
		assert.Equal(t, c.ok, tol.Close(c.want, c.got), "want %v, got %v", c.want, c.got)
	}
	assert.True(t, golden.Close(1, 1+1e-5, torch.Float32))
	assert.False(t, golden.Close(1, 1+1e-3, torch.Float32))
	assert.False(t, golden.Close(1, 1+1e-5, torch.Float64))
	assert.False(t, golden.Close(3, 4, torch.Int64))
}

// recorder is a testing.TB that records errors instead of failing.
type recorder struct {
	testing.TB
	errors []string
	failed bool
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) FailNow() { r.failed = true }

func TestAllClose(t *testing.T) {
	r := &recorder{TB: t}
	assert.True(t, golden.AllClose(r, []float64{1, 2}, []float64{1, 2 + 1e-6}, torch.Float32, "x"))
	assert.Empty(t, r.errors)

	assert.False(t, golden.AllClose(r, []float64{1, 2}, []float64{1}, torch.Float32, "x of %s", "y"))
	require.Len(t, r.errors, 1)
	assert.Equal(t, "x of y: 1 values, PyTorch has 2", r.errors[0])

	r.errors = nil
	want := []float64{0, 1, 2, 3, 4, 5}
	got := []float64{0.5, 1, 2.5, 3.5, 4.5, 5.5}
	assert.False(t, golden.AllClose(r, want, got, torch.Float32, "W after step %d", 3))
	require.Len(t, r.errors, 4, "three elements, then the count")
	assert.Contains(t, r.errors[0], "W after step 3: element 0: PyTorch 0, GoTorch 0.5 (|diff| 0.5, tolerance 7.63e-06)")
	assert.Contains(t, r.errors[2], "element 3:")
	assert.Equal(t, "W after step 3: 5 of 6 values differ", r.errors[3])

	r.errors = nil
	golden.RequireAllClose(r, want, want, torch.Float64, "same")
	assert.False(t, r.failed)
	golden.RequireAllClose(r, want, got, torch.Float64, "differs")
	assert.True(t, r.failed)
}

func TestTensorClose(t *testing.T) {
	r := &recorder{TB: t}
	x := torch.FromSlice([]float32{1, -2.5})
	assert.True(t, golden.TensorClose(r, []float64{1, -2.5000001}, x, "x"))
	assert.False(t, golden.TensorClose(r, []float64{1, -2.6}, x, "x"))
	c := torch.FromSlice([]complex64{complex(1, 2), complex(-3, 0.5)})
	assert.True(t, golden.TensorClose(r, []float64{1, 2, -3, 0.5}, c, "c"))
	assert.False(t, golden.TensorClose(r, []float64{1, 2, -3, 0.6}, c, "c"))
	n := torch.FromSlice([]int64{7, 8})
	assert.True(t, golden.TensorClose(r, []float64{7, 8}, n, "n"))
	assert.False(t, golden.TensorClose(r, []float64{7, 8.0000001}, n, "n"))
}

func TestNormwiseClose(t *testing.T) {
	cases := []struct {
		name      string
		want, got []float64
		ok        bool
	}{
		{"exact", []float64{1, -100}, []float64{1, -100}, true},
		// A near-zero element may move by rel times the largest value.
		{"near zero, within the scale", []float64{1e-12, -100}, []float64{5e-7, -100}, true},
		{"near zero, beyond the scale", []float64{1e-12, -100}, []float64{2e-6, -100}, false},
		{"largest element", []float64{1, -100}, []float64{1, -100.000002}, false},
		{"wrong length", []float64{1, 2}, []float64{1}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{TB: t}
			assert.Equal(t, c.ok, golden.NormwiseClose(r, c.want, c.got, 1e-8, "grad of %s", "w"))
			assert.Equal(t, c.ok, len(r.errors) == 0, r.errors)
			if !c.ok && len(c.want) == len(c.got) {
				assert.Contains(t, r.errors[0], "grad of w: element ")
				assert.Contains(t, r.errors[0], "norm-wise tolerance")
			}
		})
	}
}
