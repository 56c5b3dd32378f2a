package amp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch/amp"
)

// TestScalerFloat32Limits (issue #36): the scale is a float32, so values
// that are finite as float64 but not as float32 are refused, and the
// scaler keeps its scale.
func TestScalerFloat32Limits(t *testing.T) {
	s, err := amp.NewGradScaler(amp.GradScalerOptions{})
	require.NoError(t, err)
	for _, v := range []float64{1e300, 1e-50, 3.5e38} {
		err := s.SetScale(v)
		require.Error(t, err, "%v", v)
		assert.Contains(t, err.Error(), "positive and finite as a float32")
		assert.Equal(t, 65536.0, s.Scale(), "the scale is unchanged after refusing %v", v)
	}
	require.NoError(t, s.SetScale(3e38), "the largest scales that float32 holds are fine")
	assert.InDelta(t, 3e38, s.Scale(), 1e32)

	_, err = amp.NewGradScaler(amp.GradScalerOptions{GrowthFactor: 1e300})
	require.ErrorContains(t, err, "GrowthFactor must be above 1 and finite as a float32, got 1e+300")
	_, err = amp.NewGradScaler(amp.GradScalerOptions{InitScale: 1e300})
	require.ErrorContains(t, err, "InitScale must be positive and finite")
	_, err = amp.NewGradScaler(amp.GradScalerOptions{InitScale: 1e-50})
	require.ErrorContains(t, err, "InitScale must be positive and finite")
}
