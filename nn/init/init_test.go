package nninit_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/torch"
)

type goldenFile struct {
	Cases []struct {
		Name   string    `json:"name"`
		Seed   uint64    `json:"seed"`
		Shape  []int64   `json:"shape"`
		Values []float64 `json:"values"`
	} `json:"cases"`
	Gains []struct {
		Nonlinearity string   `json:"nonlinearity"`
		Param        *float64 `json:"param"`
		Gain         float64  `json:"gain"`
	} `json:"gains"`
	Fans []struct {
		Shape  []int64 `json:"shape"`
		FanIn  int64   `json:"fan_in"`
		FanOut int64   `json:"fan_out"`
	} `json:"fans"`
}

func load(t *testing.T) goldenFile {
	b, err := os.ReadFile(filepath.Join("testdata", "init.json"))
	require.NoError(t, err, "regenerate with /usr/bin/python3 nn/init/testdata/init.py")
	var g goldenFile
	require.NoError(t, json.Unmarshal(b, &g))
	return g
}

// random marks the cases that draw random numbers, so take WithGenerator.
var inits = map[string]struct {
	random bool
	f      func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error)
}{
	"uniform": {true, func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error) {
		return nninit.TryUniform_(t, append(g, nninit.WithA(-0.5), nninit.WithB(2))...)
	}},
	"uniform_default": {true, nninit.TryUniform_},
	"normal": {true, func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error) {
		return nninit.TryNormal_(t, append(g, nninit.WithMean(1), nninit.WithStd(0.5))...)
	}},
	"normal_default": {true, nninit.TryNormal_},
	"trunc_normal": {true, func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error) {
		return nninit.TryTruncNormal_(t, append(g, nninit.WithMean(0.5), nninit.WithStd(2), nninit.WithA(-1), nninit.WithB(3))...)
	}},
	"trunc_normal_default": {true, nninit.TryTruncNormal_},
	"constant": {false, func(t torch.Tensor, _ ...nninit.Option) (torch.Tensor, error) {
		return nninit.TryConstant_(t, 0.3)
	}},
	"ones":  {false, func(t torch.Tensor, _ ...nninit.Option) (torch.Tensor, error) { return nninit.TryOnes_(t) }},
	"zeros": {false, func(t torch.Tensor, _ ...nninit.Option) (torch.Tensor, error) { return nninit.TryZeros_(t) }},
	"eye":   {false, func(t torch.Tensor, _ ...nninit.Option) (torch.Tensor, error) { return nninit.TryEye_(t) }},
	"dirac": {false, func(t torch.Tensor, _ ...nninit.Option) (torch.Tensor, error) {
		return nninit.TryDirac_(t, nninit.WithGroups(2))
	}},
	"dirac_2d": {false, func(t torch.Tensor, _ ...nninit.Option) (torch.Tensor, error) { return nninit.TryDirac_(t) }},
	"xavier_uniform": {true, func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error) {
		return nninit.TryXavierUniform_(t, append(g, nninit.WithGain(2))...)
	}},
	"xavier_normal":   {true, nninit.TryXavierNormal_},
	"kaiming_uniform": {true, nninit.TryKaimingUniform_},
	"kaiming_uniform_linear": {true, func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error) {
		return nninit.TryKaimingUniform_(t, append(g, nninit.WithA(math.Sqrt(5)))...)
	}},
	"kaiming_uniform_fan_out": {true, func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error) {
		return nninit.TryKaimingUniform_(t, append(g, nninit.WithMode("fan_out"), nninit.WithNonlinearity("relu"))...)
	}},
	"kaiming_normal": {true, func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error) {
		return nninit.TryKaimingNormal_(t, append(g, nninit.WithA(0.2), nninit.WithMode("fan_out"))...)
	}},
	"kaiming_normal_tanh": {true, func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error) {
		return nninit.TryKaimingNormal_(t, append(g, nninit.WithNonlinearity("tanh"))...)
	}},
	"orthogonal": {true, func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error) {
		return nninit.TryOrthogonal_(t, append(g, nninit.WithGain(1.5))...)
	}},
	"orthogonal_tall": {true, nninit.TryOrthogonal_},
	"orthogonal_conv": {true, nninit.TryOrthogonal_},
	"sparse": {true, func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error) {
		return nninit.TrySparse_(t, 0.3, g...)
	}},
	"sparse_std": {true, func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error) {
		return nninit.TrySparse_(t, 0.5, append(g, nninit.WithStd(0.2))...)
	}},
	"sparse_none": {true, func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error) {
		return nninit.TrySparse_(t, 0, append(g, nninit.WithStd(1))...)
	}},
	"sparse_all": {true, func(t torch.Tensor, g ...nninit.Option) (torch.Tensor, error) {
		return nninit.TrySparse_(t, 1, g...)
	}},
}

// closeTo compares got with PyTorch's values within the tolerance of its
// dtype (internal/golden).
func closeTo(t *testing.T, want []float64, got torch.Tensor) {
	t.Helper()
	golden.TensorClose(t, want, got, "values")
}

// TestGolden fills tensors as PyTorch's torch.nn.init does with the same
// seed, from the default generator and from a torch.Generator.
func TestGolden(t *testing.T) {
	g := load(t)
	require.Len(t, g.Cases, len(inits))
	for _, c := range g.Cases {
		t.Run(c.Name, func(t *testing.T) {
			f, ok := inits[c.Name]
			require.True(t, ok, "no Go call for %s", c.Name)

			w := torch.Empty(c.Shape).SetRequiresGrad(true)
			torch.ManualSeed(c.Seed)
			got, err := f.f(w)
			require.NoError(t, err)
			assert.Equal(t, w, got, "returns its tensor")
			assert.True(t, w.IsLeaf(), "filled without recording gradients")
			assert.Equal(t, c.Shape, w.Shape())
			closeTo(t, c.Values, w)

			if f.random {
				torch.ManualSeed(c.Seed + 1000) // the default generator must not matter
				w2 := torch.Empty(c.Shape)
				_, err := f.f(w2, nninit.WithGenerator(torch.NewGenerator(c.Seed)))
				require.NoError(t, err)
				closeTo(t, c.Values, w2)
			}
		})
	}
}

func TestCalculateGain(t *testing.T) {
	g := load(t)
	for _, c := range g.Gains {
		var opts []nninit.Option
		if c.Param != nil {
			opts = append(opts, nninit.WithParam(*c.Param))
		}
		golden.AllClose(t, []float64{c.Gain}, []float64{nninit.CalculateGain(c.Nonlinearity, opts...)}, torch.Float64, c.Nonlinearity)
	}
	_, err := nninit.TryCalculateGain("softmax")
	var te *torch.Error
	require.True(t, errors.As(err, &te))
	assert.Equal(t, "torch.nn.init.calculate_gain: Unsupported nonlinearity softmax", te.Error())
}

func TestFans(t *testing.T) {
	g := load(t)
	for _, c := range g.Fans {
		in, out := nninit.CalculateFanInAndFanOut(torch.Empty(c.Shape))
		assert.Equal(t, c.FanIn, in, "%v", c.Shape)
		assert.Equal(t, c.FanOut, out, "%v", c.Shape)
	}
}

func TestErrors(t *testing.T) {
	vec := torch.Empty([]int64{3})
	cases := []struct {
		name, want string
		f          func() (torch.Tensor, error)
	}{
		{"fans of a vector", "torch.nn.init.kaiming_uniform_: Fan in and fan out can not be computed for tensor with fewer than 2 dimensions",
			func() (torch.Tensor, error) { return nninit.TryKaimingUniform_(vec) }},
		{"xavier of a vector", "torch.nn.init.xavier_normal_: Fan in and fan out can not be computed",
			func() (torch.Tensor, error) { return nninit.TryXavierNormal_(vec) }},
		{"bad mode", "torch.nn.init.kaiming_normal_: Mode fan_avg not supported, please use one of ['fan_in', 'fan_out']",
			func() (torch.Tensor, error) {
				return nninit.TryKaimingNormal_(torch.Empty([]int64{2, 2}), nninit.WithMode("fan_avg"))
			}},
		{"bad nonlinearity", "torch.nn.init.kaiming_normal_: Unsupported nonlinearity swish",
			func() (torch.Tensor, error) {
				return nninit.TryKaimingNormal_(torch.Empty([]int64{2, 2}), nninit.WithNonlinearity("swish"))
			}},
		{"eye of 3-D", "torch.nn.init.eye_: Only tensors with 2 dimensions are supported",
			func() (torch.Tensor, error) { return nninit.TryEye_(torch.Empty([]int64{2, 2, 2})) }},
		{"dirac of 2-D", "torch.nn.init.dirac_: Only tensors with 3, 4, or 5 dimensions are supported",
			func() (torch.Tensor, error) { return nninit.TryDirac_(torch.Empty([]int64{2, 2})) }},
		{"dirac groups", "torch.nn.init.dirac_: dim 0 must be divisible by groups",
			func() (torch.Tensor, error) {
				return nninit.TryDirac_(torch.Empty([]int64{3, 2, 2}), nninit.WithGroups(2))
			}},
		{"orthogonal of a vector", "torch.nn.init.orthogonal_: Only tensors with 2 or more dimensions are supported",
			func() (torch.Tensor, error) { return nninit.TryOrthogonal_(vec) }},
		{"unexpected option", "torch.nn.init.uniform_: unexpected option gain (this function takes a, b, generator)",
			func() (torch.Tensor, error) { return nninit.TryUniform_(vec, nninit.WithGain(2)) }},
		{"sparse of 3-D", "torch.nn.init.sparse_: Only tensors with 2 dimensions are supported",
			func() (torch.Tensor, error) { return nninit.TrySparse_(torch.Empty([]int64{2, 2, 2}), 0.5) }},
		{"sparse sparsity", "torch.nn.init.sparse_: sparsity must be in [0, 1], got 1.5",
			func() (torch.Tensor, error) { return nninit.TrySparse_(torch.Empty([]int64{2, 2}), 1.5) }},
		{"sparse NaN sparsity", "torch.nn.init.sparse_: sparsity must be in [0, 1], got NaN",
			func() (torch.Tensor, error) { return nninit.TrySparse_(torch.Empty([]int64{2, 2}), math.NaN()) }},
		{"sparse option", "torch.nn.init.sparse_: unexpected option gain (this function takes std, generator)",
			func() (torch.Tensor, error) {
				return nninit.TrySparse_(torch.Empty([]int64{2, 2}), 0.5, nninit.WithGain(2))
			}},
		{"undefined tensor", "undefined tensor", func() (torch.Tensor, error) { return nninit.TryZeros_(torch.Tensor{}) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.f()
			require.Error(t, err)
			var te *torch.Error
			require.True(t, errors.As(err, &te), "%T: %v", err, err)
			assert.Contains(t, te.Error(), c.want)
		})
	}
	assert.Panics(t, func() { nninit.KaimingUniform_(vec) })
}

// TestZeroElementIsNoOp mirrors PyTorch, which warns and leaves a tensor
// with no elements as it is.
func TestZeroElementIsNoOp(t *testing.T) {
	w := torch.Empty([]int64{0, 3})
	_, err := nninit.TryKaimingUniform_(w)
	require.NoError(t, err)
	_, err = nninit.TryOrthogonal_(w)
	require.NoError(t, err)
}

// TestStatistics checks the bounds and spread of the Kaiming and Xavier
// initializations on large tensors.
func TestStatistics(t *testing.T) {
	w := torch.Empty([]int64{256, 512})
	nninit.KaimingUniform_(w, nninit.WithA(math.Sqrt(5)))
	bound := 1 / math.Sqrt(512)
	assert.LessOrEqual(t, w.Max().Item(), bound)
	assert.GreaterOrEqual(t, w.Min().Item(), -bound)
	assert.InDelta(t, bound/math.Sqrt(3), w.Std().Item(), 0.01*bound)

	nninit.XavierNormal_(w)
	assert.InDelta(t, math.Sqrt(2.0/(256+512)), w.Std().Item(), 0.002)
	assert.InDelta(t, 0, w.Mean().Item(), 0.002)

	nninit.TruncNormal_(w, nninit.WithStd(1), nninit.WithA(-0.5), nninit.WithB(0.5))
	assert.LessOrEqual(t, w.Max().Item(), 0.5)
	assert.GreaterOrEqual(t, w.Min().Item(), -0.5)

	q := torch.Empty([]int64{6, 4})
	nninit.Orthogonal_(q)
	eye := q.T().Mm(q) // 4×4 identity: orthonormal columns
	closeTo(t, torch.EyeM(4, 4).Float64s(), eye)
}

// TestSparseColumns checks Sparse_'s structure apart from the golden
// draws: every column has exactly ceil(sparsity·rows) zeros, and the
// other values are those of N(0, std²) (none is zero, their spread is
// about std).
func TestSparseColumns(t *testing.T) {
	const rows, cols = 40, 30
	w := torch.Empty([]int64{rows, cols})
	nninit.Sparse_(w, 0.25, nninit.WithStd(2), nninit.WithGenerator(torch.NewGenerator(7)))
	vals := w.Float64s()
	var sum, sq float64
	var n int
	for c := 0; c < cols; c++ {
		zeros := 0
		for r := 0; r < rows; r++ {
			v := vals[r*cols+c]
			if v == 0 {
				zeros++
				continue
			}
			sum += v
			sq += v * v
			n++
		}
		assert.Equal(t, 10, zeros, "column %d", c)
	}
	mean := sum / float64(n)
	std := math.Sqrt(sq/float64(n) - mean*mean)
	assert.InDelta(t, 2, std, 0.3, "std of the non-zero values")
	assert.InDelta(t, 0, mean, 0.3, "mean of the non-zero values")
}
