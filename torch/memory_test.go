package torch_test

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// settle collects until the live count stops changing, and returns it.
func settle() int64 {
	torch.FinishGC()
	return torch.ReadMemStats().LiveTensors
}

func TestGCFreesUnreachable(t *testing.T) {
	base := settle()
	x := torch.Ones(i64s(4, 4))
	for i := 0; i < 1000; i++ {
		_ = x.Add(x).Mul(x)
	}
	assert.GreaterOrEqual(t, torch.ReadMemStats().LiveTensors, base)
	torch.FinishGC()
	assert.Equal(t, base+1, torch.ReadMemStats().LiveTensors, "only x survives")
	assert.Equal(t, float32(1), x.Float32s()[0])
}

func TestGCKeepsTensorAcrossSteps(t *testing.T) {
	// The original GoTorch hung here: a tensor made in one step and still
	// alive at the next GC().
	var kept torch.Tensor
	total := torch.Zeros(i64s(1))
	for step := 0; step < 100; step++ {
		torch.GC()
		loss := torch.Full(i64s(1), torch.S(float64(step)))
		total = total.Add(loss)
		if step == 3 {
			kept = loss
		}
	}
	torch.FinishGC()
	assert.Equal(t, float32(3), kept.Float32s()[0])
	assert.Equal(t, float32(4950), total.Float32s()[0])
}

func TestGCExactWithChunkSize1(t *testing.T) {
	torch.SetGCChunkSize(1)
	defer torch.SetGCChunkSize(32)
	base := settle()
	a := torch.Ones(i64s(2))
	b := torch.Ones(i64s(2))
	_ = b
	b = torch.Tensor{}
	torch.GC()
	assert.Equal(t, base+1, torch.ReadMemStats().LiveTensors)
	runtime.KeepAlive(a)
}

func TestGCFromSeveralGoroutines(t *testing.T) {
	base := settle()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := torch.Ones(i64s(3, 3))
			for i := 0; i < 300; i++ {
				y := x.Mm(x)
				if i%10 == 0 {
					torch.GC()
				}
				require.Equal(t, float32(3), y.Float32s()[0])
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, base, settle())
}

func TestGCWithLoaderGoroutine(t *testing.T) {
	// Tensors made by another goroutine and handed over stay valid however
	// often the consumer collects.
	ch := make(chan torch.Tensor, 4)
	go func() {
		defer close(ch)
		for i := 0; i < 200; i++ {
			ch <- torch.Full(i64s(8), torch.S(float64(i)))
		}
	}()
	i := 0
	for x := range ch {
		torch.GC()
		require.Equal(t, float32(i), x.Float32s()[7])
		i++
	}
	assert.Equal(t, 200, i)
}

func TestFreeIsIdempotentAndCounted(t *testing.T) {
	base := settle()
	x := torch.Ones(i64s(10))
	assert.Equal(t, base+1, torch.ReadMemStats().LiveTensors)
	x.Free()
	x.Free()
	assert.Equal(t, base, torch.ReadMemStats().LiveTensors)
	torch.GC()
	assert.Equal(t, base, torch.ReadMemStats().LiveTensors, "a freed tensor is not freed again")
}

// TestFreeReleasesSmallTensorsInBatches checks that small tensors freed by
// hand are released HandBatch at a time, large ones at once, and that a
// collection releases what waits.
func TestFreeReleasesSmallTensorsInBatches(t *testing.T) {
	prev := torch.SetGCPercent(0)
	defer torch.SetGCPercent(prev)
	torch.GC() // collects: nothing of earlier tests waits
	defer torch.FinishGC()
	require.Zero(t, torch.HandFreed())
	// No sweep may release the batch while the test looks.
	release := torch.HoldSweeps()
	defer func() {
		if release != nil {
			release()
		}
	}()
	torch.Ones(i64s(4)).Free()
	require.Equal(t, 1, torch.HandFreed())
	torch.Ones(i64s(64, 1024)).Free() // 256 KiB
	require.Equal(t, 1, torch.HandFreed(), "a large tensor is released at once")
	for i := 2; i < torch.HandBatch; i++ {
		torch.Ones(i64s(4)).Free()
		require.Equal(t, i, torch.HandFreed())
	}
	torch.Ones(i64s(4)).Free()
	require.Zero(t, torch.HandFreed(), "a full batch is released")
	torch.Ones(i64s(4)).Free()
	// Sweeps are still held, so no background sweep of an earlier test's
	// collection takes the batch; a GC() that skips does not sweep.
	torch.SetGCPercent(1000)
	torch.GC()
	require.Equal(t, 1, torch.HandFreed(), "a GC() that does not collect leaves it waiting (SetGCPercent)")
	torch.SetGCPercent(0)
	release()
	release = nil
	torch.GC()
	require.Zero(t, torch.HandFreed(), "a collection releases what waits")
}

func TestMemoryBudgetBoundsLoopWithoutGC(t *testing.T) {
	torch.SetMemoryBudget(32 << 20)
	defer torch.SetMemoryBudget(512 << 20)
	settle()
	x := torch.Ones(i64s(256, 256)) // 256 KiB
	var peak int64
	for i := 0; i < 2000; i++ { // 500 MiB in all
		_ = x.Add(x)
		peak = max(peak, torch.ReadMemStats().LiveBytes)
	}
	assert.Less(t, peak, int64(64<<20), "live bytes stay near the budget")
}

func TestScopedFreesTemporaries(t *testing.T) {
	base := settle()
	x := torch.Ones(i64s(4))
	var kept torch.Tensor
	y := torch.Scoped(func() torch.Tensor {
		a := x.Mul(x)
		b := a.Add(a)
		kept = torch.Keep(b.Neg())
		return b.Sum()
	})
	// x, kept and y remain; a and b are freed.
	assert.Equal(t, base+3, torch.ReadMemStats().LiveTensors)
	assert.Equal(t, float64(8), y.Item())
	assert.Equal(t, float32(-2), kept.Float32s()[0])

	// Tensors in a returned struct are kept too.
	type pair struct{ A, B torch.Tensor }
	p := torch.Scoped(func() pair { return pair{x.Add(x), x.Sub(x)} })
	assert.Equal(t, float32(2), p.A.Float32s()[0])
	assert.Equal(t, float32(0), p.B.Float32s()[0])
}

// Results that contain themselves, and tensors in unexported fields, are
// walked like any other result: the walk used to overflow the stack on the
// first and panic with a reflect message on the second.
func TestScopedOddResults(t *testing.T) {
	x := torch.Ones(i64s(2))
	m := torch.Scoped(func() map[string]any {
		m := map[string]any{"t": x.Add(x)}
		m["self"] = m
		return m
	})
	assert.Equal(t, []float32{2, 2}, m["t"].(torch.Tensor).Float32s())

	s := torch.Scoped(func() []any {
		s := []any{x.Mul(x), nil}
		s[1] = s
		return s
	})
	assert.Equal(t, []float32{1, 1}, s[0].(torch.Tensor).Float32s())

	type hidden struct{ t torch.Tensor }
	h := torch.Scoped(func() hidden { return hidden{x.Sub(x)} })
	assert.True(t, h.t.Defined(), "a tensor in an unexported field is kept")
	assert.Equal(t, []float32{0, 0}, h.t.Float32s())
}

func TestScopedLeavesOtherGoroutinesAlone(t *testing.T) {
	made := make(chan torch.Tensor)
	release := make(chan struct{})
	go func() {
		<-release
		made <- torch.Ones(i64s(2))
	}()
	var other torch.Tensor
	torch.Scoped(func() struct{} {
		_ = torch.Ones(i64s(2))
		close(release)
		other = <-made
		return struct{}{}
	})
	assert.True(t, other.Defined(), "a tensor from another goroutine survives the scope")
	assert.Equal(t, float32(1), other.Float32s()[0])
}

// rssBytes reads the resident set size from /proc.
func rssBytes(t testing.TB) int64 {
	data, err := os.ReadFile("/proc/self/statm")
	require.NoError(t, err)
	f := strings.Fields(string(data))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	require.NoError(t, err)
	return pages * int64(os.Getpagesize())
}

func TestTrainingLoopReturnsToBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 steps")
	}
	base := settle()
	torch.ManualSeed(1)
	w := torch.Randn(i64s(16, 8)).Mul(torch.Full(nil, torch.S(0.1))).SetRequiresGrad(true)
	x := torch.Randn(i64s(32, 16))
	target := torch.Randn(i64s(32, 8))
	lr := torch.Full(nil, torch.S(0.01))
	var rss1000 int64
	for step := 1; step <= 10000; step++ {
		torch.GC()
		loss := x.Mm(w).Sub(target).PowTensorScalar(torch.S(2)).Mean()
		loss.Backward()
		torch.NoGrad(func() {
			w.Sub_(w.Grad().Mul(lr))
		})
		w.Grad().Zero_()
		if step == 1000 {
			rss1000 = rssBytes(t)
		}
	}
	torch.FinishGC()
	rss := rssBytes(t)
	// w, x, target and lr remain (w's gradient belongs to w).
	assert.Equal(t, base+4, torch.ReadMemStats().LiveTensors)
	if !raceEnabled {
		assert.InEpsilon(t, float64(rss1000), float64(rss), 0.05, "RSS from step 1,000 to 10,000")
	}
	runtime.KeepAlive([]torch.Tensor{w, x, target, lr})
}

func TestLargeLoopRSSWithinBudget(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("RSS is meaningful only without -race and -short")
	}
	const budget = 128 << 20
	torch.SetMemoryBudget(budget)
	defer torch.SetMemoryBudget(512 << 20)
	x := torch.Ones(i64s(256, 256))
	settle()
	start := rssBytes(t)
	var peak int64
	for i := 0; i < 20000; i++ { // 5 GB in all, never freed by hand
		_ = x.Add(x)
		if i%100 == 0 {
			peak = max(peak, rssBytes(t))
		}
	}
	t.Logf("RSS grew by %d MiB with a %d MiB budget", (peak-start)>>20, budget>>20)
	assert.Less(t, peak-start, int64(budget+200<<20), "RSS growth stays within budget + 200 MB")
}

func TestStepTensorsCollectedWithoutGC(t *testing.T) {
	// Inside a step, every 8,192 new tensors make the allocating
	// goroutine run a Go collection, and allocating goroutines free the
	// small dead tensors that the background sweep after it finds. A step that makes 200,000 tensors without calling GC() keeps
	// far fewer alive (Go's own pacing alone let ~80,000 pile up here).
	base := settle()
	x := torch.Ones(i64s(4, 4))
	torch.GC()
	before := torch.ReadMemStats()
	var peak int64
	for i := 0; i < 200000; i++ {
		x.Add(x)
		if i%1000 == 0 {
			peak = max(peak, torch.ReadMemStats().LiveTensors-base)
		}
	}
	after := torch.ReadMemStats()
	torch.FinishGC()
	assert.Less(t, peak, int64(40000), "live step tensors")
	assert.Greater(t, after.Collections-before.Collections, int64(5), "collections during the step")
	assert.Equal(t, base+1, torch.ReadMemStats().LiveTensors, "only x survives")
	runtime.KeepAlive(x)
}

func TestFreedStepTensorsStartNoCollection(t *testing.T) {
	// Tensors freed by hand (by gop-torch's Rebind, say) leave nothing to
	// collect, so they do not count toward the collection that every
	// 8,192 step tensors start: 30,000 of them force none.
	x := torch.Ones(i64s(4, 4))
	torch.GC()
	defer torch.FinishGC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < 30000; i++ {
		x.Add(x).Free()
	}
	runtime.ReadMemStats(&after)
	assert.Equal(t, before.NumForcedGC, after.NumForcedGC, "forced collections")
	runtime.KeepAlive(x)
}

func TestGCRestoresGOMAXPROCS(t *testing.T) {
	// GC() runs Go's collection with one P and puts the setting back, also
	// when several goroutines collect at once.
	prev := runtime.GOMAXPROCS(3)
	defer runtime.GOMAXPROCS(prev)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				_ = torch.Ones(i64s(2, 2)).Add(torch.Ones(i64s(2, 2)))
				torch.GC()
			}
		}()
	}
	wg.Wait()
	torch.FinishGC()
	assert.Equal(t, 3, runtime.GOMAXPROCS(0))
}

// GC() collects only when the step tensors grew by more than
// SetGCPercent's share of the live bytes; FinishGC always collects.
func TestGCPercentDefersSmallGrowth(t *testing.T) {
	torch.FinishGC()
	prev := torch.SetGCPercent(5)
	defer torch.SetGCPercent(prev)
	// No collections of Go's own, whose background sweeps would free the
	// waiting tensors.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	base := torch.Randn([]int64{1024, 1024}) // 4 MiB live: 5% is about 205 KiB
	small := torch.Randn([]int64{1024})      // 4 KiB
	mid := torch.Randn([]int64{100, 1024})   // 400 KiB
	defer base.Free()
	defer small.Free()
	defer mid.Free()
	torch.GC() // the first GC() of a loop collects
	defer torch.FinishGC()
	s0 := torch.ReadMemStats()

	for range 10 {
		torch.GC()
		torch.Add(small, small) // 4 KiB dropped per step
	}
	s1 := torch.ReadMemStats()
	assert.Equal(t, int64(10), s1.SkippedGCs-s0.SkippedGCs, "steps that leave 4 KiB each are not collected")
	assert.Equal(t, int64(10), s1.LiveTensors-s0.LiveTensors, "their tensors wait")

	torch.Add(mid, mid) // 400 KiB more: over 5%
	torch.GC()
	s2 := torch.ReadMemStats()
	assert.Equal(t, s1.SkippedGCs, s2.SkippedGCs, "this GC() collects")
	assert.Equal(t, s0.LiveTensors, s2.LiveTensors, "and frees what died")

	torch.GC()
	torch.Add(small, small)
	torch.FinishGC()
	assert.Equal(t, s0.LiveTensors, torch.ReadMemStats().LiveTensors, "FinishGC collects")
}

// A GC() right after FinishGC(), with no tensor made in between, starts
// the next loop without a collection; one made in between, even one freed
// by the collector's rules alone (dropped), makes it collect.
func TestGCAfterFinishGCCollectsOnlyWhatIsNew(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	x := torch.Ones([]int64{4})
	defer x.Free()

	torch.FinishGC()
	s0 := torch.ReadMemStats()
	torch.GC() // nothing made since FinishGC
	s1 := torch.ReadMemStats()
	assert.Equal(t, s0.SkippedGCs+1, s1.SkippedGCs, "no collection")
	assert.Equal(t, s0.Collections, s1.Collections)
	torch.Add(x, x) // a step tensor, dropped
	torch.FinishGC()
	assert.Equal(t, s0.LiveTensors, torch.ReadMemStats().LiveTensors, "the skipped GC() still started a step that FinishGC ends")

	torch.Add(x, x) // made outside steps, dropped
	torch.Add(x, x).Free()
	s2 := torch.ReadMemStats()
	torch.GC()
	defer torch.FinishGC()
	s3 := torch.ReadMemStats()
	assert.Equal(t, s2.SkippedGCs, s3.SkippedGCs, "a tensor made since FinishGC: this GC() collects")
	assert.Equal(t, s0.LiveTensors, s3.LiveTensors, "and frees it")
}
func TestGCPercentZeroCollectsEveryStep(t *testing.T) {
	torch.FinishGC()
	prev := torch.SetGCPercent(0)
	defer torch.SetGCPercent(prev)
	assert.Equal(t, 0, torch.SetGCPercent(0), "SetGCPercent returns the previous setting")
	x := torch.Ones([]int64{4})
	defer x.Free()
	torch.GC()
	defer torch.FinishGC()
	s0 := torch.ReadMemStats()
	for range 5 {
		torch.GC()
		torch.Add(x, x)
	}
	torch.GC()
	s1 := torch.ReadMemStats()
	assert.Equal(t, s0.SkippedGCs, s1.SkippedGCs)
	assert.Equal(t, s0.LiveTensors, s1.LiveTensors)
	assert.Panics(t, func() { torch.SetGCPercent(-1) })
}

// SetData changes the bytes a tensor holds, and the live bytes follow: a
// lazy layer sized by its first forward, a module moved to float64.
func TestSetDataRecountsBytes(t *testing.T) {
	settle()
	p := torch.Empty(i64s(0))
	src := torch.Zeros(i64s(250, 4), torch.WithDtype(torch.Float64)) // 8,000 bytes
	before := torch.ReadMemStats().LiveBytes
	p.SetData(src)
	assert.Equal(t, int64(8000), torch.ReadMemStats().LiveBytes-before)

	small := torch.Zeros(i64s(10)) // 40 bytes
	before = torch.ReadMemStats().LiveBytes
	p.SetData(small)
	assert.Equal(t, int64(40-8000), torch.ReadMemStats().LiveBytes-before)

	// Freeing p gives back what it holds now.
	before = torch.ReadMemStats().LiveBytes
	p.Free()
	assert.Less(t, torch.ReadMemStats().LiveBytes-before, int64(-40))
	runtime.KeepAlive(src)
}

// FinishGC gives glibc's free memory back once when a job left 64 MiB of
// free chunks in the heap, not again at every later FinishGC while they
// are still there: malloc_trim leaves them counted as free, and trimming
// them at every loop's end cost 3 ms and their page faults each time
// (bench/NOTES.md, session 20). Another 64 MiB freed trims again.
func TestFinishGCTrimsOnlyNewFreeMemory(t *testing.T) {
	if torch.Allocator == "jemalloc" {
		t.Skip("FinishGC trims glibc's heap only")
	}
	torch.FinishGC()
	torch.FinishGC() // what earlier tests left is trimmed and counted
	torch.HeapChurn(96 << 20)
	n0 := torch.FinishTrims()
	torch.FinishGC()
	require.Equal(t, n0+1, torch.FinishTrims(), "96 MiB of free chunks: FinishGC trims")
	for range 3 {
		torch.FinishGC()
	}
	assert.Equal(t, n0+1, torch.FinishTrims(), "the same free chunks: no trim again")
	torch.HeapChurn(96 << 20)
	torch.FinishGC()
	assert.Equal(t, n0+2, torch.FinishTrims(), "96 MiB more free: FinishGC trims again")
	torch.HeapChurn(0)
}
