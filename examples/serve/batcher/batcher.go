// Package batcher groups concurrent requests into batches for one worker:
// dynamic batching for model inference.
//
// Each caller of Submit puts one item into a bounded queue and waits for
// its result. A single worker goroutine takes the first queued item and
// everything queued behind it (up to MaxBatch items), waits at most
// MaxWait for more, runs the batch function once on all of them and hands
// each caller its own result.
//
// The wait is adaptive when the caller can say how many clients could
// send an item (Options.Senders; for an HTTP server, the connections that
// carry its requests, each with one request at a time): the batch runs as
// soon as every one of them has its item in it, since nothing else can
// arrive to share it. A lone client's request then runs at once, without
// the MaxWait a batch of one would otherwise wait, and under load the
// batches still fill.
//
//	b := batcher.New(func(xs []Image) ([]Scores, error) { return model.Classify(xs) },
//		batcher.Options{MaxBatch: 32, MaxWait: 2 * time.Millisecond, QueueSize: 256,
//			Senders: func() int { return openConns() }})
//	scores, err := b.Submit(ctx, img) // ErrQueueFull when 256 are waiting
//	...
//	b.Close(ctx) // no new items; the queued ones still run
//
// The worker runs on one locked OS thread, so a libtorch model called from
// it keeps one OpenMP team (docs/memory.md, "OpenMP teams"). A panic in the
// batch function becomes an error for that batch's callers; the worker goes
// on.
package batcher

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// ErrQueueFull is Submit's error when QueueSize items are already waiting.
var ErrQueueFull = errors.New("batcher: queue is full")

// ErrClosed is Submit's error after Close.
var ErrClosed = errors.New("batcher: closed")

// ErrWorkerExited is the error of a batch whose batch function or OnBatch
// called runtime.Goexit; the next batch runs on a new worker.
var ErrWorkerExited = errors.New("batcher: the batch function ended the worker goroutine (runtime.Goexit, as t.FailNow or require does); its batch is lost, a new worker runs the next")

// Options configure a Batcher. The zero value gives the defaults.
type Options struct {
	// MaxBatch is the most items one call of the batch function gets
	// (default 32).
	MaxBatch int
	// MaxWait is how long the first item of a batch waits for others
	// before the batch runs anyway. Zero runs whatever is queued at once.
	MaxWait time.Duration
	// QueueSize is the most items waiting for the worker; Submit returns
	// ErrQueueFull beyond it (default 4×MaxBatch).
	QueueSize int
	// Senders, if set, says how many clients could submit an item now,
	// each at most one at a time (the items queued and those in the batch
	// being collected count among them): a batch stops waiting for more
	// as soon as it holds Senders items, since no other can arrive. Nil,
	// or a negative answer (not known), waits the whole MaxWait. It is
	// called by the worker while it collects a batch, so it must be cheap
	// (an atomic load); a panic in it counts as not known.
	Senders func() int
	// OnBatch, if set, is called by the worker after each batch with its
	// size and how long the batch function took, before the callers get
	// their results. A panic in it is recovered and ignored.
	OnBatch func(size int, took time.Duration)
}

// Batcher runs a batch function on groups of submitted items.
type Batcher[In, Out any] struct {
	run   func([]In) ([]Out, error)
	opts  Options
	queue chan *item[In, Out]

	mu     sync.RWMutex // guards closed against a send on the closed queue
	closed bool
	done   chan struct{} // closed when the worker has exited after Close

	restarts atomic.Int64 // workers replaced after a runtime.Goexit

	// after starts the MaxWait timer: time.NewTimer's channel and Stop,
	// replaced in tests by a clock they control.
	after func(time.Duration) (<-chan time.Time, func() bool)
}

// realTimer is the worker's timer outside tests.
func realTimer(d time.Duration) (<-chan time.Time, func() bool) {
	t := time.NewTimer(d)
	return t.C, t.Stop
}

type item[In, Out any] struct {
	ctx      context.Context
	in       In
	result   chan outcome[Out] // buffered: the worker never blocks on it
	answered bool              // the worker has sent the result (worker-owned)
}

type outcome[Out any] struct {
	out Out
	err error
}

// New starts a Batcher whose worker calls run with up to MaxBatch items;
// run must return one output per input, in order.
func New[In, Out any](run func([]In) ([]Out, error), opts Options) *Batcher[In, Out] {
	return start(run, opts, realTimer)
}

// start is New with the timer the worker waits on.
func start[In, Out any](run func([]In) ([]Out, error), opts Options,
	after func(time.Duration) (<-chan time.Time, func() bool)) *Batcher[In, Out] {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = 32
	}
	if opts.MaxWait < 0 {
		opts.MaxWait = 0
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = 4 * opts.MaxBatch
	}
	b := &Batcher[In, Out]{
		run:   run,
		opts:  opts,
		queue: make(chan *item[In, Out], opts.QueueSize),
		done:  make(chan struct{}),
		after: after,
	}
	go b.work()
	return b
}

// Options returns the options in force, defaults filled in.
func (b *Batcher[In, Out]) Options() Options { return b.opts }

// Len is the number of items queued and not yet taken by the worker.
func (b *Batcher[In, Out]) Len() int { return len(b.queue) }

// Cap is the queue's size: Submit returns ErrQueueFull when Len reaches it.
func (b *Batcher[In, Out]) Cap() int { return cap(b.queue) }

// Restarts is the number of workers that a batch function's
// runtime.Goexit ended and a new worker replaced.
func (b *Batcher[In, Out]) Restarts() int64 { return b.restarts.Load() }

// Submit queues in and waits for its output. It returns ErrQueueFull at
// once when the queue is full, ErrClosed after Close, ctx's error when ctx
// ends first (the item is then dropped from its batch if that has not
// started), and the batch function's error for its batch.
func (b *Batcher[In, Out]) Submit(ctx context.Context, in In) (Out, error) {
	var zero Out
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	it := &item[In, Out]{ctx: ctx, in: in, result: make(chan outcome[Out], 1)}
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return zero, ErrClosed
	}
	select {
	case b.queue <- it:
	default:
		b.mu.RUnlock()
		return zero, ErrQueueFull
	}
	b.mu.RUnlock()
	select {
	case r := <-it.result:
		return r.out, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	case <-b.done:
		// The worker has run every queued item, this one included, unless
		// something is badly wrong: never wait for a worker that is gone.
		select {
		case r := <-it.result:
			return r.out, r.err
		default:
			return zero, ErrClosed
		}
	}
}

// Close stops new submissions and waits until the worker has run every
// item already queued, or until ctx ends. It may be called more than once.
func (b *Batcher[In, Out]) Close(ctx context.Context) error {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.queue)
	}
	b.mu.Unlock()
	select {
	case <-b.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("batcher: closing: %d items still queued: %w", b.Len(), ctx.Err())
	}
}

// Closed reports whether Close has been called.
func (b *Batcher[In, Out]) Closed() bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.closed
}

// work is the worker: it takes batches from the queue until Close. If the
// batch function ends the goroutine with runtime.Goexit, the deferred
// function answers the batch's callers that have no result yet and starts
// a new worker; the locked OS thread exits with the old one.
func (b *Batcher[In, Out]) work() {
	runtime.LockOSThread()
	batch := make([]*item[In, Out], 0, b.opts.MaxBatch)
	stopped := false
	defer func() {
		if stopped {
			close(b.done)
			return
		}
		// Not a panic: runBatch recovers those. Only runtime.Goexit ends
		// a goroutine without returning and without a panic to recover.
		for _, it := range batch {
			if it != nil && !it.answered {
				it.answered = true
				it.result <- outcome[Out]{err: ErrWorkerExited}
			}
		}
		b.restarts.Add(1)
		go b.work()
	}()
	for {
		first, ok := <-b.queue
		if !ok {
			stopped = true
			return
		}
		batch = append(batch[:0], first)
		open := b.collect(&batch)
		b.runBatch(batch)
		clear(batch)
		batch = batch[:0]
		if !open {
			stopped = true
			return
		}
	}
}

// collect completes a batch that holds its first item: it takes what is
// queued behind it, then waits for more until the batch has MaxBatch
// items, MaxWait has passed, or it holds an item of every sender
// (Options.Senders). It returns false when Close has emptied the queue.
// The items are in *batch as soon as they are taken, where work's
// deferred function finds them if Senders ends the goroutine.
func (b *Batcher[In, Out]) collect(batch *[]*item[In, Out]) (open bool) {
	for len(*batch) < b.opts.MaxBatch {
		select {
		case it, more := <-b.queue:
			if !more {
				return false
			}
			*batch = append(*batch, it)
			continue
		default:
		}
		break
	}
	if len(*batch) >= b.opts.MaxBatch || b.opts.MaxWait <= 0 || b.allIn(len(*batch)) {
		return true
	}
	timeout, stop := b.after(b.opts.MaxWait)
	defer stop()
	for len(*batch) < b.opts.MaxBatch {
		select {
		case it, more := <-b.queue:
			if !more {
				return false
			}
			*batch = append(*batch, it)
			if b.allIn(len(*batch)) {
				return true
			}
		case <-timeout:
			return true
		}
	}
	return true
}

// allIn reports whether a batch of n items holds one of every sender's,
// so that waiting for more is pointless.
func (b *Batcher[In, Out]) allIn(n int) (all bool) {
	if b.opts.Senders == nil {
		return false
	}
	defer func() {
		if recover() != nil {
			all = false
		}
	}()
	s := b.opts.Senders()
	return s >= 0 && n >= s
}

// runBatch runs the items whose callers still wait and answers each.
func (b *Batcher[In, Out]) runBatch(batch []*item[In, Out]) {
	live := batch[:0:0]
	for _, it := range batch {
		if it.ctx.Err() == nil {
			live = append(live, it)
		}
	}
	if len(live) == 0 {
		return
	}
	ins := make([]In, len(live))
	for i, it := range live {
		ins[i] = it.in
	}
	start := time.Now()
	outs, err := b.call(ins)
	b.onBatch(len(live), time.Since(start))
	if err == nil && len(outs) != len(ins) {
		err = fmt.Errorf("batcher: the batch function returned %d outputs for %d inputs", len(outs), len(ins))
	}
	for i, it := range live {
		it.answered = true
		if err != nil {
			it.result <- outcome[Out]{err: err}
		} else {
			it.result <- outcome[Out]{out: outs[i]}
		}
	}
}

// onBatch calls Options.OnBatch, ignoring a panic in it: the batch's
// results are good whatever the metrics do.
func (b *Batcher[In, Out]) onBatch(n int, took time.Duration) {
	if b.opts.OnBatch == nil {
		return
	}
	defer func() { _ = recover() }()
	b.opts.OnBatch(n, took)
}

// call runs the batch function, turning a panic into an error.
func (b *Batcher[In, Out]) call(ins []In) (outs []Out, err error) {
	defer func() {
		if p := recover(); p != nil {
			outs, err = nil, fmt.Errorf("batcher: the batch function panicked: %v", p)
		}
	}()
	return b.run(ins)
}
