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
//
// Where GoTorch has moved sysmon to SCHED_IDLE (sysmon_linux.go), it no
// longer yields: sysmon's wake-ups then wait for a free moment instead of
// preempting the op's threads, and a locked goroutine's yield costs two
// thread wake-ups of its own. Fresh benchmark workers, the yield on and
// off alternated (session 19, with sysmon idled): ResNet-18 batch 1 took
// 19.0–25.0 ms a forward without it against 19.5–25.1 ms with it, less in
// 6 of 7 pairs (context switches 1,285–1,685 against 2,628–2,913), BERT-base
// 0.99–1.04 s against 1.01–1.07 s in all 3 pairs, GPT-2 per token faster
// in 2 of 3.
const yieldInterval = 5 * time.Millisecond

var lastYield atomic.Int64 // nanotime of the last yield

// sysmonIdle is set once sysmon runs under SCHED_IDLE (sysmon_linux.go).
var sysmonIdle atomic.Bool

// nanotime is the runtime's monotonic clock, without time.Now's wall
// clock reading: this runs after every op.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// yieldEvery yields the processor when yieldInterval has passed since the
// last yield of any goroutine, unless sysmon has been moved to SCHED_IDLE.
func yieldEvery() {
	if sysmonIdle.Load() {
		return
	}
	now := nanotime()
	if now-lastYield.Load() < int64(yieldInterval) {
		return
	}
	lastYield.Store(now)
	runtime.Gosched()
}
