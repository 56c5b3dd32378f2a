package classfile

import (
	"fmt"
	"sync"

	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/amp"
)

// Mixed precision and the default device of *_train.gox scripts:
//
//	device "auto"   // the default: cuda:0 when a GPU is present, else cpu
//	amp "bf16"      // forward passes and losses under autocast in bfloat16
//
//	amp "fp16"      // the same in float16, with a GradScaler (CUDA only)
//
// amp "bf16" runs the model's Forward and the loss in torch/amp's Autocast
// on the trainer's device type (bfloat16 needs no gradient scaling); amp
// "off" (the default) turns it off. amp "fp16" runs them in float16 and
// trains as PyTorch's recipe does: Step calls
// scaler.scale(loss).backward(); scaler.step(opt); scaler.update() with a
// torch/amp GradScaler of PyTorch's defaults. float16 autocast is for CUDA
// devices only (libtorch 1.13's CPU autocast has no float16): without a
// CUDA device the knob panics, and a trainer whose device is not CUDA
// panics at the first forward pass, both saying so.

var cudaPresent = sync.OnceValue(torch.CUDAIsAvailable)

// autoDevice is what device "auto" picks.
func autoDevice() torch.Device {
	if cudaPresent() {
		return torch.CUDA(0)
	}
	return torch.CPU
}

// Amp__0 is the mixed-precision mode: "off", "bf16" or "fp16".
func (t *Trainer) Amp__0() string {
	switch t.ampDType {
	case torch.BFloat16:
		return "bf16"
	case torch.Float16:
		return "fp16"
	}
	return "off"
}

// Amp__1 sets the mixed-precision mode: amp "bf16", amp "fp16" (CUDA
// only, with gradient scaling) or amp "off".
func (t *Trainer) Amp__1(mode string) {
	if t.locked["amp"] {
		return // the -amp flag overrides the script
	}
	switch mode {
	case "bf16", "bfloat16":
		t.ampDType, t.scaler = torch.BFloat16, nil
	case "off", "":
		t.ampDType, t.scaler = 0, nil
	case "fp16", "float16":
		if !cudaPresent() {
			panic(fmt.Errorf("classfile: amp %q: float16 autocast is for CUDA devices and this process has none; use amp \"bf16\" on the CPU", mode))
		}
		s, err := amp.NewGradScaler(amp.GradScalerOptions{})
		if err != nil {
			panic(fmt.Errorf("classfile: amp %q: %w", mode, err))
		}
		t.ampDType, t.scaler = torch.Float16, s
	default:
		panic(fmt.Errorf("classfile: amp %q: want \"bf16\", \"fp16\" or \"off\"", mode))
	}
}

// scaledStep is Step's backward and optimizer step under amp "fp16":
// PyTorch's scaler.scale(loss).backward(); scaler.step(opt);
// scaler.update(). A step whose gradients hold an inf or NaN is skipped
// and the scale halved.
func (t *Trainer) scaledStep(opt optim.Optimizer, loss torch.Tensor) {
	scaled, err := t.scaler.ScaleLoss(loss)
	if err != nil {
		panic(fmt.Errorf("classfile: amp: scaling the loss: %w", err))
	}
	t.prepareBackward(scaled)
	scaled.Backward()
	if scaled != loss {
		scaled.Free()
	}
	if _, err := t.scaler.Step(opt); err != nil {
		panic(fmt.Errorf("classfile: amp: %w", err))
	}
	if err := t.scaler.Update(); err != nil {
		panic(fmt.Errorf("classfile: amp: %w", err))
	}
}

// autocast runs f under autocast when amp is on.
func (t *Trainer) autocast(f func()) {
	if t.ampDType == 0 {
		f()
		return
	}
	if d := t.Device__0(); t.ampDType == torch.Float16 && d.Type != torch.CUDADevice {
		panic(fmt.Errorf("classfile: amp \"fp16\" is for CUDA devices; the trainer's device is %v (use amp \"bf16\", or device \"cuda\")", d))
	}
	if err := amp.Autocast(t.Device__0(), t.ampDType, f); err != nil {
		panic(fmt.Errorf("classfile: amp: %w", err))
	}
}
