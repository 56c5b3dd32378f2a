package aoti

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// What gotorch_aoti.py wrote for testdata/make_pt2.py's models (PyTorch
// 2.6): static shapes, and a batch dimension shared by both inputs.
const (
	staticSpec  = `{"version":1,"inputs":[{"dtype":"float32","device":"cpu","sizes":[2,4],"strides":[4,1],"contiguous":true},{"dtype":"float32","device":"cpu","sizes":[2,3],"strides":[3,1],"contiguous":true}],"symbols":{}}`
	dynamicSpec = `{"version":1,"inputs":[{"dtype":"float32","device":"cpu","sizes":[{"sym":"s0","mul":1,"add":0},4],"strides":[4,1],"contiguous":true},{"dtype":"float32","device":"cpu","sizes":[{"sym":"s0","mul":1,"add":0},3],"strides":[3,1],"contiguous":true}],"symbols":{"s0":{"min":1,"max":64}}}`
	// A derived dimension: the second input has 2*s0+1 rows, s0 unbounded.
	derivedSpec = `{"version":1,"inputs":[{"dtype":"int64","device":"cpu","sizes":[{"sym":"s0","mul":1,"add":0}],"strides":[1],"contiguous":true},{"dtype":"float64","device":"cpu","sizes":[{"sym":"s0","mul":2,"add":1},2],"strides":[null,1],"contiguous":false}],"symbols":{"s0":{"min":2,"max":null}}}`
)

func zeros(dt torch.DType, shape ...int64) torch.Tensor {
	return torch.Zeros(shape, torch.WithDtype(dt))
}

func TestParseInputSpec(t *testing.T) {
	s, err := ParseInputSpec(staticSpec)
	require.NoError(t, err)
	require.Len(t, s.Inputs, 2)
	assert.Equal(t, TensorSpec{DType: torch.Float32, Device: torch.CPUDevice, Sizes: []Dim{Static(2), Static(4)},
		Strides: []int64{4, 1}, Contiguous: true}, s.Inputs[0])
	assert.Equal(t, "0: torch.float32 [2, 4] on cpu; 1: torch.float32 [2, 3] on cpu", s.String())

	s, err = ParseInputSpec(dynamicSpec)
	require.NoError(t, err)
	assert.Equal(t, []Dim{Dynamic("s0"), Static(3)}, s.Inputs[1].Sizes)
	assert.Equal(t, map[string]Range{"s0": {1, 64}}, s.Symbols)
	assert.Equal(t, "0: torch.float32 [s0, 4] on cpu (s0 1..64); 1: torch.float32 [s0, 3] on cpu (s0 1..64)", s.String())

	s, err = ParseInputSpec(derivedSpec)
	require.NoError(t, err)
	assert.Equal(t, Dim{Sym: "s0", Mul: 2, Add: 1}, s.Inputs[1].Sizes[0])
	assert.Equal(t, []int64{-1, 1}, s.Inputs[1].Strides)
	assert.Equal(t, Range{2, -1}, s.Symbols["s0"])
	assert.Equal(t, "0: torch.int64 [s0] on cpu (s0 >= 2); 1: torch.float64 [2*s0+1, 2] on cpu (s0 >= 2)", s.String())
}

func TestParseInputSpecErrors(t *testing.T) {
	for name, tc := range map[string]struct{ json, want string }{
		"not json":        {`{"version":`, "unexpected EOF"},
		"trailing":        {`{"version":1} {}`, "trailing data"},
		"no version":      {`{"inputs":[]}`, "no version"},
		"newer version":   {`{"version":2,"inputs":[]}`, "version 2, this GoTorch reads version 1"},
		"bad dtype":       {`{"version":1,"inputs":[{"dtype":"float33","device":"cpu","sizes":[],"strides":[]}]}`, `input 0: dtype "float33"`},
		"bad device":      {`{"version":1,"inputs":[{"dtype":"float32","device":"tpu","sizes":[],"strides":[]}]}`, `input 0: device "tpu"`},
		"strides differ":  {`{"version":1,"inputs":[{"dtype":"float32","device":"cpu","sizes":[1,2],"strides":[1]}]}`, "2 sizes but 1 strides"},
		"negative size":   {`{"version":1,"inputs":[{"dtype":"float32","device":"cpu","sizes":[-1],"strides":[1]}]}`, "input 0: size 0: -1"},
		"float size":      {`{"version":1,"inputs":[{"dtype":"float32","device":"cpu","sizes":[1.5],"strides":[1]}]}`, "neither an integer"},
		"unknown symbol":  {`{"version":1,"inputs":[{"dtype":"float32","device":"cpu","sizes":[{"sym":"s1","mul":1,"add":0}],"strides":[1]}],"symbols":{}}`, `symbol "s1" is not among`},
		"zero mul":        {`{"version":1,"inputs":[{"dtype":"float32","device":"cpu","sizes":[{"sym":"s0","mul":0,"add":0}],"strides":[1]}],"symbols":{"s0":{"min":0}}}`, "out of range"},
		"no mul":          {`{"version":1,"inputs":[{"dtype":"float32","device":"cpu","sizes":[{"sym":"s0"}],"strides":[1]}],"symbols":{"s0":{"min":0}}}`, "without mul and add"},
		"extra dim field": {`{"version":1,"inputs":[{"dtype":"float32","device":"cpu","sizes":[{"sym":"s0","mul":1,"add":0,"x":1}],"strides":[1]}],"symbols":{"s0":{"min":0}}}`, "unknown field"},
		"bad range":       {`{"version":1,"inputs":[],"symbols":{"s0":{"min":5,"max":4}}}`, "symbol s0: bad range"},
		"no min":          {`{"version":1,"inputs":[],"symbols":{"s0":{"max":4}}}`, "symbol s0: no min"},
		"bad symbol name": {`{"version":1,"inputs":[],"symbols":{"s 0":{"min":1}}}`, "not an identifier"},
		"negative stride": {`{"version":1,"inputs":[{"dtype":"float32","device":"cpu","sizes":[2],"strides":[-3]}]}`, "stride 0 is -3"},
		"huge":            {`{"version":1,"x":"` + strings.Repeat("a", maxSpecBytes) + `"}`, "more than"},
		"rank":            {`{"version":1,"inputs":[{"dtype":"float32","device":"cpu","sizes":[` + strings.Repeat("1,", maxRank) + `1],"strides":[]}]}`, "rank 65"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseInputSpec(tc.json)
			require.ErrorIs(t, err, ErrBadSpec)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestCheck(t *testing.T) {
	static, err := ParseInputSpec(staticSpec)
	require.NoError(t, err)
	dynamic, err := ParseInputSpec(dynamicSpec)
	require.NoError(t, err)
	derived, err := ParseInputSpec(derivedSpec)
	require.NoError(t, err)
	f32 := func(shape ...int64) torch.Tensor { return zeros(torch.Float32, shape...) }

	require.NoError(t, static.check([]torch.Tensor{f32(2, 4), f32(2, 3)}))
	for _, n := range []int64{1, 3, 64} {
		require.NoError(t, dynamic.check([]torch.Tensor{f32(n, 4), f32(n, 3)}), "batch %d", n)
	}
	for _, n := range []int64{2, 3, 1000} {
		require.NoError(t, derived.check([]torch.Tensor{zeros(torch.Int64, n), zeros(torch.Float64, 2*n+1, 2)}), "s0 = %d", n)
	}

	for name, tc := range map[string]struct {
		spec *InputSpec
		in   []torch.Tensor
		want string
	}{
		"too few":      {static, []torch.Tensor{f32(2, 4)}, "the model takes 2 input tensor(s), got 1"},
		"too many":     {static, []torch.Tensor{f32(2, 4), f32(2, 3), f32(1)}, "the model takes 2 input tensor(s), got 3"},
		"dtype":        {static, []torch.Tensor{f32(2, 4), zeros(torch.Float64, 2, 3)}, "input 1 has dtype torch.float64, want torch.float32"},
		"rank":         {static, []torch.Tensor{f32(2, 4, 1), f32(2, 3)}, "input 0 has shape [2, 4, 1], want [2, 4]: 3 dimensions, want 2"},
		"scalar":       {static, []torch.Tensor{f32(), f32(2, 3)}, "input 0 has shape [], want [2, 4]: 0 dimensions, want 2"},
		"static size":  {static, []torch.Tensor{f32(2, 4), f32(2, 5)}, "input 1 has shape [2, 5], want [2, 3]: size 5 at dimension 1, want 3"},
		"batch static": {static, []torch.Tensor{f32(3, 4), f32(3, 3)}, "input 0 has shape [3, 4], want [2, 4]: size 3 at dimension 0, want 2"},
		"dyn static":   {dynamic, []torch.Tensor{f32(3, 5), f32(3, 3)}, "input 0 has shape [3, 5], want [s0, 4] (s0 1..64): size 5 at dimension 1, want 4"},
		"too large":    {dynamic, []torch.Tensor{f32(65, 4), f32(65, 3)}, "input 0 has shape [65, 4], want [s0, 4] (s0 1..64): size 65 at dimension 0 makes s0 = 65, outside 1..64"},
		"too small":    {dynamic, []torch.Tensor{f32(0, 4), f32(0, 3)}, "size 0 at dimension 0 makes s0 = 0, outside 1..64"},
		"disagree":     {dynamic, []torch.Tensor{f32(3, 4), f32(2, 3)}, "input 1 has shape [2, 3], want [s0, 3] (s0 1..64): size 2 at dimension 0 makes s0 = 2, but input 0's dimension 0 made it 3"},
		"not derived":  {derived, []torch.Tensor{zeros(torch.Int64, 3), zeros(torch.Float64, 6, 2)}, "size 6 at dimension 0 is not 2*s0+1 for any s0"},
		"derived":      {derived, []torch.Tensor{zeros(torch.Int64, 3), zeros(torch.Float64, 9, 2)}, "size 9 at dimension 0 makes s0 = 4, but input 0's dimension 0 made it 3"},
		"below add":    {derived, []torch.Tensor{zeros(torch.Int64, 3), zeros(torch.Float64, 0, 2)}, "size 0 at dimension 0 is not 2*s0+1"},
		"derived min":  {derived, []torch.Tensor{zeros(torch.Int64, 1), zeros(torch.Float64, 3, 2)}, "input 0 has shape [1], want [s0] (s0 >= 2): size 1 at dimension 0 makes s0 = 1, outside >= 2"},
	} {
		t.Run(name, func(t *testing.T) {
			err := tc.spec.check(tc.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestValidate(t *testing.T) {
	ok := &InputSpec{Inputs: []TensorSpec{Input(torch.Float32, Dynamic("n"), Static(4))}, Symbols: map[string]Range{"n": {1, -1}}}
	require.NoError(t, ok.validate())
	for name, s := range map[string]*InputSpec{
		"unknown symbol": {Inputs: []TensorSpec{Input(torch.Float32, Dynamic("n"))}},
		"negative size":  {Inputs: []TensorSpec{Input(torch.Float32, Static(-2))}},
		"zero mul":       {Inputs: []TensorSpec{Input(torch.Float32, Dim{Sym: "n"})}, Symbols: map[string]Range{"n": {1, -1}}},
		"bad range":      {Symbols: map[string]Range{"n": {3, 2}}},
		"no strides":     {Inputs: []TensorSpec{{DType: torch.Float32, Sizes: []Dim{Static(2)}}}},
	} {
		t.Run(name, func(t *testing.T) {
			assert.ErrorIs(t, s.validate(), ErrBadSpec)
		})
	}
}

// FuzzParseInputSpec: any string parses into a spec that checks tensors
// without panicking, or is an ErrBadSpec.
func FuzzParseInputSpec(f *testing.F) {
	for _, s := range []string{staticSpec, dynamicSpec, derivedSpec, `{"version":1}`, `{}`, `[]`, `null`,
		`{"version":1,"inputs":[{"dtype":"bool","device":"cuda:1","sizes":[0,{"sym":"a","mul":3,"add":-2}],"strides":[null,0]}],"symbols":{"a":{"min":0,"max":0}}}`} {
		f.Add(s)
	}
	probe := []torch.Tensor{zeros(torch.Float32, 2, 4), zeros(torch.Float32, 2, 3)}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseInputSpec(s)
		if err != nil {
			require.ErrorIs(t, err, ErrBadSpec)
			return
		}
		require.NoError(t, spec.validate(), "a parsed spec validates")
		_ = spec.String()
		_ = spec.check(probe)
	})
}
