package robustness

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/gotorch/gotorch/data"
	"github.com/gotorch/gotorch/examples/serve/batcher"
	"github.com/gotorch/gotorch/torch"
)

// Round 3 (issue #36): the serving batcher and the distributed sampler.
// A batch function that called runtime.Goexit killed the batcher's worker
// (every later Submit waited forever), and DistributedSampler{NumReplicas:
// 1<<40} ran out of memory after 50 s. Each case also checks that the
// next call works, and returns an error that does not match if it does not.

// batcherAfter runs bad on a fresh batcher of MaxBatch 1, then checks
// that a good submission still gets its answer, and closes the batcher.
func batcherAfter(bad func(b *batcher.Batcher[int, int]) error) error {
	b := batcher.New(func(xs []int) ([]int, error) {
		switch xs[0] {
		case -1:
			runtime.Goexit()
		case -2:
			panic("the model broke")
		case -3:
			return []int{1, 2}, nil
		}
		out := make([]int, len(xs))
		for i, x := range xs {
			out[i] = x + 1
		}
		return out, nil
	}, batcher.Options{MaxBatch: 1, QueueSize: 1})
	err := bad(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !b.Closed() {
		if out, nerr := b.Submit(ctx, 41); nerr != nil || out != 42 {
			return fmt.Errorf("the next Submit failed: %d, %v", out, nerr)
		}
	}
	if cerr := b.Close(ctx); cerr != nil {
		return fmt.Errorf("Close after the case: %v", cerr)
	}
	return err
}

func submit(b *batcher.Batcher[int, int], x int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := b.Submit(ctx, x)
	return err
}

// samplerLoader builds a loader over ten examples with s.
func samplerLoader(s data.Sampler) error {
	x := torch.Arange(torch.S(10)).Reshape([]int64{10, 1})
	ds, err := data.NewTensorDataset(x, x)
	if err != nil {
		return err
	}
	_, err = data.NewLoader(ds, data.Options{BatchSize: 2, Sampler: s, NoGC: true})
	return err
}

func round3ServeCases(t *testing.T) []badCase {
	return []badCase{
		{"batcher batch function calls runtime.Goexit", "runtime.Goexit", "", batcher.ErrWorkerExited,
			func() error { return batcherAfter(func(b *batcher.Batcher[int, int]) error { return submit(b, -1) }) }},
		{"batcher batch function panics", "the batch function panicked: the model broke", "", nil,
			func() error { return batcherAfter(func(b *batcher.Batcher[int, int]) error { return submit(b, -2) }) }},
		{"batcher batch function returns too many outputs", "returned 2 outputs for 1 inputs", "", nil,
			func() error { return batcherAfter(func(b *batcher.Batcher[int, int]) error { return submit(b, -3) }) }},
		{"batcher Submit after Close", "batcher: closed", "", batcher.ErrClosed,
			func() error {
				return batcherAfter(func(b *batcher.Batcher[int, int]) error {
					if err := b.Close(context.Background()); err != nil {
						return err
					}
					return submit(b, 1)
				})
			}},
		{"batcher Submit with an ended context", "context canceled", "", context.Canceled,
			func() error {
				return batcherAfter(func(b *batcher.Batcher[int, int]) error {
					ctx, cancel := context.WithCancel(context.Background())
					cancel()
					_, err := b.Submit(ctx, 1)
					return err
				})
			}},
		{"DistributedSampler NumReplicas 0", "DistributedSampler.NumReplicas must be positive, got 0", "", nil,
			func() error { return samplerLoader(&data.DistributedSampler{}) }},
		{"DistributedSampler NumReplicas -1", "NumReplicas must be positive, got -1", "", nil,
			func() error { return samplerLoader(&data.DistributedSampler{NumReplicas: -1}) }},
		{"DistributedSampler Rank = NumReplicas", "Rank 4 is not in [0, 4)", "", nil,
			func() error { return samplerLoader(&data.DistributedSampler{NumReplicas: 4, Rank: 4}) }},
		{"DistributedSampler negative Rank", "Rank -1 is not in [0, 4)", "", nil,
			func() error { return samplerLoader(&data.DistributedSampler{NumReplicas: 4, Rank: -1}) }},
		{"DistributedSampler Rank math.MinInt of math.MaxInt", "Rank -9223372036854775808 is not in [0, 9223372036854775807)", "", nil,
			func() error {
				return samplerLoader(&data.DistributedSampler{NumReplicas: math.MaxInt, Rank: math.MinInt})
			}},
		{"DistributedSampler nil", "DistributedSampler is nil", "", nil,
			func() error { return samplerLoader((*data.DistributedSampler)(nil)) }},
		{"NewDistributedSampler rank out of range", "Rank 2 is not in [0, 2)", "", nil,
			func() error { _, err := data.NewDistributedSampler(2, 2, 0); return err }},
	}
}
