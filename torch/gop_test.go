package torch_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// The Go+ operators (torch/gop.go), called as the code that Go+ generates
// calls them: (torch.Tensor).Gop_Add(x, 2).

func gf32(v ...float32) torch.Tensor { return torch.FromSlice(v) }
func gi64(v ...int64) torch.Tensor   { return torch.FromSlice(v) }

func TestGopArithmetic(t *testing.T) {
	x := gf32(1, 2, 3)
	cases := []struct {
		name  string
		got   torch.Tensor
		want  []float64
		dtype torch.DType
	}{
		{"x+x", x.Gop_Add(x), []float64{2, 4, 6}, torch.Float32},
		{"x+1", x.Gop_Add(1), []float64{2, 3, 4}, torch.Float32},
		{"x+0.5", x.Gop_Add(0.5), []float64{1.5, 2.5, 3.5}, torch.Float32},
		{"x-x", x.Gop_Sub(x), []float64{0, 0, 0}, torch.Float32},
		{"x-1", x.Gop_Sub(1), []float64{0, 1, 2}, torch.Float32},
		{"x*x", x.Gop_Mul(x), []float64{1, 4, 9}, torch.Float32},
		{"x*float32", x.Gop_Mul(float32(2)), []float64{2, 4, 6}, torch.Float32},
		{"x*int64", x.Gop_Mul(int64(2)), []float64{2, 4, 6}, torch.Float32},
		{"x*uint8", x.Gop_Mul(uint8(2)), []float64{2, 4, 6}, torch.Float32},
		{"x*Scalar", x.Gop_Mul(torch.S(3)), []float64{3, 6, 9}, torch.Float32},
		{"x/x", x.Gop_Quo(x), []float64{1, 1, 1}, torch.Float32},
		{"x/2", x.Gop_Quo(2), []float64{0.5, 1, 1.5}, torch.Float32},
		{"-x", x.Gop_Neg(), []float64{-1, -2, -3}, torch.Float32},
		{"+x", x.Gop_Dup(), []float64{1, 2, 3}, torch.Float32},
		{"x%2", x.Gop_Rem(2), []float64{1, 0, 1}, torch.Float32},
		{"x%x", x.Gop_Rem(gf32(2, 2, 2)), []float64{1, 0, 1}, torch.Float32},
		{"&x", x.Gop_Add(&x), []float64{2, 4, 6}, torch.Float32},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.dtype, c.got.DType())
			assert.Equal(t, c.want, c.got.Float64s())
		})
	}
}

// Integer tensors keep Python's dtype rules: an int operand keeps Int64, a
// float one promotes to Float32, and / is true division.
func TestGopDTypes(t *testing.T) {
	a := gi64(1, 2, 3)
	assert.Equal(t, torch.Int64, a.Gop_Add(1).DType())
	assert.Equal(t, torch.Int64, a.Gop_Mul(2).DType())
	assert.Equal(t, torch.Float32, a.Gop_Add(0.5).DType())
	assert.Equal(t, torch.Float32, a.Gop_Quo(2).DType())
	assert.Equal(t, []float64{0.5, 1, 1.5}, a.Gop_Quo(2).Float64s())
	assert.Equal(t, torch.Int64, a.Gop_Rem(2).DType())
}

func TestGopComparisons(t *testing.T) {
	x := gf32(1, 2, 3)
	y := gf32(3, 2, 1)
	cases := []struct {
		name string
		got  torch.Tensor
		want []bool
	}{
		{"x<2", x.Gop_LT(2), []bool{true, false, false}},
		{"x<y", x.Gop_LT(y), []bool{true, false, false}},
		{"x<=2", x.Gop_LE(2), []bool{true, true, false}},
		{"x<=y", x.Gop_LE(y), []bool{true, true, false}},
		{"x>2.5", x.Gop_GT(2.5), []bool{false, false, true}},
		{"x>y", x.Gop_GT(y), []bool{false, false, true}},
		{"x>=2", x.Gop_GE(2), []bool{false, true, true}},
		{"x>=y", x.Gop_GE(y), []bool{false, true, true}},
		{"x==2", x.Gop_EQ(2), []bool{false, true, false}},
		{"x==y", x.Gop_EQ(y), []bool{false, true, false}},
		{"x!=2", x.Gop_NE(2), []bool{true, false, true}},
		{"x!=y", x.Gop_NE(y), []bool{true, false, true}},
		{"mask&", x.Gop_GT(1).Gop_And(x.Gop_LT(3)), []bool{false, true, false}},
		{"mask|", x.Gop_LT(2).Gop_Or(x.Gop_GT(2)), []bool{true, false, true}},
		{"mask^", x.Gop_LT(3).Gop_Xor(x.Gop_GT(1)), []bool{true, false, true}},
		{"^mask", x.Gop_LT(2).Gop_Not(), []bool{false, true, true}},
		{"mask&true", x.Gop_LT(2).Gop_And(true), []bool{true, false, false}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, torch.Bool, c.got.DType())
			assert.Equal(t, c.want, c.got.Bools())
		})
	}
	assert.Equal(t, []int64{2, 0, 2}, gi64(2, 4, 6).Gop_And(3).Int64s(), "bitwise and of integers")
}

// Assignment operators work in place: every Tensor value that shares the
// tensor sees the change, as in Python.
func TestGopAssignInPlace(t *testing.T) {
	x := gf32(1, 2, 3)
	alias := x
	x.Gop_AddAssign(1)
	assert.Equal(t, []float64{2, 3, 4}, alias.Float64s())
	x.Gop_SubAssign(gf32(1, 1, 1))
	assert.Equal(t, []float64{1, 2, 3}, alias.Float64s())
	x.Gop_MulAssign(2)
	assert.Equal(t, []float64{2, 4, 6}, alias.Float64s())
	x.Gop_QuoAssign(gf32(2, 2, 2))
	assert.Equal(t, []float64{1, 2, 3}, alias.Float64s())
	x.Gop_QuoAssign(0.5)
	assert.Equal(t, []float64{2, 4, 6}, alias.Float64s())

	// A parameter updated in place under NoGrad, as in SGD by hand.
	w := gf32(1, 2).SetRequiresGrad(true)
	w.Gop_Mul(w).Sum().Backward()
	torch.NoGrad(func() {
		p := w
		p.Gop_SubAssign(w.Grad().Gop_Mul(0.5))
	})
	assert.Equal(t, []float64{0, 0}, w.Float64s())
}

// On the zero Tensor, assignment operators assign, as if it held 0 (or 1
// for *= and /=).
func TestGopAssignZero(t *testing.T) {
	var a torch.Tensor
	a.Gop_AddAssign(gf32(1, 2))
	assert.Equal(t, []float64{1, 2}, a.Float64s())

	var b torch.Tensor
	b.Gop_AddAssign(2)
	assert.Equal(t, torch.Int64, b.DType())
	assert.Equal(t, int64(2), b.ItemInt())
	b.Gop_AddAssign(1)
	assert.Equal(t, int64(3), b.ItemInt())

	var c torch.Tensor
	c.Gop_SubAssign(gf32(1, 2))
	assert.Equal(t, []float64{-1, -2}, c.Float64s())

	var d torch.Tensor
	d.Gop_MulAssign(0.5)
	assert.Equal(t, torch.Float32, d.DType())
	assert.Equal(t, 0.5, d.Item())

	var e torch.Tensor
	e.Gop_QuoAssign(gf32(2, 4))
	assert.Equal(t, []float64{0.5, 0.25}, e.Float64s())

	var f torch.Tensor
	f.Gop_SubAssign(2.5)
	assert.Equal(t, -2.5, f.Item())

	// The tensor operand is copied, not shared.
	src := gf32(1)
	var g torch.Tensor
	g.Gop_AddAssign(src)
	g.Gop_AddAssign(1)
	assert.Equal(t, 1.0, src.Item())
}

func TestGopBadOperand(t *testing.T) {
	x := gf32(1)
	for name, f := range map[string]func(){
		"string": func() { x.Gop_Add("1") },
		"nil":    func() { x.Gop_Mul(nil) },
		"slice":  func() { x.Gop_LT([]int{1}) },
		"nilptr": func() { x.Gop_Sub((*torch.Tensor)(nil)) },
		"assign": func() { x.Gop_AddAssign(struct{}{}) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				r := recover()
				require.NotNil(t, r)
				err, ok := r.(error)
				require.True(t, ok, "panics with an error, got %T", r)
				assert.Contains(t, err.Error(), "operand")
			}()
			f()
		})
	}
	// An undefined tensor on the left is an op error, not a crash.
	assert.Panics(t, func() { torch.Tensor{}.Gop_Add(1) })
}

func TestGopPythonicMethods(t *testing.T) {
	x := torch.FromSlice([]float32{1, 5, 2, 8, 3, 0}, 2, 3)
	assert.Equal(t, int64(3), x.ArgmaxAll().ItemInt())
	assert.Equal(t, []int64{1, 0}, x.ArgmaxAlong(1).Int64s())
	assert.Equal(t, []int64{2, 1}, x.ArgmaxAlong(1, true).Shape())
	assert.Equal(t, []int64{1, 0, 0}, x.ArgmaxAlong(0).Int64s())
	assert.Equal(t, int64(5), x.ArgminAll().ItemInt())
	assert.Equal(t, []int64{0, 2}, x.ArgminAlong(1).Int64s())
	assert.Panics(t, func() { x.ArgmaxAlong(1, true, false) })
	assert.Panics(t, func() { x.ArgmaxAlong(5) })

	assert.Equal(t, torch.Float64, x.Double().DType())
	assert.Equal(t, torch.Float64, x.Double().Dtype())
	assert.Equal(t, torch.Int64, x.Long().DType())
	assert.Equal(t, torch.Int32, x.Int().DType())
	assert.Equal(t, torch.Bool, x.Bool().DType())
	assert.Equal(t, torch.Float32, x.Long().Float().DType())
	assert.Equal(t, int64(2), x.Ndim())
	assert.Equal(t, torch.CPU.Type, x.Cpu().Device().Type)

	m := torch.FromSlice([]float32{1, 2, 3, 4}, 2, 2)
	assert.Equal(t, []float64{7, 10, 15, 22}, m.Matmul(m).Float64s())

	w := gf32(1).RequiresGrad_()
	assert.True(t, w.RequiresGrad())
	assert.False(t, w.RequiresGrad_(false).RequiresGrad())
}

// Unsigned operands that fit in int64 work; past it they are an error, not
// a negative number (x + MaxUint64 gave x - 1).
func TestGopUnsignedOperands(t *testing.T) {
	x := torch.FromSlice([]int64{1, 2})
	assert.Equal(t, []int64{6, 7}, x.Gop_Add(uint64(5)).Int64s())
	assert.Equal(t, []int64{1<<62 + 1, 1<<62 + 2}, x.Gop_Add(uint(1<<62)).Int64s())
	err := mustPanicErr(t, "scalar", func() { x.Gop_Add(uint64(math.MaxUint64)) })
	assert.Contains(t, err.Msg, "overflows int64")
}
