package distributed

/*
#include <stdlib.h>
#include "distributed.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"sync"
	"time"

	"github.com/gotorch/gotorch/torch"
)

// Reducer is c10d's Reducer, the engine of PyTorch's DDP (nn/parallel
// builds DDP on it). It averages the gradients of params across a group
// during backward:
//
//   - it puts a hook on each parameter's gradient accumulator;
//   - after AfterForward, a ready gradient is copied into its bucket, and
//     a full bucket is all-reduced asynchronously while backward goes on
//     (buckets as PyTorch DDP assigns them: a small first one, then up to
//     the cap, in reverse parameter order; rebuilt once in the order the
//     gradients really came);
//   - when backward ends, it waits for every bucket and writes the
//     averages into .grad; a failed all-reduce makes backward fail with an
//     error that names the bucket, this rank and the dead peer;
//   - a backward without AfterForward leaves the gradients local
//     (PyTorch's no_sync).
//
// Without findUnused, every parameter must get a gradient in every synced
// backward (else the next BeforeForward fails, as PyTorch's does); with
// it, AfterForward finds the parameters the outputs do not depend on.
type Reducer struct {
	mu     sync.Mutex
	p      C.gt_dist_reducer
	pg     *ProcessGroup
	params []torch.Tensor
}

// NewReducer hooks params (leaves that require a gradient, on the CPU,
// with the same shapes on every rank: it checks). bucketBytes caps a
// bucket (PyTorch's bucket_cap_mb, 25 MiB), and firstBucketBytes the first
// one (1 MiB), so that communication starts early in backward.
func NewReducer(pg *ProcessGroup, params []torch.Tensor, bucketBytes, firstBucketBytes int64, findUnused bool) (*Reducer, error) {
	p, err := pg.handle("Reducer")
	if err != nil {
		return nil, err
	}
	ps, release, err := borrow("Reducer", params)
	if err != nil {
		return nil, err
	}
	var r C.gt_dist_reducer
	e := C.gt_dist_reducer_new(p, first(ps), C.int64_t(len(ps)), C.int64_t(bucketBytes), C.int64_t(firstBucketBytes), cbool(findUnused), &r)
	release()
	runtime.KeepAlive(pg)
	if err := cerr("Reducer", e); err != nil {
		return nil, err
	}
	red := &Reducer{p: r, pg: pg, params: params}
	runtime.SetFinalizer(red, (*Reducer).Close)
	return red, nil
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func (r *Reducer) handle() (C.gt_dist_reducer, error) {
	if r.p == nil {
		return nil, errors.New("distributed: Reducer used after Close")
	}
	return r.p, nil
}

// BeforeForward runs before each forward of the model (sync false under
// no_sync): it fails if the last synced backward left buckets unreduced
// (a parameter got no gradient), and after the first synced backward it
// rebuilds the buckets (a broadcast from rank 0). It does nothing while
// gradients are off on this thread (torch.NoGrad).
func (r *Reducer) BeforeForward(sync bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.handle()
	if err != nil {
		return err
	}
	return cerr("Reducer", C.gt_dist_reducer_before_forward(p, cbool(sync)))
}

// AfterForward arms the hooks for the next backward, as PyTorch DDP's
// forward does when it syncs; outputs are the forward's outputs (only
// used with findUnused). It does nothing while gradients are off.
func (r *Reducer) AfterForward(outputs ...torch.Tensor) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.handle()
	if err != nil {
		return err
	}
	ps, release, err := borrow("Reducer", outputs)
	if err != nil {
		return err
	}
	e := C.gt_dist_reducer_after_forward(p, first(ps), C.int64_t(len(ps)))
	release()
	return cerr("Reducer", e)
}

// Buckets is the number of gradient buckets (0 after Close, -1 if c10d
// cannot tell).
func (r *Reducer) Buckets() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.p == nil {
		return 0
	}
	return int(C.gt_dist_reducer_buckets(r.p))
}

// CommTime is the time the bucket all-reduces took since the Reducer was
// made, each from its start (when its bucket filled, during backward) to
// its end, summed: PyTorch DDP's backward_comm_time. All-reduces overlap
// backward and each other, so it is not time lost.
func (r *Reducer) CommTime() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.p == nil {
		return 0
	}
	return time.Duration(C.gt_dist_reducer_comm_ns(r.p))
}

// Err returns (and clears) the error of the last failed reduction, which
// backward itself failed with.
func (r *Reducer) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, err := r.handle()
	if err != nil {
		return err
	}
	return cerr("Reducer", C.gt_dist_reducer_error(p))
}

// Close removes the hooks. The group must outlive the reducer.
func (r *Reducer) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.p != nil {
		C.gt_dist_reducer_free(r.p)
		r.p = nil
	}
	runtime.KeepAlive(r.pg)
	return nil
}
