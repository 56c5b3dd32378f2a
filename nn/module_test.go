package nn_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// affine is a minimal module for testing registration: y = x*W + B.
type affine struct {
	nn.Module
	Weight  torch.Tensor
	Bias    torch.Tensor
	RunMean torch.Tensor `gotorch:"buffer"`
	Hidden  torch.Tensor `gotorch:"-"`
	n       int
}

func newAffine(n int64) *affine {
	a := &affine{
		Weight:  torch.Ones([]int64{n}).SetRequiresGrad(true),
		Bias:    torch.Zeros([]int64{n}).SetRequiresGrad(true),
		RunMean: torch.Zeros([]int64{n}),
		Hidden:  torch.Ones([]int64{1}),
	}
	a.Init(a)
	return a
}

func (a *affine) Forward(x torch.Tensor) torch.Tensor { return x.Mul(a.Weight).Add(a.Bias) }

func (a *affine) ExtraRepr() string { return "n=" + a.Weight.String()[:0] + "2" }

type net struct {
	nn.Module
	Features []nn.Moduler
	Heads    map[string]*affine
	Out      *affine
	Missing  *affine // nil: skipped
}

func newNet() *net {
	n := &net{
		Features: []nn.Moduler{newAffine(2), newAffine(2)},
		Heads:    map[string]*affine{"b": newAffine(2), "a": newAffine(2)},
		Out:      newAffine(2),
	}
	n.Init(n)
	return n
}

func names(ns []nn.Named) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Name)
	}
	return out
}

func TestRegistrationNames(t *testing.T) {
	n := newNet()
	assert.Equal(t, []string{
		"features.0.weight", "features.0.bias", "features.1.weight", "features.1.bias",
		"heads.a.weight", "heads.a.bias", "heads.b.weight", "heads.b.bias",
		"out.weight", "out.bias",
	}, names(n.NamedParameters()))
	assert.Equal(t, []string{"features.0.run_mean", "features.1.run_mean", "heads.a.run_mean", "heads.b.run_mean", "out.run_mean"},
		names(n.NamedBuffers()))
	assert.Len(t, n.Parameters(), 10)
	var mods []string
	for _, m := range n.NamedModules() {
		mods = append(mods, m.Name)
	}
	assert.Equal(t, []string{"", "features.0", "features.1", "heads.a", "heads.b", "out"}, mods)
	assert.Len(t, n.NamedChildren(), 5)
}

func TestSharedModuleCountedOnce(t *testing.T) {
	shared := newAffine(2)
	s := nn.Sequential(shared, shared)
	assert.Equal(t, []string{"0.weight", "0.bias"}, names(s.NamedParameters()))
}

func TestTrainEvalPropagate(t *testing.T) {
	n := newNet()
	assert.True(t, n.Out.IsTraining())
	n.Eval()
	for _, m := range n.NamedModules() {
		assert.False(t, m.Module.(interface{ IsTraining() bool }).IsTraining(), m.Name)
	}
	n.Train()
	assert.True(t, n.Heads["a"].IsTraining())
}

func TestToKeepsIdentity(t *testing.T) {
	n := newNet()
	w := n.Out.Weight
	require.NoError(t, n.To(torch.Float64))
	assert.Equal(t, torch.Float64, w.DType(), "the same tensor changed dtype")
	assert.Equal(t, torch.Float64, n.Out.RunMean.DType())
	assert.True(t, w.RequiresGrad())
	err := n.To(torch.CUDA(0))
	if !torch.CUDAIsAvailable() {
		require.Error(t, err)
		assert.Contains(t, err.Error(), "features.0.weight")
	}
}

func TestStateDictRoundTrip(t *testing.T) {
	a, b := newNet(), newNet()
	torch.NoGrad(func() { a.Out.Weight.FillScalar_(torch.S(3.0)) })
	sd := a.StateDict()
	assert.Len(t, sd, 15)
	require.NoError(t, b.LoadStateDict(sd, true))
	assert.Equal(t, []float32{3, 3}, b.Out.Weight.Float32s())
	assert.NotEqual(t, a.Out.Weight, b.Out.Weight, "values are copied, not shared")
}

func TestLoadStateDictErrors(t *testing.T) {
	n := newNet()
	sd := n.StateDict()
	delete(sd, "out.bias")
	sd["extra.weight"] = torch.Ones([]int64{2})
	sd["out.weight"] = torch.Ones([]int64{3})
	err := n.LoadStateDict(sd, true)
	var se *nn.StateDictError
	require.True(t, errors.As(err, &se), "%v", err)
	assert.Equal(t, []string{"out.bias"}, se.Missing)
	assert.Equal(t, []string{"extra.weight"}, se.Unexpected)
	require.Len(t, se.Mismatched, 1)
	assert.Contains(t, se.Mismatched[0], "out.weight: shape [3] in state dict, [2] in module")
	assert.Equal(t, []float32{1, 1}, n.Out.Weight.Float32s(), "nothing copied on error")

	// Not strict: shape mismatches are still errors; missing keys are not.
	sd["out.weight"] = torch.Full([]int64{2}, torch.S(5.0))
	require.NoError(t, n.LoadStateDict(sd, false))
	assert.Equal(t, []float32{5, 5}, n.Out.Weight.Float32s())
}

// A load that fails part-way changes nothing: features.0.weight is good
// and sorts first, out.weight lives on the meta device and cannot be
// copied out.
func TestLoadStateDictAllOrNothing(t *testing.T) {
	n := newNet()
	before := n.StateDict()
	want := map[string][]float64{}
	for k, v := range before {
		want[k] = v.Float64s()
	}
	sd := n.StateDict()
	sd["features.0.weight"] = torch.Full([]int64{2}, torch.S(7.0))
	sd["out.weight"] = torch.Zeros([]int64{2}, torch.WithDevice(torch.Device{Type: torch.MetaDevice}))
	err := n.LoadStateDict(sd, true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "out.weight")
	assert.Contains(t, err.Error(), "nothing was loaded")
	for k, v := range n.StateDict() {
		assert.Equal(t, want[k], v.Float64s(), "%s changed by a load that failed", k)
	}
	// A dtype to convert is no obstacle: float64 sources load into float32.
	sd["out.weight"] = torch.Full([]int64{2}, torch.S(0.5), torch.WithDtype(torch.Float64))
	sd["out.bias"] = sd["out.weight"]
	require.NoError(t, n.LoadStateDict(sd, true))
	assert.Equal(t, []float32{7, 7}, n.Features[0].(*affine).Weight.Float32s())
	assert.Equal(t, []float32{0.5, 0.5}, n.Out.Weight.Float32s())
	assert.Equal(t, []float32{0.5, 0.5}, n.Out.Bias.Float32s())
	assert.Equal(t, torch.Float32, n.Out.Bias.DType())
}

func TestUninitializedAndNilModules(t *testing.T) {
	var a affine // Init not called
	err := a.LoadStateDict(nil, true)
	require.ErrorIs(t, err, nn.ErrUninitialized)
	assert.Panics(t, func() { a.Parameters() })
	assert.Contains(t, a.String(), "not initialized")
	assert.PanicsWithError(t, "nn.Sequential: layer 1: nil *nn_test.affine: "+nn.ErrUninitialized.Error(), func() {
		var nilAffine *affine
		nn.Sequential(newAffine(1), nilAffine)
	})
}

func TestSequentialForward(t *testing.T) {
	s := nn.Sequential(newAffine(2), newAffine(2))
	y := s.Forward(torch.FromSlice([]float32{1, 2}))
	assert.Equal(t, []float32{1, 2}, y.Float32s())
	y.Sum().Backward()
	for _, p := range s.Parameters() {
		assert.True(t, p.Grad().Defined())
	}
	s.ZeroGrad()
	for _, p := range s.Parameters() {
		assert.False(t, p.Grad().Defined())
	}
	// A layer with the wrong signature is a clear error.
	bad := nn.Sequential(newAffine(2))
	assert.PanicsWithError(t, "nn.Sequential: layer 0 (affine): Forward takes 1 arguments, got 2", func() {
		bad.ForwardAny(torch.Ones([]int64{2}), 3)
	})
}

func TestString(t *testing.T) {
	s := nn.Sequential(newAffine(2), nn.ModuleList(newAffine(2)))
	assert.Equal(t, "Sequential(\n  (0): affine(n=2)\n  (1): ModuleList(\n    (0): affine(n=2)\n  )\n)", s.String())
}
