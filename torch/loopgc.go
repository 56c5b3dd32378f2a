package torch

// Collections for loops that may run inside another loop's step.

// MaybeGC is GC for the iterations of loops that may run inside a step:
// a loop in a module's method, in a function literal passed as a value,
// in a goroutine. gop-torch puts it at the top of such loops (see
// cmd/gop-torch/instrument.go).
//
// It collects, freeing every unreachable tensor as GC does, only when more
// than MaybeGCTensors tensors were made, or the live bytes grew by more
// than MaybeGCBytes, since the last collection of any kind; otherwise it
// costs one uncontended lock. Unlike GC it neither starts nor ends a step:
// a loop that calls it inside another loop's step leaves that step's chunk
// registration on, and one that runs outside steps stays outside. So a
// loop that makes tensors stays bounded without paying for a Go
// collection at every iteration, which would cost far more than a small
// op (about 0.2 ms against 1 µs).
//
// It may be called from any goroutine.
func MaybeGC() {
	mem.Lock()
	due := mem.created-mem.gcMark > MaybeGCTensors || mem.bytes-mem.lastBytes > MaybeGCBytes
	stepping := mem.stepping
	mem.Unlock()
	if due {
		collect(stepping, sweepNow)
	}
}

// The thresholds of MaybeGC. 4,096 tensors make a collection's cost (about
// 0.2 ms on a small heap) a few percent of the ops that made them; 64 MiB
// keeps a loop of large tensors far below the memory budget.
const (
	MaybeGCTensors = 4096
	MaybeGCBytes   = 64 << 20
)
