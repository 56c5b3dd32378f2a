package text

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// In eval mode the models' dropouts pass their input on without a call;
// in training they drop, and record their result to be freed.
func TestTempsDropout(t *testing.T) {
	x := torch.Ones([]int64{1000})
	d := nn.Dropout(nn.WithP(0.5))
	var tmp temps

	d.Eval()
	require.True(t, tmp.dropout(d, x) == x, "eval: not x itself")
	assert.Empty(t, tmp, "eval: recorded a tensor")

	d.Train()
	y := tmp.dropout(d, x)
	require.False(t, y == x, "training: x itself")
	require.Len(t, tmp, 1)
	zeros := y.EqScalar(torch.S(0)).Sum().ItemInt()
	assert.Greater(t, zeros, int64(300), "training: too few dropped")
	assert.Less(t, zeros, int64(700), "training: too many dropped")
	tmp.free()
	assert.Panics(t, func() { y.Sum() }, "training: the result was not freed")
}
