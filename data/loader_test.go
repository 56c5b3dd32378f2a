package data

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

func TestNewLoaderRejectsInvalidOptions(t *testing.T) {
	ds := &seqDataset{n: 10}
	for _, tc := range []struct {
		name string
		ds   Dataset
		opts Options
		want string
	}{
		{"zero batch size", ds, Options{}, "BatchSize must be at least 1, got 0"},
		{"negative batch size", ds, Options{BatchSize: -3}, "BatchSize must be at least 1, got -3"},
		{"negative workers", ds, Options{BatchSize: 1, Workers: -1}, "Workers must not be negative, got -1"},
		{"negative prefetch", ds, Options{BatchSize: 1, Workers: 2, Prefetch: -1}, "Prefetch must not be negative, got -1"},
		{"prefetch without workers", ds, Options{BatchSize: 1, Prefetch: 2}, "Prefetch is 2 but Workers is 0"},
		{"thread-exhausting workers", ds, Options{BatchSize: 1, Workers: 12000}, "Workers is 12000, more than MaxWorkers (1024)"},
		{"huge prefetch", ds, Options{BatchSize: 1, Workers: 2, Prefetch: 1 << 40}, "Prefetch is 1099511627776, more than MaxPrefetch"},
		{"nil dataset", nil, Options{BatchSize: 1}, "nil dataset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := NewLoader(tc.ds, tc.opts)
			require.Error(t, err)
			assert.Nil(t, l)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestLoaderDefaults(t *testing.T) {
	l, err := NewLoader(&seqDataset{n: 10}, Options{BatchSize: 3, Workers: 3})
	require.NoError(t, err)
	assert.Equal(t, 6, l.Options().Prefetch)
	assert.Equal(t, 4, l.Len())
	l, err = NewLoader(&seqDataset{n: 10}, Options{BatchSize: 3, DropLast: true})
	require.NoError(t, err)
	assert.Equal(t, 3, l.Len())
}

// epoch runs one epoch with Scan and returns the batches' indices, after
// checking that each batch's tensors hold its examples.
func epoch(t *testing.T, l *Loader) [][]int {
	t.Helper()
	var out [][]int
	for l.Scan() {
		x, y := l.Batch()
		idx := l.Indices()
		want := make([]int64, len(idx))
		wantX := make([]float32, len(idx))
		for j, i := range idx {
			want[j], wantX[j] = int64(i), float32(i)
		}
		require.Equal(t, want, y.Int64s())
		require.Equal(t, wantX, x.Float32s())
		out = append(out, idx)
	}
	require.NoError(t, l.Err())
	return out
}

func TestLoaderSeesEveryExampleOncePerEpoch(t *testing.T) {
	for _, workers := range []int{0, 1, 4} {
		for _, shuffle := range []bool{false, true} {
			for _, dropLast := range []bool{false, true} {
				for _, bs := range []int{1, 7, 25, 40} {
					name := fmt.Sprintf("workers=%d/shuffle=%v/drop_last=%v/batch=%d", workers, shuffle, dropLast, bs)
					t.Run(name, func(t *testing.T) {
						const n = 25
						l, err := NewLoader(&seqDataset{n: n}, Options{BatchSize: bs, Shuffle: shuffle, DropLast: dropLast, Workers: workers, Seed: 3})
						require.NoError(t, err)
						for e := 0; e < 2; e++ {
							batches := epoch(t, l)
							assert.Len(t, batches, l.Len())
							seen := map[int]int{}
							for k, b := range batches {
								if k < len(batches)-1 || dropLast || n%bs == 0 {
									assert.Len(t, b, bs)
								} else {
									assert.Len(t, b, n%bs)
								}
								for _, i := range b {
									seen[i]++
								}
							}
							want := n
							if dropLast {
								want = n - n%bs
							}
							assert.Len(t, seen, want)
							for i, c := range seen {
								assert.Equal(t, 1, c, "example %d", i)
							}
						}
					})
				}
			}
		}
	}
}

func TestLoaderShuffleIsDeterministic(t *testing.T) {
	run := func(seed uint64, workers int) [][][]int {
		l, err := NewLoader(&seqDataset{n: 50}, Options{BatchSize: 8, Shuffle: true, Seed: seed, Workers: workers})
		require.NoError(t, err)
		return [][][]int{epoch(t, l), epoch(t, l), epoch(t, l)}
	}
	a := run(42, 0)
	assert.Equal(t, a, run(42, 0), "same seed")
	assert.Equal(t, a, run(42, 5), "same seed, other number of workers")
	assert.NotEqual(t, a, run(43, 0), "other seed")
	assert.NotEqual(t, a[0], a[1], "a new permutation each epoch")
	assert.NotEqual(t, a[1], a[2], "a new permutation each epoch")

	// SetEpoch replays an epoch.
	l, err := NewLoader(&seqDataset{n: 50}, Options{BatchSize: 8, Shuffle: true, Seed: 42})
	require.NoError(t, err)
	l.SetEpoch(2)
	assert.Equal(t, 2, l.Epoch())
	assert.Equal(t, a[2], epoch(t, l))
	assert.Equal(t, 3, l.Epoch())
}

func TestLoaderWithoutShuffleIsSequential(t *testing.T) {
	l, err := NewLoader(&seqDataset{n: 7}, Options{BatchSize: 3})
	require.NoError(t, err)
	assert.Equal(t, [][]int{{0, 1, 2}, {3, 4, 5}, {6}}, epoch(t, l))
}

func TestLoaderKeepsOrderWithManyWorkers(t *testing.T) {
	// Examples take random times, so batches finish out of order.
	ds := &seqDataset{n: 200, delay: func(i int) time.Duration {
		return time.Duration((i*7919)%5) * time.Millisecond
	}}
	l, err := NewLoader(ds, Options{BatchSize: 4, Workers: 8, Prefetch: 16})
	require.NoError(t, err)
	var got []int
	for _, b := range epoch(t, l) {
		got = append(got, b...)
	}
	want := make([]int, 200)
	for i := range want {
		want[i] = i
	}
	assert.Equal(t, want, got)
}

func TestLoaderRespectsPrefetchBound(t *testing.T) {
	for _, tc := range []struct{ workers, prefetch int }{{1, 1}, {4, 2}, {4, 4}, {2, 6}} {
		t.Run(fmt.Sprintf("workers=%d/prefetch=%d", tc.workers, tc.prefetch), func(t *testing.T) {
			const bs = 3
			var taken atomic.Int64 // batches the consumer received
			var maxAhead, inFlight, maxInFlight atomic.Int64
			ds := &seqDataset{n: 30 * bs}
			ds.before = func(i int) {
				ahead := int64(i/bs) - taken.Load() // batches past the one last received
				for m := maxAhead.Load(); ahead > m && !maxAhead.CompareAndSwap(m, ahead); m = maxAhead.Load() {
				}
				f := inFlight.Add(1)
				for m := maxInFlight.Load(); f > m && !maxInFlight.CompareAndSwap(m, f); m = maxInFlight.Load() {
				}
				time.Sleep(100 * time.Microsecond)
				inFlight.Add(-1)
			}
			l, err := NewLoader(ds, Options{BatchSize: bs, Workers: tc.workers, Prefetch: tc.prefetch})
			require.NoError(t, err)
			for l.Scan() {
				taken.Add(1)
				time.Sleep(5 * time.Millisecond) // a slow consumer: the workers run ahead
			}
			require.NoError(t, l.Err())
			// While the consumer holds batch taken-1, the workers load at
			// most batches taken to taken-1+prefetch: ahead < prefetch. The
			// receipt of a batch and taken's increment are not atomic,
			// hence ahead <= prefetch.
			assert.LessOrEqual(t, maxAhead.Load(), int64(tc.prefetch))
			assert.GreaterOrEqual(t, maxAhead.Load(), int64(tc.prefetch-1), "the workers should fill the prefetch window")
			assert.LessOrEqual(t, maxInFlight.Load(), int64(min(tc.workers, tc.prefetch)))
		})
	}
}

func TestLoaderCancellation(t *testing.T) {
	base := runtime.NumGoroutine()
	ds := &seqDataset{n: 1000, delay: func(int) time.Duration { return 200 * time.Microsecond }}
	l, err := NewLoader(ds, Options{BatchSize: 4, Workers: 4, Prefetch: 8})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	for l.ScanContext(ctx) {
		if n++; n == 3 {
			cancel()
		}
	}
	assert.Equal(t, 3, n, "Scan stops at the first call after the cancellation")
	assert.ErrorIs(t, l.Err(), context.Canceled)
	waitGoroutines(t, base)
	gets := ds.gets.Load()
	assert.Less(t, gets, int64(100), "the workers stopped")

	// The next Scan starts a new epoch.
	assert.True(t, l.Scan())
	assert.NoError(t, l.Err())
	assert.Equal(t, []int{0, 1, 2, 3}, l.Indices())
	l.Stop()
	waitGoroutines(t, base)
}

func TestLoaderCancellationWhileConsumerIsBusy(t *testing.T) {
	// Canceling the context stops the workers even if Scan is never called
	// again.
	base := runtime.NumGoroutine()
	l, err := NewLoader(&seqDataset{n: 1000}, Options{BatchSize: 4, Workers: 3})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	require.True(t, l.ScanContext(ctx))
	cancel()
	waitGoroutines(t, base)
	assert.False(t, l.ScanContext(ctx))
	assert.ErrorIs(t, l.Err(), context.Canceled)
}

func TestLoaderDeadline(t *testing.T) {
	base := runtime.NumGoroutine()
	ds := &seqDataset{n: 1000, delay: func(int) time.Duration { return time.Millisecond }}
	l, err := NewLoader(ds, Options{BatchSize: 2, Workers: 2})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	for l.ScanContext(ctx) {
	}
	assert.ErrorIs(t, l.Err(), context.DeadlineExceeded)
	waitGoroutines(t, base)
}

func TestLoaderCanceledBeforeStart(t *testing.T) {
	ds := &seqDataset{n: 10}
	l, err := NewLoader(ds, Options{BatchSize: 2, Workers: 2})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.False(t, l.ScanContext(ctx))
	assert.ErrorIs(t, l.Err(), context.Canceled)
	assert.Zero(t, ds.gets.Load())
	assert.Equal(t, 0, l.Epoch(), "no epoch started")
}

func TestLoaderPropagatesErrors(t *testing.T) {
	for _, workers := range []int{0, 1, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			base := runtime.NumGoroutine()
			ds := &seqDataset{n: 100, fail: map[int]error{37: errBroken}}
			l, err := NewLoader(ds, Options{BatchSize: 5, Workers: workers})
			require.NoError(t, err)
			var last []int
			for l.Scan() {
				last = l.Indices()
			}
			err = l.Err()
			require.Error(t, err)
			assert.ErrorIs(t, err, errBroken)
			var ee *ExampleError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, 37, ee.Index)
			assert.Equal(t, "data: example 37: broken example", err.Error())
			assert.Equal(t, []int{30, 31, 32, 33, 34}, last, "the epoch stops at the failing batch")
			waitGoroutines(t, base)

			// A new epoch starts afresh, and meets the error again.
			assert.True(t, l.Scan())
			assert.NoError(t, l.Err())
			l.Stop()
		})
	}
}

func TestLoaderRecoversPanics(t *testing.T) {
	for _, workers := range []int{0, 3} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			l, err := NewLoader(&seqDataset{n: 20, panics: map[int]bool{12: true}}, Options{BatchSize: 4, Workers: workers})
			require.NoError(t, err)
			for l.Scan() {
			}
			var pe *PanicError
			require.ErrorAs(t, l.Err(), &pe)
			assert.Equal(t, "boom", pe.Value)
			assert.Contains(t, string(pe.Stack), "seqDataset")
			assert.Equal(t, "data: example 12: panic: boom", l.Err().Error())
		})
	}
}

// A dataset whose Get ends its goroutine with runtime.Goexit, as
// require.NoError does outside the test's goroutine, gives an error; it
// used to leave Scan waiting for ever.
func TestLoaderWorkerGoexit(t *testing.T) {
	ds := &funcDataset{n: 8, get: func(i int) (Example, error) {
		if i == 5 {
			runtime.Goexit()
		}
		return Example{Input: float32(i), Target: i}, nil
	}}
	l, err := NewLoader(ds, Options{BatchSize: 2, Workers: 2})
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for l.Scan() {
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		require.FailNow(t, "Scan still waits a minute after the worker ended")
	}
	require.Error(t, l.Err())
	assert.ErrorIs(t, l.Err(), errGoexit)
	assert.Contains(t, l.Err().Error(), "runtime.Goexit")
}

// A dataset too long to index is an error at the start of the epoch, not a
// fatal out-of-memory.
func TestLoaderHugeDataset(t *testing.T) {
	l, err := NewLoader(&funcDataset{n: 1 << 40}, Options{BatchSize: 64, Shuffle: true})
	require.NoError(t, err)
	assert.False(t, l.Scan())
	assert.EqualError(t, l.Err(), "data: the dataset's Len is 1099511627776, more than MaxDatasetLen (1073741824)")
}

func TestLoaderReportsCollationErrors(t *testing.T) {
	ds := &funcDataset{n: 4, get: func(i int) (Example, error) {
		if i == 2 {
			return Example{Input: "two", Target: i}, nil
		}
		return Example{Input: float32(i), Target: i}, nil
	}}
	l, err := NewLoader(ds, Options{BatchSize: 4})
	require.NoError(t, err)
	assert.False(t, l.Scan())
	assert.EqualError(t, l.Err(), "data: batch: collate inputs: example 0 of the batch is a float32, example 2 a string")
}

type funcDataset struct {
	n   int
	get func(i int) (Example, error)
}

func (d *funcDataset) Len() int                   { return d.n }
func (d *funcDataset) Get(i int) (Example, error) { return d.get(i) }

func TestLoaderAll(t *testing.T) {
	ds := &seqDataset{n: 23}
	l, err := NewLoader(ds, Options{BatchSize: 5, Shuffle: true, Seed: 9, Workers: 3})
	require.NoError(t, err)
	ref, err := NewLoader(ds, Options{BatchSize: 5, Shuffle: true, Seed: 9})
	require.NoError(t, err)
	for e := 0; e < 2; e++ {
		var got [][]int
		for b, err := range l.All(context.Background()) {
			require.NoError(t, err)
			assert.Equal(t, b.Input.Size(0), int64(len(b.Indices)))
			got = append(got, b.Indices)
		}
		assert.Equal(t, epoch(t, ref), got, "epoch %d", e)
	}
	assert.Equal(t, 2, l.Epoch())
}

func TestLoaderAllBreakStopsWorkers(t *testing.T) {
	base := runtime.NumGoroutine()
	l, err := NewLoader(&seqDataset{n: 1000}, Options{BatchSize: 2, Workers: 4})
	require.NoError(t, err)
	n := 0
	for _, err := range l.All(context.Background()) {
		require.NoError(t, err)
		if n++; n == 2 {
			break
		}
	}
	waitGoroutines(t, base)
}

func TestLoaderAllErrorsAndCancellation(t *testing.T) {
	base := runtime.NumGoroutine()
	l, err := NewLoader(&seqDataset{n: 100, fail: map[int]error{9: errBroken}}, Options{BatchSize: 4, Workers: 2})
	require.NoError(t, err)
	var errs []error
	n := 0
	for b, err := range l.All(context.Background()) {
		if err != nil {
			errs = append(errs, err)
			assert.False(t, b.Input.Defined())
			continue
		}
		n++
	}
	assert.Equal(t, 2, n)
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], errBroken)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, err = NewLoader(&seqDataset{n: 100}, Options{BatchSize: 4, Workers: 2})
	require.NoError(t, err)
	errs, n = nil, 0
	for _, err := range l.All(ctx) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if n++; n == 2 {
			cancel()
		}
	}
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], context.Canceled)
	waitGoroutines(t, base)
}

func TestLoaderStopAbandonsEpoch(t *testing.T) {
	base := runtime.NumGoroutine()
	l, err := NewLoader(&seqDataset{n: 10}, Options{BatchSize: 2, Workers: 2})
	require.NoError(t, err)
	require.True(t, l.Scan())
	require.True(t, l.Scan())
	assert.Equal(t, []int{2, 3}, l.Indices())
	l.Stop()
	waitGoroutines(t, base)
	assert.Equal(t, 1, l.Epoch())
	require.True(t, l.Scan())
	assert.Equal(t, []int{0, 1}, l.Indices(), "a new epoch")
	l.Stop()
}

func TestLoaderEmptyDataset(t *testing.T) {
	for _, tc := range []struct {
		n        int
		dropLast bool
	}{{0, false}, {3, true}} {
		l, err := NewLoader(&seqDataset{n: tc.n}, Options{BatchSize: 4, DropLast: tc.dropLast, Workers: 2})
		require.NoError(t, err)
		assert.False(t, l.Scan())
		assert.NoError(t, l.Err())
		assert.Equal(t, 0, l.Len())
	}
}

func TestLoaderTransformsAreReproducible(t *testing.T) {
	// An image dataset whose crops and flips depend on the generator the
	// loader gives each example.
	img := image.NewGray(image.Rect(0, 0, 8, 8))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	ds := &funcDataset{n: 40, get: func(i int) (Example, error) { return Example{Input: img, Target: i}, nil }}
	tf := Compose(RandomCrop(6, 2), RandomHorizontalFlip(0.5), ToTensor())
	run := func(workers int, seed uint64) [][]float32 {
		l, err := NewLoader(ds, Options{BatchSize: 8, Workers: workers, Seed: seed, Transform: tf})
		require.NoError(t, err)
		var out [][]float32
		for e := 0; e < 2; e++ {
			var ep []float32
			for l.Scan() {
				x, _ := l.Batch()
				require.Equal(t, []int64{8, 1, 6, 6}, x.Shape())
				ep = append(ep, x.Float32s()...)
			}
			require.NoError(t, l.Err())
			out = append(out, ep)
		}
		return out
	}
	a := run(0, 1)
	assert.Equal(t, a, run(4, 1), "the same augmentation with workers")
	assert.NotEqual(t, a[0], a[1], "another augmentation each epoch")
	assert.NotEqual(t, a, run(0, 2), "another augmentation for another seed")
}

func TestLoaderTargetTransformAndCollate(t *testing.T) {
	ds := &seqDataset{n: 6}
	double := TransformFunc(func(x any, _ *rand.Rand) (any, error) { return float32(2 * x.(int)), nil })
	l, err := NewLoader(ds, Options{BatchSize: 3, TargetTransform: double})
	require.NoError(t, err)
	require.True(t, l.Scan())
	_, y := l.Batch()
	assert.Equal(t, []float32{0, 2, 4}, y.Float32s())
	l.Stop()

	sum := func(exs []Example) (torch.Tensor, torch.Tensor, error) {
		s := float32(0)
		for _, e := range exs {
			s += e.Input.(float32)
		}
		return torch.FromSlice([]float32{s}), torch.Tensor{}, nil
	}
	l, err = NewLoader(ds, Options{BatchSize: 3, Collate: sum})
	require.NoError(t, err)
	require.True(t, l.Scan())
	x, y := l.Batch()
	assert.Equal(t, []float32{3}, x.Float32s())
	assert.False(t, y.Defined())
	l.Stop()

	failing := TransformFunc(func(x any, _ *rand.Rand) (any, error) { return nil, errors.New("nope") })
	l, err = NewLoader(ds, Options{BatchSize: 3, Transform: failing})
	require.NoError(t, err)
	assert.False(t, l.Scan())
	assert.EqualError(t, l.Err(), "data: example 0: transform: nope")
}

func TestLoaderTensorDatasetUsesGetBatch(t *testing.T) {
	x := torch.FromSlice([]float32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 5, 2)
	y := torch.FromSlice([]int64{10, 11, 12, 13, 14})
	ds, err := NewTensorDataset(x, y)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		opts Options
		bg   bool
	}{
		{"batch", Options{BatchSize: 2, Shuffle: true, Seed: 4, Workers: 2}, true},
		{"examples", Options{BatchSize: 2, Shuffle: true, Seed: 4, Workers: 2, Collate: DefaultCollate}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := NewLoader(ds, tc.opts)
			require.NoError(t, err)
			assert.Equal(t, tc.bg, l.bg != nil)
			var seen []int
			for l.Scan() {
				bx, by := l.Batch()
				idx := l.Indices()
				wantX, wantY := []float32{}, []int64{}
				for _, i := range idx {
					wantX = append(wantX, float32(2*i), float32(2*i+1))
					wantY = append(wantY, int64(10+i))
				}
				assert.Equal(t, []int64{int64(len(idx)), 2}, bx.Shape())
				assert.Equal(t, wantX, bx.Float32s())
				assert.Equal(t, wantY, by.Int64s())
				seen = append(seen, idx...)
			}
			require.NoError(t, l.Err())
			assert.ElementsMatch(t, []int{0, 1, 2, 3, 4}, seen)
		})
	}
}

func TestLoaderGCReturnsLiveTensorsToBaseline(t *testing.T) {
	// Every GC() collects: the bound below is Scan's, not the share of
	// the live bytes that a paced GC() lets wait (torch.SetGCPercent),
	// which depends on what the package's other tests keep alive.
	defer torch.SetGCPercent(torch.SetGCPercent(0))
	x := torch.Randn([]int64{300, 3, 4})
	y := torch.Arange(torch.S(300))
	ds, err := NewTensorDataset(x, y)
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"examples, workers", Options{BatchSize: 16, Shuffle: true, Workers: 3, Collate: DefaultCollate}},
		{"examples, no workers", Options{BatchSize: 16, Collate: DefaultCollate}},
		{"batches, workers", Options{BatchSize: 16, Shuffle: true, Workers: 3}},
		{"normalize on tensors", Options{BatchSize: 16, Workers: 2, Transform: Normalize([]float32{0.5}, []float32{2})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			torch.FinishGC()
			base := torch.ReadMemStats().LiveTensors
			l, err := NewLoader(ds, tc.opts)
			require.NoError(t, err)
			peak := int64(0)
			for e := 0; e < 2; e++ {
				batches := 0
				for l.Scan() {
					bx, by := l.Batch()
					// A step's tensors, garbage at the next step.
					loss := bx.Mul(bx).Sum().Add(by.To(torch.Float32).Sum())
					_ = loss.Item()
					peak = max(peak, torch.ReadMemStats().LiveTensors-base)
					batches++
				}
				require.NoError(t, l.Err())
				assert.Equal(t, l.Len(), batches)
			}
			torch.FinishGC()
			assert.Equal(t, base, torch.ReadMemStats().LiveTensors, "live tensors after the epochs")
			// Scan's collections bound what is live during the epoch: the
			// batch in hand, the prefetched ones and the current step's
			// temporaries (and chunks of 32 that they keep alive).
			t.Logf("at most %d live tensors beyond the baseline during the epochs", peak)
			assert.Less(t, peak, int64(1000), "live tensors during the epoch")
		})
	}
	runtime.KeepAlive(ds)
}

func TestLoaderNoGC(t *testing.T) {
	torch.FinishGC()
	before := torch.ReadMemStats().Collections
	l, err := NewLoader(&seqDataset{n: 20}, Options{BatchSize: 2, NoGC: true})
	require.NoError(t, err)
	for l.Scan() {
	}
	require.NoError(t, l.Err())
	// Background sweeps may still happen after Go's own collections, but
	// not one per batch.
	assert.Less(t, torch.ReadMemStats().Collections-before, int64(10))

	// With GC: one GC() per batch (collecting, or skipped as too little
	// grew; see torch.SetGCPercent) and FinishGC at the end.
	s0 := torch.ReadMemStats()
	l, err = NewLoader(&seqDataset{n: 20}, Options{BatchSize: 2})
	require.NoError(t, err)
	for l.Scan() {
	}
	require.NoError(t, l.Err())
	s1 := torch.ReadMemStats()
	assert.GreaterOrEqual(t, s1.Collections+s1.SkippedGCs-s0.Collections-s0.SkippedGCs, int64(11), "one per batch and one at the end")
}

// Workers run their ops with one intra-op thread, as PyTorch's DataLoader
// workers do, so that they start no OpenMP team of their own; the loading
// goroutine's setting is left alone.
func TestLoaderWorkersRunOpsSingleThreaded(t *testing.T) {
	probe := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		probe <- torch.TrySetThreadNumThreads(1)
	}()
	if err := <-probe; err != nil {
		t.Skipf("this libtorch has no per-thread setting: %v", err)
	}
	before := torch.GetNumThreads()
	for _, workers := range []int{0, 3} {
		var mu sync.Mutex
		seen := map[int]int{} // intra-op threads -> examples
		ds := &seqDataset{n: 24}
		ds.before = func(int) {
			n := torch.GetNumThreads()
			mu.Lock()
			seen[n]++
			mu.Unlock()
		}
		l, err := NewLoader(ds, Options{BatchSize: 4, Workers: workers})
		require.NoError(t, err)
		epoch(t, l)
		if workers == 0 {
			assert.Equal(t, map[int]int{before: 24}, seen, "without workers, the caller's setting")
		} else {
			assert.Equal(t, map[int]int{1: 24}, seen, "in workers")
		}
	}
	assert.Equal(t, before, torch.GetNumThreads())
}
