package amp_test

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/amp"
)

// The scaler frees what it makes (the finiteness checks, gradient
// handles, the scale tensor) at once: with Go's collector off, a scaled
// step leaves only the scaled loss, which the caller owns. (On a GPU the
// checks are gradient-sized; they must not wait for the next GC().)
func TestScalerFreesItsTemporaries(t *testing.T) {
	w := torch.Randn([]int64{64, 32}).SetRequiresGrad(true)
	x := torch.Randn([]int64{8, 64})
	o := optim.SGD([]torch.Tensor{w}, optim.WithLR(0.1))
	s, err := amp.NewGradScaler(amp.GradScalerOptions{})
	require.NoError(t, err)
	loss := x.Mm(w).Square().Sum()
	torch.FinishGC()
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	before := torch.ReadMemStats().LiveTensors
	scaled, err := s.ScaleLoss(loss)
	require.NoError(t, err)
	scaled.Backward()
	ran, err := s.Step(o)
	require.NoError(t, err)
	assert.True(t, ran)
	require.NoError(t, s.Update())
	assert.Equal(t, int64(1), torch.ReadMemStats().LiveTensors-before, "only the scaled loss is new")
	scaled.Free()
}
