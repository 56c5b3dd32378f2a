package torch

/*
#include "alloc.h"
*/
import "C"

// largeCacheStats is the state of the CPU allocator's cache of large blocks
// (cgotorch/allocator.cc, "Larger blocks"; docs/memory.md), for tests.
type largeCacheStats struct {
	Cached int64 // bytes of free blocks kept for reuse
	Live   int64 // bytes of large blocks handed out and not given back
	Peak   int64 // the most Live since the cache was last emptied
	Cap    int64 // the most bytes that may stay cached now
	Fresh  int64 // blocks taken from the system
	Reused int64 // blocks served from the cache
	Mapped int64 // blocks mapped by hand (huge-page aligned), live or cached
}

// readLargeCache returns the large-block cache's state; all zero when
// GoTorch's allocator was never used.
func readLargeCache() largeCacheStats {
	var out [7]C.int64_t
	C.gt_large_cache_stats(&out[0])
	return largeCacheStats{int64(out[0]), int64(out[1]), int64(out[2]), int64(out[3]), int64(out[4]), int64(out[5]), int64(out[6])}
}

// finishTrims is how many times FinishGC gave glibc's free memory back to
// the system (gt_malloc_trim_if), for tests.
func finishTrims() int64 { return int64(C.gt_finish_trims()) }

// heapChurn leaves about bytes more free chunks inside glibc's heap, below
// a block kept allocated until the next call, as a large job leaves
// them, for tests.
func heapChurn(bytes int64) { C.gt_heap_churn(C.int64_t(bytes)) }
