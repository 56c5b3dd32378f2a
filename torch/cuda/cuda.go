// Package cuda mirrors Python's torch.cuda: which GPUs there are, the
// current device, synchronization, seeds, the caching allocator's memory
// statistics, cuDNN and TF32 settings, streams and events, pinned host
// memory and non-blocking copies.
//
//	if cuda.IsAvailable() {
//		x = x.To(torch.CUDA(0))
//		defer cuda.Synchronize()
//	}
//
// Tensors live on a GPU through package torch itself (torch.CUDA(n),
// torch.WithDevice, Tensor.To, Module.To); this package is the runtime
// around them. A function that needs a GPU returns an error wrapping
// ErrNoDevice when there is none, and torch.ErrUnsupported too when the
// linked libtorch has no CUDA at all (the default, CPU-only build). GoTorch
// links CUDA only when built through make env against a libtorch with CUDA
// (docs/gpu.md).
//
// Streams: the current stream is per OS thread in libtorch, so WithStream
// locks the goroutine to its thread while its function runs; ops issued
// from other goroutines meanwhile use their own threads' streams.
//
// Files: cuda.go devices, seeds and settings; memory.go the allocator's
// statistics (and the hook that puts GPU bytes under torch's memory
// budget); stream.go streams and events; tensor.go pinned memory and
// non-blocking copies.
package cuda

/*
#cgo CFLAGS: -I${SRCDIR}/../../cgotorch
#include "cuda/cuda.h"
*/
import "C"

import (
	"errors"
	"strings"
	"unsafe"

	_ "github.com/gotorch/gotorch/cgotorch/cuda" // the C++ of cuda.h
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/internal/native"
)

// ErrNoDevice is the cause of an error from a function that needs a CUDA
// device when there is none.
var ErrNoDevice = errors.New("no CUDA device")

// Current stands for the current device where a device index is asked for,
// as None does in torch.cuda.
const Current = -1

// noCUDA is the cause when libtorch has no CUDA at all: it is ErrNoDevice
// and torch.ErrUnsupported.
type noCUDA struct{}

func (noCUDA) Error() string { return "no CUDA device: the linked libtorch has no CUDA" }

func (noCUDA) Is(target error) bool { return target == ErrNoDevice || target == torch.ErrUnsupported }

// Built reports whether the linked libtorch has CUDA (its CUDA library is
// loaded), whether or not a GPU is present: torch.backends.cuda.is_built.
func Built() bool { return C.gt_cuda_build_flags()&1 != 0 }

// HasAllocatorStats reports whether this build can read the caching
// allocator's statistics (MemoryAllocated and the others): it was compiled
// with the CUDA toolkit's headers (-DGOTORCH_CUDA).
func HasAllocatorStats() bool { return C.gt_cuda_build_flags()&2 != 0 }

// CuDNNAvailable reports whether cuDNN can be used:
// torch.backends.cudnn.is_available.
func CuDNNAvailable() bool { return C.gt_cuda_build_flags()&4 != 0 }

// IsAvailable reports whether a CUDA device can be used:
// torch.cuda.is_available.
func IsAvailable() bool { return torch.CUDAIsAvailable() }

// DeviceCount is the number of visible CUDA devices, 0 without CUDA:
// torch.cuda.device_count.
func DeviceCount() int { return torch.CUDADeviceCount() }

// noDevice is the error of op when IsAvailable is false, or nil.
func noDevice(op string) error {
	if IsAvailable() {
		return nil
	}
	if !Built() {
		return &torch.Error{Op: "cuda." + op, Msg: "no CUDA device: the linked libtorch has no CUDA (build through make env against a libtorch with CUDA; docs/gpu.md)", Err: noCUDA{}}
	}
	return &torch.Error{Op: "cuda." + op, Msg: "no CUDA device: libtorch has CUDA but sees no GPU", Err: ErrNoDevice}
}

const noCUDAPrefix = "gotorch-no-cuda: "

// cErr converts a C error of op.
func cErr(op string, e C.gt_error) error {
	if e == nil {
		return nil
	}
	err := native.Error("cuda."+op, unsafe.Pointer(e))
	var te *torch.Error
	if errors.As(err, &te) {
		if m, ok := strings.CutPrefix(te.Msg, noCUDAPrefix); ok {
			te.Msg = m
			te.Err = ErrNoDevice
			if !Built() {
				te.Err = noCUDA{}
			}
		}
	}
	return err
}

// call checks for a device, then runs f's C call.
func call(op string, f func() C.gt_error) error {
	if err := noDevice(op); err != nil {
		return err
	}
	return cErr(op, f())
}

// CurrentDevice is the index of the calling thread's current CUDA device:
// torch.cuda.current_device. libtorch keeps it per OS thread; SetDevice
// and CurrentDevice on a goroutine that is not locked to its thread
// (runtime.LockOSThread) may see different threads.
func CurrentDevice() (int, error) {
	var d C.int64_t
	err := call("current_device", func() C.gt_error { return C.gt_cuda_current_device(&d) })
	return int(d), err
}

// SetDevice makes device the calling thread's current CUDA device:
// torch.cuda.set_device. See CurrentDevice about threads.
func SetDevice(device int) error {
	return call("set_device", func() C.gt_error { return C.gt_cuda_set_device(C.int64_t(device)) })
}

// Synchronize waits for all work on the current device to finish:
// torch.cuda.synchronize().
func Synchronize() error { return SynchronizeDevice(Current) }

// SynchronizeDevice waits for all work on device (or Current) to finish:
// torch.cuda.synchronize(device).
func SynchronizeDevice(device int) error {
	return call("synchronize", func() C.gt_error { return C.gt_cuda_synchronize(C.int64_t(device)) })
}

// ManualSeed seeds the current device's default generator:
// torch.cuda.manual_seed. torch.ManualSeed seeds the CPU's.
func ManualSeed(seed uint64) error {
	return call("manual_seed", func() C.gt_error { return C.gt_cuda_manual_seed(-1, C.uint64_t(seed)) })
}

// ManualSeedAll seeds the default generator of every CUDA device:
// torch.cuda.manual_seed_all.
func ManualSeedAll(seed uint64) error {
	return call("manual_seed_all", func() C.gt_error { return C.gt_cuda_manual_seed_all(C.uint64_t(seed)) })
}

// Settings, global to the process (at::globalContext()). They can be read
// and set without a GPU, as in PyTorch.
const (
	flagCuDNNBenchmark = iota
	flagCuDNNDeterministic
	flagCuDNNAllowTF32
	flagMatmulAllowTF32
	flagCuDNNEnabled
)

func getFlag(which int) bool {
	var v C.int
	if err := cErr("get_flag", C.gt_cuda_get_flag(C.int(which), &v)); err != nil {
		panic(err) // only for an unknown flag, which this package never passes
	}
	return v != 0
}

func setFlag(which int, on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	if err := cErr("set_flag", C.gt_cuda_set_flag(C.int(which), v)); err != nil {
		panic(err)
	}
}

// CuDNNBenchmark is torch.backends.cudnn.benchmark: let cuDNN time its
// algorithms for each new input shape and keep the fastest (default false).
func CuDNNBenchmark() bool { return getFlag(flagCuDNNBenchmark) }

// SetCuDNNBenchmark sets torch.backends.cudnn.benchmark.
func SetCuDNNBenchmark(on bool) { setFlag(flagCuDNNBenchmark, on) }

// CuDNNDeterministic is torch.backends.cudnn.deterministic: use only
// deterministic convolution algorithms (default false).
func CuDNNDeterministic() bool { return getFlag(flagCuDNNDeterministic) }

// SetCuDNNDeterministic sets torch.backends.cudnn.deterministic.
func SetCuDNNDeterministic(on bool) { setFlag(flagCuDNNDeterministic, on) }

// CuDNNAllowTF32 is torch.backends.cudnn.allow_tf32: let cuDNN
// convolutions use TensorFloat-32 on Ampere and later (default true).
func CuDNNAllowTF32() bool { return getFlag(flagCuDNNAllowTF32) }

// SetCuDNNAllowTF32 sets torch.backends.cudnn.allow_tf32.
func SetCuDNNAllowTF32(on bool) { setFlag(flagCuDNNAllowTF32, on) }

// CuDNNEnabled is torch.backends.cudnn.enabled (default true).
func CuDNNEnabled() bool { return getFlag(flagCuDNNEnabled) }

// SetCuDNNEnabled sets torch.backends.cudnn.enabled.
func SetCuDNNEnabled(on bool) { setFlag(flagCuDNNEnabled, on) }

// MatmulAllowTF32 is torch.backends.cuda.matmul.allow_tf32: let float32
// matrix products use TensorFloat-32 (default false).
func MatmulAllowTF32() bool { return getFlag(flagMatmulAllowTF32) }

// SetMatmulAllowTF32 sets torch.backends.cuda.matmul.allow_tf32.
func SetMatmulAllowTF32(on bool) { setFlag(flagMatmulAllowTF32, on) }
