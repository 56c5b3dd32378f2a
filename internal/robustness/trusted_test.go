package robustness

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// The checks of trusted arguments (nativeCases) must not refuse valid
// calls: each op below gets arguments as PyTorch's own callers make them,
// near the edges the checks draw, and must give the right result.

func TestIntegerDivisionEdges(t *testing.T) {
	trunc, floor := torch.WithRoundingMode("trunc"), torch.WithRoundingMode("floor")
	i8 := torch.FromSlice([]int8{-128, 7})
	// int8 and int16 are promoted to int in C++: no trap, the result wraps
	// as PyTorch's does.
	r, err := torch.TryDivTensorMode(i8, torch.FromSlice([]int8{-1, -1}), trunc)
	require.NoError(t, err)
	assert.Equal(t, []int8{-128, -7}, torch.ToSlice[int8](r))
	r, err = torch.TryDivTensorMode(torch.FromSlice([]int16{math.MinInt16}), torch.FromSlice([]int16{-1}), floor)
	require.NoError(t, err)
	assert.Equal(t, []int16{math.MinInt16}, torch.ToSlice[int16](r))
	// The minimum int32 by an int64 -1 is computed in int64: it fits.
	r, err = torch.TryDivTensorMode(i32(math.MinInt32), i64(-1), trunc)
	require.NoError(t, err)
	assert.Equal(t, []int64{-math.MinInt32}, r.Int64s())
	// -1 beside the minimum, but not against it.
	r, err = torch.TryDivTensorMode(i64(math.MinInt64, 9), i64(1, -1), trunc)
	require.NoError(t, err)
	assert.Equal(t, []int64{math.MinInt64, -9}, r.Int64s())
	r, err = torch.TryRemainder(i64(math.MinInt64, -7), i64(2, -1))
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 0}, r.Int64s())
	r, err = torch.TryFmodScalar(i64(math.MinInt64), torch.S(-2))
	require.NoError(t, err)
	assert.Equal(t, []int64{0}, r.Int64s())
	// True division and floating point are not checked, and need not be.
	r, err = torch.TryDivTensorMode(i64(math.MinInt64), i64(-1))
	require.NoError(t, err)
	assert.Equal(t, []float32{float32(-float64(math.MinInt64))}, r.Float32s())
	r, err = torch.TryFloorDivideScalar(torch.FromSlice([]float64{math.MinInt64}), torch.S(-1))
	require.NoError(t, err)
	assert.Equal(t, []float64{-float64(math.MinInt64)}, r.Float64s())
	// Division by zero stays libtorch's own error.
	_, err = torch.TryDivTensorMode(i64(1), i64(0), trunc)
	assert.ErrorContains(t, err, "ZeroDivisionError")
}

func TestTrustedArgsValidCalls(t *testing.T) {
	t.Run("searchsorted sorter", func(t *testing.T) {
		r, err := torch.TrySearchsorted(f32(3, 1, 2), f32(2.5, 0), torch.WithSorter(i64(1, 2, 0)))
		require.NoError(t, err)
		assert.Equal(t, []int64{2, 0}, r.Int64s())
	})
	t.Run("segment_reduce", func(t *testing.T) {
		data := f32(1, 2, 3, 4)
		r, err := torch.TrySegmentReduce(data, "sum", torch.WithLengths(i64(2, 0, 2)))
		require.NoError(t, err)
		assert.Equal(t, []float32{3, 0, 7}, r.Float32s())
		r, err = torch.TrySegmentReduce(data, "sum", torch.WithOffsets(i64(0, 2, 2, 4)))
		require.NoError(t, err)
		assert.Equal(t, []float32{3, 0, 7}, r.Float32s())
		g, err := torch.TryInternalSegmentReduceBackward(f32(1, 1, 1), r, data, "sum", torch.WithLengths(i64(2, 0, 2)))
		require.NoError(t, err)
		assert.Equal(t, []float32{1, 1, 1, 1}, g.Float32s())
	})
	t.Run("max pooling backward", func(t *testing.T) {
		x := torch.FromSlice([]float32{1, 9, 2, 3, 4, 5, 6, 8, 7, 0, 1, 1, 2, 3, 4, 5}, 1, 1, 4, 4)
		out, idx, err := torch.TryMaxPool2dWithIndices(x, shape(2, 2), torch.WithStride(2, 2))
		require.NoError(t, err)
		g, err := torch.TryMaxPool2dWithIndicesBackward(torch.OnesLike(out), x, shape(2, 2), shape(2, 2), shape(0, 0), shape(1, 1), false, idx)
		require.NoError(t, err)
		assert.Equal(t, []float32{0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1}, g.Flatten().Float32s())
		g, err = torch.TryAdaptiveMaxPool2dBackward(torch.OnesLike(out), x, idx)
		require.NoError(t, err)
		assert.InDelta(t, 4, g.Sum().Item(), 0)
	})
	t.Run("embedding backward", func(t *testing.T) {
		g, err := torch.TryEmbeddingDenseBackward(torch.Ones(shape(3, 2)), i64(0, 3, 3), 4, -1, true)
		require.NoError(t, err)
		assert.Equal(t, []float32{1, 1, 0, 0, 0, 0, 1, 1}, g.Flatten().Float32s())
	})
	t.Run("embedding_bag backward", func(t *testing.T) {
		w := torch.Rand(shape(5, 3))
		for _, mode := range []int64{0, 1, 2} {
			_, offset2bag, bagSize, maxIdx, err := torch.TryInternalEmbeddingBag(w, i64(0, 4, 4, 2), i64(0, 1), torch.WithMode(mode))
			require.NoError(t, err)
			g, err := torch.TryInternalEmbeddingBagBackward(torch.Ones(shape(2, 3)), i64(0, 4, 4, 2), i64(0, 1), offset2bag, bagSize, maxIdx, 5, false, mode, false, torch.Tensor{})
			require.NoError(t, err, "mode %d", mode)
			assert.Equal(t, []int64{5, 3}, g.Shape(), "mode %d", mode)
		}
	})
	t.Run("nll_loss backward with ignored targets", func(t *testing.T) {
		g, err := torch.TryNllLossBackward(torch.Ones(shape(3)), torch.Rand(shape(3, 4)), i64(-100, 3, 0), torch.Tensor{}, 0, -100, torch.ScalarTensor(torch.S(2.0)))
		require.NoError(t, err)
		assert.Equal(t, []float32{0, 0, 0, 0, 0, 0, 0, -1, -1, 0, 0, 0}, g.Flatten().Float32s())
	})
	t.Run("ctc_loss with padded targets", func(t *testing.T) {
		lp := torch.Rand(shape(6, 2, 4)).LogSoftmax(2)
		// Padding past each target length is never read: -1 is allowed there.
		targets := torch.FromSlice([]int64{1, 2, 3, 1, -1, -1}, 2, 3)
		loss, err := torch.TryCtcLossIntList(lp, targets, shape(6, 5), shape(3, 1))
		require.NoError(t, err)
		assert.False(t, math.IsNaN(loss.Item()))
		nll, alpha, err := torch.TryInternalCtcLoss(lp, targets, shape(6, 5), shape(3, 1))
		require.NoError(t, err)
		g, err := torch.TryInternalCtcLossBackward(torch.Ones(shape(2)), lp, targets, shape(6, 5), shape(3, 1), nll, alpha, 0)
		require.NoError(t, err)
		assert.Equal(t, []int64{6, 2, 4}, g.Shape())
	})
	t.Run("_reshape_alias", func(t *testing.T) {
		v, err := torch.TryInternalReshapeAlias(f32(1, 2, 3, 4, 5, 6), shape(2, 3), shape(3, 1))
		require.NoError(t, err)
		assert.Equal(t, []float32{1, 2, 3, 4, 5, 6}, v.Flatten().Float32s())
		v, err = torch.TryInternalReshapeAlias(f32(1, 2, 3, 4, 5, 6).Narrow(0, 2, 4), shape(2, 2), shape(1, 2))
		require.NoError(t, err)
		assert.Equal(t, []float32{3, 5, 4, 6}, v.Flatten().Float32s())
		_, err = torch.TryInternalReshapeAlias(f32(1), shape(0, 1000), shape(1000, 1))
		require.NoError(t, err)
	})
	t.Run("sparse constructors", func(t *testing.T) {
		s, err := torch.TryInternalSparseCooTensorUnsafe(i64(2, 0).View(shape(1, 2)), f32(5, 6), shape(3))
		require.NoError(t, err)
		assert.Equal(t, []float32{6, 0, 5}, s.ToDense().Float32s())
		c, err := torch.TryInternalSparseCompressedTensorUnsafe(i64(0, 1, 2), i64(2, 0), f32(5, 6), shape(2, 3), torch.WithLayout(torch.SparseCSR))
		require.NoError(t, err)
		assert.Equal(t, []float32{0, 0, 5, 6, 0, 0}, c.ToDense().Flatten().Float32s())
		r, err := torch.TryInternalConvertIndicesFromCooToCsr(i64(0, 0, 1, 2), 3)
		require.NoError(t, err)
		assert.Equal(t, []int64{0, 2, 3, 4}, r.Int64s())
		r, err = torch.TryInternalConvertIndicesFromCsrToCoo(i64(0, 2, 3, 4), i64(0, 1, 1, 2))
		require.NoError(t, err)
		assert.Equal(t, []int64{0, 0, 1, 2, 0, 1, 1, 2}, r.Flatten().Int64s())
	})
	t.Run("linalg_ldl_solve", func(t *testing.T) {
		// An indefinite matrix with a zero diagonal: Bunch–Kaufman makes a
		// 2×2 block, negative pivots.
		a := torch.FromSlice([]float64{0, 1, 2, 1, 0, 3, 2, 3, 0}, 3, 3)
		ld, piv, err := torch.TryLinalgLdlFactor(a)
		require.NoError(t, err)
		t.Logf("pivots %v", torch.ToSlice[int32](piv))
		b := torch.FromSlice([]float64{1, 2, 3}, 3, 1)
		x, err := torch.TryLinalgLdlSolve(ld, piv, b)
		require.NoError(t, err)
		assert.InDeltaSlice(t, []float64{1, 2, 3}, torch.Mm(a, x).Flatten().Float64s(), 1e-9)
	})
	t.Run("sobol engine", func(t *testing.T) {
		state := torch.Zeros(shape(2, 30), torch.WithDtype(torch.Int64))
		_, err := torch.TryInternalSobolEngineInitializeState_(state, 2)
		require.NoError(t, err)
		pts, _, err := torch.TryInternalSobolEngineDraw(torch.Zeros(shape(2), torch.WithDtype(torch.Int64)), 4, state, 2, 0, torch.WithDtype(torch.Float32))
		require.NoError(t, err)
		assert.Equal(t, []int64{4, 2}, pts.Shape())
	})
}
