package torch

// Test-only access to internals.

// BenchDirect runs n adds (mm=false) or mms directly in C++, with
// libtorch's default CPU allocator if defaultAlloc.
func BenchDirect(a, b Tensor, n int, mm, defaultAlloc bool) { benchDirect(a, b, n, mm, defaultAlloc) }

// BenchBinding runs n adds or mms through the generated cgo call, freeing
// each result at once, with no Go handle.
func BenchBinding(a, b Tensor, n int, mm bool) { benchBinding(a, b, n, mm) }

// BenchLate runs n adds through the generated cgo call and frees the
// results lag at a time, after a Go collection if goCollect.
func BenchLate(a, b Tensor, n, lag int, goCollect bool) { benchLate(a, b, n, lag, goCollect) }

// SmallAllocInstalled reports whether GoTorch's small-tensor allocator is
// libtorch's CPU allocator.
func SmallAllocInstalled() bool { return smallAllocInstalled() }

// ReleaseTemp is what a Go+ operator does with its right operand b once it
// has its result r.
func ReleaseTemp(b any, r Tensor) Tensor { return releaseTemp(b, r) }

// HandBatch is how many small tensors freed by hand are released together.
const HandBatch = handBatch

// HandFreed is how many small tensors freed by hand wait to be released.
func HandFreed() int {
	mem.Lock()
	defer mem.Unlock()
	return mem.nHand
}

// HoldSweeps keeps every sweep from running until release is called.
func HoldSweeps() (release func()) {
	mem.sweepMu.Lock()
	return mem.sweepMu.Unlock
}

// Pin pins t as an op's argument is pinned for its C call.
func Pin(t Tensor) bool { return t.handle.pin() }

// Unpin ends what Pin started.
func Unpin(t Tensor) { t.unpin() }

// OOMRetries counts the ops run again after an out-of-memory error.
func OOMRetries() int64 { return oomRetries.Load() }

// SetDrain sets how many pending small tensors an allocating goroutine
// frees at a time and how often (once every every tensors made), and
// returns a function that restores the previous setting.
func SetDrain(batch, every int) (restore func()) {
	if batch < 1 || batch > maxDrainBatch || every < 1 {
		panic("SetDrain: batch must be in [1, maxDrainBatch] and every positive")
	}
	mem.Lock()
	b, e := drainBatch, drainEvery
	drainBatch, drainEvery = batch, int64(every)
	mem.Unlock()
	return func() {
		mem.Lock()
		drainBatch, drainEvery = b, e
		mem.Unlock()
	}
}

// SetCountTrigger sets how many step tensors, not freed by hand, start a
// background Go collection, and returns a function that restores the
// previous setting.
func SetCountTrigger(n int) (restore func()) {
	if n < 1 {
		panic("SetCountTrigger: n must be positive")
	}
	mem.Lock()
	old := countTrigger
	countTrigger = int64(n)
	mem.Unlock()
	return func() {
		mem.Lock()
		countTrigger = old
		mem.Unlock()
	}
}

// FinishTrims is how many times FinishGC trimmed glibc's heap.
func FinishTrims() int64 { return finishTrims() }

// HeapChurn leaves about bytes more free chunks inside glibc's heap.
func HeapChurn(bytes int64) { heapChurn(bytes) }
