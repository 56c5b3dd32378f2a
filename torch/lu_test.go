package torch_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/torch"
)

// luUniqueGolden is testdata/lu_unique.json, which testdata/lu_unique.py
// writes with the reference PyTorch (lu_test.go, unique_test.go).
type luUniqueGolden struct {
	Lu              luCase    `json:"lu"`
	LuBatch         luCase    `json:"lu_batch"`
	LuBatchInfos    luCase    `json:"lu_batch_infos"`
	LuNoPivotError  string    `json:"lu_no_pivot_error"`
	LuVectorError   string    `json:"lu_vector_error"`
	UniqueX         []int64   `json:"unique_x"`
	Unique          []int64   `json:"unique"`
	UniqueInverse   []int64   `json:"unique_inverse"`
	UniqueCounts    []int64   `json:"unique_counts"`
	UniqueM         [][]int64 `json:"unique_m"`
	UniqueDim0      [][]int64 `json:"unique_dim0"`
	UniqueDim1      [][]int64 `json:"unique_dim1"`
	UniqueFloatX    []float64 `json:"unique_float_x"`
	UniqueFloat     []float64 `json:"unique_float"`
	UniqueDim2Error string    `json:"unique_dim2_error"`
}

type luCase struct {
	A           []float64 `json:"a"`
	Shape       []int64   `json:"shape"`
	LU          []float64 `json:"lu"`
	Pivots      []int64   `json:"pivots"`
	PivotsDType string    `json:"pivots_dtype"`
	Infos       []int64   `json:"infos"`
	InfosShape  []int64   `json:"infos_shape"`
}

func loadLuUniqueGolden(t *testing.T) luUniqueGolden {
	t.Helper()
	b, err := os.ReadFile("testdata/lu_unique.json")
	require.NoError(t, err)
	var g luUniqueGolden
	require.NoError(t, json.Unmarshal(b, &g))
	return g
}

func checkLu(t *testing.T, c luCase, dt torch.DType, lu, pivots torch.Tensor, what string) {
	t.Helper()
	assert.Equal(t, c.Shape, lu.Shape(), what)
	golden.AllClose(t, c.LU, lu.Float64s(), dt, "%s: LU", what)
	assert.Equal(t, c.PivotsDType, pivots.DType().String(), what)
	assert.Equal(t, c.Pivots, pivots.Int64s(), "%s: pivots", what)
}

// TestLu compares torch.lu's factors and pivots, for a float64 matrix and
// a float32 batch with a singular and a zero matrix (no error, as in
// PyTorch), with PyTorch's.
func TestLu(t *testing.T) {
	g := loadLuUniqueGolden(t)
	a := torch.FromSlice(g.Lu.A, g.Lu.Shape...)
	lu, pivots := torch.Lu(a)
	checkLu(t, g.Lu, torch.Float64, lu, pivots, "torch.lu(a)")
	lu, pivots = a.Lu(torch.WithPivot(true), torch.WithGetInfos(false))
	checkLu(t, g.Lu, torch.Float64, lu, pivots, "a.lu(pivot=True, get_infos=False)")

	f32 := make([]float32, len(g.LuBatch.A))
	for i, v := range g.LuBatch.A {
		f32[i] = float32(v)
	}
	b := torch.FromSlice(f32, g.LuBatch.Shape...)
	lu, pivots = torch.Lu(b)
	checkLu(t, g.LuBatch, torch.Float32, lu, pivots, "torch.lu(batch)")

	lu, pivots, infos := torch.LuInfos(b)
	checkLu(t, g.LuBatchInfos, torch.Float32, lu, pivots, "torch.lu(batch, get_infos=True)")
	assert.Equal(t, g.LuBatchInfos.InfosShape, infos.Shape())
	assert.Equal(t, g.LuBatchInfos.Infos, infos.Int64s(), "infos")
	_, _, infos = b.LuInfos(torch.WithGetInfos(true))
	assert.Equal(t, g.LuBatchInfos.Infos, infos.Int64s(), "infos")
}

// TestLuErrors checks PyTorch's errors (pivot=False on the CPU, a vector)
// and the options that the Go forms refuse, naming the form that takes
// them.
func TestLuErrors(t *testing.T) {
	g := loadLuUniqueGolden(t)
	a := torch.FromSlice(g.Lu.A, g.Lu.Shape...)
	_, _, err := torch.TryLu(a, torch.WithPivot(false))
	require.Error(t, err)
	assert.Equal(t, "torch.lu: "+g.LuNoPivotError, err.Error())
	_, _, err = torch.TryLu(torch.Ones([]int64{3}))
	require.Error(t, err)
	assert.Equal(t, "torch.lu: "+g.LuVectorError, err.Error())
	_, _, _, err = torch.TryLuInfos(torch.Ones([]int64{3}))
	require.Error(t, err, "a vector, with get_infos")

	_, _, err = torch.TryLu(a, torch.WithGetInfos(true))
	require.Error(t, err)
	assert.Equal(t, "torch.lu: get_infos=True returns the infos too: LuInfos does", err.Error())
	_, _, _, err = torch.TryLuInfos(a, torch.WithGetInfos(false))
	require.Error(t, err)
	assert.Equal(t, "torch.lu: get_infos=False returns no infos: Lu does", err.Error())
	_, _, err = torch.TryLu(a, torch.WithDim(0))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "torch.lu: unexpected option dim")
	assert.Panics(t, func() { torch.Lu(a, torch.WithGetInfos(true)) })
	assert.Panics(t, func() { torch.Lu(torch.Tensor{}) })
}
