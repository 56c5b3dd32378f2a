package cuda

/*
#include "cuda/cuda.h"
*/
import "C"

import "github.com/gotorch/gotorch/torch"

// memoryStats reads the caching allocator's counters for device.
func memoryStats(op string, device int) ([4]int64, error) {
	var out [4]C.int64_t
	err := call(op, func() C.gt_error { return C.gt_cuda_memory_stats(C.int64_t(device), &out[0]) })
	return [4]int64{int64(out[0]), int64(out[1]), int64(out[2]), int64(out[3])}, err
}

// MemoryAllocated is the bytes of device memory that tensors on device (or
// Current) occupy, as the caching allocator counts them:
// torch.cuda.memory_allocated. Needs a build with the CUDA toolkit's
// headers (HasAllocatorStats); otherwise the error wraps
// torch.ErrUnsupported.
func MemoryAllocated(device int) (int64, error) {
	s, err := memoryStats("memory_allocated", device)
	return s[0], err
}

// MaxMemoryAllocated is the peak of MemoryAllocated since the start or
// the last ResetPeakMemoryStats: torch.cuda.max_memory_allocated.
func MaxMemoryAllocated(device int) (int64, error) {
	s, err := memoryStats("max_memory_allocated", device)
	return s[1], err
}

// MemoryReserved is the bytes the caching allocator holds from the driver
// on device, in use or cached: torch.cuda.memory_reserved.
func MemoryReserved(device int) (int64, error) {
	s, err := memoryStats("memory_reserved", device)
	return s[2], err
}

// MaxMemoryReserved is the peak of MemoryReserved:
// torch.cuda.max_memory_reserved.
func MaxMemoryReserved(device int) (int64, error) {
	s, err := memoryStats("max_memory_reserved", device)
	return s[3], err
}

// ResetPeakMemoryStats restarts the peaks of device:
// torch.cuda.reset_peak_memory_stats.
func ResetPeakMemoryStats(device int) error {
	return call("reset_peak_memory_stats", func() C.gt_error {
		return C.gt_cuda_reset_peak_memory_stats(C.int64_t(device))
	})
}

// EmptyCache gives the caching allocator's unused blocks back to the
// driver, so that other processes (and nvidia-smi) see them free:
// torch.cuda.empty_cache. Tensors still referenced keep their memory; call
// torch.GC first to free the unreachable ones.
func EmptyCache() error {
	return call("empty_cache", func() C.gt_error { return C.gt_cuda_empty_cache() })
}

// MemGetInfo returns the free and total memory of device as the driver
// sees it (cudaMemGetInfo): torch.cuda.mem_get_info.
func MemGetInfo(device int) (free, total int64, err error) {
	var f, t C.int64_t
	err = call("mem_get_info", func() C.gt_error { return C.gt_cuda_mem_get_info(C.int64_t(device), &f, &t) })
	return int64(f), int64(t), err
}

// With a GPU and the allocator's statistics, the caching allocator's
// per-device bytes join torch's memory budget (torch.RegisterDeviceMemory):
// a device whose allocated bytes grew by more than the budget since the
// last collection makes the allocating goroutine collect.
func init() {
	if !IsAvailable() || !HasAllocatorStats() {
		return
	}
	n := DeviceCount()
	torch.RegisterDeviceMemory(torch.DeviceMemory{Type: torch.CUDADevice, Allocated: func() []int64 {
		b := make([]int64, n)
		for i := range b {
			b[i], _ = MemoryAllocated(i)
		}
		return b
	}})
}
