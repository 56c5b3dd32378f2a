package data

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/cuda"
)

// Options configure a Loader. BatchSize is required; the zero value of
// every other field is the usual default.
type Options struct {
	// BatchSize is the number of examples per batch, at least 1.
	BatchSize int
	// Shuffle visits the examples in a new random order each epoch. The
	// orders depend only on Seed and the epoch's number.
	Shuffle bool
	// Seed seeds the shuffling and the transforms' random draws. Runs with
	// the same seed load the same batches; pick different seeds for
	// different runs.
	Seed uint64
	// DropLast drops the last batch of an epoch when it is smaller than
	// BatchSize.
	DropLast bool
	// Workers is the number of goroutines that load batches in parallel.
	// 0, the default, loads each batch in the goroutine that calls Scan,
	// when it asks for it.
	Workers int
	// Prefetch is how many batches the workers may load ahead of the
	// batch that Batch returns: at most Prefetch batches are loading or
	// loaded and waiting. 0 means 2×Workers. It must be 0 when Workers is.
	Prefetch int
	// Transform, if not nil, is applied to the input of each example,
	// with a random generator seeded from Seed, the epoch and the
	// example's index.
	Transform Transform
	// TargetTransform, if not nil, is applied to the target of each
	// example, like Transform.
	TargetTransform Transform
	// Collate makes a batch of examples; nil means DefaultCollate.
	Collate CollateFunc
	// NoGC stops Scan from calling torch.GC and torch.FinishGC.
	NoGC bool
	// Sampler, if not nil, picks each epoch's examples and their order
	// instead of Shuffle (which must then be false): a
	// DistributedSampler gives each rank of a data-parallel job its share.
	Sampler Sampler
	// PinMemory puts each batch in page-locked host memory when a CUDA
	// device is present (DataLoader's pin_memory), so that its copy to the
	// GPU can be asynchronous; without one it does nothing.
	PinMemory bool
	// Device, if not the CPU, is where the loader copies each batch, with
	// non_blocking copies made by the loading goroutines (device.go): with
	// Workers, the next batches are pinned and copied while the caller
	// computes on the current one.
	Device torch.Device
}

// Limits on Options and datasets, far beyond any real use; past them a
// loader would exhaust the OS's threads or memory before loading anything.
const (
	// MaxWorkers bounds Options.Workers: each worker runs on an OS thread
	// of its own, and Go stops the program at 10,000 threads.
	MaxWorkers = 1024
	// MaxPrefetch bounds Options.Prefetch, the batches held ahead.
	MaxPrefetch = 1 << 16
	// MaxDatasetLen bounds a dataset's Len: an epoch's order of examples
	// is an []int of that length (8 GiB at the bound).
	MaxDatasetLen = 1 << 30
)

func (o Options) validate() error {
	switch {
	case o.BatchSize <= 0:
		return fmt.Errorf("data: Options.BatchSize must be at least 1, got %d", o.BatchSize)
	case o.Workers < 0:
		return fmt.Errorf("data: Options.Workers must not be negative, got %d", o.Workers)
	case o.Workers > MaxWorkers:
		return fmt.Errorf("data: Options.Workers is %d, more than MaxWorkers (%d): each worker holds an OS thread", o.Workers, MaxWorkers)
	case o.Prefetch < 0:
		return fmt.Errorf("data: Options.Prefetch must not be negative, got %d", o.Prefetch)
	case o.Prefetch > MaxPrefetch:
		return fmt.Errorf("data: Options.Prefetch is %d, more than MaxPrefetch (%d)", o.Prefetch, MaxPrefetch)
	case o.Sampler != nil && o.Shuffle:
		return errors.New("data: Options.Shuffle and Options.Sampler are mutually exclusive (the sampler orders the examples; shuffle there)")
	case o.Prefetch > 0 && o.Workers == 0:
		return fmt.Errorf("data: Options.Prefetch is %d but Workers is 0: prefetching needs workers", o.Prefetch)
	}
	if v, ok := o.Sampler.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("data: Options.Sampler: %w", err)
		}
	}
	return nil
}

// Batch is one batch of a Loader.
type Batch struct {
	Input, Target torch.Tensor
	// Indices are the dataset indices of the batch's examples, in order.
	Indices []int
}

// Loader loads a dataset in batches (PyTorch's DataLoader). Iterate over
// an epoch with Scan or All.
//
// A Loader is not safe for concurrent use: one goroutine iterates it (its
// workers are its own business).
type Loader struct {
	ds      Dataset
	opts    Options
	collate CollateFunc
	bg      BatchGetter
	epoch   int  // number of the next epoch
	run     *run // the epoch that Scan is in, or nil
	cur     Batch
	err     error
	copies  copyStream // the side stream of copies to a CUDA device (device.go)
}

// NewLoader returns a loader of ds. It returns an error if the options are
// invalid.
func NewLoader(ds Dataset, opts Options) (*Loader, error) {
	if ds == nil {
		return nil, errors.New("data: NewLoader: nil dataset")
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if opts.Workers > 0 && opts.Prefetch == 0 {
		opts.Prefetch = 2 * opts.Workers
	}
	l := &Loader{ds: ds, opts: opts, collate: opts.Collate}
	if l.collate == nil {
		l.collate = DefaultCollate
		if bg, ok := ds.(BatchGetter); ok && opts.Transform == nil && opts.TargetTransform == nil {
			l.bg = bg
		}
	}
	return l, nil
}

// Options returns the loader's options, with defaults filled in.
func (l *Loader) Options() Options { return l.opts }

// Len returns the number of batches in an epoch.
func (l *Loader) Len() int {
	if l.opts.Sampler != nil {
		return l.batches(l.opts.Sampler.Len(l.ds.Len()))
	}
	return l.batches(l.ds.Len())
}

// batches is the number of batches in an epoch of n examples.
func (l *Loader) batches(n int) int {
	b := l.opts.BatchSize
	if n <= 0 {
		return 0
	}
	if l.opts.DropLast {
		return n / b
	}
	return (n + b - 1) / b
}

// Epoch returns the number of the epoch that Scan is in, or, between
// epochs, of the next one. Epochs are numbered from 0.
func (l *Loader) Epoch() int {
	if l.run != nil {
		return l.run.epoch
	}
	return l.epoch
}

// SetEpoch sets the number of the next epoch, which picks its shuffling
// and augmentation: to resume a run, set the epoch it stopped at. If Scan
// is in an epoch, SetEpoch stops it first.
func (l *Loader) SetEpoch(epoch int) {
	l.Stop()
	l.epoch = epoch
}

// Scan is ScanContext with context.Background().
func (l *Loader) Scan() bool { return l.ScanContext(context.Background()) }

// ScanContext advances to the next batch of the epoch, starting an epoch
// if none is in progress, and reports whether there is one: it returns
// false at the end of the epoch, on an error, or when ctx is done, and Err
// then says which. The next call starts a new epoch.
//
// The context of the call that starts an epoch governs that epoch's
// workers: when it is done they stop. Any call also returns false when its
// own ctx is done.
//
// ScanContext marks GoTorch's step boundaries: unless Options.NoGC is
// set, it calls torch.GC before waiting for each batch, which frees the
// tensors that are no longer reachable, the previous batch's among them
// once the caller no longer holds it, and torch.FinishGC when it returns
// false.
func (l *Loader) ScanContext(ctx context.Context) bool {
	l.cur = Batch{}
	if l.run == nil {
		if err := ctx.Err(); err != nil {
			l.err = err
			return false
		}
		r, err := l.newRun(ctx)
		if err != nil {
			l.err = err
			return false
		}
		l.run, l.err = r, nil
	}
	r := l.run
	if !l.opts.NoGC && r.consumed < r.nBatches {
		torch.GC()
	}
	b, ok, err := r.next(ctx)
	if !ok {
		r.stop()
		l.run, l.err = nil, err
		if !l.opts.NoGC {
			torch.FinishGC()
		}
		return false
	}
	l.cur = b
	return true
}

// Batch returns the input and target tensors of the batch that Scan
// reached.
func (l *Loader) Batch() (input, target torch.Tensor) { return l.cur.Input, l.cur.Target }

// Indices returns the dataset indices of the examples of the batch that
// Scan reached.
func (l *Loader) Indices() []int { return l.cur.Indices }

// Err returns the error that ended the last epoch of Scan: nil at its
// normal end, the context's error when it was canceled, or the first error
// met loading a batch (an *ExampleError).
func (l *Loader) Err() error { return l.err }

// Stop abandons the epoch that Scan is in, if any, and returns when its
// workers have exited. The next Scan starts a new epoch. Breaking out of a
// Scan loop leaves its workers waiting for the next Scan, each holding an
// OS thread of its own: call Stop (or cancel the epoch's context) to
// release them.
func (l *Loader) Stop() {
	if l.run != nil {
		l.run.stop()
		l.run = nil
	}
	l.cur = Batch{}
}

// All returns an iterator over the batches of one epoch, for use with
// range. It does not call torch.GC: the caller marks its own step
// boundaries (or uses torch.Scoped). It stops an epoch that Scan is in.
//
// On an error, or when ctx is done, it yields a zero Batch with the error
// and stops. Breaking out of the loop stops the workers before the range
// statement ends.
func (l *Loader) All(ctx context.Context) iter.Seq2[Batch, error] {
	return func(yield func(Batch, error) bool) {
		l.Stop()
		if err := ctx.Err(); err != nil {
			yield(Batch{}, err)
			return
		}
		r, err := l.newRun(ctx)
		if err != nil {
			yield(Batch{}, err)
			return
		}
		defer r.stop()
		for {
			b, ok, err := r.next(ctx)
			if err != nil {
				yield(Batch{}, err)
				return
			}
			if !ok || !yield(b, nil) {
				return
			}
		}
	}
}

// run is one epoch.
type run struct {
	l        *Loader
	epoch    int
	order    []int // the epoch's examples, in the order they are loaded
	nBatches int
	ctx      context.Context
	cancel   context.CancelFunc

	consumed   int // batches handed to the consumer
	dispatched int // batches given to the workers (with workers)
	queue      []chan result
	jobs       chan job // nil without workers
	closed     bool     // jobs is closed
	wg         sync.WaitGroup
	w          *worker // without workers
}

type job struct {
	k  int
	ch chan result // buffered: a worker never waits to deliver
}

type result struct {
	b     Batch
	ready *cuda.Event // the batch's copy to a CUDA device is done (device.go)
	err   error
}

// worker holds a worker's random generator, reseeded for each example.
type worker struct {
	src *rand.PCG
	rng *rand.Rand
}

func newWorker() *worker {
	src := rand.NewPCG(0, 0)
	return &worker{src: src, rng: rand.New(src)}
}

// splitmix64 scrambles x (Steele, Lea and Flood's SplitMix64 finalizer).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Streams of random numbers, kept apart.
const (
	streamShuffle = iota + 1
	streamInput
	streamTarget
)

// exampleRand returns a generator for example i of epoch under seed, the
// same whichever worker asks.
func (w *worker) exampleRand(seed uint64, epoch, i int, stream uint64) *rand.Rand {
	w.src.Seed(splitmix64(seed^splitmix64(uint64(epoch)<<8|stream)), uint64(i))
	return w.rng
}

func (l *Loader) newRun(ctx context.Context) (*run, error) {
	n := l.ds.Len()
	if n < 0 {
		return nil, fmt.Errorf("data: the dataset's Len is negative (%d)", n)
	}
	if n > MaxDatasetLen {
		return nil, fmt.Errorf("data: the dataset's Len is %d, more than MaxDatasetLen (%d)", n, MaxDatasetLen)
	}
	epoch := l.epoch
	l.epoch++
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if l.opts.Shuffle {
		rng := rand.New(rand.NewPCG(splitmix64(l.opts.Seed), splitmix64(uint64(epoch)<<8|streamShuffle)))
		rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	if l.opts.Sampler != nil {
		order = l.opts.Sampler.Indices(n, epoch)
		for _, i := range order {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("data: the sampler's index %d is out of range for a dataset of %d examples", i, n)
			}
		}
	}
	r := &run{l: l, epoch: epoch, order: order, nBatches: l.batches(len(order))}
	r.ctx, r.cancel = context.WithCancel(ctx)
	if l.opts.Workers == 0 {
		r.w = newWorker()
		return r, nil
	}
	r.jobs = make(chan job, min(l.opts.Prefetch, r.nBatches))
	for range min(l.opts.Workers, r.nBatches) {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			// Like PyTorch's DataLoader workers, a worker runs its ops with
			// one intra-op thread, on an OS thread of its own that ends with
			// it (it never unlocks): a worker that started parallel ops would
			// get an OpenMP team of its own, and a second team makes every
			// parallel op of the training loop wait for sleeping workers
			// (torch.SetThreadNumThreads). A libtorch without OpenMP has no
			// teams; the error is then ignored.
			runtime.LockOSThread()
			_ = torch.TrySetThreadNumThreads(1)
			w := newWorker()
			for {
				select {
				case j, ok := <-r.jobs:
					if !ok {
						return
					}
					r.serve(j, w)
				case <-r.ctx.Done():
					return
				}
			}
		}()
	}
	return r, nil
}

// topUp gives the workers batches until Prefetch of them are ahead of the
// consumer.
func (r *run) topUp() {
	for r.dispatched < r.nBatches && r.dispatched-r.consumed < r.l.opts.Prefetch {
		ch := make(chan result, 1)
		r.jobs <- job{k: r.dispatched, ch: ch} // never blocks: at most Prefetch jobs are queued
		r.queue = append(r.queue, ch)
		r.dispatched++
	}
	if r.dispatched == r.nBatches && !r.closed {
		close(r.jobs)
		r.closed = true
	}
}

// next returns the next batch; ok is false at the end of the epoch and on
// an error.
func (r *run) next(ctx context.Context) (b Batch, ok bool, err error) {
	if err := r.ctxErr(ctx); err != nil {
		return Batch{}, false, err
	}
	if r.consumed == r.nBatches {
		return Batch{}, false, nil
	}
	var res result
	if r.jobs == nil {
		res = r.load(r.consumed, r.w)
	} else {
		r.topUp()
		ch := r.queue[0]
		r.queue[0] = nil
		r.queue = r.queue[1:]
		select {
		case res = <-ch:
		case <-r.ctx.Done():
		case <-ctx.Done():
		}
	}
	if err := r.ctxErr(ctx); err != nil {
		return Batch{}, false, err
	}
	if res.err != nil {
		return Batch{}, false, res.err
	}
	if err := r.l.awaitBatch(res.ready, res.b); err != nil {
		return Batch{}, false, &ExampleError{Index: -1, Err: err}
	}
	r.consumed++
	if r.jobs != nil {
		r.topUp()
	}
	return res.b, true, nil
}

// ctxErr returns the error of the call's context or of the epoch's.
func (r *run) ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return r.ctx.Err()
}

// stop ends the epoch and waits for its workers.
func (r *run) stop() {
	r.cancel()
	if r.jobs != nil && !r.closed {
		close(r.jobs)
		r.closed = true
	}
	r.wg.Wait()
	clear(r.queue)
	r.queue = nil
}

// batch returns the indices of batch k.
func (r *run) batch(k int) []int {
	bs := r.l.opts.BatchSize
	s := k * bs
	e := min(s+bs, len(r.order))
	return r.order[s:e:e]
}

// errGoexit is the cause of the error of a batch whose loading goroutine
// was ended by runtime.Goexit.
var errGoexit = errors.New("runtime.Goexit was called while loading the example " +
	"(t.FailNow and require's assertions do that outside a test's own goroutine)")

// serve loads job j and sends its result. If the dataset's code ends the
// worker with runtime.Goexit, which recover cannot stop, the deferred send
// still gives the consumer an error instead of leaving it waiting for ever;
// the worker then ends.
func (r *run) serve(j job, w *worker) {
	sent := false
	defer func() {
		if !sent {
			j.ch <- result{err: &ExampleError{Index: -1, Err: errGoexit}}
		}
	}()
	j.ch <- r.load(j.k, w)
	sent = true
}

// load loads batch k.
func (r *run) load(k int, w *worker) (res result) {
	l := r.l
	idx := r.batch(k)
	cur := -1 // the example being loaded, for errors
	defer func() {
		if p := recover(); p != nil {
			res = result{err: &ExampleError{Index: cur, Err: &PanicError{Value: p, Stack: debug.Stack()}}}
		}
	}()
	if err := r.ctx.Err(); err != nil {
		return result{err: err}
	}
	if l.bg != nil {
		x, y, err := l.bg.GetBatch(idx)
		var ready *cuda.Event
		if err == nil {
			x, y, ready, err = l.toDevice(x, y)
		}
		if err != nil {
			return result{err: &ExampleError{Index: -1, Err: err}}
		}
		return result{b: Batch{Input: x, Target: y, Indices: idx}, ready: ready}
	}
	examples := make([]Example, len(idx))
	for j, i := range idx {
		if err := r.ctx.Err(); err != nil {
			return result{err: err}
		}
		cur = i
		ex, err := l.ds.Get(i)
		if err != nil {
			return result{err: &ExampleError{Index: i, Err: err}}
		}
		if t := l.opts.Transform; t != nil {
			if ex.Input, err = t.Apply(ex.Input, w.exampleRand(l.opts.Seed, r.epoch, i, streamInput)); err != nil {
				return result{err: &ExampleError{Index: i, Err: fmt.Errorf("transform: %w", err)}}
			}
		}
		if t := l.opts.TargetTransform; t != nil {
			if ex.Target, err = t.Apply(ex.Target, w.exampleRand(l.opts.Seed, r.epoch, i, streamTarget)); err != nil {
				return result{err: &ExampleError{Index: i, Err: fmt.Errorf("target transform: %w", err)}}
			}
		}
		examples[j] = ex
	}
	cur = -1
	x, y, err := l.collate(examples)
	var ready *cuda.Event
	if err == nil {
		x, y, ready, err = l.toDevice(x, y)
	}
	if err != nil {
		return result{err: &ExampleError{Index: -1, Err: err}}
	}
	return result{b: Batch{Input: x, Target: y, Indices: idx}, ready: ready}
}

// PanicError is a panic in a dataset, transform or collation, recovered by
// the loader.
type PanicError struct {
	Value any    // the value passed to panic
	Stack []byte // the goroutine's stack where it panicked
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }
