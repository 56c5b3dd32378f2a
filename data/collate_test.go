package data

import (
	"image"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

func TestCollateValues(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []any
		dtype  torch.DType
		shape  []int64
		want   []float64
	}{
		{"ints", []any{1, 2, 3}, torch.Int64, []int64{3}, []float64{1, 2, 3}},
		{"mixed integer types", []any{uint8(1), int32(2), int64(3)}, torch.Int64, []int64{3}, []float64{1, 2, 3}},
		{"float32", []any{float32(1.5), float32(2)}, torch.Float32, []int64{2}, []float64{1.5, 2}},
		{"float64", []any{0.25, 1.0}, torch.Float64, []int64{2}, []float64{0.25, 1}},
		{"bool", []any{true, false}, torch.Bool, []int64{2}, []float64{1, 0}},
		{"slices", []any{[]float32{1, 2}, []float32{3, 4}}, torch.Float32, []int64{2, 2}, []float64{1, 2, 3, 4}},
		{"int slices", []any{[]int{1}, []int{2}}, torch.Int64, []int64{2, 1}, []float64{1, 2}},
		{"arrays", []any{
			Array[uint8]{Shape: []int64{1, 2}, Data: []uint8{1, 2}},
			Array[uint8]{Shape: []int64{1, 2}, Data: []uint8{3, 4}},
		}, torch.Uint8, []int64{2, 1, 2}, []float64{1, 2, 3, 4}},
		{"tensors", []any{torch.FromSlice([]float64{1, 2}), torch.FromSlice([]float64{3, 4})}, torch.Float64, []int64{2, 2}, []float64{1, 2, 3, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CollateValues(tc.values)
			require.NoError(t, err)
			assert.Equal(t, tc.dtype, got.DType())
			assert.Equal(t, tc.shape, got.Shape())
			assert.Equal(t, tc.want, got.To(torch.Float64).Float64s())
		})
	}
}

func TestCollateValuesErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []any
		err    string
	}{
		{"empty", nil, "empty batch"},
		{"mixed", []any{1, "a"}, "example 0 of the batch is a int, example 1 a string"},
		{"mixed none", []any{nil, 1}, "example 0 of the batch has none, example 1 has a int"},
		{"ragged slices", []any{[]float32{1}, []float32{1, 2}}, "example 1 of the batch has length 2, example 0 has 1"},
		{"array shapes", []any{
			Array[float32]{Shape: []int64{1}, Data: []float32{1}},
			Array[float32]{Shape: []int64{2}, Data: []float32{1, 2}},
		}, "example 1 of the batch has shape [2], example 0 has [1]"},
		{"bad array", []any{Array[float32]{Shape: []int64{2}, Data: []float32{1}}}, "Array of shape [2] needs 2 elements, it has 1"},
		{"tensor shapes", []any{torch.Zeros([]int64{2}), torch.Zeros([]int64{3})}, "example 1 of the batch has shape [3], example 0 has [2]"},
		{"undefined tensor", []any{torch.Zeros([]int64{2}), torch.Tensor{}}, "example 1 of the batch has an undefined or freed tensor"},
		{"image", []any{image.NewGray(image.Rect(0, 0, 1, 1))}, "example 0 of the batch is an image (*image.Gray): add data.ToTensor() to the loader's transform"},
		{"unknown", []any{struct{}{}}, "example 0 of the batch is a struct {}, which the default collation does not handle (use Options.Collate)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CollateValues(tc.values)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

func TestDefaultCollate(t *testing.T) {
	x, y, err := DefaultCollate([]Example{{Input: []float32{1, 2}}, {Input: []float32{3, 4}}})
	require.NoError(t, err)
	assert.Equal(t, []int64{2, 2}, x.Shape())
	assert.False(t, y.Defined(), "no targets")
	_, _, err = DefaultCollate([]Example{{Input: 1, Target: 1}, {Input: 2, Target: 2.5}})
	assert.EqualError(t, err, "data: collate targets: example 0 of the batch is a int, example 1 a float64")
}

func TestTensorDataset(t *testing.T) {
	x := torch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 3, 2)
	ds, err := NewTensorDataset(x, torch.Tensor{})
	require.NoError(t, err)
	assert.Equal(t, 3, ds.Len())
	ex, err := ds.Get(2)
	require.NoError(t, err)
	assert.Equal(t, []float32{5, 6}, ex.Input.(torch.Tensor).Float32s())
	assert.Nil(t, ex.Target)
	_, err = ds.Get(3)
	assert.Error(t, err)
	bx, by, err := ds.GetBatch([]int{2, 0})
	require.NoError(t, err)
	assert.Equal(t, []float32{5, 6, 1, 2}, bx.Float32s())
	assert.False(t, by.Defined())
	_, _, err = ds.GetBatch([]int{0, 9})
	assert.EqualError(t, err, "data: index 9 out of range [0, 3)")

	_, err = NewTensorDataset(x, torch.Zeros([]int64{4}))
	assert.EqualError(t, err, "data: NewTensorDataset: 3 input rows but 4 target rows")
	_, err = NewTensorDataset(torch.Tensor{}, torch.Tensor{})
	assert.Error(t, err)
	_, err = NewTensorDataset(torch.FromNested(1.5), torch.Tensor{})
	assert.Error(t, err)
}
