package classfile

import (
	"fmt"
	"sync"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/amp"
)

// Mixed precision and the default device of *_train.gox scripts:
//
//	device "auto"   // the default: cuda:0 when a GPU is present, else cpu
//	amp "bf16"      // forward passes and losses under autocast in bfloat16
//
// amp "bf16" runs the model's Forward and the loss in torch/amp's Autocast
// on the trainer's device type (bfloat16 needs no gradient scaling); amp
// "off" (the default) turns it off.

var cudaPresent = sync.OnceValue(torch.CUDAIsAvailable)

// autoDevice is what device "auto" picks.
func autoDevice() torch.Device {
	if cudaPresent() {
		return torch.CUDA(0)
	}
	return torch.CPU
}

// Amp__0 is the mixed-precision mode: "off" or "bf16".
func (t *Trainer) Amp__0() string {
	if t.ampDType == torch.BFloat16 {
		return "bf16"
	}
	return "off"
}

// Amp__1 sets the mixed-precision mode: amp "bf16" or amp "off".
func (t *Trainer) Amp__1(mode string) {
	if t.locked["amp"] {
		return // the -amp flag overrides the script
	}
	switch mode {
	case "bf16", "bfloat16":
		t.ampDType = torch.BFloat16
	case "off", "":
		t.ampDType = 0
	case "fp16", "float16":
		panic(fmt.Errorf("classfile: amp %q: float16 needs gradient scaling (torch/amp's GradScaler), which the trainer does not do yet; use amp \"bf16\"", mode))
	default:
		panic(fmt.Errorf("classfile: amp %q: want \"bf16\" or \"off\"", mode))
	}
}

// autocast runs f under autocast when amp is on.
func (t *Trainer) autocast(f func()) {
	if t.ampDType == 0 {
		f()
		return
	}
	if err := amp.Autocast(t.Device__0(), t.ampDType, f); err != nil {
		panic(fmt.Errorf("classfile: amp: %w", err))
	}
}
