package batcher

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// double is the batch function of most tests: each output is twice its input.
func double(xs []int) ([]int, error) {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = 2 * x
	}
	return out, nil
}

// sizes records the batch sizes OnBatch reports.
type sizes struct {
	sync.Mutex
	got []int
}

func (s *sizes) add(n int, _ time.Duration) { s.Lock(); s.got = append(s.got, n); s.Unlock() }
func (s *sizes) list() []int                { s.Lock(); defer s.Unlock(); return append([]int(nil), s.got...) }

// waitFor yields until cond holds; the tests use it to wait for the
// worker or the queue to reach a state, not for time to pass.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for i := 0; !cond(); i++ {
		require.Less(t, i, 10_000_000, "condition never held")
		runtime.Gosched()
	}
}

// gate is a batch function that signals when a batch starts and runs it
// only when released, so that tests can hold the worker still.
type gate struct {
	started chan int
	release chan struct{}
}

func newGate() *gate { return &gate{started: make(chan int, 100), release: make(chan struct{})} }

func (g *gate) run(xs []int) ([]int, error) {
	g.started <- len(xs)
	<-g.release
	return double(xs)
}

func submitAll(b *Batcher[int, int], xs []int) (outs []int, errs []error) {
	outs, errs = make([]int, len(xs)), make([]error, len(xs))
	var wg sync.WaitGroup
	for i, x := range xs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = b.Submit(context.Background(), x)
		}()
	}
	wg.Wait()
	return outs, errs
}

func TestFullBatchRunsWithoutWaiting(t *testing.T) {
	var s sizes
	// MaxWait is an hour: the batch can only run because it is full.
	b := New(double, Options{MaxBatch: 4, MaxWait: time.Hour, OnBatch: s.add})
	defer b.Close(context.Background())
	outs, errs := submitAll(b, []int{1, 2, 3, 4})
	for i := range outs {
		require.NoError(t, errs[i])
		assert.Equal(t, 2*(i+1), outs[i])
	}
	assert.Equal(t, []int{4}, s.list())
}

func TestBatchesNeverExceedMaxBatch(t *testing.T) {
	var s sizes
	b := New(double, Options{MaxBatch: 3, QueueSize: 100, OnBatch: s.add})
	xs := make([]int, 50)
	for i := range xs {
		xs[i] = i
	}
	outs, errs := submitAll(b, xs)
	require.NoError(t, b.Close(context.Background()))
	total := 0
	for _, n := range s.list() {
		assert.LessOrEqual(t, n, 3)
		assert.Positive(t, n)
		total += n
	}
	assert.Equal(t, 50, total)
	for i := range xs {
		require.NoError(t, errs[i])
		assert.Equal(t, 2*i, outs[i])
	}
}

func TestQueuedItemsShareABatch(t *testing.T) {
	g := newGate()
	var s sizes
	b := New(g.run, Options{MaxBatch: 8, QueueSize: 8, OnBatch: s.add})
	done := make(chan error, 6)
	go func() { _, err := b.Submit(context.Background(), 0); done <- err }()
	require.Equal(t, 1, <-g.started) // the worker holds item 0
	for i := 1; i <= 5; i++ {
		go func() { _, err := b.Submit(context.Background(), i); done <- err }()
	}
	waitFor(t, func() bool { return b.Len() == 5 })
	close(g.release)
	for range 6 {
		require.NoError(t, <-done)
	}
	assert.Equal(t, 5, <-g.started, "the five queued items run as one batch")
	require.NoError(t, b.Close(context.Background()))
	assert.Equal(t, []int{1, 5}, s.list())
}

func TestFullQueueRejects(t *testing.T) {
	g := newGate()
	b := New(g.run, Options{MaxBatch: 1, QueueSize: 2})
	results := make(chan error, 3)
	go func() { _, err := b.Submit(context.Background(), 0); results <- err }()
	<-g.started
	for i := 1; i <= 2; i++ {
		go func() { _, err := b.Submit(context.Background(), i); results <- err }()
	}
	waitFor(t, func() bool { return b.Len() == 2 })
	_, err := b.Submit(context.Background(), 99)
	require.ErrorIs(t, err, ErrQueueFull)
	close(g.release)
	for range 3 {
		require.NoError(t, <-results)
	}
	require.NoError(t, b.Close(context.Background()))
}

func TestCloseDrainsTheQueue(t *testing.T) {
	g := newGate()
	b := New(g.run, Options{MaxBatch: 2, QueueSize: 10})
	type res struct {
		x, out int
		err    error
	}
	results := make(chan res, 5)
	submit := func(x int) {
		out, err := b.Submit(context.Background(), x)
		results <- res{x, out, err}
	}
	go submit(0)
	<-g.started
	for i := 1; i <= 4; i++ {
		go submit(i)
	}
	waitFor(t, func() bool { return b.Len() == 4 })
	closed := make(chan error, 1)
	go func() { closed <- b.Close(context.Background()) }()
	waitFor(t, b.Closed)
	_, err := b.Submit(context.Background(), 7)
	require.ErrorIs(t, err, ErrClosed)
	close(g.release)
	for range 5 {
		r := <-results
		require.NoError(t, r.err)
		assert.Equal(t, 2*r.x, r.out)
	}
	require.NoError(t, <-closed)
	require.NoError(t, b.Close(context.Background()), "a second Close is harmless")
}

func TestCloseGivesUpWithItsContext(t *testing.T) {
	g := newGate()
	b := New(g.run, Options{MaxBatch: 1})
	go b.Submit(context.Background(), 1)
	<-g.started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := b.Close(ctx)
	require.ErrorIs(t, err, context.Canceled)
	close(g.release)
	require.NoError(t, b.Close(context.Background()))
}

func TestCancelledItemsAreDropped(t *testing.T) {
	g := newGate()
	var s sizes
	b := New(g.run, Options{MaxBatch: 8, OnBatch: s.add})
	first := make(chan error, 1)
	go func() { _, err := b.Submit(context.Background(), 0); first <- err }()
	<-g.started
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan error, 1)
	go func() { _, err := b.Submit(ctx, 1); cancelled <- err }()
	kept := make(chan error, 1)
	go func() { _, err := b.Submit(context.Background(), 2); kept <- err }()
	waitFor(t, func() bool { return b.Len() == 2 })
	cancel()
	require.ErrorIs(t, <-cancelled, context.Canceled)
	close(g.release)
	require.NoError(t, <-first)
	require.NoError(t, <-kept)
	require.NoError(t, b.Close(context.Background()))
	assert.Equal(t, []int{1, 1}, s.list(), "the cancelled item did not run")

	_, err := b.Submit(ctx, 3)
	require.ErrorIs(t, err, context.Canceled, "a cancelled context is refused before the queue")
}

func TestPanicAndErrorsReachEveryCaller(t *testing.T) {
	b := New(func(xs []int) ([]int, error) {
		switch xs[0] {
		case 1:
			panic("boom")
		case 2:
			return nil, errors.New("bad batch")
		case 3:
			return []int{1, 2}, nil // wrong length
		}
		return double(xs)
	}, Options{MaxBatch: 1})
	defer b.Close(context.Background())
	_, err := b.Submit(context.Background(), 1)
	require.ErrorContains(t, err, "panicked: boom")
	_, err = b.Submit(context.Background(), 2)
	require.ErrorContains(t, err, "bad batch")
	_, err = b.Submit(context.Background(), 3)
	require.ErrorContains(t, err, "returned 2 outputs for 1 inputs")
	out, err := b.Submit(context.Background(), 5)
	require.NoError(t, err, "the worker survives")
	assert.Equal(t, 10, out)
}

func TestDefaults(t *testing.T) {
	b := New(double, Options{})
	defer b.Close(context.Background())
	o := b.Options()
	assert.Equal(t, 32, o.MaxBatch)
	assert.Equal(t, 128, o.QueueSize)
	assert.Zero(t, o.MaxWait)
}

// TestGoexitDoesNotKillTheWorker: a batch function that ends its
// goroutine with runtime.Goexit (as require does on failure) loses its
// batch, whose callers get ErrWorkerExited at once; a new worker runs the
// next batches and Close still drains and stops.
func TestGoexitDoesNotKillTheWorker(t *testing.T) {
	var s sizes
	b := New(func(xs []int) ([]int, error) {
		if xs[0] < 0 {
			runtime.Goexit()
		}
		return double(xs)
	}, Options{MaxBatch: 1, OnBatch: s.add})
	for round := range 3 {
		done := make(chan error, 1)
		go func() { _, err := b.Submit(context.Background(), -1); done <- err }()
		select {
		case err := <-done:
			require.ErrorIs(t, err, ErrWorkerExited)
			assert.Contains(t, err.Error(), "runtime.Goexit")
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: Submit still waits for a worker that exited", round)
		}
		assert.False(t, b.Closed(), "a lost worker does not close the batcher")
		out, err := b.Submit(context.Background(), 21)
		require.NoError(t, err, "round %d: the next batch runs on a new worker", round)
		assert.Equal(t, 42, out)
	}
	assert.Equal(t, int64(3), b.Restarts())
	require.NoError(t, b.Close(context.Background()))
	assert.True(t, b.Closed())
	_, err := b.Submit(context.Background(), 1)
	require.ErrorIs(t, err, ErrClosed)
}

// TestGoexitAndPanicInOnBatch: OnBatch's panic is ignored; its Goexit
// fails the batch like the batch function's.
func TestGoexitAndPanicInOnBatch(t *testing.T) {
	mode := make(chan string, 1)
	b := New(double, Options{MaxBatch: 1, OnBatch: func(int, time.Duration) {
		switch <-mode {
		case "panic":
			panic("metrics broke")
		case "goexit":
			runtime.Goexit()
		}
	}})
	defer b.Close(context.Background())
	mode <- "panic"
	out, err := b.Submit(context.Background(), 2)
	require.NoError(t, err)
	assert.Equal(t, 4, out)
	mode <- "goexit"
	_, err = b.Submit(context.Background(), 2)
	require.ErrorIs(t, err, ErrWorkerExited)
	mode <- "ok"
	out, err = b.Submit(context.Background(), 3)
	require.NoError(t, err)
	assert.Equal(t, 6, out)
}

// TestGoexitWithMoreQueued: the items queued behind a lost batch run on
// the new worker.
func TestGoexitWithMoreQueued(t *testing.T) {
	g := newGate()
	b := New(func(xs []int) ([]int, error) {
		if xs[0] < 0 {
			g.started <- len(xs)
			<-g.release
			runtime.Goexit()
		}
		return double(xs)
	}, Options{MaxBatch: 1, QueueSize: 8})
	lost := make(chan error, 1)
	go func() { _, err := b.Submit(context.Background(), -1); lost <- err }()
	<-g.started
	outs := make(chan int, 4)
	for i := 1; i <= 4; i++ {
		go func() {
			out, err := b.Submit(context.Background(), i)
			assert.NoError(t, err)
			outs <- out
		}()
	}
	waitFor(t, func() bool { return b.Len() == 4 })
	close(g.release)
	require.ErrorIs(t, <-lost, ErrWorkerExited)
	sum := 0
	for range 4 {
		sum += <-outs
	}
	assert.Equal(t, 20, sum)
	require.NoError(t, b.Close(context.Background()))
}

// fakeClock is the worker's MaxWait timer under the test's control: each
// timer the worker starts is reported on started, and fires only when the
// test sends on fire.
type fakeClock struct {
	started chan time.Duration
	fire    chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{started: make(chan time.Duration, 100), fire: make(chan time.Time)}
}

func (c *fakeClock) after(d time.Duration) (<-chan time.Time, func() bool) {
	c.started <- d
	return c.fire, func() bool { return true }
}

// senders is a Senders function whose answer the test sets.
type senders struct{ n atomic.Int64 }

func (s *senders) get() int { return int(s.n.Load()) }

// TestLoneSenderRunsAtOnce: with one sender, its item is every item that
// can arrive, so the batch runs without starting the MaxWait timer (which
// would never fire here) and the result comes back (issue #35: one
// connection waited out the whole batching window).
func TestLoneSenderRunsAtOnce(t *testing.T) {
	clock := newFakeClock()
	var n senders
	n.n.Store(1)
	var s sizes
	b := start(double, Options{MaxBatch: 8, MaxWait: time.Hour, Senders: n.get, OnBatch: s.add}, clock.after)
	defer b.Close(context.Background())
	for i := range 3 {
		type res struct {
			out int
			err error
		}
		done := make(chan res, 1)
		go func() { out, err := b.Submit(context.Background(), i); done <- res{out, err} }()
		select {
		case r := <-done:
			require.NoError(t, r.err)
			assert.Equal(t, 2*i, r.out)
		case d := <-clock.started:
			t.Fatalf("item %d of a lone sender waits for a batch to fill (MaxWait %v)", i, d)
		}
	}
	assert.Equal(t, []int{1, 1, 1}, s.list())
}

// TestWaitsForEverySender: with two senders and one item, the worker
// waits; the second item completes the batch before the timer fires.
func TestWaitsForEverySender(t *testing.T) {
	clock := newFakeClock()
	var n senders
	n.n.Store(2)
	var s sizes
	b := start(double, Options{MaxBatch: 8, MaxWait: time.Hour, Senders: n.get, OnBatch: s.add}, clock.after)
	defer b.Close(context.Background())
	first := make(chan error, 1)
	go func() { _, err := b.Submit(context.Background(), 1); first <- err }()
	assert.Equal(t, time.Hour, <-clock.started, "the lone item of two senders waits")
	assert.Empty(t, s.list(), "and has not run")
	out, err := b.Submit(context.Background(), 2)
	require.NoError(t, err)
	assert.Equal(t, 4, out)
	require.NoError(t, <-first)
	assert.Equal(t, []int{2}, s.list(), "the two items ran as one batch, without the timer")
}

// TestMaxWaitEndsTheWaitForASilentSender: a sender that sends nothing
// holds the batch only until MaxWait; so does an unknown count (negative,
// or a Senders that panics).
func TestMaxWaitEndsTheWaitForASilentSender(t *testing.T) {
	for _, tc := range []struct {
		name    string
		senders func() int
		items   int
	}{
		{"three senders, two items", func() int { return 3 }, 2},
		{"unknown", func() int { return -1 }, 1},
		{"panics", func() int { panic("no count") }, 1},
		{"nil", nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			g := newGate()
			close(g.release)
			var s sizes
			// The worker asks Senders once for each item it takes.
			var asked atomic.Int64
			count := tc.senders
			if count != nil {
				count = func() int { asked.Add(1); return tc.senders() }
			}
			b := start(g.run, Options{MaxBatch: 8, MaxWait: time.Hour, Senders: count, OnBatch: s.add}, clock.after)
			defer b.Close(context.Background())
			done := make(chan error, tc.items)
			for i := range tc.items {
				go func() { _, err := b.Submit(context.Background(), i); done <- err }()
				if i == 0 {
					<-clock.started
				}
			}
			if count != nil {
				waitFor(t, func() bool { return asked.Load() == int64(tc.items) })
			}
			assert.Empty(t, g.started, "nothing ran before the timer fired")
			clock.fire <- time.Now()
			assert.Equal(t, tc.items, <-g.started)
			for range tc.items {
				require.NoError(t, <-done)
			}
			assert.Equal(t, []int{tc.items}, s.list())
		})
	}
}

// TestBusyWorkerStillBatches: the items that queue while the worker is
// busy run together, and a batch that holds Senders items runs without
// waiting for more.
func TestBusyWorkerStillBatches(t *testing.T) {
	clock := newFakeClock()
	g := newGate()
	var n senders
	n.n.Store(5)
	var s sizes
	b := start(g.run, Options{MaxBatch: 8, QueueSize: 8, MaxWait: time.Hour, Senders: n.get, OnBatch: s.add}, clock.after)
	done := make(chan error, 6)
	go func() { _, err := b.Submit(context.Background(), 0); done <- err }()
	<-clock.started // one item of five senders waits
	clock.fire <- time.Now()
	require.Equal(t, 1, <-g.started) // the worker holds item 0
	for i := 1; i <= 5; i++ {
		go func() { _, err := b.Submit(context.Background(), i); done <- err }()
	}
	waitFor(t, func() bool { return b.Len() == 5 })
	close(g.release)
	for range 6 {
		require.NoError(t, <-done)
	}
	require.NoError(t, b.Close(context.Background()))
	assert.Equal(t, []int{1, 5}, s.list(), "the five queued items ran as one batch")
	assert.Empty(t, clock.started, "without a wait: five items of five senders")
}
