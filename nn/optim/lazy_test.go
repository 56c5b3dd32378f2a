package optim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// Adagrad makes its state when it is built; over a lazy layer whose first
// forward has not sized its parameters yet, that state is made again, for
// the sized parameters, at the first step: the trajectory is the one of an
// Adagrad built after the forward.
func TestAdagradOverLazyLayer(t *testing.T) {
	torch.ManualSeed(7)
	lazy := nn.LazyLinear(3)
	early := optim.Adagrad(lazy.Parameters(), optim.WithLR(0.1), optim.WithInitialAccumulatorValue(0.5))
	x := torch.Randn([]int64{4, 5})
	lazy.Forward(x) // sizes the parameters

	ref := nn.Linear(5, 3)
	torch.NoGrad(func() {
		ref.Weight.Copy_(lazy.Weight)
		ref.Bias.Copy_(lazy.Bias)
	})
	late := optim.Adagrad(ref.Parameters(), optim.WithLR(0.1), optim.WithInitialAccumulatorValue(0.5))

	for i := 0; i < 3; i++ {
		for _, c := range []struct {
			m *nn.LinearModule
			o *optim.AdagradOptimizer
		}{{lazy, early}, {ref, late}} {
			c.o.ZeroGrad()
			y := c.m.Forward(x)
			y.Mul(y).Sum().Backward()
			require.NotPanics(t, func() { c.o.Step() })
		}
		assert.Equal(t, ref.Weight.Float64s(), lazy.Weight.Float64s(), "weight after step %d", i+1)
		assert.Equal(t, ref.Bias.Float64s(), lazy.Bias.Float64s(), "bias after step %d", i+1)
	}
	sd := early.StateDict()
	assert.NotEmpty(t, sd)
}
