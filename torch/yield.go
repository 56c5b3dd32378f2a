package torch

import (
	"runtime"
	"sync/atomic"
	"time"
	_ "unsafe" // go:linkname
)

// The goroutine that runs a model's ops spends nearly all its time in cgo
// calls and never gives up its P. After 10 ms with the same scheduling
// tick, the Go runtime's sysmon thread counts it as a long-running
// goroutine: it preempts it and, since it is in a cgo call, takes its P
// away and hands it off. Each such event wakes threads and sends sysmon
// back to polling every 20 µs, and on a machine whose cores the op's
// OpenMP threads fill, every wake-up preempts one of them while its
// partner spins at a barrier. ResNet-18 at batch 1 on 2 cores made 23,000
// context switches in 200 forwards (C++: 200) and ran 1.2× C++'s time
// (bench/NOTES.md, session 16).
//
// yieldEvery avoids that: an op that returns more than yieldInterval after
// the last yield calls runtime.Gosched, which moves the scheduling tick on
// its own terms, once per interval: about 200 yields a second, each a few
// microseconds (a hand-off when the goroutine is locked to its thread).
// The interval is half sysmon's 10 ms.
const yieldInterval = 5 * time.Millisecond

var lastYield atomic.Int64 // nanotime of the last yield

// nanotime is the runtime's monotonic clock, without time.Now's wall
// clock reading: this runs after every op.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// yieldEvery yields the processor when yieldInterval has passed since the
// last yield of any goroutine.
func yieldEvery() {
	now := nanotime()
	if now-lastYield.Load() < int64(yieldInterval) {
		return
	}
	lastYield.Store(now)
	runtime.Gosched()
}
