package utils_test

import (
	"encoding/json"
	"os"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn/utils"
	"github.com/gotorch/gotorch/torch"
)

type tensorJSON struct {
	Shape []int64   `json:"shape"`
	Data  []float64 `json:"data"`
}

func (j tensorJSON) f32() torch.Tensor {
	return torch.FromSlice(j.Data, j.Shape...).To(torch.Float32)
}

type reference struct {
	WeightNorm map[string]struct {
		Weight, C, G, V, Normalized tensorJSON
		GradG                       tensorJSON `json:"grad_g"`
		GradV                       tensorJSON `json:"grad_v"`
		Dim                         int64
		Defaults                    bool // PyTorch was called without dim
	} `json:"weight_norm"`
	SpectralNorm map[string]struct {
		Weight           tensorJSON
		Dim              int64
		NPowerIterations int64 `json:"n_power_iterations"`
		Eps              float64
		Defaults         bool // PyTorch was called without n_power_iterations, eps and dim
		U0, V0, U1, V1   tensorJSON
		TrainWeight      tensorJSON `json:"train_weight"`
		EvalWeight       tensorJSON `json:"eval_weight"`
	} `json:"spectral_norm"`
	Vectors struct {
		Params  []tensorJSON `json:"params"`
		Vector  tensorJSON   `json:"vector"`
		Doubled []tensorJSON `json:"doubled"`
	} `json:"vectors"`
}

func load(t *testing.T) *reference {
	t.Helper()
	data, err := os.ReadFile("testdata/utils.json")
	require.NoError(t, err, "run /usr/bin/python3 nn/utils/testdata/utils.py")
	r := &reference{}
	require.NoError(t, json.Unmarshal(data, r))
	return r
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func close32(t *testing.T, want tensorJSON, got torch.Tensor, what string, args ...any) {
	t.Helper()
	require.Equal(t, want.Shape, got.Shape(), what)
	golden.AllClose(t, want.Data, got.To(torch.Float64).Float64s(), torch.Float32, what, args...)
}

func TestVectorsMatchPyTorch(t *testing.T) {
	r := load(t)
	var ps []torch.Tensor
	for _, p := range r.Vectors.Params {
		ps = append(ps, p.f32().SetRequiresGrad(true))
	}
	vec := utils.ParametersToVector(ps)
	close32(t, r.Vectors.Vector, vec, "vector")
	assert.True(t, vec.RequiresGrad(), "the vector records for autograd")

	fresh := make([]torch.Tensor, len(ps))
	for i, p := range ps {
		fresh[i] = torch.ZerosLike(p).SetRequiresGrad(true)
	}
	utils.VectorToParameters(vec.Detach().MulAny(2), fresh)
	for i, p := range fresh {
		close32(t, r.Vectors.Doubled[i], p, "parameter %d", i)
		assert.True(t, p.IsLeaf() && p.RequiresGrad(), "still a leaf parameter")
	}
}

func TestVectorErrors(t *testing.T) {
	a := torch.Zeros([]int64{2, 2})
	b := torch.Zeros([]int64{3})
	_, err := utils.TryParametersToVector(nil)
	assert.Error(t, err)
	_, err = utils.TryParametersToVector([]torch.Tensor{a, {}})
	assert.Error(t, err)

	before := a.Float64s()
	for name, vec := range map[string]torch.Tensor{
		"too short": torch.Ones([]int64{6}),
		"too long":  torch.Ones([]int64{8}),
		"a matrix":  torch.Ones([]int64{7, 1}),
		"undefined": {},
		"int64":     torch.Ones([]int64{7}, torch.WithDtype(torch.Int64)),
	} {
		assert.Error(t, utils.TryVectorToParameters(vec, []torch.Tensor{a, b}), name)
		assert.Equal(t, before, a.Float64s(), "%s: nothing changed", name)
	}
	assert.Panics(t, func() { utils.VectorToParameters(torch.Ones([]int64{1}), []torch.Tensor{a}) })
}

func TestWeightNormMatchesPyTorch(t *testing.T) {
	r := load(t)
	require.NotEmpty(t, r.WeightNorm)
	for _, name := range keys(r.WeightNorm) {
		c := r.WeightNorm[name]
		t.Run(name, func(t *testing.T) {
			var opts []utils.Option
			if !c.Defaults {
				opts = append(opts, utils.WithDim(c.Dim))
			}
			wn := utils.WeightNorm(c.Weight.f32(), opts...)
			assert.Equal(t, c.Dim, wn.Dim)
			close32(t, c.G, wn.G, "weight_g")
			close32(t, c.V, wn.V, "weight_v")
			w := wn.Weight()
			close32(t, c.Normalized, w, "weight")
			w.Mul(c.C.f32()).Sum().Backward()
			close32(t, c.GradG, wn.G.Grad(), "grad of weight_g")
			close32(t, c.GradV, wn.V.Grad(), "grad of weight_v")
			close32(t, c.Normalized, wn.RemoveWeightNorm(), "removed")
			assert.Len(t, wn.Parameters(), 2)
		})
	}
	_, err := utils.TryWeightNorm(torch.Zeros([]int64{2}), utils.WithDim(3))
	assert.ErrorContains(t, err, "utils.WeightNorm: dim 3 out of range for a weight of 1 dimensions")
	_, err = utils.TryWeightNorm(torch.Tensor{}, utils.WithDim(0))
	assert.ErrorContains(t, err, "utils.WeightNorm: weight is an undefined or freed tensor")
	_, err = utils.TryWeightNorm(torch.Zeros([]int64{2, 2}), utils.WithEps(1e-3))
	assert.EqualError(t, err, "utils.WeightNorm: unexpected option eps (it takes dim)")
	_, err = utils.TryWeightNorm(torch.Zeros([]int64{2, 2}), utils.Option{})
	assert.EqualError(t, err, "utils.WeightNorm: unexpected option (zero Option) (it takes dim)")
	assert.Panics(t, func() { utils.WeightNorm(torch.Zeros([]int64{2}), utils.WithDim(3)) })
	var nilWN *utils.WeightNormParam
	_, err = nilWN.TryWeight()
	assert.Error(t, err)
}

func TestSpectralNormMatchesPyTorch(t *testing.T) {
	r := load(t)
	require.NotEmpty(t, r.SpectralNorm)
	for _, name := range keys(r.SpectralNorm) {
		c := r.SpectralNorm[name]
		t.Run(name, func(t *testing.T) {
			var opts []utils.Option
			if !c.Defaults {
				opts = append(opts, utils.WithNPowerIterations(c.NPowerIterations), utils.WithEps(c.Eps), utils.WithDim(c.Dim))
			}
			sn := utils.SpectralNorm(c.Weight.f32(), opts...)
			assert.Equal(t, c.Dim, sn.Dim)
			assert.Equal(t, c.NPowerIterations, sn.NPowerIterations)
			assert.Equal(t, c.Eps, sn.Eps)
			assert.Equal(t, c.U0.Shape, sn.U.Shape(), "u")
			assert.Equal(t, c.V0.Shape, sn.V.Shape(), "v")
			assert.InDelta(t, 1, sn.U.Norm(torch.Float64).Item(), 1e-6, "u is a unit vector")
			// PyTorch's random start, for the same values.
			sn.U.Copy_(c.U0.f32())
			sn.V.Copy_(c.V0.f32())
			close32(t, c.TrainWeight, sn.Weight(true), "weight in training")
			close32(t, c.U1, sn.U, "u after the power iteration")
			close32(t, c.V1, sn.V, "v after the power iteration")
			close32(t, c.EvalWeight, sn.Weight(false), "weight in eval")
			close32(t, c.U1, sn.U, "u unchanged in eval")
		})
	}
	sq := torch.Ones([]int64{2, 2})
	for _, c := range []struct {
		name string
		w    torch.Tensor
		opts []utils.Option
		want string
	}{
		{"iterations", sq, []utils.Option{utils.WithNPowerIterations(0)},
			"utils.SpectralNorm: Expected n_power_iterations to be positive, but got n_power_iterations=0"},
		{"dim", sq, []utils.Option{utils.WithDim(2)}, "utils.SpectralNorm: dim 2 out of range for a weight of 2 dimensions"},
		{"undefined", torch.Tensor{}, nil, "utils.SpectralNorm: weight is an undefined or freed tensor"},
		{"option", sq, []utils.Option{{}}, "utils.SpectralNorm: unexpected option (zero Option) (it takes n_power_iterations, eps, dim)"},
	} {
		_, err := utils.TrySpectralNorm(c.w, c.opts...)
		assert.EqualError(t, err, c.want, c.name)
	}
	assert.Panics(t, func() { utils.SpectralNorm(sq, utils.WithDim(2)) })
}

func TestClipReexports(t *testing.T) {
	p := torch.Zeros([]int64{2}).SetRequiresGrad(true)
	p.MulAny(torch.FromSlice([]float32{3, 4})).Sum().Backward()
	total := utils.ClipGradNorm_([]torch.Tensor{p}, 1)
	assert.InDelta(t, 5, total.Item(), 1e-6)
	golden.AllClose(t, []float64{0.6, 0.8}, p.Grad().To(torch.Float64).Float64s(), torch.Float32, "clipped")
	utils.ClipGradValue_([]torch.Tensor{p}, 0.7)
	golden.AllClose(t, []float64{0.6, 0.7}, p.Grad().To(torch.Float64).Float64s(), torch.Float32, "clipped by value")
	_, err := utils.TryClipGradNorm_([]torch.Tensor{{}}, 1)
	assert.Error(t, err)
	assert.Error(t, utils.TryClipGradValue_([]torch.Tensor{{}}, 1))
}
