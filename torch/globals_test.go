package torch_test

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// TestInferenceMode checks is_inference_mode_enabled outside and inside
// InferenceMode, and what PyTorch's inference_mode does there
// (testdata/globals.json): inference tensors, no gradient recording.
func TestInferenceMode(t *testing.T) {
	g := loadGlobalsGolden(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	assert.Equal(t, g.InferenceModeDefault, torch.IsInferenceModeEnabled())
	var inside []bool
	var y torch.Tensor
	torch.InferenceMode(func() {
		y = torch.Ones([]int64{2}).MulScalar(torch.S(2))
		inside = []bool{torch.IsInferenceModeEnabled(), torch.IsInference(y), torch.IsGradEnabled()}
	})
	assert.Equal(t, g.InferenceModeInside, inside)
	assert.False(t, torch.IsInferenceModeEnabled(), "InferenceMode ends the mode")
	assert.True(t, torch.IsGradEnabled())
	z := torch.Ones([]int64{2})
	assert.False(t, torch.IsInference(z))
	// PyTorch refuses to save an inference tensor for backward.
	w := torch.Ones([]int64{2}).SetRequiresGrad(true)
	_, err := w.TryMul(y)
	require.Error(t, err, "an inference tensor saved for backward")
	assert.Contains(t, err.Error(), "Inference tensors cannot be saved for backward")
}

// TestSetFlushDenormal multiplies a float64 and a float32 denormal by one
// with flushing on and off, as testdata/globals.json did with PyTorch.
func TestSetFlushDenormal(t *testing.T) {
	g := loadGlobalsGolden(t)
	runtime.LockOSThread() // the setting is the thread's
	defer runtime.UnlockOSThread()
	defer torch.SetFlushDenormal(false)
	times1 := func() []float64 {
		a := torch.FromSlice([]float64{1e-310}).MulScalar(torch.S(1.0))
		b := torch.FromSlice([]float32{1e-40}).MulScalar(torch.S(1.0))
		return []float64{a.Item(), b.Item()}
	}
	supported := torch.SetFlushDenormal(true)
	if supported {
		assert.Equal(t, g.Flushed, times1(), "flushed")
	} else {
		t.Logf("this CPU cannot flush denormals (PyTorch's reference machine could: %v)", g.FlushSupported)
	}
	assert.Equal(t, supported, torch.SetFlushDenormal(false))
	assert.Equal(t, g.Kept, times1(), "kept")
}

// TestFloat32MatmulPrecision checks the default and each precision read
// back (testdata/globals.json), and that a bad one is an error that
// changes nothing, where PyTorch warns and ignores it.
func TestFloat32MatmulPrecision(t *testing.T) {
	g := loadGlobalsGolden(t)
	prev := torch.GetFloat32MatmulPrecision()
	t.Cleanup(func() { torch.SetFloat32MatmulPrecision(prev) })
	assert.Equal(t, g.MatmulPrecisionDefault, prev, "the default (no other test sets it)")
	var got []string
	for _, p := range []string{"high", "medium", "highest"} {
		torch.SetFloat32MatmulPrecision(p)
		got = append(got, torch.GetFloat32MatmulPrecision())
	}
	assert.Equal(t, g.MatmulPrecisions, got)
	torch.SetFloat32MatmulPrecision("medium")
	for _, bad := range []string{"HIGH", "", "low"} {
		err := torch.TrySetFloat32MatmulPrecision(bad)
		require.Error(t, err, "%q", bad)
		assert.Equal(t, "torch.set_float32_matmul_precision: "+strconv.Quote(bad)+" is not one of 'highest', 'high', or 'medium'", err.Error())
		assert.Equal(t, "medium", torch.GetFloat32MatmulPrecision())
	}
	assert.Panics(t, func() { torch.SetFloat32MatmulPrecision("bad") })
}

// TestSeeds checks initial_seed after manual_seed against PyTorch's, with
// the numbers drawn next, and that Seed's seed replays its draws.
func TestSeeds(t *testing.T) {
	g := loadGlobalsGolden(t)
	require.Len(t, g.Seeds, 3)
	state, err := torch.GetRngState()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, torch.SetRngState(state)) })
	for _, s := range g.Seeds {
		seed, err := strconv.ParseUint(s.Seed, 10, 64)
		require.NoError(t, err)
		torch.ManualSeed(seed)
		assert.Equal(t, s.InitialSeed, strconv.FormatUint(torch.InitialSeed(), 10), "initial_seed after manual_seed(%s)", s.Seed)
		assert.Equal(t, s.Rand3, torch.Rand([]int64{3}).Float64s(), "rand(3) after manual_seed(%s)", s.Seed)
	}
	a := torch.Seed()
	assert.Equal(t, a, torch.InitialSeed())
	drawn := torch.Rand([]int64{4}).Float64s()
	b := torch.Seed()
	assert.NotEqual(t, a, b, "two non-deterministic seeds")
	torch.ManualSeed(a)
	assert.Equal(t, drawn, torch.Rand([]int64{4}).Float64s(), "manual_seed(seed()) replays the draws")
}
