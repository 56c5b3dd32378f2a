package nn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// Modules built inside torch.Scoped survive it: their tensors are reachable
// from the result.
func TestLSTMAttentionTransformerSurviveScoped(t *testing.T) {
	type mods struct {
		L *nn.LSTMModule
		T *nn.TransformerEncoderLayerModule
	}
	m := torch.Scoped(func() mods {
		return mods{nn.LSTM(3, 4), nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0))}
	})
	out, _, _ := m.L.Forward(torch.Randn([]int64{2, 1, 3}))
	assert.Equal(t, []int64{2, 1, 4}, out.Shape())
	y := m.T.Forward(torch.Randn([]int64{2, 1, 8}))
	assert.Equal(t, []int64{2, 1, 8}, y.Shape())
}
