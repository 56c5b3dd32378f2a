package classfile_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/classfile"
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/amp"
)

// amp "fp16" is for CUDA: without a CUDA device the knob says so; with
// one it gives the trainer a GradScaler. A trainer whose device is not
// CUDA refuses float16 autocast at the forward pass.
func TestAmpFloat16Knob(t *testing.T) {
	var tr classfile.Trainer
	if !torch.CUDAIsAvailable() {
		assert.PanicsWithError(t, `classfile: amp "fp16": float16 autocast is for CUDA devices and this process has none; use amp "bf16" on the CPU`,
			func() { tr.Amp__1("fp16") })
		assert.Equal(t, "off", tr.Amp__0(), "a refused knob changes nothing")
	} else {
		tr.Amp__1("fp16")
		assert.Equal(t, "fp16", tr.Amp__0())
		tr.Amp__1("off")
		assert.Equal(t, "off", tr.Amp__0())
	}
	assert.PanicsWithError(t, `classfile: amp "fp8": want "bf16", "fp16" or "off"`, func() { tr.Amp__1("fp8") })

	var cpu classfile.Trainer
	cpu.Device__1("cpu")
	classfile.SetAmpFloat16(&cpu)
	ran := false
	assert.PanicsWithError(t, `classfile: amp "fp16" is for CUDA devices; the trainer's device is cpu (use amp "bf16", or device "cuda")`,
		func() { classfile.Autocast(&cpu, func() { ran = true }) })
	assert.False(t, ran, "nothing runs under a refused autocast")
}

// Under amp "fp16", Step is PyTorch's scaler.scale(loss).backward();
// scaler.step(opt); scaler.update(). With a power-of-two scale the
// unscaled gradients are the plain ones bit for bit, so a scaled trainer
// follows a plain one exactly; a step with a NaN loss is skipped and
// halves the scale. (float32 here: the CPU has no float16 autocast; the
// GradScaler does not depend on it.)
func TestScaledStepFollowsPlainStep(t *testing.T) {
	torch.ManualSeed(3)
	netA := nn.Linear(4, 2)
	torch.ManualSeed(3)
	netB := nn.Linear(4, 2)
	var a, b classfile.Trainer
	for _, c := range []struct {
		tr  *classfile.Trainer
		net *nn.LinearModule
	}{{&a, netA}, {&b, netB}} {
		c.tr.Device__1("cpu")
		c.tr.Model__1(c.net)
		c.tr.Optimizer__1("adam")
		c.tr.Lr__1(0.1)
	}
	s, err := amp.NewGradScaler(amp.GradScalerOptions{InitScale: 1024, GrowthInterval: 2})
	require.NoError(t, err)
	classfile.SetGradScaler(&b, s)

	x, y := torch.Randn([]int64{8, 4}), torch.Randn([]int64{8, 2})
	for i := 0; i < 3; i++ {
		a.Step(F.MseLoss(netA.Forward(x), y))
		b.Step(F.MseLoss(netB.Forward(x), y))
	}
	pa, pb := netA.Parameters(), netB.Parameters()
	for i := range pa {
		assert.True(t, pa[i].Equal(pb[i]), "parameter %d: the scaled trainer follows the plain one exactly", i)
	}
	assert.Equal(t, 2048.0, s.Scale(), "doubled after GrowthInterval (2) clean steps")
	assert.Equal(t, 3, b.Steps())

	before := []torch.Tensor{pb[0].Clone(), pb[1].Clone()}
	b.Step(F.MseLoss(netB.Forward(x), y).MulScalar(torch.S(math.NaN())))
	for i := range pb {
		assert.True(t, pb[i].Equal(before[i]), "parameter %d: the step with a NaN gradient is skipped", i)
	}
	assert.Equal(t, 1024.0, s.Scale(), "halved after an overflow")
	assert.Equal(t, 4, b.Steps(), "a skipped step still counts, as a loop iteration")
}

// On a GPU, amp "fp16" trains: the linear layer runs in float16, the
// parameters stay float32, and the loss falls. (Runs under
// scripts/gpu-check.sh.)
func TestAmpFloat16TrainsOnCUDA(t *testing.T) {
	if !torch.CUDAIsAvailable() {
		t.Skip("no CUDA device: amp \"fp16\" training runs under scripts/gpu-check.sh")
	}
	torch.ManualSeed(1)
	net := nn.Linear(16, 4)
	var tr classfile.Trainer
	tr.Device__1("cuda")
	tr.Model__1(net)
	tr.Optimizer__1("sgd")
	tr.Lr__1(0.1)
	tr.Amp__1("fp16")
	d := torch.WithDevice(torch.CUDA(0))
	x, y := torch.Randn([]int64{32, 16}, d), torch.Randn([]int64{32, 4}, d)
	var first, last float64
	for i := 0; i < 20; i++ {
		var out, loss torch.Tensor
		classfile.Autocast(&tr, func() { out = net.Forward(x); loss = F.MseLoss(out, y) })
		require.Equal(t, torch.Float16, out.DType(), "linear under float16 autocast")
		last = loss.Item()
		if i == 0 {
			first = last
		}
		tr.Step(loss)
	}
	assert.Less(t, last, first, "the loss falls")
	assert.Equal(t, torch.Float32, net.Parameters()[0].DType(), "the parameters stay float32")
}
