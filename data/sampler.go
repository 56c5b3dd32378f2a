package data

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// A Sampler picks the examples of an epoch and their order: Options.Sampler
// replaces the loader's own order (all examples, shuffled with Shuffle).
type Sampler interface {
	// Len is the number of indices an epoch of a dataset of n examples has.
	Len(n int) int
	// Indices returns epoch's indices into a dataset of n examples, each
	// in [0, n).
	Indices(n, epoch int) []int
}

// DistributedSampler gives each rank of a data-parallel job its share of
// a dataset, as PyTorch's torch.utils.data.DistributedSampler does: every
// rank shuffles the same way (Seed plus the epoch), pads the order by
// repeating its start so that it divides evenly (or, with DropLast, cuts
// its tail), and takes every NumReplicas-th index from Rank on. The ranks'
// shares are disjoint (but for the padding) and equally long, so every rank
// runs the same number of steps.
//
// The loader passes its epoch (Loader.SetEpoch, PyTorch's
// sampler.set_epoch), so each epoch is shuffled anew. The shuffle is Go's
// (PCG), not torch.randperm: the shares are PyTorch's in shape, not in
// which examples they hold.
type DistributedSampler struct {
	NumReplicas int    // the world size
	Rank        int    // this process's rank, in [0, NumReplicas)
	Shuffle     bool   // shuffle each epoch (PyTorch's default is true)
	Seed        uint64 // the same on every rank
	DropLast    bool   // cut the tail instead of padding
}

// NewDistributedSampler returns a shuffling sampler for rank of
// numReplicas, or an error for a rank out of range.
func NewDistributedSampler(numReplicas, rank int, seed uint64) (*DistributedSampler, error) {
	s := &DistributedSampler{NumReplicas: numReplicas, Rank: rank, Shuffle: true, Seed: seed}
	return s, s.Validate()
}

// Validate reports a sampler that cannot work: NumReplicas not positive or
// Rank outside [0, NumReplicas), PyTorch's ValueError. NewLoader calls it;
// Len and Indices of an invalid sampler are 0 and nil. Any positive
// NumReplicas is valid, as in PyTorch, however large: Len and Indices
// never build the padded order of NumReplicas×Len indices.
func (s *DistributedSampler) Validate() error {
	if s == nil {
		return errors.New("data: DistributedSampler is nil")
	}
	if s.NumReplicas <= 0 {
		return fmt.Errorf("data: DistributedSampler.NumReplicas must be positive, got %d", s.NumReplicas)
	}
	if s.Rank < 0 || s.Rank >= s.NumReplicas {
		return fmt.Errorf("data: DistributedSampler.Rank %d is not in [0, %d)", s.Rank, s.NumReplicas)
	}
	return nil
}

// Len is the number of indices each rank gets of a dataset of n examples:
// PyTorch's num_samples, ceil(n/NumReplicas), or with DropLast and an
// uneven split ceil((n-NumReplicas)/NumReplicas). It cannot overflow.
func (s *DistributedSampler) Len(n int) int {
	if s.Validate() != nil || n <= 0 {
		return 0
	}
	r := s.NumReplicas
	if s.DropLast && n%r != 0 {
		return n / r // ceil((n - r) / r) for n%r != 0, and 0 for n < r
	}
	return n/r + boolInt(n%r != 0)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Indices returns this rank's indices for epoch: PyTorch's
// indices[rank:total_size:num_replicas] of the order padded (by repeating
// it from its start) or cut to total_size = Len×NumReplicas. Position i of
// the padded order is order[i mod n], so the rank's k-th index is
// order[(Rank + k×NumReplicas) mod n], computed without the padded order.
func (s *DistributedSampler) Indices(n, epoch int) []int {
	per := s.Len(n)
	if per == 0 {
		return nil
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if s.Shuffle {
		rng := rand.New(rand.NewPCG(splitmix64(s.Seed), splitmix64(uint64(epoch)<<8|streamDistributed)))
		rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	out := make([]int, per)
	// Rank < NumReplicas; when NumReplicas >= n, per is 1 and only Rank
	// mod n is read. Otherwise Rank + k×NumReplicas < per×NumReplicas <
	// n + NumReplicas < 2n, which fits.
	pos, step := s.Rank%n, s.NumReplicas%n
	for k := range out {
		out[k] = order[pos]
		pos += step
		if pos >= n {
			pos -= n
		}
	}
	return out
}

// streamDistributed is the random stream of DistributedSampler's shuffle.
const streamDistributed = 0x5d
