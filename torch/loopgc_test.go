package torch

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func stepping() bool {
	mem.Lock()
	defer mem.Unlock()
	return mem.stepping
}

// TestMaybeGCBoundsALoop: a loop of small adds that calls MaybeGC at each
// iteration keeps at most about MaybeGCTensors of them alive, inside a
// step and outside one, and leaves the step state as it found it. Go's own
// collections are off, so nothing else frees them (without MaybeGC, all
// 20,000 stay alive; checked below).
func TestMaybeGCBoundsALoop(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	x := Ones([]int64{4, 4})
	peakOf := func(maybe bool) int64 {
		base := ReadMemStats().LiveTensors
		var peak int64
		for i := 0; i < 20000; i++ {
			if maybe {
				MaybeGC()
			}
			_ = x.Add(x)
			peak = max(peak, ReadMemStats().LiveTensors-base)
		}
		return peak
	}
	for _, step := range []bool{true, false} {
		if step {
			GC()
		} else {
			FinishGC()
		}
		peak := peakOf(true)
		t.Logf("step %v: peak %d", step, peak)
		// A background sweep (after the collection of the GC above, say)
		// counts as the last collection but leaves small dead tensors
		// pending for allocating goroutines to free, which they do two
		// per tensor made; so up to twice the threshold may be alive.
		assert.LessOrEqual(t, peak, int64(2*MaybeGCTensors), "step %v", step)
		assert.Equal(t, step, stepping(), "MaybeGC keeps the step state")
	}
	FinishGC()
	assert.Equal(t, int64(20000), peakOf(false), "without MaybeGC, nothing is freed")
	FinishGC()
	runtime.KeepAlive(x)
}

// TestMaybeGCCollectsOnlyWhenDue: below both thresholds MaybeGC runs no
// Go collection; past the bytes threshold it does, with few tensors. Go's
// own collections are off, so every one counted is forced.
func TestMaybeGCCollectsOnlyWhenDue(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	numGC := func() uint32 {
		var s runtime.MemStats
		runtime.ReadMemStats(&s)
		return s.NumGC
	}
	FinishGC()
	before := numGC()
	for range 100 {
		_ = Ones([]int64{4, 4})
		MaybeGC()
	}
	assert.Equal(t, before, numGC(), "100 small tensors: no collection")

	// 4 MiB each: the 17th passes 64 MiB.
	live := ReadMemStats().LiveTensors
	for range 20 {
		_ = Ones([]int64{1 << 20})
		MaybeGC()
	}
	assert.Greater(t, numGC(), before, "large tensors: collected")
	assert.Less(t, ReadMemStats().LiveTensors-live, int64(20))
	FinishGC()
}
