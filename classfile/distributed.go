package classfile

import (
	"fmt"
	"os"

	"github.com/gotorch/gotorch/data"
	"github.com/gotorch/gotorch/nn/parallel"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
)

// distState is the data-parallel side of a Trainer (the distributed knob).
type distState struct {
	pg      *distributed.ProcessGroup
	ddp     *parallel.DDPModule
	seed    uint64
	hasSeed bool
}

// Distributed__0 reports whether the script trains data-parallel.
func (t *Trainer) Distributed__0() bool { return t.dist != nil }

// Distributed__1 turns data-parallel training on: distributed true. The
// script then runs as one rank of a job started by gop-torch run -nproc N
// (or torchrun --no-python): it joins the Gloo process group from
// torchrun's environment, the model becomes a DDP model (rank 0's
// weights, gradients averaged across ranks in backward), each rank's
// trainLoader yields its share of the training set (DistributedSampler;
// batchSize is per rank, as in PyTorch), evaluate reduces its metrics
// across ranks, and save, saveCheckpoint and log act on rank 0 only (the
// others wait for the file). Started without that environment (no
// WORLD_SIZE), the script runs alone, on a world of one: its training
// order is a job's, so that its global batches (batchSize × worldSize)
// are the job's.
func (t *Trainer) Distributed__1(on bool) {
	if !on || t.dist != nil {
		return
	}
	if os.Getenv("WORLD_SIZE") == "" {
		// Alone: the same shares of the data as a job's (a world of one),
		// so that its global batches are the job's.
		t.dist = &distState{}
		t.train, t.test = nil, nil
		return
	}
	pg := distributed.Default()
	if pg == nil {
		var err error
		if pg, err = distributed.InitProcessGroup(distributed.Gloo); err != nil {
			panic(fmt.Errorf("classfile: distributed: %w", err))
		}
	}
	t.dist = &distState{pg: pg}
	t.train, t.test = nil, nil // made again with samplers
	if t.model != nil {
		t.wrapDDP()
	}
}

// Rank is this process's rank (0 when not distributed).
func (t *Trainer) Rank() int {
	if t.dist == nil || t.dist.pg == nil {
		return 0
	}
	return t.dist.pg.Rank()
}

// WorldSize is the number of processes training together (1 when not
// distributed).
func (t *Trainer) WorldSize() int {
	if t.dist == nil || t.dist.pg == nil {
		return 1
	}
	return t.dist.pg.Size()
}

// wrapDDP makes the model a DDP model: it broadcasts rank 0's state and
// hooks the gradients. The model itself stays the script's; its backward
// passes now average the gradients.
func (t *Trainer) wrapDDP() {
	if t.dist.pg == nil {
		return
	}
	if t.dist.ddp != nil {
		t.dist.ddp.Close()
	}
	d, err := parallel.DDP(t.model, parallel.WithProcessGroup(t.dist.pg))
	if err != nil {
		panic(fmt.Errorf("classfile: distributed: %w", err))
	}
	t.dist.ddp = d
}

// prepareBackward arms DDP's gradient reduction for loss's backward, as
// DDP's forward does (the script runs the model's forward itself).
func (t *Trainer) prepareBackward(loss torch.Tensor) {
	if t.dist == nil || t.dist.ddp == nil {
		return
	}
	if err := t.dist.ddp.PrepareBackward(loss); err != nil {
		panic(fmt.Errorf("classfile: distributed: %w", err))
	}
}

// syncBuffers broadcasts rank 0's buffers (BatchNorm statistics) before a
// step or an evaluation, as DDP's broadcast_buffers does before forward.
func (t *Trainer) syncBuffers() {
	if t.dist == nil || t.dist.ddp == nil {
		return
	}
	if err := t.dist.ddp.SyncBuffers(); err != nil {
		panic(fmt.Errorf("classfile: distributed: %w", err))
	}
}

// sharedSeed is the loaders' seed, rank 0's on every rank.
func (t *Trainer) sharedSeed() uint64 {
	if t.dist.hasSeed {
		return t.dist.seed
	}
	if t.dist.pg == nil {
		t.dist.seed, t.dist.hasSeed = t.loaderSeed(), true
		return t.dist.seed
	}
	s := torch.FromSlice([]int64{int64(t.loaderSeed())}, 1)
	if err := t.dist.pg.Broadcast(s, 0); err != nil {
		panic(fmt.Errorf("classfile: distributed: sharing the loader seed: %w", err))
	}
	t.dist.seed, t.dist.hasSeed = uint64(s.Int64s()[0]), true
	return t.dist.seed
}

// sampler is a rank's share of a dataset: training shuffles and pads as
// DistributedSampler does; evaluation takes every WorldSize-th example,
// without padding, so that the reduced metrics count each example once.
func (t *Trainer) sampler(training bool) data.Sampler {
	if training {
		s := &data.DistributedSampler{NumReplicas: t.WorldSize(), Rank: t.Rank(), Shuffle: true, Seed: t.sharedSeed()}
		return s
	}
	return shard{n: t.WorldSize(), rank: t.Rank()}
}

type shard struct{ n, rank int }

func (s shard) Len(n int) int { return (n - s.rank + s.n - 1) / s.n }

func (s shard) Indices(n, _ int) []int {
	var out []int
	for i := s.rank; i < n; i += s.n {
		out = append(out, i)
	}
	return out
}

// reduceMetrics sums evaluate's loss sum, correct count and example count
// over the ranks.
func (t *Trainer) reduceMetrics(sum float64, correct int64, n int, classify bool) (float64, int64, int, bool) {
	if t.dist == nil || t.dist.pg == nil {
		return sum, correct, n, classify
	}
	c := 0.0
	if classify {
		c = 1
	}
	v := torch.FromSlice([]float64{sum, float64(correct), float64(n), c}, 4)
	if err := t.dist.pg.AllReduce(v, distributed.Sum); err != nil {
		panic(fmt.Errorf("classfile: distributed: evaluate: %w", err))
	}
	r := v.Float64s()
	return r[0], int64(r[1]), int(r[2]), int(r[3]) == t.WorldSize()
}

// onRank0 runs write on rank 0 only; every rank returns once it is done
// (a barrier), so that none reads a file before it is complete.
func (t *Trainer) onRank0(what string, write func()) {
	if t.dist == nil || t.dist.pg == nil {
		write()
		return
	}
	var failed any
	if t.Rank() == 0 {
		func() {
			defer func() { failed = recover() }()
			write()
		}()
	}
	if err := t.dist.pg.Barrier(); err != nil && failed == nil {
		panic(fmt.Errorf("classfile: distributed: %s: %w", what, err))
	}
	if failed != nil {
		panic(failed)
	}
}
