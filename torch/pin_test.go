package torch_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// TestFreeWhilePinnedWaitsForTheCall checks that a Free during a call that
// uses the tensor counts it as freed at once but releases the native
// tensor only when the call ends.
func TestFreeWhilePinnedWaitsForTheCall(t *testing.T) {
	torch.GC()
	defer torch.FinishGC()
	release := torch.HoldSweeps()
	defer release()
	base := torch.ReadMemStats().LiveTensors
	x := torch.Ones(i64s(4))
	require.True(t, torch.Pin(x))
	require.True(t, torch.Pin(x), "two calls may use a tensor at once")
	x.Free()
	assert.False(t, x.Defined())
	assert.Equal(t, base, torch.ReadMemStats().LiveTensors, "counted as freed at once")
	assert.False(t, torch.Pin(x), "a freed tensor cannot be pinned again")
	_, err := x.TryAdd(x)
	assert.ErrorIs(t, err, torch.ErrFreed)
	n := torch.HandFreed()
	torch.Unpin(x)
	assert.Equal(t, n, torch.HandFreed(), "one call still uses it")
	torch.Unpin(x)
	assert.Equal(t, n+1, torch.HandFreed(), "the last call released it")
	x.Free()
	assert.Equal(t, n+1, torch.HandFreed(), "a second Free does nothing")
}

// TestFreeDuringOpsOnOtherGoroutines frees tensors while other goroutines
// compute with them: every op either works or returns ErrFreed, and none
// reads a released tensor (run with -race and the native allocator's
// checks, this crashed before tensors were pinned for their calls).
func TestFreeDuringOpsOnOtherGoroutines(t *testing.T) {
	// Tensors of 1 MiB: their memory goes back to the system when
	// released, so a kernel that read one afterwards would fault.
	const users, n = 2, 64
	// Each round frees x while both users run ops on it. In -short mode
	// (make test) 500 rounds, a quarter of make test-long's (issue 38):
	// each round is the same race, and 2,000 under -race took 14 s of CPU.
	rounds := 2000
	if testing.Short() {
		rounds = 500
	}
	for range rounds {
		x := torch.Rand(i64s(n, n))
		w := torch.Rand(i64s(n, n))
		var wg sync.WaitGroup
		errs := make(chan error, users)
		started := make(chan bool, users)
		for u := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					if i == 1 {
						started <- true
					}
					var err error
					switch (u + i) % 4 {
					case 0:
						_, err = torch.TryMm(x, w)
					case 1:
						_, err = torch.TryCat([]torch.Tensor{w, x, w})
					case 2:
						_, err = torch.TryToSlice[float32](x)
					case 3:
						_, err = x.TryAddmm(w, x)
					}
					if err != nil {
						if !errors.Is(err, torch.ErrFreed) {
							errs <- err
						}
						return
					}
				}
			}()
		}
		for range users {
			<-started
		}
		x.Free()
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		// The other tensor was pinned and unpinned throughout; it is whole.
		assert.Equal(t, int64(n*n), w.Numel())
		w.Free()
	}
}

// TestFailedCallUnpins checks that a call that fails on a freed argument
// unpins the arguments it pinned before it: a later Free releases them at
// once instead of never.
func TestFailedCallUnpins(t *testing.T) {
	torch.GC()
	defer torch.FinishGC()
	release := torch.HoldSweeps()
	defer release()
	gone := torch.Ones(i64s(4))
	gone.Free()
	for _, call := range []func(a, b torch.Tensor) error{
		func(a, b torch.Tensor) error { _, err := torch.TryCat([]torch.Tensor{a, b, gone}); return err },
		func(a, b torch.Tensor) error { _, err := torch.TryAddmm(a, b, gone); return err },
		func(a, b torch.Tensor) error { _, err := torch.TryIndexPut(a, []torch.Tensor{b}, gone); return err },
	} {
		a, b := torch.Ones(i64s(4)), torch.Zeros(i64s(4), torch.WithDtype(torch.Int64))
		require.ErrorIs(t, call(a, b), torch.ErrFreed)
		n := torch.HandFreed()
		a.Free()
		b.Free()
		got := torch.HandFreed()
		if n+2 >= torch.HandBatch {
			// The batch went out on one of the two frees.
			assert.Less(t, got, n+2)
		} else {
			assert.Equal(t, n+2, got, "both were released, so neither stayed pinned")
		}
	}
}
