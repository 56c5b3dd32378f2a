package torch_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// restoreAnomaly puts anomaly mode back as it was when the test ends: it
// is global.
func restoreAnomaly(t *testing.T) {
	on, nan := torch.IsAnomalyEnabled(), torch.IsAnomalyCheckNanEnabled()
	t.Cleanup(func() { torch.SetAnomalyEnabled(on, torch.WithCheckNan(nan)) })
}

// sqrtBackward runs sqrt(x).sum().backward() for x = [-1, 4], whose
// gradient at -1 is NaN, and returns the gradient or the error.
func sqrtBackward(t *testing.T) ([]float64, error) {
	t.Helper()
	x := torch.FromSlice([]float32{-1, 4}).SetRequiresGrad(true)
	if err := x.Sqrt().Sum().TryBackward(); err != nil {
		return nil, err
	}
	return x.Grad().Float64s(), nil
}

// TestAnomalyNaN checks PyTorch's behaviour (testdata/globals.json): a
// backward producing NaN writes it without anomaly mode, and fails naming
// the op's gradient function with it, unless check_nan is off.
func TestAnomalyNaN(t *testing.T) {
	restoreAnomaly(t)
	g := loadGlobalsGolden(t)

	torch.SetAnomalyEnabled(false)
	grad, err := sqrtBackward(t)
	require.NoError(t, err, "anomaly mode off")
	require.Len(t, grad, 2)
	require.Nil(t, g.NanGrad[0])
	assert.True(t, math.IsNaN(grad[0]), "the gradient at -1 is NaN, got %v", grad[0])
	assert.Equal(t, *g.NanGrad[1], grad[1])

	torch.SetAnomalyEnabled(true)
	assert.Equal(t, g.AnomalyDefault, []bool{torch.IsAnomalyEnabled(), torch.IsAnomalyCheckNanEnabled()}, "check_nan defaults to true")
	_, err = sqrtBackward(t)
	require.Error(t, err, "anomaly mode on: a NaN gradient is an error")
	assert.Contains(t, err.Error(), g.AnomalyError, "PyTorch's message, which names SqrtBackward0")
	assert.Contains(t, err.Error(), "SqrtBackward0")

	torch.SetAnomalyEnabled(true, torch.WithCheckNan(false))
	assert.Equal(t, g.AnomalyNoCheckNan, []bool{torch.IsAnomalyEnabled(), torch.IsAnomalyCheckNanEnabled()})
	grad, err = sqrtBackward(t)
	require.NoError(t, err, "check_nan off")
	assert.True(t, math.IsNaN(grad[0]))
}

// TestAnomalyBadOption checks that an option other than check_nan is an
// error naming it, and changes nothing.
func TestAnomalyBadOption(t *testing.T) {
	restoreAnomaly(t)
	torch.SetAnomalyEnabled(false)
	err := torch.TrySetAnomalyEnabled(true, torch.WithWarnOnly(true))
	require.Error(t, err)
	assert.Equal(t, "torch.set_anomaly_enabled: unexpected option warn_only", err.Error())
	assert.False(t, torch.IsAnomalyEnabled())
	assert.Panics(t, func() { torch.SetAnomalyEnabled(true, torch.WithDim(1)) })
	assert.False(t, torch.IsAnomalyEnabled())
}
