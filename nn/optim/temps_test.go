package optim_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gotorch/gotorch/internal/livetest"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// An optimizer step frees what it makes for itself (a square root, a
// bias-corrected copy, the gradient's handle): after the first step has
// made the state, a step leaves no new live tensor. (A value receiver on
// the step's temporaries list once left one tensor per parameter until the
// next GC(): on a GPU, that is parameter-sized memory at the peak.)
func TestStepFreesItsTemporaries(t *testing.T) {
	for name, mk := range map[string]func([]torch.Tensor) optim.Optimizer{
		"SGD momentum": func(p []torch.Tensor) optim.Optimizer {
			return optim.SGD(p, optim.WithLR(0.1), optim.WithMomentum(0.9))
		},
		"Adam":           func(p []torch.Tensor) optim.Optimizer { return optim.Adam(p, optim.WithWeightDecay(0.1)) },
		"Adam amsgrad":   func(p []torch.Tensor) optim.Optimizer { return optim.Adam(p, optim.WithAmsgrad(true)) },
		"AdamW maximize": func(p []torch.Tensor) optim.Optimizer { return optim.AdamW(p, optim.WithMaximize(true)) },
		"NAdam":          func(p []torch.Tensor) optim.Optimizer { return optim.NAdam(p) },
		"RAdam":          func(p []torch.Tensor) optim.Optimizer { return optim.RAdam(p) },
		"Adamax":         func(p []torch.Tensor) optim.Optimizer { return optim.Adamax(p) },
		"Adadelta":       func(p []torch.Tensor) optim.Optimizer { return optim.Adadelta(p) },
		"Adagrad":        func(p []torch.Tensor) optim.Optimizer { return optim.Adagrad(p) },
		"RMSprop": func(p []torch.Tensor) optim.Optimizer {
			return optim.RMSprop(p, optim.WithMomentum(0.5), optim.WithCentered(true))
		},
	} {
		t.Run(name, func(t *testing.T) {
			w := torch.Randn([]int64{4, 3}).SetRequiresGrad(true)
			b := torch.Randn([]int64{3}).SetRequiresGrad(true)
			x := torch.Randn([]int64{2, 4})
			o := mk([]torch.Tensor{w, b})
			step := func() {
				loss := x.Mm(w).Add(b).Square().Sum()
				o.ZeroGrad()
				loss.Backward()
				o.Step()
				torch.FinishGC() // the loss and its graph's handles
			}
			step() // makes the state
			for i := 2; i <= 4; i++ {
				assert.Equal(t, int64(0), livetest.New(func() { o.Step() }), "step %d: new live tensors", i)
				step()
			}
		})
	}
}

// ClipGradNorm_ leaves only its result (the total norm) alive.
func TestClipGradNormFreesItsTemporaries(t *testing.T) {
	for _, norm := range []float64{2, 1, 3} {
		w := torch.Randn([]int64{4, 3}).SetRequiresGrad(true)
		b := torch.Randn([]int64{3}).SetRequiresGrad(true)
		w.Mm(torch.Ones([]int64{3, 1})).Sum().Add(b.Sum()).Backward()
		var total torch.Tensor
		assert.Equal(t, int64(1), livetest.New(func() {
			total = optim.ClipGradNorm_([]torch.Tensor{w, b}, 0.5, optim.WithNormType(norm))
		}), "norm type %v", norm)
		// Every gradient element is 1 (15 of them): the norm is 15^(1/p),
		// and the clipped gradients are 0.5/norm (eps 1e-6 aside).
		want := math.Pow(15, 1/norm)
		assert.InDelta(t, want, total.Item(), 1e-5, "norm type %v", norm)
		assert.InDelta(t, 0.5/want, w.Grad().Max().Item(), 1e-5, "norm type %v: the gradients were clipped in place", norm)
	}
}
