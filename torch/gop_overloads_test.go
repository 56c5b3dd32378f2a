package torch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

func TestPythonSignatureMethods(t *testing.T) {
	x := torch.FromNested([][]float32{{1, 5, 3}, {4, 2, 6}})
	cases := []struct {
		name string
		got  torch.Tensor
		want string
	}{
		{"SumAll", x.SumAll(), "tensor(21.)"},
		{"SumAlong", x.SumAlong(1), "tensor([ 9., 12.])"},
		{"SumAlong keepdim", x.SumAlong(0, true), "tensor([[5., 7., 9.]])"},
		{"MeanAlong", x.MeanAlong(-1), "tensor([3., 4.])"},
		{"ProdAlong", x.ProdAlong(0), "tensor([ 4., 10., 18.])"},
		{"AmaxAlong", x.AmaxAlong(1), "tensor([5., 6.])"},
		{"AminAll", x.AminAll(), "tensor(1.)"},
		{"MaxAll", x.MaxAll(), "tensor(6.)"},
		{"ViewDims", torch.FromSlice([]float32{1, 2}).ViewDims(2, 1), "tensor([[1.],\n        [2.]])"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assert.Equal(t, c.want, c.got.String()) })
	}
	v, i := x.MaxAlong(1)
	assert.Equal(t, "tensor([5., 6.])", v.String())
	assert.Equal(t, "tensor([1, 2])", i.String())
	v, i = x.MinAlong(0, true)
	assert.Equal(t, []int64{1, 3}, v.Shape())
	assert.Equal(t, "tensor([[0, 1, 0]])", i.String())
	assert.Equal(t, []int64{2, 12}, torch.Ones([]int64{2, 3, 4}).FlattenFrom(1).Shape())
	assert.Equal(t, []int64{24}, torch.Ones([]int64{2, 3, 4}).FlattenAll().Shape())
	assert.Equal(t, []int64{6}, x.ReshapeDims(-1).Shape())
	assert.Equal(t, []int64{3, 2}, x.PermuteDims(1, 0).Shape())
	assert.Equal(t, []int64{3}, torch.Ones([]int64{1, 3}).SqueezeAll().Shape())
	assert.Equal(t, []int64{2, 3}, x.ViewShape(x.Shape()).Shape())

	// Errors name the op, and the undefined tensor is still caught.
	_, err := x.TrySumDimIntList([]int64{5})
	require.Error(t, err)
	assert.Panics(t, func() { x.SumAlong(5) })
	assert.Panics(t, func() { x.SumAlong(0, true, false) })
	assert.Panics(t, func() { torch.Tensor{}.Sum() })
	assert.Panics(t, func() { torch.Tensor{}.SumAlong(0) })
}
