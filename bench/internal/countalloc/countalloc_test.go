package countalloc_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/bench/internal/countalloc"
	"github.com/gotorch/gotorch/torch"
)

// The count follows tensors made after Install, small and large, and their
// frees; tensors made before are never counted.
func TestCount(t *testing.T) {
	before := torch.Ones([]int64{1000})
	countalloc.Install()
	require.True(t, countalloc.Installed())
	live0 := countalloc.Live()
	countalloc.ResetPeak()

	a := torch.Ones([]int64{1 << 20}) // 4 MiB: GoTorch's large blocks
	b := torch.Ones([]int64{16})      // 64 bytes: its small ones
	assert.GreaterOrEqual(t, countalloc.Live()-live0, int64(4<<20+64))
	assert.Less(t, countalloc.Live()-live0, int64(4<<20+64+8192))
	a.Free()
	b.Free()
	torch.GC()
	torch.FinishGC()
	assert.Equal(t, live0, countalloc.Live(), "the frees are counted")
	assert.GreaterOrEqual(t, countalloc.Peak()-live0, int64(4<<20))
	before.Free()
	assert.Equal(t, live0, countalloc.Live(), "a tensor made before Install is not counted")

	countalloc.ResetPeak()
	assert.Equal(t, countalloc.Live(), countalloc.Peak())
}
