package data_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/data"
	"github.com/gotorch/gotorch/torch"
)

func shares(t *testing.T, n, replicas int, dropLast bool, epoch int) [][]int {
	var out [][]int
	for r := 0; r < replicas; r++ {
		s, err := data.NewDistributedSampler(replicas, r, 42)
		require.NoError(t, err)
		s.DropLast = dropLast
		idx := s.Indices(n, epoch)
		require.Len(t, idx, s.Len(n))
		out = append(out, idx)
	}
	return out
}

func TestDistributedSamplerShares(t *testing.T) {
	// PyTorch's lengths: ceil(n/R), or with drop_last ceil((n-R)/R).
	for _, c := range []struct {
		n, r        int
		drop        bool
		per, unique int
	}{
		{12, 3, false, 4, 12}, {10, 3, false, 4, 10}, {10, 3, true, 3, 9}, {2, 4, false, 1, 2}, {12, 3, true, 4, 12},
	} {
		sh := shares(t, c.n, c.r, c.drop, 0)
		seen := map[int]int{}
		for _, s := range sh {
			assert.Len(t, s, c.per, "%+v", c)
			for _, i := range s {
				assert.True(t, i >= 0 && i < c.n)
				seen[i]++
			}
		}
		assert.Len(t, seen, c.unique, "%+v: examples covered", c)
		if c.per*c.r == c.n {
			for i, k := range seen {
				assert.Equal(t, 1, k, "%+v: example %d in one share only", c, i)
			}
		}
	}
	// The same epoch gives the same order; another epoch another one.
	a, b := shares(t, 100, 2, false, 3), shares(t, 100, 2, false, 3)
	assert.Equal(t, a, b)
	c := shares(t, 100, 2, false, 4)
	assert.NotEqual(t, a, c)

	s := &data.DistributedSampler{NumReplicas: 2, Rank: 1}
	assert.Equal(t, []int{1, 3, 0}, s.Indices(5, 0), "no shuffle: every other index, padded from the start")

	_, err := data.NewDistributedSampler(2, 2, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Rank 2 is not in [0, 2)")
}

func TestLoaderWithSampler(t *testing.T) {
	x := torch.Arange(torch.S(10)).Reshape([]int64{10, 1})
	ds, err := data.NewTensorDataset(x, x)
	require.NoError(t, err)
	var all []int
	for r := 0; r < 2; r++ {
		s, _ := data.NewDistributedSampler(2, r, 1)
		l, err := data.NewLoader(ds, data.Options{BatchSize: 2, Sampler: s, NoGC: true})
		require.NoError(t, err)
		assert.Equal(t, 3, l.Len())
		l.SetEpoch(5)
		batches := 0
		for l.Scan() {
			all = append(all, l.Indices()...)
			batches++
		}
		require.NoError(t, l.Err())
		assert.Equal(t, 3, batches)
		assert.Equal(t, s.Indices(10, 5), all[len(all)-5:], "rank %d follows the sampler at the loader's epoch", r)
	}
	slices.Sort(all)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, all)

	_, err = data.NewLoader(ds, data.Options{BatchSize: 2, Shuffle: true, Sampler: &data.DistributedSampler{NumReplicas: 1}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "mutually exclusive")
}
