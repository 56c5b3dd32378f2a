package torch_test

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

func flatRows(rows [][]int64) []int64 {
	var out []int64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// TestUnique compares torch.unique(x), with each of its options, and
// x.unique() with PyTorch's (testdata/lu_unique.json).
func TestUnique(t *testing.T) {
	g := loadLuUniqueGolden(t)
	x := torch.FromSlice(g.UniqueX)
	assert.Equal(t, g.Unique, torch.Unique(x).Int64s(), "torch.unique(x)")
	assert.Equal(t, g.Unique, x.Unique().Int64s(), "x.unique()")
	assert.Equal(t, g.Unique, torch.Unique(x, torch.WithSorted(true), torch.WithReturnInverse(false), torch.WithReturnCounts(false)).Int64s())

	// sorted=False: libtorch's order is a hash table's; the values are
	// the same set.
	got := torch.Unique(x, torch.WithSorted(false)).Int64s()
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	assert.Equal(t, g.Unique, got, "torch.unique(x, sorted=False), sorted here")

	v, inv, counts := x.UniqueInverseCounts()
	assert.Equal(t, g.Unique, v.Int64s())
	assert.Equal(t, g.UniqueInverse, inv.Int64s(), "return_inverse")
	assert.Equal(t, g.UniqueCounts, counts.Int64s(), "return_counts")

	m := torch.FromSlice(flatRows(g.UniqueM), int64(len(g.UniqueM)), int64(len(g.UniqueM[0])))
	d0 := torch.Unique(m, torch.WithDim(0))
	assert.Equal(t, []int64{int64(len(g.UniqueDim0)), 2}, d0.Shape())
	assert.Equal(t, flatRows(g.UniqueDim0), d0.Int64s(), "torch.unique(m, dim=0)")
	assert.Equal(t, flatRows(g.UniqueDim1), m.Unique(torch.WithDim(1)).Int64s(), "m.unique(dim=1)")

	f := torch.FromSlice(g.UniqueFloatX)
	assert.Equal(t, g.UniqueFloat, torch.Unique(f).Float64s(), "torch.unique(f)")
}

// TestUniqueErrors checks that the options returning more tensors name
// UniqueInverseCounts, and PyTorch's error for a dim out of range.
func TestUniqueErrors(t *testing.T) {
	g := loadLuUniqueGolden(t)
	x := torch.FromSlice(g.UniqueX)
	for _, o := range []torch.Option{torch.WithReturnInverse(true), torch.WithReturnCounts(true)} {
		_, err := torch.TryUnique(x, o)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "torch.unique: return_")
		assert.Contains(t, err.Error(), "UniqueInverseCounts")
		assert.Panics(t, func() { x.Unique(o) }, "x.unique takes the same options")
	}
	_, err := torch.TryUnique(x, torch.WithDtype(torch.Float32))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "torch.unique: unexpected option dtype")
	_, err = torch.TryUnique(x, torch.WithDim(0, 1))
	require.Error(t, err)
	assert.Equal(t, "torch.unique: takes one dim, got 2", err.Error())
	m := torch.FromSlice(flatRows(g.UniqueM), int64(len(g.UniqueM)), 2)
	_, err = torch.TryUnique(m, torch.WithDim(2))
	require.Error(t, err)
	assert.Contains(t, err.Error(), g.UniqueDim2Error)
	assert.Panics(t, func() { torch.Unique(torch.Tensor{}) })
}
