// Package amp is automatic mixed precision, as torch.amp: Autocast runs
// code with libtorch's autocast on, so that ops that gain from a lower
// precision (matrix products, convolutions, linear layers) run in float16 or
// bfloat16 while the others keep float32; GradScaler scales a float16
// loss so that small gradients do not underflow, and skips the steps whose
// gradients overflowed.
//
//	scaler := amp.NewGradScaler(amp.GradScalerOptions{})
//	for batch := range loader {
//		var loss torch.Tensor
//		amp.Autocast(torch.CUDA(0), torch.Float16, func() {
//			loss = lossFn(model.Forward(x), y)
//		})
//		scaler.Scale(loss).Backward()
//		scaler.Step(opt)
//		scaler.Update()
//	}
//
// bfloat16 needs no scaler (its range is float32's). On the CPU, autocast
// supports bfloat16 (and float16 from libtorch 2.x).
package amp

/*
#cgo CFLAGS: -I${SRCDIR}/../../cgotorch
#include "amp/amp.h"
*/
import "C"

import (
	"runtime"
	"unsafe"

	_ "github.com/gotorch/gotorch/cgotorch/amp" // the C++ of amp.h
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/internal/native"
)

func cErr(op string, e C.gt_error) error {
	if e == nil {
		return nil
	}
	return native.Error(op, unsafe.Pointer(e))
}

func deviceType(op string, d torch.Device) (C.int32_t, error) {
	switch d.Type {
	case torch.CPUDevice:
		return 0, nil
	case torch.CUDADevice:
		return 1, nil
	}
	return 0, &torch.Error{Op: op, Msg: "autocast supports the cpu and cuda devices, not " + d.String(), Err: torch.ErrUnsupported}
}

// Autocast runs f with autocast enabled for device's type in dtype
// (torch.autocast(device_type, dtype)): ops that f issues on this goroutine
// run in dtype where PyTorch's autocast lists say so. The state is per OS
// thread in libtorch, so the goroutine is locked to its thread while f
// runs; ops issued from other goroutines are not autocast. Backward passes
// need no autocast (as in PyTorch, they run in the forward's dtypes).
// Regions nest; the previous state comes back when f returns or panics.
func Autocast(device torch.Device, dtype torch.DType, f func()) error {
	return run("autocast", device, true, dtype, f)
}

// WithoutAutocast runs f with autocast disabled for device's type, inside
// an Autocast region (torch.autocast(..., enabled=False)).
func WithoutAutocast(device torch.Device, f func()) error {
	_, dtype, err := state("autocast", device)
	if err != nil {
		return err
	}
	return run("autocast", device, false, dtype, f)
}

func run(op string, device torch.Device, enabled bool, dtype torch.DType, f func()) error {
	dt, err := deviceType(op, device)
	if err != nil {
		return err
	}
	switch dtype {
	case torch.Float16, torch.BFloat16, torch.Float32:
	default:
		return &torch.Error{Op: op, Msg: "autocast dtype must be float16 or bfloat16, got " + dtype.String()}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var prevOn C.int
	var prevType C.int32_t
	if err := cErr(op, C.gt_autocast_get(dt, &prevOn, &prevType)); err != nil {
		return err
	}
	on := C.int(0)
	if enabled {
		on = 1
	}
	if err := cErr(op, C.gt_autocast_enter(dt, on, C.int32_t(dtype))); err != nil {
		return err
	}
	defer func() {
		if e := C.gt_autocast_exit(dt, prevOn, prevType); e != nil {
			panic(cErr(op, e)) // restoring a state libtorch gave cannot fail
		}
	}()
	f()
	return nil
}

func state(op string, device torch.Device) (bool, torch.DType, error) {
	dt, err := deviceType(op, device)
	if err != nil {
		return false, 0, err
	}
	var on C.int
	var dtype C.int32_t
	err = cErr(op, C.gt_autocast_get(dt, &on, &dtype))
	return on != 0, torch.DType(dtype), err
}

// IsAutocastEnabled reports whether autocast is on for device's type on
// the calling OS thread (torch.is_autocast_enabled(device_type)), and its
// dtype.
func IsAutocastEnabled(device torch.Device) (bool, torch.DType, error) {
	return state("is_autocast_enabled", device)
}
