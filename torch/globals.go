package torch

/*
#include "cgotorch.h"
#include "globals.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// IsInferenceModeEnabled reports whether the calling OS thread is in
// inference mode, as InferenceMode puts it: torch.is_inference_mode_enabled().
func IsInferenceModeEnabled() bool { return C.gt_inference_mode_enabled() != 0 }

// InferenceMode runs f in inference mode, like Python's
// `with torch.inference_mode():`: NoGrad, and the tensors that f's ops
// make are inference tensors (IsInference), which autograd later refuses
// to record. libtorch keeps the mode per OS thread, so InferenceMode pins
// the calling goroutine to its thread while f runs; goroutines that f
// starts are not covered.
func InferenceMode(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var g unsafe.Pointer
	must(cError("inference_mode", C.gt_inference_mode_enter(1, &g)))
	defer C.gt_inference_mode_exit(g)
	f()
}

// SetFlushDenormal turns flushing denormal floats to zero on or off on the
// CPU (SSE3's flush-to-zero and denormals-are-zero), and reports whether
// the CPU supports it: torch.set_flush_denormal(mode). Where it returns
// false, nothing changed. It is set for the calling OS thread, as in
// PyTorch; libtorch's intra-op threads keep their own.
func SetFlushDenormal(mode bool) bool { return C.gt_set_flush_denormal(cBool(mode)) != 0 }

// float32MatmulPrecisions are the precisions in at::Float32MatmulPrecision's
// order.
var float32MatmulPrecisions = [...]string{"highest", "high", "medium"}

// GetFloat32MatmulPrecision is the precision of float32 matrix
// multiplications, "highest" (the default), "high" or "medium":
// torch.get_float32_matmul_precision().
func GetFloat32MatmulPrecision() string {
	p := int(C.gt_get_float32_matmul_precision())
	if p < 0 || p >= len(float32MatmulPrecisions) {
		return "unknown"
	}
	return float32MatmulPrecisions[p]
}

// SetFloat32MatmulPrecision sets the precision of float32 matrix
// multiplications: torch.set_float32_matmul_precision(precision). "high"
// and "medium" let CUDA use TF32 (libtorch 1.13's CPU kernels compute in
// full float32 whatever it is). It panics where
// TrySetFloat32MatmulPrecision returns an error.
func SetFloat32MatmulPrecision(precision string) {
	must(TrySetFloat32MatmulPrecision(precision))
}

// TrySetFloat32MatmulPrecision is SetFloat32MatmulPrecision returning its
// error: a precision other than the three, which PyTorch only warns about
// and ignores.
func TrySetFloat32MatmulPrecision(precision string) error {
	const op = "set_float32_matmul_precision"
	for i, p := range float32MatmulPrecisions {
		if p == precision {
			return cError(op, C.gt_set_float32_matmul_precision(C.int(i)))
		}
	}
	return newError(op, nil, "%q is not one of 'highest', 'high', or 'medium'", precision)
}

// InitialSeed is the seed of the default CPU generator, the one ManualSeed
// and Seed set: torch.initial_seed().
func InitialSeed() uint64 { return uint64(C.gt_initial_seed()) }

// Seed seeds the default CPU generator from a non-deterministic source
// and returns that seed, which ManualSeed takes to draw the same numbers
// again: torch.seed(). It seeds the CPU generator only, where PyTorch's
// torch.seed also seeds the CUDA generators.
func Seed() uint64 {
	var s C.uint64_t
	must(cError("seed", C.gt_seed(&s)))
	return uint64(s)
}
