package torch

/*
#include "cgotorch.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gotorch/gotorch/cgotorch/ops/shard0"
)

// Helpers for the benchmarks in bench_test.go (exported to them by
// export_test.go): the C++ loop and the bare binding that the Go cases are
// compared with in the same run.

// benchDirect runs n adds (or mms) of a and b directly in C++: the
// reference that the Go benchmarks compare against in the same run. With
// defaultAlloc it runs them with libtorch's default CPU allocator, as a C++
// program would, and puts GoTorch's back afterwards.
func benchDirect(a, b Tensor, n int, mm, defaultAlloc bool) {
	pa, pb := a.mustPtr("bench"), b.mustPtr("bench")
	if defaultAlloc && smallAllocInstalled() {
		C.gt_small_alloc_install(0)
		defer C.gt_small_alloc_install(1)
	}
	must(cError("bench", C.gt_bench_direct(pa, pb, C.int64_t(n), C.int(b32(mm)))))
	a.unpin()
	b.unpin()
}

// benchBinding runs n adds (or mms) of a and b through the generated cgo
// call and frees each result at once with a second one, with no handle and
// no registry: the floor under any memory management on the Go side.
func benchBinding(a, b Tensor, n int, mm bool) {
	pa, pb := unsafe.Pointer(a.mustPtr("bench")), unsafe.Pointer(b.mustPtr("bench"))
	for range n {
		var t, e unsafe.Pointer
		if mm {
			t, e, _ = shard0.Atg_mm(pa, pb)
		} else {
			t, e, _ = shard0.Atg_add_Tensor(pa, pb, 1, 0, 0, 0)
		}
		must(cErrorP("bench", e))
		C.gt_tensor_free(C.gt_tensor(t))
	}
	a.unpin()
	b.unpin()
}

func smallAllocInstalled() bool { return C.gt_small_alloc_installed() != 0 }

// benchLate runs n adds of a and b through the generated cgo call, like
// benchBinding, but frees the results lag at a time, lag tensors after they
// were made, as a collection does; with goCollect, a full Go collection
// runs before each batch is freed. It is the floor under any scheme that
// learns from Go's collector which tensors died: such a scheme frees late
// and pays a collection every so many tensors, even if registering a
// tensor cost nothing.
func benchLate(a, b Tensor, n, lag int, goCollect bool) {
	pa, pb := unsafe.Pointer(a.mustPtr("bench")), unsafe.Pointer(b.mustPtr("bench"))
	batch := make([]C.gt_tensor, 0, lag)
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if goCollect {
			goGC()
		}
		C.gt_tensor_free_many(&batch[0], C.int64_t(len(batch)))
		batch = batch[:0]
	}
	for range n {
		t, e, _ := shard0.Atg_add_Tensor(pa, pb, 1, 0, 0, 0)
		must(cErrorP("bench", e))
		batch = append(batch, C.gt_tensor(t))
		if len(batch) == lag {
			flush()
		}
	}
	flush()
	a.unpin()
	b.unpin()
}
