package torch_test

import (
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// arangeF32 returns float32(0), 1, …, n-1.
func arangeF32(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(i)
	}
	return v
}

func f32(v ...float32) torch.Tensor { return torch.FromSlice(v) }

func leaf(v ...float32) torch.Tensor { return torch.FromSlice(v).SetRequiresGrad(true) }

var (
	nan = float32(math.NaN())
	inf = float32(math.Inf(1))
)

// reprCases builds, for each key of golden.json's "repr", the tensor that
// testdata/golden.py builds under that name.
var reprCases = map[string]func() torch.Tensor{
	"f32_ints":           func() torch.Tensor { return f32(1, 2) },
	"f32_ints_wide":      func() torch.Tensor { return f32(1, -20, 300) },
	"f32_frac":           func() torch.Tensor { return f32(0.5, -1.25, 3.14159, 100.0625) },
	"f32_sci_small":      func() torch.Tensor { return f32(1e-5, 1, 2.5) },
	"f32_sci_big":        func() torch.Tensor { return f32(1e9, 1) },
	"f32_sci_ratio":      func() torch.Tensor { return f32(1, 2000) },
	"f32_sci_frac_ratio": func() torch.Tensor { return f32(0.5, 1000.5) },
	"f32_nan_inf":        func() torch.Tensor { return f32(nan, inf, -inf, 1.5) },
	"f32_nan_inf_ints":   func() torch.Tensor { return f32(nan, inf, -inf, 1, -2) },
	"f32_all_nan":        func() torch.Tensor { return f32(nan, nan) },
	"f32_zeros":          func() torch.Tensor { return torch.Zeros(i64s(3)) },
	"f32_neg_zero":       func() torch.Tensor { return f32(float32(math.Copysign(0, -1)), 1) },
	"f32_negative":       func() torch.Tensor { return f32(-1.5, -2.25, 3) },
	"f32_2d":             func() torch.Tensor { return torch.FromSlice(arangeF32(6), 2, 3) },
	"f32_2d_frac": func() torch.Tensor {
		v := arangeF32(6)
		for i := range v {
			v[i] = v[i]*0.5 - 1
		}
		return torch.FromSlice(v, 3, 2)
	},
	"f32_2d_sci":  func() torch.Tensor { return torch.FromNested([][]float32{{1e-6, 2}, {3, 4e7}}) },
	"f32_3d":      func() torch.Tensor { return torch.FromSlice(arangeF32(24), 2, 3, 4) },
	"f32_summ_1d": func() torch.Tensor { return arange(torch.S(0.0), torch.S(1200.0), torch.WithStep(1.0)) },
	"f32_summ_2d": func() torch.Tensor { return torch.FromSlice(arangeF32(1200), 40, 30) },
	"f32_summ_3d": func() torch.Tensor { return torch.FromSlice(arangeF32(1200), 10, 10, 12) },
	"f32_long":    func() torch.Tensor { return torch.FromSlice(arangeF32(30)) },
	"f32_long_frac": func() torch.Tensor {
		v := make([]float32, 30)
		for i := range v {
			v[i] = float32(float64(i) * 0.1)
		}
		return torch.FromSlice(v)
	},
	"f32_0d":          func() torch.Tensor { return torch.FromNested(float32(3.5)) },
	"f32_0d_nan":      func() torch.Tensor { return torch.FromNested(nan) },
	"f32_eye3":        func() torch.Tensor { return torch.Eye(3) },
	"f32_arange_step": func() torch.Tensor { return arange(torch.S(0.0), torch.S(1.0), torch.WithStep(0.25)) },
	"f64":             func() torch.Tensor { return torch.FromSlice([]float64{1.5, 2.25}) },
	"f64_0d":          func() torch.Tensor { return torch.FromNested(2.0) },
	"f64_long_rg": func() torch.Tensor {
		return arange(torch.S(0), torch.S(30), torch.WithStep(1), torch.WithDtype(torch.Float64), torch.WithRequiresGrad(true))
	},
	"f16":       func() torch.Tensor { return f32(1.5, 2, 0.1).To(torch.Float16) },
	"bf16":      func() torch.Tensor { return f32(1.5, 2, 0.1).To(torch.BFloat16) },
	"c64":       func() torch.Tensor { return torch.FromSlice([]complex64{1 + 2i, -0.5 - 1i}) },
	"c64_mixed": func() torch.Tensor { return torch.FromSlice([]complex64{1.5, -2.25i, 3 + 4i}) },
	"c64_0d":    func() torch.Tensor { return torch.FromNested(complex64(1 + 2i)) },
	"c128":      func() torch.Tensor { return torch.FromSlice([]complex128{1 + 2i, 3 - 4i}) },
	"i64":       func() torch.Tensor { return torch.FromSlice([]int64{1, -2, 300}) },
	"i64_0d":    func() torch.Tensor { return torch.FromNested(7) },
	"i64_2d":    func() torch.Tensor { return torch.FromNested([][]int{{1, 2}, {30, -4}}) },
	"i64_summ":  func() torch.Tensor { return torch.Arange(torch.S(2000)) },
	"i64_full":  func() torch.Tensor { return torch.Full(i64s(2, 2), torch.S(7)) },
	"i32":       func() torch.Tensor { return torch.FromSlice([]int32{1, 2, 3}) },
	"i32_0d":    func() torch.Tensor { return torch.FromNested(int32(7)) },
	"i16":       func() torch.Tensor { return torch.FromSlice([]int16{-5, 6}) },
	"i8":        func() torch.Tensor { return torch.FromSlice([]int8{-128, 127}) },
	"u8":        func() torch.Tensor { return torch.FromSlice([]uint8{0, 255, 7}) },
	"bool":      func() torch.Tensor { return torch.FromSlice([]bool{true, false, true}) },
	"bool_2d":   func() torch.Tensor { return torch.FromNested([2][2]bool{{true, false}, {false, true}}) },
	"bool_0d":   func() torch.Tensor { return torch.FromNested(true) },
	"empty_f32": func() torch.Tensor { return torch.Zeros(i64s(0)) },
	"empty_0x3": func() torch.Tensor { return torch.Zeros(i64s(0, 3)) },
	"empty_i64": func() torch.Tensor { return torch.FromSlice([]int64{}) },
	"empty_2x0_f64": func() torch.Tensor {
		return torch.Zeros(i64s(2, 0), torch.WithDtype(torch.Float64))
	},
	"rg_leaf": func() torch.Tensor { return leaf(1, 2) },
	"rg_0d": func() torch.Tensor {
		return torch.Full(nil, torch.S(2.0), torch.WithRequiresGrad(true))
	},
	"grad_fn_add": func() torch.Tensor { return torch.Add(leaf(1, 2), f32(3, 4)) },
	"grad_fn_mm": func() torch.Tensor {
		m := torch.FromSlice([]float32{1, 2, 3, 4}, 2, 2).SetRequiresGrad(true)
		return torch.Mm(m, torch.FromSlice([]float32{5, 6, 7, 8}, 2, 2))
	},
	"grad_fn_clone": func() torch.Tensor { return leaf(1, 2).Clone() },
	"grad_fn_to":    func() torch.Tensor { return leaf(1, 2).To(torch.Float64) },
}

func TestPrintGolden(t *testing.T) {
	g := loadGolden(t)
	require.NotEmpty(t, g.Repr)
	names := make([]string, 0, len(g.Repr))
	for name := range g.Repr {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		want := g.Repr[name]
		t.Run(name, func(t *testing.T) {
			build, found := reprCases[name]
			require.True(t, found, "golden.json has %q, reprCases does not", name)
			x := build()
			defer x.Free()
			assert.Equal(t, want, x.String())
			assert.Equal(t, want, fmt.Sprint(x), "fmt uses String")
		})
	}
	for name := range reprCases {
		_, found := g.Repr[name]
		assert.True(t, found, "reprCases has %q, golden.json does not (rerun golden.py)", name)
	}
}

func TestPrintUndefinedAndFreed(t *testing.T) {
	assert.Equal(t, "tensor(undefined)", torch.Tensor{}.String())
	x := f32(1)
	x.Free()
	assert.Equal(t, "tensor(freed)", x.String())
	assert.Equal(t, "tensor(freed)", fmt.Sprintf("%v", x))
}

// String must not change the tensor or its autograd state.
func TestPrintLeavesTensorAlone(t *testing.T) {
	a := leaf(1, 2)
	_ = a.String()
	assert.True(t, a.IsLeaf())
	assert.True(t, a.RequiresGrad())
	assert.Equal(t, "", a.GradFn())
	assert.False(t, a.Grad().Defined())
}

// Huge tensors that cost nothing to make (an Expand of one element) print
// from their corners, and copying them into Go is an error, not a fatal
// out-of-memory.
func TestHugeExpand(t *testing.T) {
	x := torch.FromSlice([]float32{1.5}).Expand(i64s(1<<20, 1<<20))
	assert.Equal(t, "tensor([[1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],\n"+
		"        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],\n"+
		"        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],\n"+
		"        ...,\n"+
		"        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],\n"+
		"        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000],\n"+
		"        [1.5000, 1.5000, 1.5000,  ..., 1.5000, 1.5000, 1.5000]])", x.String())
	_, err := torch.TryToSlice[float32](x)
	te := requireTorchErr(t, "to_slice", err)
	assert.Contains(t, te.Msg, "1099511627776 elements of 4 bytes are more than this machine's memory")
	ok(t)
}
