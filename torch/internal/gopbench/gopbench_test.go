package gopbench

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gotorch/gotorch/torch"
)

// The loops free their own tensors: gop-torch rebinds s (h) with
// torch.Rebind and frees the products with torch.Temp, so that after 1,000
// iterations only the last result is alive, left to the collector.
func TestLoopsFreeTheirTensors(t *testing.T) {
	x := torch.Ones([]int64{4, 4})
	y := torch.Full([]int64{4, 4}, torch.S(2.0))
	z := torch.Full([]int64{4, 4}, torch.S(3.0))
	for _, c := range []struct {
		name string
		loop func(n int) float32
		want float32
	}{
		{"AddLoop", func(n int) float32 { return AddLoop(x, y, n) }, 3},
		{"ExprLoop", func(n int) float32 { return ExprLoop(x, y, z, n) }, 7},
		{"OpsLoop", func(n int) float32 { return OpsLoop(x, y, z, n) }, 11},
		{"ChainLoop", func(n int) float32 { return ChainLoop(x, y, z, n) }, 11},
	} {
		t.Run(c.name, func(t *testing.T) {
			torch.GC()
			defer torch.FinishGC()
			before := torch.ReadMemStats()
			assert.Equal(t, c.want, c.loop(1000))
			after := torch.ReadMemStats()
			assert.LessOrEqual(t, after.LiveTensors-before.LiveTensors, int64(1), "live tensors")
			// Every tensor but the last h: one or two per iteration
			// (OpsLoop makes three: the product, the sum and its ReLU).
			assert.GreaterOrEqual(t, after.Freed-before.Freed, after.Created-before.Created-1, "freed tensors")
			assert.GreaterOrEqual(t, after.Created-before.Created, int64(1000), "created tensors")
		})
	}
}
