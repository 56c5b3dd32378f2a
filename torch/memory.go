package torch

/*
#include "cgotorch.h"
#include "alloc.h"
*/
import "C"

import (
	"os"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"
)

// Tensor memory
//
// Every Tensor value points at a handle that owns one native at::Tensor,
// and the registry records, for every handle, its native pointer and a weak
// pointer that tells when Go finds the handle unreachable. A collection runs
// Go's collector and then frees, in one batch, the native tensors whose
// handles died.
//
// A weak pointer costs more than the op it would guard (a 4×4 add), so
// inside training steps handles are registered in chunks: between GC() and
// FinishGC(), handles are carved out of chunks of chunkSize, with one weak
// pointer per chunk. A Tensor value keeps its whole chunk reachable, so a
// chunk dies, and its tensors are freed, when none of its tensors is
// reachable. A GC() that collects seals the current chunk, so chunks never
// span collections (a GC() that does not collect leaves it open). The
// price: a tensor that outlives its step keeps the other tensors of its
// chunk alive until it dies. Outside steps (before the first GC(), after
// FinishGC()) every handle has its own weak pointer and collection is exact;
// SetGCChunkSize(1) makes steps exact too.
//
// Collection happens in four places:
//   - GC(), at a step boundary, when the step tensors grew by more than
//     SetGCPercent's share of the live bytes: a full Go collection, then a
//     synchronous sweep of the registry. It never waits for a tensor to
//     die: reachable tensors are simply kept.
//   - Under memory pressure: when the native bytes of live tensors grow by
//     more than the budget (SetMemoryBudget) since the last collection, the
//     allocating goroutine collects.
//   - Inside steps, every countTrigger new tensors that were not freed by
//     hand: the allocating goroutine runs a Go collection (countGC).
//   - After each of Go's own collections, a background sweep frees what
//     that collection found unreachable: large tensors at once, small ones
//     by the goroutines that allocate next (see smallBytes).

const chunkSize = 32

// tensorOverhead approximates the native bytes of a tensor beyond its data
// (at::Tensor, TensorImpl, StorageImpl and allocator rounding), so that the
// budget also bounds loops of many small tensors.
const tensorOverhead = 512

// smallBytes is the size (data plus overhead) below which a dead tensor
// found by a background sweep is left for an allocating goroutine to free.
// glibc keeps a small per-thread cache of freed blocks: a block freed on the
// thread that then allocates is handed straight back, while blocks freed in
// bulk on another thread take the arena lock, contend with the allocating
// thread and leave it the slow path. Larger tensors are freed at once.
const smallBytes = 16 << 10

// drainBatch is how many pending tensors an allocating goroutine frees at a
// time, once every drainEvery tensors it makes. Each free gives back two
// glibc blocks of different sizes (the TensorImpl and its StorageImpl; the
// data of a small tensor goes to GoTorch's own cache), and glibc's
// per-thread cache (tcache) keeps 7 blocks per size: blocks freed beyond
// that go to the arena, whose free path coalesces them with their
// neighbours (fastbins are off, see init), and once the cache is empty the
// next allocations take the arena's slow path too.
//
// A batch of 16 every 8 tensors sent 9 of every 16 frees to the arena, and
// emptied the queue halfway to the next collection, after which every
// allocation missed the cache (_int_malloc, _int_free and unlink_chunk
// were 12% of a locked 4×4 add loop's samples). A batch of 6 stays under
// the cache's 7, and freeing as many tensors as are made keeps the cache
// between empty and 6: each batch's blocks are the next ones allocated.
// The rate matches the queue's: a collection finds the tensors made
// between its mark and the one before, and the next background sweep
// comes as many tensors later, so on average the queue empties just
// before it; what is left then is freed by that sweep (docs/memory.md).
//
// They are variables only so that the package's benchmarks can compare
// settings in one process (SetDrain in export_test.go).
var (
	drainBatch = 6
	drainEvery = int64(6)
)

// maxDrainBatch bounds drainBatch (drainSome's buffer).
const maxDrainBatch = 32

// countTrigger is how many step tensors may be made between collections,
// not counting those freed by hand, before a Go collection is started in
// the background. A variable only so that the package's benchmarks can
// compare settings in one process (SetCountTrigger in export_test.go).
var countTrigger = int64(defaultCountTrigger)

const defaultCountTrigger = 8192

// handle owns one native tensor.
//
// state counts the calls in flight that use p (pins) and records Free
// (handleFreed) and the release of p (handleReleased). A call pins every
// tensor it passes to C and unpins it when C returns, so a Free on another
// goroutine never releases a tensor that a kernel is reading: the last
// unpin releases it instead. Pinning is one atomic add on each side of the
// call (docs/robustness.md measures it).
type handle struct {
	p     C.gt_tensor // valid while pinned; stale once released
	e     *entry
	i     int32 // index in e
	state atomic.Int32
}

const (
	handleFreed    = 1 << 30
	handleReleased = 1 << 29
	handlePins     = handleReleased - 1
)

// pin marks one more call as using h's native tensor; it reports false,
// pinning nothing, if h was freed.
func (h *handle) pin() bool {
	if h.state.Add(1)&handleFreed != 0 {
		h.unpin()
		return false
	}
	return true
}

// unpin ends a call that pin started. The last unpin of a freed handle
// releases its native tensor.
func (h *handle) unpin() {
	if h.state.Add(-1) == handleFreed {
		h.releaseFreed()
	}
}

// releaseFreed releases the native tensor of a freed handle that no call
// uses any more. Free and the unpins may race to it; the one that moves the
// state from freed-and-unpinned to released does it, once.
func (h *handle) releaseFreed() {
	if !h.state.CompareAndSwap(handleFreed, handleFreed|handleReleased) {
		return
	}
	mem.Lock()
	nb := h.e.bytes[h.i]
	releaseLocked(h.p, nb) // unlocks mem
}

// recount records that h's tensor now holds nbytes of storage (SetData
// gave it another tensor's data: a lazy layer's first forward sizing its
// parameters, a module moved to another dtype or device), so that live
// bytes, the memory budget and ReadMemStats follow. The caller has h
// pinned, so that it is not released meanwhile.
func (h *handle) recount(nbytes int64) {
	nbytes += tensorOverhead
	mem.Lock()
	old := h.e.bytes[h.i]
	h.e.bytes[h.i] = nbytes
	mem.bytes += nbytes - old
	mem.Unlock()
}

// live reports whether h has not been freed.
func (h *handle) live() bool { return h.state.Load()&handleFreed == 0 }

type chunk struct {
	handles [chunkSize]handle
}

// soloHandle is the allocation of a handle registered on its own (outside
// steps). Go keeps the weak pointers of a span's objects in one list sorted
// by address, and weak.Make walks that list: a bare handle is 24 bytes, so
// up to 341 share an 8 KiB span and each registration walked hundreds of
// records (weak.Make was half of the time of making a tensor outside
// steps). Padded to 128 bytes, at most 64 share a span. Measured on a
// registration-only loop: 314 instead of 824 ns per tensor; Free path of a
// 4×4 add: 975 instead of 1,396 ns (docs/memory.md).
type soloHandle struct {
	h handle
	_ [128 - unsafe.Sizeof(handle{})]byte
}

// entry is the registry's record of a chunk, or of a single handle. It must
// not point to them except weakly.
type entry struct {
	wc    weak.Pointer[chunk]
	wh    weak.Pointer[handle]
	ps    []C.gt_tensor
	bytes []int64
	kept  []bool // marked with Keep
	n     int    // slots handed out
	// Storage for the slices of a single handle's entry, saving three
	// allocations per tensor outside steps.
	p1 [1]C.gt_tensor
	b1 [1]int64
	k1 [1]bool
}

func (e *entry) alive() bool { return e.wc.Value() != nil || e.wh.Value() != nil }

var mem struct {
	sync.Mutex
	sweepMu  sync.Mutex
	cur      *chunk
	curEntry *entry
	chunkUse int // slots used per chunk (SetGCChunkSize)
	stepping bool
	entries  []*entry
	batch    []C.gt_tensor
	dead     []*entry // scratch for sweeps, under sweepMu
	// spareChunks and spareSolos are the entries of dead chunks and
	// single handles, kept for reuse (see recycleLocked).
	spareChunks []*entry
	spareSolos  []*entry
	// pending holds dead small tensors that a background sweep found and
	// left for allocating goroutines to free (see drainSome), and
	// pendingSizes their bytes.
	pending      []C.gt_tensor
	pendingSizes []int64
	drainBuf     [maxDrainBatch]C.gt_tensor // drainSome's, under sweepMu
	// handFreed holds small tensors freed by hand and not yet released
	// (see handle.free).
	handFreed [handBatch]C.gt_tensor
	nHand     int

	// Statistics, under the lock: newTensor takes it anyway, and atomic
	// counters cost it three more atomic adds per tensor. A tensor counts
	// as freed from the moment a sweep or Free claims it.
	bytes   int64 // native bytes of live tensors
	created int64
	freed   int64
	// lastBytes is the live bytes after the last collection.
	lastBytes int64
	// gcMark is the value of created at the last collection, plus the
	// tensors freed by Free since; when countTrigger more tensors have
	// been made inside steps, the allocating goroutine runs a Go
	// collection (countGC) so that dead step tensors are freed while their
	// memory is still warm. Tensors that were freed by hand (by gop-torch's Rebind
	// or a Temp's operator, say) leave nothing to collect.
	gcMark int64

	collections atomic.Int64
	budget      atomic.Int64
	// collecting guards against several goroutines collecting under
	// pressure at once.
	collecting atomic.Bool
	scopes     atomic.Int32 // active scopes
	countGC    atomic.Bool  // a count-triggered collection runs (countGC)
	gcPercent  atomic.Int32 // SetGCPercent
	skipped    int64        // GC() calls that did not collect, under the lock
}

func init() {
	mem.chunkUse = chunkSize
	budget := int64(512 << 20)
	if v, err := strconv.ParseInt(os.Getenv("GOTORCH_MEMORY_BUDGET_MB"), 10, 64); err == nil && v > 0 {
		budget = v << 20
	}
	mem.budget.Store(budget)
	mem.gcPercent.Store(2)
	if v, err := strconv.Atoi(os.Getenv("GOTORCH_GC_PERCENT")); err == nil && v >= 0 {
		mem.gcPercent.Store(int32(v))
	}
	// Tensors are allocated on whatever thread runs the op and freed in
	// batches on another; without a cap, glibc grows one arena per thread
	// and RSS with them (wangkuiyi/gotorch#273). GoTorch uses a single
	// arena: with two, the thread that happened to get the second one
	// (whose heaps glibc maps separately and gives back with
	// MADV_DONTNEED) faulted its step memory in again every step, and a
	// loop of 256×256 adds ran at 11 or 70–100 µs per add depending on the
	// draw. One arena made no difference to a Fashion-MNIST epoch with two
	// loader goroutines (21.1–21.2 s against 21.2–22.0 s).
	//
	// A step's tensors are freed together at its end, and the next step
	// allocates the same sizes again. With glibc's dynamic thresholds the
	// batch free leaves a large free block at the top of the heap, glibc
	// returns it to the system, and the next step faults every page in
	// again: a loop of 256×256 adds ran 16× slower than C++, an MLP step
	// 15% slower. GoTorch therefore keeps freed memory up to 256 MiB per
	// arena (the trim threshold) and serves tensors up to 32 MiB (glibc's
	// largest mmap threshold) from the heap. RSS still follows the budget:
	// a collection under memory pressure, and FinishGC, call malloc_trim.
	// MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_
	// override these settings.
	arenas, mmapThreshold, trimThreshold := 1, int64(32<<20), int64(256<<20)
	if os.Getenv("MALLOC_ARENA_MAX") != "" {
		arenas = 0
	}
	if os.Getenv("MALLOC_MMAP_THRESHOLD_") != "" || os.Getenv("MALLOC_TRIM_THRESHOLD_") != "" {
		mmapThreshold, trimThreshold = 0, 0
	}
	// Fastbins: a batch free coalesces neighbouring blocks into large
	// free chunks, and glibc consolidates every fastbin at each such free
	// (malloc_consolidate was 8.6% of a 4×4 add loop's samples). Without
	// fastbins small blocks still go through the per-thread cache.
	// GLIBC_TUNABLES=glibc.malloc.mxfast=N overrides it.
	noFastbins := !strings.Contains(os.Getenv("GLIBC_TUNABLES"), "mxfast")
	if Allocator == "glibc" {
		C.gt_tune_malloc(C.int(arenas), C.int64_t(mmapThreshold), C.int64_t(trimThreshold), C.int(b32(noFastbins)))
	}
	// Small tensors' data comes from per-thread caches (see
	// cgotorch/allocator.cc): a garbage-collected tensor is freed long
	// after it was made, and glibc's aligned allocations fragment its heap.
	if os.Getenv("GOTORCH_SMALL_ALLOC") != "0" {
		C.gt_small_alloc_install(1)
	}
	startBackgroundSweeps()
	idleSysmon()
}

// newTensor takes ownership of p, whose storage holds nbytes. A nil p gives
// the undefined tensor.
func newTensor(p C.gt_tensor, nbytes int64) Tensor {
	if p == nil {
		return Tensor{}
	}
	nbytes += tensorOverhead
	var h *handle
	mem.Lock()
	stepping := mem.stepping
	if stepping && mem.chunkUse > 1 {
		e := mem.curEntry
		if e == nil || e.n >= mem.chunkUse {
			e = newChunkLocked()
		}
		i := e.n
		e.n++
		e.ps[i], e.bytes[i] = p, nbytes
		h = &mem.cur.handles[i]
		h.p, h.e, h.i = p, e, int32(i)
	} else {
		h = &(&soloHandle{}).h
		h.p = p
		e := spareSoloLocked()
		e.n = 1
		e.p1[0], e.b1[0] = p, nbytes
		e.wh = weak.Make(h)
		h.e = e
		mem.entries = append(mem.entries, e)
	}
	mem.created++
	mem.bytes += nbytes
	n := mem.created
	pressure := mem.bytes-mem.lastBytes > mem.budget.Load()
	drain := n%drainEvery == 0 && len(mem.pending) > 0
	trigger := stepping && n-mem.gcMark > countTrigger
	mem.Unlock()
	if mem.scopes.Load() > 0 {
		enterScope(h)
	}
	if pressure {
		collectUnderPressure()
	} else if drain {
		drainSome()
	}
	if trigger && !mem.countGC.Load() {
		countGC()
	}
	if devMem.on.Load() {
		checkDeviceMemory() // GPU bytes per device (oom.go)
	}
	return Tensor{h}
}

// countGC runs the count trigger's Go collection (goGC, with one P) on
// the allocating goroutine; the background sweep that follows it finds the
// step's dead tensors and leaves the small ones for allocating goroutines
// to free. It used to run runtime.GC on a goroutine of its own, with every
// P, concurrently with the loop: the loop then paid for preemption
// signals, write barriers and mark assists, the other P for idle mark
// workers and a sweep that yields after every span (runtime.gosched_m was
// 11% of a locked 4×4 add loop's samples), and each such collection cost
// the process about 2.6 ms of CPU, against about 0.5 ms for goGC (gctrace
// CPU, 2 Ps against 1). Inline, the loop pauses for the collection instead
// (0.4–0.7 ms every 8,192 tensors), and the 4×4 add loop used a quarter
// less CPU and less wall time (docs/memory.md).
func countGC() {
	if !mem.countGC.CompareAndSwap(false, true) {
		return
	}
	defer mem.countGC.Store(false)
	mem.Lock()
	mem.gcMark = mem.created
	mem.Unlock()
	goGC()
}

// drainSome frees up to drainBatch pending tensors on the calling thread.
// It gives way to a running sweep, which frees the queue itself.
func drainSome() {
	if !mem.sweepMu.TryLock() {
		return
	}
	defer mem.sweepMu.Unlock()
	buf := &mem.drainBuf // a local array escaped: one Go allocation a batch
	var nb int64
	mem.Lock()
	k := min(len(mem.pending), drainBatch)
	j := len(mem.pending) - k
	copy(buf[:], mem.pending[j:])
	for _, b := range mem.pendingSizes[j:] {
		nb += b
	}
	clear(mem.pending[j:])
	mem.pending = mem.pending[:j]
	mem.pendingSizes = mem.pendingSizes[:j]
	mem.freed += int64(k)
	mem.bytes -= nb
	mem.Unlock()
	if k > 0 {
		C.gt_tensor_free_many(&buf[0], C.int64_t(k))
	}
}

// newTensorQ is newTensor for handles whose size C did not report.
func newTensorQ(p C.gt_tensor) Tensor {
	if p == nil {
		return Tensor{}
	}
	return newTensor(p, int64(C.gt_tensor_nbytes(p)))
}

func newChunkLocked() *entry {
	c := &chunk{}
	var e *entry
	if k := len(mem.spareChunks); k > 0 {
		e = mem.spareChunks[k-1]
		mem.spareChunks[k-1] = nil
		mem.spareChunks = mem.spareChunks[:k-1]
	} else {
		e = &entry{ps: make([]C.gt_tensor, chunkSize), bytes: make([]int64, chunkSize), kept: make([]bool, chunkSize)}
	}
	e.wc = weak.Make(c)
	mem.entries = append(mem.entries, e)
	mem.cur, mem.curEntry = c, e
	return e
}

// spareSoloLocked returns a cleared entry for a single handle, reused from
// a dead one when it can. The caller holds mem's lock.
func spareSoloLocked() *entry {
	if k := len(mem.spareSolos); k > 0 {
		e := mem.spareSolos[k-1]
		mem.spareSolos[k-1] = nil
		mem.spareSolos = mem.spareSolos[:k-1]
		return e
	}
	e := &entry{}
	e.ps, e.bytes, e.kept = e.p1[:], e.b1[:], e.k1[:]
	return e
}

// maxSpare bounds each list of spare entries: enough for the chunks of
// countTrigger tensors, or for as many single handles.
const maxSpare = defaultCountTrigger / chunkSize * 4

// recycleLocked keeps e, the entry of a chunk or handle that Go found
// unreachable and whose tensors a sweep has claimed, for a later
// registration: an entry and its three slot slices are four of a chunk's
// five allocations, and an entry one of a single tensor's three. In
// BenchmarkAdd4x4 the stepped loops went from 57–66 to 36–43 bytes
// allocated per add, and AutoExact and BenchmarkAdd256 from 3 to 2
// allocations; Free stays at 3 (its entries die only at Go's own
// collections, more of them than maxSpare keeps). Nothing reads a dead
// entry: only its handles point to it, and they are unreachable. The
// caller holds mem's lock.
func recycleLocked(e *entry) {
	solo := len(e.ps) == 1
	e.wc, e.wh = weak.Pointer[chunk]{}, weak.Pointer[handle]{}
	clear(e.ps[:e.n])
	clear(e.bytes[:e.n])
	clear(e.kept[:e.n])
	e.n = 0
	switch {
	case solo && len(mem.spareSolos) < maxSpare:
		mem.spareSolos = append(mem.spareSolos, e)
	case !solo && len(e.ps) == chunkSize && len(mem.spareChunks) < maxSpare:
		mem.spareChunks = append(mem.spareChunks, e)
	}
}

// free releases h's native tensor, at once or, while calls on other
// goroutines use it, when the last of them returns. It is a no-op if h is
// already freed. A tensor of under smallBytes is released with the next
// handBatch-1 such frees, or by the next sweep (GC(), FinishGC(), any
// collection), in one C call; it counts as freed at once.
func (h *handle) free() {
	if h.state.Or(handleFreed)&handleFreed != 0 {
		return
	}
	// Only this call got here for h: account for it now, and release the
	// native tensor under the same lock unless a call still uses it (then
	// the last unpin does).
	mem.Lock()
	e := h.e
	e.ps[h.i] = nil
	e.kept[h.i] = false
	mem.freed++
	mem.gcMark++
	nb := e.bytes[h.i]
	mem.bytes -= nb
	if h.state.CompareAndSwap(handleFreed, handleFreed|handleReleased) {
		releaseLocked(h.p, nb) // unlocks mem
		return
	}
	mem.Unlock()
}

// releaseLocked releases p, a native tensor of nb bytes that the registry
// no longer holds. The caller holds mem's lock; releaseLocked unlocks it.
func releaseLocked(p C.gt_tensor, nb int64) {
	if nb < smallBytes {
		// Small tensors go back handBatch at a time, in one C call.
		mem.handFreed[mem.nHand] = p
		mem.nHand++
		if mem.nHand < handBatch {
			mem.Unlock()
			return
		}
		buf := mem.handFreed
		mem.nHand = 0
		mem.Unlock()
		C.gt_tensor_free_many(&buf[0], handBatch)
		return
	}
	mem.Unlock()
	C.gt_tensor_free(p)
}

// handBatch is how many small tensors freed by hand are released together:
// one cgo call instead of one per tensor, about 5% of a 4×4 add freed at
// once (docs/memory.md). It stays under glibc's per-thread cache of 7
// blocks per size, so the blocks the batch frees are the next ones the
// thread allocates, as when each is freed alone.
const handBatch = 6

type sweepKind int

const (
	sweepNow        sweepKind = iota // free every dead tensor
	sweepTrim                        // and give free heap memory back to the system
	sweepFinish                      // and trim the heap if much of it is free (FinishGC)
	sweepBackground                  // free large dead tensors, leave small ones pending
)

// sweepMode frees the native tensors of every chunk that Go found
// unreachable, and the pending queue; it returns how many it freed. A
// background sweep frees large tensors at once and leaves small ones
// pending for allocating goroutines, after freeing what was still pending
// from the sweep before.
func sweepMode(kind sweepKind) int {
	// Sweeps run one at a time, so that a GC() never returns while another
	// sweep is still freeing tensors it claimed.
	mem.sweepMu.Lock()
	defer mem.sweepMu.Unlock()
	return sweepLocked(kind)
}

// sweepLocked is sweepMode for a caller that holds mem.sweepMu.
func sweepLocked(kind sweepKind) int {
	background := kind == sweepBackground
	mem.Lock()
	// Everything pending is freed now: by a synchronous sweep because its
	// caller needs the memory back, by a background one because no
	// allocating goroutine took it since the last collection.
	batch := append(mem.batch[:0], mem.pending...)
	// Tensors freed by hand and not yet released (see handle.free) go
	// too; they were counted as freed then.
	hand := mem.nHand
	batch = append(batch, mem.handFreed[:hand]...)
	mem.nHand = 0
	var nb int64
	for _, b := range mem.pendingSizes {
		nb += b
	}
	clear(mem.pending)
	pending, pendingSizes := mem.pending[:0], mem.pendingSizes[:0]
	mem.pending, mem.pendingSizes = nil, nil
	// Which entries died is found without the lock, so that goroutines
	// making tensors meanwhile do not wait on it (a goroutine that waits
	// on a mutex may resume on another OS thread, and libgomp then starts
	// a new team of OpenMP threads for it; see docs/memory.md). Entries
	// registered meanwhile go to a fresh slice; the dead entries' slots
	// are read under the lock again.
	entries := mem.entries
	mem.entries = nil
	mem.batch = nil
	mem.Unlock()
	dead := mem.dead[:0]
	kept := entries[:0]
	for _, e := range entries {
		if e.alive() {
			kept = append(kept, e)
		} else {
			dead = append(dead, e)
		}
	}
	clear(entries[len(kept):])
	var kb int64 // bytes left pending
	mem.Lock()
	for _, e := range dead {
		for i := 0; i < e.n; i++ {
			if e.ps[i] == nil {
				continue
			}
			if background && e.bytes[i] < smallBytes {
				pending = append(pending, e.ps[i])
				pendingSizes = append(pendingSizes, e.bytes[i])
				kb += e.bytes[i]
				continue
			}
			batch = append(batch, e.ps[i])
			nb += e.bytes[i]
		}
		recycleLocked(e)
	}
	clear(dead)
	mem.dead = dead[:0]
	mem.entries = append(kept, mem.entries...)
	mem.pending, mem.pendingSizes = pending, pendingSizes
	n := len(batch)
	mem.freed += int64(n - hand)
	mem.bytes -= nb
	if background {
		// A background sweep runs a while after the Go collection that
		// found its dead tensors, while the program makes new ones: the
		// live bytes now include tensors that may be dead already.
		// Taking them as the new baseline let GC() skip a collection
		// that was due (SetGCPercent), and a Go+ MLP job's peak grew by
		// a step's intermediates. It may only lower the baseline.
		mem.lastBytes = min(mem.lastBytes, mem.bytes-kb)
	} else {
		mem.lastBytes = mem.bytes - kb
	}
	mem.gcMark = mem.created
	mem.Unlock()
	if n > 0 {
		C.gt_tensor_free_many(&batch[0], C.int64_t(n))
		clear(batch)
	}
	mem.Lock()
	mem.batch = batch[:0]
	mem.Unlock()
	switch kind {
	case sweepTrim:
		// Freed memory stays in glibc's heap (see the trim threshold
		// in init) and in the allocator's caches; give it back so that
		// RSS follows the budget.
		C.gt_malloc_trim()
	case sweepFinish:
		// The end of a loop: another may start at once, as in the
		// benchmark's repetitions of 6 CNN steps, each ending with
		// FinishGC. Emptying the caches and trimming the heap there made
		// every such loop fault its memory in again (the CNN step took
		// 50–57 ms instead of 27–38 ms); now the caches stay, and the
		// heap is trimmed only when glibc holds finishTrim bytes more
		// free than just after the last such trim: a trim leaves the
		// free chunks counted as free, and trimming whenever that count
		// passed finishTrim cost every FinishGC after a large job about
		// 1,100 madvise calls (3 ms; bench/NOTES.md, session 20).
		C.gt_malloc_trim_if(finishTrim)
	}
	mem.collections.Add(1)
	markDeviceMemory()
	return n
}

// collect runs a full Go collection and sweeps. stepping says whether
// tensors made after it are step tensors; kind is sweepNow, sweepTrim or
// sweepFinish.
//
// It holds mem.sweepMu from before the collection to the end of the sweep.
// A weak pointer read while Go's collector is marking keeps its object
// alive for that collection, so a background sweep that overlapped the
// collection would keep dead chunks alive through it, and GC() would
// return with them unfreed.
func collect(stepping bool, kind sweepKind) int {
	mem.sweepMu.Lock()
	defer mem.sweepMu.Unlock()
	mem.Lock()
	mem.cur, mem.curEntry = nil, nil // seal the current chunk so that it can be collected
	mem.stepping = stepping
	mem.Unlock()
	goGC()
	return sweepLocked(kind)
}

// gcProcs serializes goGC's change of GOMAXPROCS.
var gcProcs sync.Mutex

// goGC runs a full Go collection with a single P. runtime.GC ends by
// sweeping the heap and yielding after each span; with several Ps every
// yield wakes another OS thread, and on a machine whose cores libtorch's
// intra-op threads keep busy, those wake-ups cost more than the collection.
// Measured on the 2-vCPU benchmark machine (MLP step, docs/memory.md): the
// step took 1.57–1.61 ms instead of 1.98–2.26 ms, with 3,700 context switches
// per 1,200 steps instead of 33,000. Other goroutines pause while it runs
// (about 0.1 ms for a small heap). Setting GOMAXPROCS ends the runtime's
// automatic updates of it (Go 1.25 and later), and a change the program
// makes while goGC runs is undone.
//
// runtime.GC runs on a goroutine of its own while the caller waits. The
// caller is often locked to its OS thread (as *_train.gox scripts and the
// benchmark's workers are), and runtime.GC ends by sweeping the heap with a
// yield after each span: a locked goroutine's yield hands its thread's P to
// another thread and back, two thread wake-ups a span, and on two cores
// that libtorch's OpenMP worker keeps busy each wake-up can wait a
// scheduler slice (perf: 7% of a 4×4 add loop's samples in those
// hand-offs). On a helper the sweep's yields stay on one thread, and the
// caller pays two wake-ups in all. Measured in session 19, fresh benchmark
// workers alternated three times: 4×4 add 1.03–1.16 against 1.13–1.15 µs
// (minimums 0.96–1.00 against 1.04–1.06), CNN step 21.8–22.3 against
// 22.1–23.5 ms, the MLP's collections 0.6–0.8 ms against 0.6–1.2 ms. In
// session 14, when every GC() collected, the helper lengthened the real
// steps' pauses instead (MLP 0.21 against 0.12–0.15 ms); paced GC() calls
// collect rarely, and the cost of each collection is what counts now.
func goGC() {
	gcProcs.Lock()
	defer gcProcs.Unlock()
	prev := runtime.GOMAXPROCS(0)
	if prev > 1 {
		runtime.GOMAXPROCS(1)
		defer runtime.GOMAXPROCS(prev)
	}
	done := make(chan struct{})
	go func() {
		runtime.GC()
		close(done)
	}()
	<-done
}

func collectUnderPressure() {
	if !mem.collecting.CompareAndSwap(false, true) {
		return
	}
	defer mem.collecting.Store(false)
	mem.Lock()
	stepping := mem.stepping
	mem.Unlock()
	collect(stepping, sweepTrim)
}

// GC marks a step boundary and frees the native memory of the tensors that
// are no longer reachable. Call it at the top of each training iteration
// (the data loader's Scan and gop-torch's generated loops call it for you).
//
// It collects (a full Go collection, then a sweep that frees every
// unreachable tensor before GC returns) when the step tensors made since
// the last collection hold more than a few percent of the live tensor
// memory (SetGCPercent); otherwise it only ends the step, at the cost of a
// lock, and the few tensors that died wait for a later GC(). The first
// GC() after FinishGC() collects unless no tensor was made in between;
// every GC() after SetGCPercent(0) collects.
//
// It never waits for a tensor to become unreachable: tensors that are still
// reachable, such as a loss kept for logging, are kept. It may be called
// from any goroutine, concurrently with ops on others.
//
// Tensors made after GC() are step tensors, registered cheaply in chunks
// (see SetGCChunkSize) until FinishGC().
func GC() {
	if p := mem.gcPercent.Load(); p > 0 {
		mem.Lock()
		if !mem.stepping && mem.created == mem.gcMark {
			// Outside steps, where every tensor made since the last
			// collection has its own registration: nothing was made
			// since (net of Free), as when a loop starts right after
			// another's FinishGC(). A collection now could only find
			// tensors that were live at the last one, which steps
			// leave to a later collection anyway; it cost 1.2–2.3 ms
			// in the benchmark's MLP worker (a Go collection whose
			// locked caller waits for other threads), 2–3% of its
			// 30-step loops. Start the step without it.
			mem.stepping = true
			mem.skipped++
			mem.Unlock()
			return
		}
		if mem.stepping && mem.bytes-mem.lastBytes <= max(mem.lastBytes/100*int64(p), minGCSlack) &&
			mem.created-mem.gcMark <= MaybeGCTensors {
			// Too little grew since the last collection to be worth one:
			// leave what died to a later GC() (see SetGCPercent). The
			// current chunk stays open: sealing it made every step of
			// a loop of small ops register a new chunk (a weak pointer
			// and 32 handles), 4.3 against 0.9 µs an add. So chunks
			// span the steps between two collections, and a tensor
			// that outlives its step may keep up to 31 tensors of the
			// next steps alive until it dies. The tensors freed by
			// hand that wait for their batch (handle.free) keep
			// waiting too.
			mem.skipped++
			mem.Unlock()
			return
		}
		mem.Unlock()
	}
	collect(true, sweepNow)
}

// SetGCPercent sets how much GC() lets the native memory of step tensors
// grow before it collects, as a percentage of the live tensor bytes after
// the previous collection, and returns the previous setting. The default
// is 2, or GOTORCH_GC_PERCENT.
//
// A collection costs a full Go collection, 0.1–0.5 ms on a small heap:
// 10–20% of a small model's step when every GC() collects. A step whose
// modules and optimizer free their own intermediates leaves only a few
// small tensors behind (the loss, the logits), so GC() collects only when
// the tensors made since the last collection and not freed by hand hold
// more than percent of the live bytes (at least 64 KiB), or number more
// than MaybeGCTensors. Until then a dead tensor waits, and the peak of
// live tensor memory is at most that much above the exact collector's.
// 0 makes every GC() collect, as before this setting existed; FinishGC
// always collects. Negative values are refused.
func SetGCPercent(percent int) int {
	if percent < 0 {
		panic(newError("set_gc_percent", nil, "percent must be 0 or more, got %d", percent))
	}
	return int(mem.gcPercent.Swap(int32(percent)))
}

// minGCSlack is the least growth SetGCPercent's rule lets GC() defer, so
// that a step of a tiny model does not collect every time.
const minGCSlack = 64 << 10

// FinishGC ends a loop of GC() calls: it collects what the last steps
// left, gives free heap memory back to the system when glibc holds 64 MiB
// more of it than after the last time, and tensors made afterwards are tracked one by one
// again. A loop that
// ends without it leaks nothing; its later tensors just cost a little less
// to make and are freed a little less precisely.
func FinishGC() { collect(false, sweepFinish) }

// finishTrim is how many bytes more than after its last trim glibc must
// hold free for FinishGC to give them back to the system.
const finishTrim = 64 << 20

// SetMemoryBudget sets how many bytes of native tensor memory may be
// allocated between two collections before the allocating goroutine
// collects on its own. The default is 512 MiB, or GOTORCH_MEMORY_BUDGET_MB.
func SetMemoryBudget(bytes int64) {
	if bytes <= 0 {
		panic(newError("set_memory_budget", nil, "budget must be positive, got %d", bytes))
	}
	mem.budget.Store(bytes)
}

// SetGCChunkSize sets how many step tensors share one registration with
// Go's collector (1 to 32, default 32). 1 makes GC exact: every unreachable
// tensor is freed. Larger chunks make creating a tensor cheaper, but a
// tensor that outlives its step keeps the other tensors of its chunk alive
// until it dies.
func SetGCChunkSize(n int) {
	if n < 1 || n > chunkSize {
		panic(newError("set_gc_chunk_size", nil, "chunk size must be in [1, %d], got %d", chunkSize, n))
	}
	mem.Lock()
	mem.chunkUse = n
	mem.cur, mem.curEntry = nil, nil
	mem.Unlock()
}

// MemStats describes the native tensors GoTorch manages.
type MemStats struct {
	LiveTensors int64 // tensors not yet freed
	LiveBytes   int64 // their storages' bytes plus a fixed overhead each (a view counts its whole storage)
	Created     int64 // tensors created since the process started
	Freed       int64 // tensors freed, explicitly or by collection
	Collections int64 // sweeps run (GC, pressure and background)
	SkippedGCs  int64 // GC() calls that found too little to collect (SetGCPercent)
	Budget      int64 // see SetMemoryBudget
}

// ReadMemStats returns the current statistics.
func ReadMemStats() MemStats {
	mem.Lock()
	defer mem.Unlock()
	return MemStats{
		LiveTensors: mem.created - mem.freed,
		LiveBytes:   mem.bytes,
		Created:     mem.created,
		Freed:       mem.freed,
		Collections: mem.collections.Load(),
		SkippedGCs:  mem.skipped,
		Budget:      mem.budget.Load(),
	}
}

// Background sweeps: a sentinel with a finalizer notices the end of each of
// Go's collections and wakes a goroutine that sweeps.
var sweepWake = make(chan struct{}, 1)

type gcSentinel struct{ _ [16]byte }

func armSentinel() {
	s := &gcSentinel{}
	runtime.SetFinalizer(s, func(*gcSentinel) {
		select {
		case sweepWake <- struct{}{}:
		default:
		}
		armSentinel()
	})
}

func startBackgroundSweeps() {
	armSentinel()
	go func() {
		for range sweepWake {
			sweepMode(sweepBackground)
		}
	}()
}

// Scopes.

type scopeState struct {
	tid     int64
	handles []*handle
}

var scopes struct {
	sync.Mutex
	byThread map[int64]*scopeState
}

func enterScope(h *handle) {
	tid := int64(C.gt_thread_id())
	scopes.Lock()
	s := scopes.byThread[tid]
	scopes.Unlock()
	if s != nil {
		s.handles = append(s.handles, h)
	}
}

// Scoped runs f and frees every tensor that f created on the calling
// goroutine, except the tensors in f's result (found by walking structs,
// slices, arrays and maps) and those marked with Keep. Tensors created by
// other goroutines meanwhile are not touched.
//
//	y := torch.Scoped(func() torch.Tensor {
//		h := x.Mm(w1).Relu() // freed when Scoped returns
//		return h.Mm(w2)      // kept
//	})
func Scoped[T any](f func() T) T {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := int64(C.gt_thread_id())
	s := &scopeState{tid: tid}
	scopes.Lock()
	if scopes.byThread == nil {
		scopes.byThread = map[int64]*scopeState{}
	}
	outer := scopes.byThread[tid]
	scopes.byThread[tid] = s
	scopes.Unlock()
	mem.scopes.Add(1)
	var result T
	defer func() {
		mem.scopes.Add(-1)
		scopes.Lock()
		if outer != nil {
			scopes.byThread[tid] = outer
		} else {
			delete(scopes.byThread, tid)
		}
		scopes.Unlock()
		keep := map[*handle]bool{}
		collectHandles(any(result), keep)
		for _, h := range s.handles {
			if keep[h] || h.kept() {
				if outer != nil {
					outer.handles = append(outer.handles, h)
				}
				continue
			}
			h.free()
		}
	}()
	result = f()
	return result
}

// Keep marks t so that the enclosing Scoped does not free it.
func Keep(t Tensor) Tensor {
	if t.handle != nil {
		mem.Lock()
		if t.handle.live() {
			t.handle.e.kept[t.handle.i] = true
		}
		mem.Unlock()
	}
	return t
}

func (h *handle) kept() bool {
	mem.Lock()
	defer mem.Unlock()
	return h.e.kept[h.i]
}

// collectHandles adds the handles of every Tensor reachable from v through
// structs (unexported fields too), pointers, interfaces, slices, arrays and
// maps. Each pointer, map and slice is walked once, so values that contain
// themselves end the walk, and the walk keeps its own stack instead of
// recursing, so a result nested millions deep (a long linked list) cannot
// overflow the goroutine's stack.
func collectHandles(v any, into map[*handle]bool) {
	type visit struct {
		kind reflect.Kind
		p    uintptr
		n    int
	}
	seen := map[visit]bool{}
	once := func(r reflect.Value, n int) bool {
		k := visit{r.Kind(), r.Pointer(), n}
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	todo := []reflect.Value{reflect.ValueOf(v)}
	for len(todo) > 0 {
		r := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if !r.IsValid() {
			continue
		}
		if r.Type() == tensorType {
			// Through the field, not Interface, which refuses values read
			// from unexported fields.
			if h := r.Field(0); !h.IsNil() {
				into[(*handle)(h.UnsafePointer())] = true
			}
			continue
		}
		switch r.Kind() {
		case reflect.Pointer:
			if !r.IsNil() && once(r, 0) {
				todo = append(todo, r.Elem())
			}
		case reflect.Interface:
			todo = append(todo, r.Elem())
		case reflect.Struct:
			for i := 0; i < r.NumField(); i++ {
				todo = append(todo, r.Field(i))
			}
		case reflect.Slice:
			if r.Len() > 0 && once(r, r.Len()) {
				for i := 0; i < r.Len(); i++ {
					todo = append(todo, r.Index(i))
				}
			}
		case reflect.Array:
			for i := 0; i < r.Len(); i++ {
				todo = append(todo, r.Index(i))
			}
		case reflect.Map:
			if r.Len() > 0 && once(r, 0) {
				it := r.MapRange()
				for it.Next() {
					todo = append(todo, it.Key(), it.Value())
				}
			}
		}
	}
}

var tensorType = reflect.TypeOf(Tensor{})
