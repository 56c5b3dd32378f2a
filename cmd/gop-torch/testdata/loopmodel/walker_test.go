package loopmodel

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gotorch/gotorch/classfile"
	"github.com/gotorch/gotorch/torch"
)

// TestWalkIsBounded: 20,000 iterations of Walk keep at most about
// 2×torch.MaybeGCTensors tensors alive, with Go's own collections off (so
// that only MaybeGC frees them) and inside a step or not. Without
// MaybeGC all 20,000 would stay alive.
func TestWalkIsBounded(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	w := classfile.Build(new(Walker))
	for _, step := range []bool{false, true} {
		if step {
			torch.GC()
		} else {
			torch.FinishGC()
		}
		base := torch.ReadMemStats().LiveTensors
		x, peak := w.Walk(torch.Ones([]int64{1, 8}), 20000)
		t.Logf("step %v: base %d, peak %d", step, base, peak)
		assert.Less(t, peak-base, int64(2*torch.MaybeGCTensors), "step %v", step)
		assert.Equal(t, []int64{1, 8}, x.Shape())
	}
	torch.FinishGC()
}
