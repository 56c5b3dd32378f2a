package gopkg_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/gopkg"
	"github.com/gotorch/gotorch/torch"
)

// The overloads are called as the Go that Go+ generates calls them:
// tensor([[1.0, 2], [3, 4]]) is gopkg.Tensor__0([]any{[]float64{1.0, 2},
// []int{3, 4}}).

func TestTensorLiterals(t *testing.T) {
	cases := []struct {
		name   string
		data   any
		dtype  torch.DType
		shape  []int64
		values []float64
	}{
		{"ints", []int{1, 2, 3}, torch.Int64, []int64{3}, []float64{1, 2, 3}},
		{"floats", []float64{1.5, 2}, torch.Float32, []int64{2}, []float64{1.5, 2}},
		{"float32s", []float32{1, 2}, torch.Float32, []int64{2}, []float64{1, 2}},
		{"bools", []bool{true, false}, torch.Bool, []int64{2}, []float64{1, 0}},
		{"nested ints", [][]int{{1, 2}, {3, 4}}, torch.Int64, []int64{2, 2}, []float64{1, 2, 3, 4}},
		{"nested floats", [][]float64{{1, 2}, {3, 4}}, torch.Float32, []int64{2, 2}, []float64{1, 2, 3, 4}},
		// Go+ types [[1.0, 2], [3, 4]] row by row.
		{"mixed rows", []any{[]float64{1.0, 2}, []int{3, 4}}, torch.Float32, []int64{2, 2}, []float64{1, 2, 3, 4}},
		{"int rows", []any{[]int{1, 2}, []int{3, 4}}, torch.Int64, []int64{2, 2}, []float64{1, 2, 3, 4}},
		{"mixed scalars", []any{1, 2.5, true}, torch.Float32, []int64{3}, []float64{1, 2.5, 1}},
		{"bool and int", []any{true, 2}, torch.Int64, []int64{2}, []float64{1, 2}},
		{"deep", []any{[]any{[]int{1}, []int{2}}, []any{[]int{3}, []int{4}}}, torch.Int64, []int64{2, 2, 1}, []float64{1, 2, 3, 4}},
		{"scalar", 3.5, torch.Float32, []int64{}, []float64{3.5}},
		{"int scalar", 7, torch.Int64, []int64{}, []float64{7}},
		{"empty", []any{}, torch.Float32, []int64{0}, []float64{}},
		{"tensors", []torch.Tensor{torch.FromSlice([]float32{1, 2}), torch.FromSlice([]float32{3, 4})}, torch.Float32, []int64{2, 2}, []float64{1, 2, 3, 4}},
		{"0-dim tensors in a list", []any{torch.FromSlice([]float32{1}).Sum(), 2}, torch.Float32, []int64{2}, []float64{1, 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := gopkg.Tensor__0(c.data)
			assert.Equal(t, c.dtype, x.DType())
			assert.Equal(t, c.shape, x.Shape())
			assert.Equal(t, c.values, x.To(torch.Float64).Float64s())
		})
	}
}

func TestTensorDType(t *testing.T) {
	x := gopkg.Tensor__1([]float64{0.5, 1}, torch.Float64)
	assert.Equal(t, torch.Float64, x.DType())
	assert.Equal(t, []float64{0.5, 1}, x.Float64s())
	assert.Equal(t, torch.Int32, gopkg.Tensor__1([]any{1, 2.0}, torch.Int32).DType())
}

func TestTensorCopies(t *testing.T) {
	w := torch.FromSlice([]float32{1, 2}).SetRequiresGrad(true)
	c := gopkg.Tensor__0(w)
	assert.False(t, c.RequiresGrad())
	c.Gop_AddAssign(1)
	assert.Equal(t, []float64{1, 2}, w.Float64s(), "tensor(t) copies t")
}

func TestTensorBadLiterals(t *testing.T) {
	for name, data := range map[string]any{
		"ragged":         []any{[]int{1, 2}, []int{3}},
		"list and value": []any{[]int{1}, 2},
		"value and list": []any{1, []int{2}},
		"string":         []any{"a"},
		"strings":        []string{"a"},
		"nil element":    []any{nil},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r := recover()
				require.NotNil(t, r, "want a panic")
				err, ok := r.(error)
				require.True(t, ok)
				assert.Contains(t, err.Error(), "tensor(")
			}()
			gopkg.Tensor__0(data)
		})
	}
}

func TestFactories(t *testing.T) {
	x := gopkg.Ones__0(2, 3)
	assert.Equal(t, []int64{2, 3}, x.Shape())
	assert.Equal(t, torch.Float32, x.DType())
	assert.Equal(t, []float64{1, 1, 1, 1, 1, 1}, x.Float64s())
	assert.Equal(t, []int64{2, 3}, gopkg.Ones__1(x.Shape()).Shape())
	assert.Equal(t, []int64{}, gopkg.Ones__0().Shape())
	assert.Equal(t, []float64{0, 0}, gopkg.Zeros__0(2).Float64s())
	assert.Equal(t, []int64{1, 2}, gopkg.Zeros__1([]int64{1, 2}).Shape())

	gopkg.ManualSeed(3)
	r := gopkg.Rand__0(100)
	assert.Equal(t, torch.Float32, r.DType())
	assert.True(t, r.Gop_GE(0).All().ItemBool() && r.Gop_LT(1).All().ItemBool())
	assert.Equal(t, []int64{3, 2}, gopkg.Rand__1([]int64{3, 2}).Shape())
	assert.Equal(t, []int64{4}, gopkg.Randn__0(4).Shape())
	assert.Equal(t, []int64{1, 4}, gopkg.Randn__1([]int64{1, 4}).Shape())
	gopkg.ManualSeed(3)
	assert.Equal(t, r.Float64s(), gopkg.Rand__0(100).Float64s(), "manualSeed makes runs repeat")

	ri := gopkg.Randint__0(5, []int64{50})
	assert.Equal(t, torch.Int64, ri.DType())
	assert.True(t, ri.Gop_LT(5).All().ItemBool())
	rl := gopkg.Randint__1(10, 12, []int64{50})
	assert.True(t, rl.Gop_GE(10).All().ItemBool() && rl.Gop_LT(12).All().ItemBool())

	assert.Equal(t, torch.Int64, gopkg.Full__0([]int64{2}, 7).DType())
	assert.Equal(t, torch.Float32, gopkg.Full__1([]int64{2}, 0.5).DType())
	assert.Equal(t, []bool{true}, gopkg.Full__2([]int64{1}, true).Bools())
	assert.Equal(t, []float64{0.5, 0.5}, gopkg.Full__1([]int64{2}, 0.5).Float64s())

	assert.Equal(t, []float64{1, 0, 0, 1}, gopkg.Eye__0(2).Float64s())
	assert.Equal(t, []int64{2, 3}, gopkg.Eye__1(2, 3).Shape())
	assert.Equal(t, []float64{0, 0.5, 1}, gopkg.Linspace(0, 1, 3).Float64s())

	y := gopkg.Tensor__0([]float64{1, 2})
	assert.Equal(t, []float64{1, 1}, gopkg.OnesLike(y).Float64s())
	assert.Equal(t, []float64{0, 0}, gopkg.ZerosLike(y).Float64s())
	assert.Equal(t, []int64{2}, gopkg.RandLike(y).Shape())
	assert.Equal(t, []int64{2}, gopkg.RandnLike(y).Shape())
}

func TestArange(t *testing.T) {
	cases := []struct {
		name  string
		x     torch.Tensor
		dtype torch.DType
		want  []float64
	}{
		{"end", gopkg.Arange__0(4), torch.Int64, []float64{0, 1, 2, 3}},
		{"start end", gopkg.Arange__1(2, 5), torch.Int64, []float64{2, 3, 4}},
		{"step", gopkg.Arange__2(0, 10, 3), torch.Int64, []float64{0, 3, 6, 9}},
		{"float end", gopkg.Arange__3(2.5), torch.Float32, []float64{0, 1, 2}},
		{"float start end", gopkg.Arange__4(0.5, 2.5), torch.Float32, []float64{0.5, 1.5}},
		{"float step", gopkg.Arange__5(0, 1, 0.25), torch.Float32, []float64{0, 0.25, 0.5, 0.75}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.dtype, c.x.DType())
			assert.Equal(t, c.want, c.x.To(torch.Float64).Float64s())
		})
	}
}

func TestReductions(t *testing.T) {
	x := torch.FromSlice([]float32{1, 5, 2, 8, 3, 0}, 2, 3)
	assert.Equal(t, 19.0, gopkg.Sum__0(x).Item())
	assert.Equal(t, []float64{9, 8, 2}, gopkg.Sum__1(x, 0).Float64s())
	assert.Equal(t, []int64{2, 1}, gopkg.Sum__2(x, 1, true).Shape())
	assert.Equal(t, []int64{2}, gopkg.Sum__2(x, 1, false).Shape())
	assert.InDelta(t, 19.0/6, gopkg.Mean__0(x).Item(), 1e-6)
	assert.Equal(t, []float64{4.5, 4, 1}, gopkg.Mean__1(x, 0).Float64s())
	assert.Equal(t, []int64{1, 3}, gopkg.Mean__2(x, 0, true).Shape())
	assert.Equal(t, 8.0, gopkg.Amax__0(x).Item())
	assert.Equal(t, []float64{5, 8}, gopkg.Amax__1(x, 1).Float64s())
	assert.Equal(t, []int64{2, 1}, gopkg.Amax__2(x, 1, true).Shape())
	assert.Equal(t, 0.0, gopkg.Amin__0(x).Item())
	assert.Equal(t, []float64{1, 0}, gopkg.Amin__1(x, 1).Float64s())
	assert.Equal(t, []int64{1, 3}, gopkg.Amin__2(x, 0, true).Shape())
	assert.Equal(t, int64(3), gopkg.Argmax__0(x).ItemInt())
	assert.Equal(t, []int64{1, 0}, gopkg.Argmax__1(x, 1).Int64s())
	assert.Equal(t, []int64{2, 1}, gopkg.Argmax__2(x, 1, true).Shape())
	assert.Equal(t, int64(5), gopkg.Argmin__0(x).ItemInt())
	assert.Equal(t, []int64{0, 2}, gopkg.Argmin__1(x, 1).Int64s())
	assert.Equal(t, []int64{1, 3}, gopkg.Argmin__2(x, 0, true).Shape())
}

func TestShapes(t *testing.T) {
	x := gopkg.Arange__0(24)
	assert.Equal(t, []int64{2, 12}, gopkg.View__0(x, 2, -1).Shape())
	assert.Equal(t, []int64{4, 6}, gopkg.View__1(x, []int64{4, 6}).Shape())
	assert.Equal(t, []int64{2, 3, 4}, gopkg.Reshape__0(x, 2, 3, 4).Shape())
	assert.Equal(t, []int64{24}, gopkg.Reshape__1(gopkg.Reshape__0(x, 2, 3, 4), []int64{24}).Shape())
	y := gopkg.Reshape__0(x, 2, 3, 4)
	assert.Equal(t, []int64{24}, gopkg.Flatten__0(y).Shape())
	assert.Equal(t, []int64{2, 12}, gopkg.Flatten__1(y, 1).Shape())
	assert.Equal(t, []int64{6, 4}, gopkg.Flatten__2(y, 0, 1).Shape())
	a := gopkg.Tensor__0([]int{1, 2})
	assert.Equal(t, []float64{1, 2, 1, 2}, gopkg.Cat__0([]torch.Tensor{a, a}).To(torch.Float64).Float64s())
	assert.Equal(t, []int64{2, 2}, gopkg.Cat__1([]torch.Tensor{gopkg.View__0(a, 2, 1), gopkg.View__0(a, 2, 1)}, 1).Shape())
	assert.Equal(t, []int64{2, 2}, gopkg.Stack__0([]torch.Tensor{a, a}).Shape())
	assert.Equal(t, []float64{1, 1, 2, 2}, gopkg.Stack__1([]torch.Tensor{a, a}, 1).To(torch.Float64).Float64s())
	m := gopkg.Tensor__0([][]float64{{1, 2}, {3, 4}})
	assert.Equal(t, []float64{3, 7}, gopkg.Matmul(m, gopkg.Tensor__0([]float64{1, 1})).Float64s())
}

func TestFunctional(t *testing.T) {
	x := gopkg.Tensor__0([]float64{-1, 0, 2})
	assert.Equal(t, []float64{0, 0, 2}, gopkg.Relu(x).Float64s())
	assert.InDelta(t, 0.5, gopkg.Sigmoid(x).Float64s()[1], 1e-6)
	assert.InDelta(t, 0.0, gopkg.Tanh(x).Float64s()[1], 1e-6)
	assert.InDelta(t, 1.0, gopkg.Sum__0(gopkg.Softmax(x, 0)).Item(), 1e-6)
	assert.InDelta(t, 1.0, gopkg.Sum__0(gopkg.LogSoftmax(x, 0).Exp()).Item(), 1e-6)
	assert.Equal(t, x.Float64s(), gopkg.Dropout(x, 0.5, false).Float64s())

	img := gopkg.Reshape__0(gopkg.Arange__3(16), 1, 1, 4, 4)
	assert.Equal(t, []float64{5, 7, 13, 15}, gopkg.MaxPool2d__0(img, 2).Float64s())
	assert.Equal(t, []int64{1, 1, 3, 3}, gopkg.MaxPool2d__1(img, 2, 1).Shape())
	assert.Equal(t, []float64{2.5, 4.5, 10.5, 12.5}, gopkg.AvgPool2d__0(img, 2).Float64s())
	assert.Equal(t, []int64{1, 1, 3, 3}, gopkg.AvgPool2d__1(img, 2, 1).Shape())

	logits := gopkg.Tensor__0([][]float64{{10, 0}, {0, 10}})
	target := gopkg.Tensor__0([]int{0, 1})
	assert.Less(t, gopkg.CrossEntropy(logits, target).Item(), 1e-3)
	assert.Less(t, gopkg.NllLoss(gopkg.LogSoftmax(logits, 1), target).Item(), 1e-3)
	assert.Equal(t, 0.0, gopkg.MseLoss(x, x).Item())
	assert.Equal(t, 0.0, gopkg.L1Loss(x, x).Item())
	assert.Greater(t, gopkg.BinaryCrossEntropyWithLogits(x, gopkg.OnesLike(x)).Item(), 0.0)

	w := gopkg.Ones__0(2).RequiresGrad_()
	var grad bool
	gopkg.NoGrad(func() { grad = w.Gop_Mul(2).RequiresGrad() })
	assert.False(t, grad)
}
