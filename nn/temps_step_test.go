package nn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gotorch/gotorch/internal/livetest"
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// A training step of attention and transformer layers leaves nothing of
// its intermediates: once the step's output and loss are freed, the live
// tensors are the parameters, their gradients and the optimizer's state,
// the same after every step (issue #22: a step's peak GPU memory close to
// PyTorch's needs every module to free its intermediates as soon as it has
// its result, not at the next GC()). Go's collector is off during the
// counts (newLive), so only explicit frees lower them.
func TestTrainingStepLeavesNoIntermediates(t *testing.T) {
	type model interface {
		Parameters() []torch.Tensor
	}
	type stepCase struct {
		name    string
		m       model
		forward func(x torch.Tensor) torch.Tensor
		shape   []int64
	}
	var cases []stepCase
	enc := nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, nn.WithDimFeedforward(32)), 3, nn.WithNorm(nn.LayerNorm(16)))
	cases = append(cases, stepCase{"TransformerEncoder 3 layers", enc, func(x torch.Tensor) torch.Tensor { return enc.Forward(x) }, []int64{5, 2, 16}})
	encPre := nn.TransformerEncoderLayer(16, 2, nn.WithDimFeedforward(32), nn.WithNormFirst(true), nn.WithBatchFirst(true), nn.WithActivation("gelu"))
	cases = append(cases, stepCase{"TransformerEncoderLayer norm first", encPre, func(x torch.Tensor) torch.Tensor { return encPre.Forward(x) }, []int64{2, 5, 16}})
	dec := nn.TransformerDecoderLayer(16, 2, nn.WithDimFeedforward(32))
	mem := torch.Randn([]int64{4, 2, 16})
	cases = append(cases, stepCase{"TransformerDecoderLayer", dec, func(x torch.Tensor) torch.Tensor { return dec.Forward(x, mem) }, []int64{5, 2, 16}})
	mha := nn.MultiheadAttention(16, 4, nn.WithDropout(0.1))
	cases = append(cases, stepCase{"MultiheadAttention with weights", mha, func(x torch.Tensor) torch.Tensor {
		out, w := mha.Forward(x, x, x)
		w.Free()
		return out
	}, []int64{5, 2, 16}})

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			torch.ManualSeed(1)
			x, y := torch.Randn(c.shape), torch.Randn(c.shape)
			opt := optim.AdamW(c.m.Parameters(), optim.WithLR(1e-3))
			params := int64(len(c.m.Parameters()))
			step := func() {
				out := c.forward(x)
				loss := F.MseLoss(out, y)
				opt.ZeroGrad()
				loss.Backward()
				opt.Step()
				out.Free()
				loss.Free()
			}
			// The first step makes the gradients and AdamW's state (step,
			// exp_avg, exp_avg_sq per parameter): at most four tensors
			// per parameter.
			first := livetest.New(step)
			assert.LessOrEqual(t, first, 4*params, "first step: %d new live tensors for %d parameters", first, params)
			// Later steps replace the gradients and update the state in
			// place: nothing more stays alive.
			for i := 0; i < 3; i++ {
				assert.Equal(t, int64(0), livetest.New(step), "step %d", i+2)
			}
			// Within a step, after the forward pass, only the output and
			// the loss are new: autograd keeps what it saved by its own
			// reference.
			var out, loss torch.Tensor
			assert.Equal(t, int64(2), livetest.New(func() {
				out = c.forward(x)
				loss = F.MseLoss(out, y)
			}), "forward and loss")
			opt.ZeroGrad()
			loss.Backward()
			opt.Step()
			out.Free()
			loss.Free()
		})
	}
}
