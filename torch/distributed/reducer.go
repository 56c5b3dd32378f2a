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

	"github.com/gotorch/gotorch/torch"
)

// Reducer averages the gradients of params across a group during
// backward, as c10d's Reducer does for PyTorch's DDP (nn/parallel builds
// DDP on it):
//
//   - it puts a post-hook on each parameter's gradient accumulator;
//   - a ready gradient is copied into its bucket (buckets hold the
//     parameters in reverse order, the order backward reaches them, up to
//     a byte cap), and a full bucket is all-reduced asynchronously, in
//     bucket order on every rank, while backward goes on;
//   - when backward ends (a callback on the autograd engine), it starts the
//     buckets still open (a parameter without a gradient this step adds
//     zeros), waits for all of them and writes the averages into .grad;
//     a failed all-reduce makes backward fail with its error.
type Reducer struct {
	mu     sync.Mutex
	p      C.gt_dist_reducer
	pg     *ProcessGroup
	params []torch.Tensor
}

// NewReducer hooks params (leaves that require a gradient, on the CPU).
// bucketBytes caps a bucket (PyTorch's bucket_cap_mb, 25 MiB), and
// firstBucketBytes the first one (1 MiB), so that communication starts
// early in backward.
func NewReducer(pg *ProcessGroup, params []torch.Tensor, bucketBytes, firstBucketBytes int64) (*Reducer, error) {
	p, err := pg.handle("Reducer")
	if err != nil {
		return nil, err
	}
	ps, release, err := borrow("Reducer", params)
	if err != nil {
		return nil, err
	}
	var r C.gt_dist_reducer
	e := C.gt_dist_reducer_new(p, first(ps), C.int64_t(len(ps)), C.int64_t(bucketBytes), C.int64_t(firstBucketBytes), &r)
	release()
	runtime.KeepAlive(pg)
	if err := cerr("Reducer", e); err != nil {
		return nil, err
	}
	red := &Reducer{p: r, pg: pg, params: params}
	runtime.SetFinalizer(red, (*Reducer).Close)
	return red, nil
}

// SetSync turns the all-reduce on (the default) or off; off, gradients
// accumulate locally, as under PyTorch's no_sync.
func (r *Reducer) SetSync(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.p == nil {
		return
	}
	v := 0
	if on {
		v = 1
	}
	C.gt_dist_reducer_set_sync(r.p, C.int(v))
}

// Buckets is the number of gradient buckets.
func (r *Reducer) Buckets() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.p == nil {
		return 0
	}
	return int(C.gt_dist_reducer_buckets(r.p))
}

// Err returns (and clears) the error of the last backward's reduction,
// which backward itself failed with.
func (r *Reducer) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.p == nil {
		return errors.New("distributed: Reducer used after Close")
	}
	return cerr("Reducer", C.gt_dist_reducer_error(r.p))
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
