package torch_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// pythonicGolden is testdata/pythonic_tensor.json, which
// testdata/pythonic_tensor.py writes with the reference PyTorch.
type pythonicGolden struct {
	Stride           []int64           `json:"stride"`
	StrideTransposed []int64           `json:"stride_transposed"`
	Stride1          int64             `json:"stride_1"`
	ElementSize      map[string]int64  `json:"element_size"`
	Conversions      map[string]string `json:"conversions"`
	Type             map[string]string `json:"type"`
	Nelement         int64             `json:"nelement"`
	Ndimension       int64             `json:"ndimension"`
	TolistInt        any               `json:"tolist_int"`
	TolistFloat      any               `json:"tolist_float"`
	TolistBool       any               `json:"tolist_bool"`
	TolistScalar     any               `json:"tolist_scalar"`
	UniqueInput      []int64           `json:"unique_input"`
	Unique           []int64           `json:"unique"`
	UniqueInverse    []int64           `json:"unique_inverse"`
	UniqueCounts     []int64           `json:"unique_counts"`
	UniqueRowsInput  [][]int64         `json:"unique_rows_input"`
	UniqueRows       [][]int64         `json:"unique_rows"`
	UniqueConsec     []int64           `json:"unique_consecutive"`
	Where            []float64         `json:"where"`
	WhereCondition   []bool            `json:"where_condition"`
	NewTensorDtype   string            `json:"new_tensor_dtype"`
	NewTensor        []float64         `json:"new_tensor"`
	RepeatInterleave []int64           `json:"repeat_interleave"`
	RepeatTensor     []int64           `json:"repeat_interleave_tensor"`
}

func loadPythonic(t *testing.T) pythonicGolden {
	t.Helper()
	b, err := os.ReadFile("testdata/pythonic_tensor.json")
	require.NoError(t, err)
	var g pythonicGolden
	require.NoError(t, json.Unmarshal(b, &g))
	return g
}

// asJSON round-trips v through JSON, so that Tolist's nested []any of
// int64 and float64 compare with what Python wrote.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var out any
	require.NoError(t, json.Unmarshal(b, &out))
	return out
}

func TestPythonicTensorMethods(t *testing.T) {
	g := loadPythonic(t)
	x := torch.Arange(torch.S(24), torch.WithDtype(torch.Float32)).ViewDims(2, 3, 4)
	assert.Equal(t, g.Stride, x.Strides())
	assert.Equal(t, g.StrideTransposed, x.Transpose(0, 2).Strides())
	assert.Equal(t, g.Stride1, x.StrideAt(1))
	assert.Equal(t, g.Nelement, x.Nelement())
	assert.Equal(t, g.Ndimension, x.Ndimension())

	conv := map[string]func() torch.Tensor{"half": x.Half, "bfloat16": x.Bfloat16, "byte": x.Byte, "short": x.Short, "char": x.Char, "cfloat": x.Cfloat, "cdouble": x.Cdouble}
	require.Len(t, g.Conversions, len(conv))
	for m, want := range g.Conversions {
		assert.Equal(t, "torch."+want, conv[m]().DType().String(), m)
	}
	for name, want := range g.ElementSize {
		d, err := torch.ParseDType(name)
		require.NoError(t, err)
		assert.Equal(t, want, torch.Empty(i64s(1), torch.WithDtype(d)).ElementSize(), name)
	}
	for name, want := range g.Type {
		d, err := torch.ParseDType(name)
		require.NoError(t, err)
		assert.Equal(t, want, torch.Empty(i64s(1), torch.WithDtype(d)).Type(), name)
	}

	assert.Equal(t, g.TolistInt, asJSON(t, torch.FromNested([][]int64{{1, 2}, {3, 4}}).Tolist()))
	assert.Equal(t, g.TolistFloat, asJSON(t, torch.FromNested([][]float32{{0.5}, {1.5}}).Tolist()))
	assert.Equal(t, g.TolistBool, asJSON(t, torch.FromNested([]bool{true, false}).Tolist()))
	assert.Equal(t, g.TolistScalar, asJSON(t, torch.FromNested(int64(7)).Tolist()))

	u := torch.FromNested(g.UniqueInput)
	assert.Equal(t, g.Unique, u.Unique().Int64s())
	v, inv, counts := u.UniqueInverseCounts()
	assert.Equal(t, g.Unique, v.Int64s())
	assert.Equal(t, g.UniqueInverse, inv.Int64s())
	assert.Equal(t, g.UniqueCounts, counts.Int64s())
	assert.Equal(t, asJSON(t, g.UniqueRows), asJSON(t, torch.FromNested(g.UniqueRowsInput).Unique(torch.WithDim(0)).Tolist()))
	assert.Equal(t, g.UniqueConsec, u.UniqueConsecutive().Int64s())

	w := torch.FromNested([]float64{1, 2, 3}).Where(torch.FromNested(g.WhereCondition), 0.0)
	assert.Equal(t, g.Where, w.Float64s())

	nt := torch.Zeros(i64s(1), torch.WithDtype(torch.Float64)).NewTensor([]int64{1, 2})
	assert.Equal(t, "torch."+g.NewTensorDtype, nt.DType().String())
	assert.Equal(t, g.NewTensor, nt.Float64s())

	ri := torch.FromNested([]int64{1, 2})
	assert.Equal(t, g.RepeatInterleave, ri.RepeatInterleaveSelfInt(2).Int64s())
	assert.Equal(t, g.RepeatTensor, ri.RepeatInterleaveSelfTensor(torch.FromNested([]int64{1, 3})).Int64s())
}

func TestPythonicTensorErrors(t *testing.T) {
	x := torch.Ones(i64s(3))
	var err error
	func() {
		defer func() { err, _ = recover().(error) }()
		x.Unique(torch.WithDim(0, 1))
	}()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unique")
	assert.Contains(t, err.Error(), "one dim")
	func() {
		defer func() { err, _ = recover().(error) }()
		x.StrideAt(5)
	}()
	require.Error(t, err, "a dim out of range")
	func() {
		defer func() { err, _ = recover().(error) }()
		x.NewTensor(struct{}{})
	}()
	require.Error(t, err, "data that is no tensor")
}

func TestViewInts(t *testing.T) {
	x := torch.Arange(torch.S(6))
	n := 3
	assert.Equal(t, []int64{2, 3}, x.ViewInts(-1, n).Shape())
	assert.Equal(t, []int64{3, 2}, x.ReshapeInts(n, -1).Shape())
	assert.Equal(t, []int64{3, 2}, x.ViewInts(2, n).PermuteInts(1, 0).Shape())
}
