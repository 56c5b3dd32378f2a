package functional_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gotorch/gotorch/internal/livetest"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// The functions that make tensors for their own use free them: each leaves
// only its result alive, and nothing when it fails, and its arguments
// usable.
func TestFunctionsFreeTheirTemporaries(t *testing.T) {
	var args []torch.Tensor // of the current case
	arg := func(t torch.Tensor) torch.Tensor {
		args = append(args, t)
		return t
	}
	rn := func(s ...int64) torch.Tensor { return arg(torch.Randn(s)) }
	type call = func() (torch.Tensor, error)
	cases := []struct {
		name string
		// setup makes the arguments, outside the count, and returns the
		// call.
		setup func() call
		fails bool
	}{
		{"softsign", func() call {
			x := rn(3)
			return func() (torch.Tensor, error) { return F.TrySoftsign(x) }
		}, false},
		{"tanhshrink", func() call {
			x := rn(3)
			return func() (torch.Tensor, error) { return F.TryTanhshrink(x) }
		}, false},
		{"softmin", func() call {
			x := rn(2, 3)
			return func() (torch.Tensor, error) { return F.TrySoftmin(x, 1) }
		}, false},
		{"normalize", func() call {
			x := rn(2, 3)
			return func() (torch.Tensor, error) { return F.TryNormalize(x, F.WithP(1)) }
		}, false},
		{"dropout1d unbatched", func() call {
			x := rn(3, 4)
			return func() (torch.Tensor, error) { return F.TryDropout1d(x) }
		}, false},
		{"dropout3d unbatched eval", func() call {
			x := rn(2, 2, 2, 2)
			return func() (torch.Tensor, error) { return F.TryDropout3d(x, F.WithTraining(false)) }
		}, false},
		{"adaptive max pool 1d", func() call {
			x := rn(2, 6)
			return func() (torch.Tensor, error) { return F.TryAdaptiveMaxPool1d(x, 3) }
		}, false},
		{"adaptive max pool 3d", func() call {
			x := rn(1, 4, 4, 4)
			return func() (torch.Tensor, error) { return F.TryAdaptiveMaxPool3d(x, 2) }
		}, false},
		{"mse broadcast", func() call {
			x, y := rn(3, 1), rn(3, 4)
			return func() (torch.Tensor, error) { return F.TryMseLoss(x, y) }
		}, false},
		{"l1", func() call {
			x, y := rn(3, 4), rn(3, 4)
			return func() (torch.Tensor, error) { return F.TryL1Loss(x, y, F.WithReduction("none")) }
		}, false},
		{"smooth l1", func() call {
			x, y := rn(4), rn(3, 4)
			return func() (torch.Tensor, error) { return F.TrySmoothL1Loss(x, y) }
		}, false},
		{"huber", func() call {
			x, y := rn(3, 4), rn(3, 4)
			return func() (torch.Tensor, error) { return F.TryHuberLoss(x, y) }
		}, false},
		{"bce with weight", func() call {
			x, y, w := arg(torch.Rand([]int64{3, 4})), arg(torch.Rand([]int64{3, 4})), arg(torch.Rand([]int64{4}))
			return func() (torch.Tensor, error) { return F.TryBinaryCrossEntropy(x, y, F.WithWeight(w)) }
		}, false},
		{"kl div batchmean", func() call {
			x, y := rn(3, 4), arg(torch.Rand([]int64{3, 4}))
			return func() (torch.Tensor, error) { return F.TryKlDiv(x, y, F.WithReduction("batchmean")) }
		}, false},
		{"embedding max norm", func() call {
			x, w := arg(torch.FromSlice([]int64{0, 2, 2})), rn(5, 3)
			return func() (torch.Tensor, error) { return F.TryEmbedding(x, w, F.WithMaxNorm(1)) }
		}, false},
		{"attention", func() call {
			q, k, v := rn(2, 5, 4), rn(2, 6, 4), rn(2, 6, 3)
			return func() (torch.Tensor, error) { return F.TryScaledDotProductAttention(q, k, v) }
		}, false},
		{"attention causal with dropout", func() call {
			q := rn(2, 5, 4)
			return func() (torch.Tensor, error) {
				return F.TryScaledDotProductAttention(q, q, q, F.WithIsCausal(true), F.WithDropoutP(0.5))
			}
		}, false},
		{"attention bool mask", func() call {
			q, k, v := rn(5, 4), rn(6, 4), rn(6, 3)
			m := arg(torch.Rand([]int64{5, 6}).GtScalar(torch.S(0.3)))
			return func() (torch.Tensor, error) { return F.TryScaledDotProductAttention(q, k, v, F.WithAttnMask(m)) }
		}, false},
		{"attention float mask", func() call {
			q, k, v := rn(5, 4), rn(6, 4), rn(6, 3)
			m := rn(5, 6)
			return func() (torch.Tensor, error) { return F.TryScaledDotProductAttention(q, k, v, F.WithAttnMask(m)) }
		}, false},
		// A failure after temporaries were made.
		{"attention fails at the last matmul", func() call {
			q, k, v := rn(5, 4), rn(6, 4), rn(7, 3)
			return func() (torch.Tensor, error) { return F.TryScaledDotProductAttention(q, k, v) }
		}, true},
	}
	for _, c := range cases {
		for _, grad := range []bool{false, true} {
			name := c.name + "/nograd"
			if grad {
				name = c.name + "/grad"
			}
			t.Run(name, func(t *testing.T) {
				var r torch.Tensor
				var err error
				var n int64
				run := func() {
					args = nil
					f := c.setup()
					n = livetest.New(func() { r, err = f() })
				}
				if grad {
					run()
				} else {
					torch.NoGrad(run)
				}
				for i, a := range args {
					assert.True(t, a.Defined(), "argument %d was freed", i)
				}
				if c.fails {
					assert.Error(t, err)
					assert.Equal(t, int64(0), n, "tensors left alive by a failed call")
					return
				}
				assert.NoError(t, err)
				assert.True(t, r.Defined())
				assert.Equal(t, int64(1), n, "tensors left alive besides the result")
			})
		}
	}
}
