package torch_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// The Pythonic helpers against the generated forms they stand for, and
// against values worked out by hand.
func TestPythonicReductions(t *testing.T) {
	x := torch.FromSlice([]float64{1, 5, 2, 8, 3, 0}, 2, 3)

	assert.InDelta(t, x.Std().Item(), x.StdAll().Item(), 0)
	assert.InDeltaSlice(t, []float64{2.0816659994661326, 4.0414518843273806}, x.StdAlong(1).Float64s(), 1e-12)
	assert.Equal(t, []int64{2, 1}, x.StdAlong(1, true).Shape())
	assert.InDeltaSlice(t, []float64{24.5, 2, 2}, x.VarAlong(0).Float64s(), 1e-12)
	assert.InDelta(t, x.Var().Item(), x.VarAll().Item(), 0)

	v, m := x.VarMeanAlong(1)
	assert.InDeltaSlice(t, []float64{13.0 / 3, 49.0 / 3}, v.Float64s(), 1e-12)
	assert.InDeltaSlice(t, []float64{8.0 / 3, 11.0 / 3}, m.Float64s(), 1e-12)
	s, m := x.StdMeanAlong(0, true)
	assert.Equal(t, []int64{1, 3}, s.Shape())
	assert.InDeltaSlice(t, []float64{4.5, 4, 1}, m.Float64s(), 1e-12)
	v, m = x.VarMeanAll()
	assert.InDelta(t, x.Var().Item(), v.Item(), 1e-12)
	assert.InDelta(t, 19.0/6, m.Item(), 1e-12)
	s, _ = x.StdMeanAll()
	assert.InDelta(t, x.Std().Item(), s.Item(), 1e-12)

	assert.Equal(t, int64(3), x.ArgmaxAll().ItemInt())
	assert.Equal(t, []int64{1, 0}, x.ArgmaxAlong(1).Int64s())
	assert.Equal(t, []int64{0, 1, 1}, x.ArgminAlong(0).Int64s())
	assert.Equal(t, int64(5), x.ArgminAll().ItemInt())

	b := x.Gop_GT(1)
	assert.Equal(t, []bool{false, true}, b.AllAlong(0).Bools()[:2])
	assert.Equal(t, []bool{true, true}, b.AnyAlong(1).Bools())
	assert.Equal(t, []int64{2, 1}, b.AnyAlong(1, true).Shape())

	assert.InDelta(t, math.Sqrt(103), x.NormAll().Item(), 1e-12)
	assert.InDeltaSlice(t, []float64{5.477225575051661, 8.54400374531753}, x.NormAlong(1).Float64s(), 1e-12)
	assert.InDeltaSlice(t, []float64{
		math.Log(math.Exp(1) + math.Exp(5) + math.Exp(2)),
		math.Log(math.Exp(8) + math.Exp(3) + math.Exp(0)),
	}, x.LogsumexpAlong(1).Float64s(), 1e-12)

	vals, idx := x.TopkAlong(2, 1)
	assert.Equal(t, []float64{5, 2, 8, 3}, vals.Float64s())
	assert.Equal(t, []int64{1, 2, 0, 1}, idx.Int64s())
	vals, idx = x.SortAlong(1, true)
	assert.Equal(t, []float64{5, 2, 1, 8, 3, 0}, vals.Float64s())
	assert.Equal(t, []int64{1, 2, 0, 0, 1, 2}, idx.Int64s())
	vals, _ = x.SortAlong(0)
	assert.Equal(t, []float64{1, 3, 0, 8, 5, 2}, vals.Float64s())

	assert.Panics(t, func() { x.SortAlong(0, true, false) })
	assert.Panics(t, func() { x.StdAlong(0, true, true) })
	assert.Panics(t, func() { x.ArgmaxAlong(2) }, "dim out of range")
}

func TestPythonicOperands(t *testing.T) {
	a := torch.FromSlice([]float32{1, 2, 3})
	b := torch.FromSlice([]float32{4, 5, 6})

	assert.Equal(t, []float32{0.25, 1.25, 2.25}, a.SubAny(0.75).Float32s())
	assert.Equal(t, []float32{-3, -3, -3}, a.SubAny(b).Float32s())
	assert.Equal(t, []float32{3, 4, 5}, a.AddAny(2).Float32s())
	assert.Equal(t, []float32{5, 7, 9}, a.AddAny(b).Float32s())
	assert.Equal(t, []float32{2, 4, 6}, a.MulAny(int64(2)).Float32s())
	assert.Equal(t, []float32{4, 10, 18}, a.MulAny(b).Float32s())
	assert.Equal(t, []float32{0.5, 1, 1.5}, a.DivAny(2).Float32s())
	assert.Equal(t, []float32{0.25, 0.4, 0.5}, a.DivAny(b).Float32s())
	assert.Equal(t, []float32{1, 4, 9}, a.PowAny(2).Float32s())
	assert.Equal(t, []float32{1, 32, 729}, a.PowAny(b).Float32s())
	// Integer tensors divide to floats, as Python's / does.
	assert.Equal(t, torch.Float32, torch.FromSlice([]int64{1, 2}).DivAny(2).DType())

	assert.Equal(t, []float32{1.5, 2, 2.5}, a.ClampAny(1.5, 2.5).Float32s())
	assert.Equal(t, []float32{2, 2, 3}, a.ClampAny(2, nil).Float32s())
	assert.Equal(t, []float32{1, 2, 2}, a.ClampAny(nil, 2).Float32s())
	assert.Equal(t, []float32{4, 5, 6}, a.ClampAny(b, nil).Float32s())
	assert.Equal(t, []float32{1, 2, 3}, a.ClampAny(nil, b).Float32s())

	c := a.Gop_GT(1.5)
	assert.Equal(t, []float32{4, 2, 3}, torch.WhereAny(c.Gop_Not(), b, a).Float32s())
	assert.Equal(t, []float32{0, 2, 3}, torch.WhereAny(c, a, 0.0).Float32s())
	assert.Equal(t, []float32{4, -1, -1}, torch.WhereAny(c, -1.0, b).Float32s())
	assert.Equal(t, []float32{0, 1, 1}, torch.WhereAny(c, 1.0, 0.0).To(torch.Float32).Float32s())

	// Bad operands are errors that name the helper, not crashes.
	for name, f := range map[string]func(){
		"sub":   func() { a.SubAny("x") },
		"pow":   func() { a.PowAny(nil) },
		"clamp": func() { a.ClampAny(b, 1) },
		"where": func() { torch.WhereAny(c, []int{1}, a) },
	} {
		err := panicErr(t, f)
		assert.Equal(t, name, err.Op, name)
	}
	err := panicErr(t, func() { a.ClampAny(nil, nil) })
	assert.Contains(t, err.Msg, "min")
	// libtorch's message starts with "torch.clamp: "; Error names the op once.
	assert.Equal(t, 1, strings.Count(err.Error(), "clamp:"), err.Error())
	assert.Equal(t, "torch.clamp: At least one of 'min' or 'max' must not be None", err.Error())
}

// An option that one overload rejects names the forms that take it.
func TestBadOptionNamesOverload(t *testing.T) {
	x := torch.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	for _, tc := range []struct {
		call func() (torch.Tensor, error)
		op   string
		want string
	}{
		{func() (torch.Tensor, error) { return x.TryStd(torch.WithDim(0)) }, "std", "unexpected option dim: StdDim or StdAlong takes it"},
		{func() (torch.Tensor, error) { return x.TryVar(torch.WithKeepdim(true)) }, "var", "VarDim or VarAlong"},
		{func() (torch.Tensor, error) { return x.TrySum(torch.WithDim(1)) }, "sum", "SumDimIntList or SumAlong"},
		{func() (torch.Tensor, error) { return x.TryMean(torch.WithDim(1)) }, "mean", "MeanDim or MeanAlong"},
		{func() (torch.Tensor, error) { return x.TryStd(torch.WithCorrection(0)) }, "std", "StdCorrection"},
		{func() (torch.Tensor, error) { return x.TryMatmul(x) }, "", ""},
		// Generated hints (optForms), for ops without a Pythonic helper.
		{func() (torch.Tensor, error) { v, _, err := x.TrySort(torch.WithStable(true)); return v, err }, "sort", "unexpected option stable: SortStable takes it"},
		{func() (torch.Tensor, error) { return x.TryClamp_(torch.WithMinTensor(x)) }, "clamp_", "ClampTensor_ takes it"},
	} {
		_, err := tc.call()
		if tc.want == "" {
			assert.NoError(t, err)
			continue
		}
		var te *torch.Error
		require.True(t, errors.As(err, &te), "%v", err)
		assert.Equal(t, tc.op, te.Op)
		assert.Contains(t, te.Msg, tc.want)
	}
	// The panicking form says the same: a.Std(torch.WithDim(0)), as a
	// PyTorch user writes a.std(dim=0), names StdDim and StdAlong.
	err := panicErr(t, func() { x.Std(torch.WithDim(0)) })
	assert.Equal(t, "std", err.Op)
	assert.Contains(t, err.Msg, "unexpected option dim: StdDim or StdAlong takes it")
	// Options no other overload takes keep the plain message.
	_, plain := x.TryStd(torch.WithAlpha(1))
	require.Error(t, plain)
	assert.Equal(t, "torch.std: unexpected option alpha", plain.Error())
}

func panicErr(t *testing.T, f func()) (err *torch.Error) {
	t.Helper()
	defer func() {
		r := recover()
		require.NotNil(t, r, "no panic")
		e, ok := r.(*torch.Error)
		require.True(t, ok, "panicked with %T %v", r, r)
		err = e
	}()
	f()
	return nil
}
