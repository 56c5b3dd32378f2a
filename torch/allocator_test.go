package torch_test

import (
	"fmt"
	"math/rand"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

func TestSmallAllocInstalled(t *testing.T) {
	if os.Getenv("GOTORCH_SMALL_ALLOC") == "0" {
		require.False(t, torch.SmallAllocInstalled())
		return
	}
	require.True(t, torch.SmallAllocInstalled())
}

// TestSmallAllocBlocks checks that blocks of every size around the
// allocator's class and cache limits hold their own data while others are
// freed and reused, in and out of order, by the goroutine (and OS thread)
// that made them or by another one.
func TestSmallAllocBlocks(t *testing.T) {
	// Up to 1024 float32s the blocks are small (per-thread lists), beyond
	// that large (the process's cache by pages).
	sizes := []int64{1, 2, 15, 16, 17, 31, 32, 33, 1000, 1023, 1024, 1025, 4096, 5000, 65536, 300000}
	type made struct {
		t   torch.Tensor
		val float64
		n   int64
	}
	const workers = 4
	// Blocks each worker makes: in -short mode (make test) 1,000, a third
	// of make test-long's (issue 38); every size still comes up about 60
	// times a worker, and the kept list of 50 is reused throughout.
	blocks := 3000
	if testing.Short() {
		blocks = 1000
	}
	ch := make(chan made, 64)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w)))
			var mine []made
			for i := range blocks {
				n := sizes[rng.Intn(len(sizes))]
				v := float64(w*100000 + i)
				m := made{torch.Full([]int64{n}, torch.S(v)), v, n}
				switch rng.Intn(3) {
				case 0: // another goroutine checks and frees it
					ch <- m
				case 1: // freed later, out of order
					mine = append(mine, m)
				}
				if len(mine) > 50 {
					k := rng.Intn(len(mine))
					checkFull(t, mine[k].t, mine[k].n, mine[k].val)
					mine[k].t.Free()
					mine = append(mine[:k], mine[k+1:]...)
				}
			}
			for _, m := range mine {
				checkFull(t, m.t, m.n, m.val)
				m.t.Free()
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		for m := range ch {
			checkFull(t, m.t, m.n, m.val)
			m.t.Free()
		}
		close(done)
	}()
	wg.Wait()
	close(ch)
	<-done
}

func checkFull(t *testing.T, x torch.Tensor, n int64, v float64) {
	t.Helper()
	got := x.Float32s()
	if int64(len(got)) != n {
		require.Len(t, got, int(n))
	}
	for i, g := range got {
		if g != float32(v) {
			require.Equal(t, float32(v), g, fmt.Sprintf("element %d of a %d-element tensor", i, n))
		}
	}
}

// TestSmallAllocSwitch checks that tensors made under one CPU allocator
// are freed correctly after the switch to the other, as the benchmarks do.
func TestSmallAllocSwitch(t *testing.T) {
	if !torch.SmallAllocInstalled() {
		t.Skip("GOTORCH_SMALL_ALLOC=0")
	}
	a := torch.Full([]int64{4, 4}, torch.S(1.5))
	torch.BenchDirect(a, a, 100, false, true)
	require.True(t, torch.SmallAllocInstalled())
	b := torch.Add(a, a)
	require.Equal(t, []float32{3, 3, 3, 3}, b.Float32s()[:4])
	a.Free()
	b.Free()
}
