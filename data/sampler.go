package data

import (
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
	return s, s.check()
}

func (s *DistributedSampler) check() error {
	if s.NumReplicas <= 0 {
		return fmt.Errorf("data: DistributedSampler.NumReplicas must be positive, got %d", s.NumReplicas)
	}
	if s.Rank < 0 || s.Rank >= s.NumReplicas {
		return fmt.Errorf("data: DistributedSampler.Rank %d is not in [0, %d)", s.Rank, s.NumReplicas)
	}
	return nil
}

// Len is the number of indices each rank gets.
func (s *DistributedSampler) Len(n int) int {
	r := s.NumReplicas
	if r <= 0 || n <= 0 {
		return 0
	}
	if s.DropLast && n%r != 0 {
		return (n - r + r - 1) / r // ceil((n - r) / r), PyTorch's
	}
	return (n + r - 1) / r
}

// Indices returns this rank's indices for epoch.
func (s *DistributedSampler) Indices(n, epoch int) []int {
	if s.check() != nil || n <= 0 {
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
	per := s.Len(n)
	total := per * s.NumReplicas
	for len(order) < total { // pad by repeating the start, as often as needed
		order = append(order, order[:min(total-len(order), n)]...)
	}
	order = order[:total]
	out := make([]int, 0, per)
	for i := s.Rank; i < total; i += s.NumReplicas {
		out = append(out, order[i])
	}
	return out
}

// streamDistributed is the random stream of DistributedSampler's shuffle.
const streamDistributed = 0x5d
