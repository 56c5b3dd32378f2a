package torch

import (
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkAll fails unless every element of x is v.
func checkAll(t *testing.T, x Tensor, v float64) {
	t.Helper()
	assert.Equal(t, v, x.Min().Item(), "min")
	assert.Equal(t, v, x.Max().Item(), "max")
}

// TestLargeCacheKeepsStepBlocks checks that blocks over the old limits (64
// MiB a block, 256 MiB in all) are kept for the next step and handed back
// whole, with their new contents, and that a collection under memory
// pressure gives them back to the system.
func TestLargeCacheKeepsStepBlocks(t *testing.T) {
	if !smallAllocInstalled() {
		t.Skip("GOTORCH_SMALL_ALLOC=0")
	}
	const n = 25<<20 + 3*1024 // float32s: 100 MiB and 3 pages, a size no other test uses
	step := func(v float64) []Tensor {
		var ts []Tensor
		for range 3 {
			ts = append(ts, Full([]int64{n}, S(v)))
		}
		return ts
	}
	for _, x := range step(1) {
		x.Free()
	}
	s0 := readLargeCache()
	require.GreaterOrEqual(t, s0.Cached, int64(3*n*4), "the step's blocks stay cached")
	require.GreaterOrEqual(t, s0.Cap, int64(3*n*4), "the cap follows the peak")

	xs := step(2)
	s1 := readLargeCache()
	assert.Equal(t, s0.Fresh, s1.Fresh, "no block taken from the system")
	assert.GreaterOrEqual(t, s1.Reused-s0.Reused, int64(3), "blocks served from the cache")
	for _, x := range xs {
		checkAll(t, x, 2)
		x.Free()
	}

	// A collection under memory pressure empties the cache.
	SetMemoryBudget(32 << 20)
	defer SetMemoryBudget(512 << 20)
	y := Full([]int64{10 << 20}, S(3)) // 40 MiB: over the budget
	s2 := readLargeCache()
	assert.Less(t, s2.Cached, int64(n*4), "cached bytes after a pressure collection")
	assert.Less(t, s2.Peak, s0.Peak, "the peak restarts")
	checkAll(t, y, 3)
	y.Free()
}

// TestLargeBlocksFaultInHugePages checks that a fresh large block faults in
// by huge pages where transparent huge pages can be advised.
func TestLargeBlocksFaultInHugePages(t *testing.T) {
	if !smallAllocInstalled() {
		t.Skip("GOTORCH_SMALL_ALLOC=0")
	}
	if os.Getenv("GOTORCH_HUGEPAGES") == "0" {
		t.Skip("GOTORCH_HUGEPAGES=0")
	}
	thp, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(thp), "[never]") {
		t.Skip("no transparent huge pages here")
	}
	const bytes = 64<<20 + 5*4096 // a size no other test uses, so a fresh block
	before := readLargeCache()
	var r0, r1 syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &r0))
	x := Full([]int64{bytes / 4}, S(7))
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &r1))
	after := readLargeCache()
	require.Equal(t, before.Fresh+1, after.Fresh, "a fresh block")
	require.Greater(t, after.Mapped, before.Mapped, "mapped by hand")
	faults := r1.Minflt - r0.Minflt
	t.Logf("%d minor faults for %d pages", faults, bytes/4096)
	assert.Less(t, faults, int64(bytes/4096/4), "minor faults to fill a 64 MiB block")
	checkAll(t, x, 7)
	x.Free()
}
