package data

import (
	"fmt"
	"math/rand/v2"
)

// Subset is the dataset of some examples of another, in the order of
// Indices (PyTorch's Subset).
type Subset struct {
	Dataset Dataset
	Indices []int
}

// Len returns the number of indices.
func (s *Subset) Len() int { return len(s.Indices) }

// Get returns example Indices[i] of the dataset.
func (s *Subset) Get(i int) (Example, error) {
	if err := checkIndex(i, len(s.Indices)); err != nil {
		return Example{}, err
	}
	return s.Dataset.Get(s.Indices[i])
}

// RandomSplit splits ds into non-overlapping random subsets of the given
// sizes, which must add up to ds.Len() (PyTorch's random_split): for
// example a training and a validation set. The split depends on seed
// alone.
func RandomSplit(ds Dataset, seed uint64, sizes ...int) ([]*Subset, error) {
	n, total := ds.Len(), 0
	for _, s := range sizes {
		if s < 0 {
			return nil, fmt.Errorf("data: RandomSplit: negative size in %v", sizes)
		}
		total += s
	}
	if total != n {
		return nil, fmt.Errorf("data: RandomSplit: sizes %v add up to %d, the dataset has %d examples", sizes, total, n)
	}
	perm := rand.New(rand.NewPCG(splitmix64(seed), 0x5eed)).Perm(n)
	out := make([]*Subset, len(sizes))
	for i, s := range sizes {
		out[i] = &Subset{Dataset: ds, Indices: perm[:s:s]}
		perm = perm[s:]
	}
	return out, nil
}
