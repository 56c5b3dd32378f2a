// Package livetest counts the tensors a piece of code leaves alive, for
// the tests that check that functions, modules and optimizers free what
// they make for their own use.
package livetest

import (
	"runtime/debug"

	"github.com/gotorch/gotorch/torch"
)

// New runs f and returns how many more tensors are live after it than
// before. Go's collector is off meanwhile, after a full collection, so no
// background sweep frees anything: only explicit frees lower the count.
func New(f func()) int64 {
	torch.FinishGC()
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	before := torch.ReadMemStats().LiveTensors
	f()
	return torch.ReadMemStats().LiveTensors - before
}
