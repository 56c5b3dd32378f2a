package data_test

import (
	"math"
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

// TestDistributedSamplerLimits: issue #36's samplers. A huge NumReplicas
// is valid, as in PyTorch, and costs nothing (it used to build a padded
// order of NumReplicas indices: out of memory after 50 s); math.MaxInt no
// longer overflows Len to 0 (PyTorch gives 1); bad ranks and replicas are
// refused by NewLoader with an error that names them.
func TestDistributedSamplerLimits(t *testing.T) {
	for _, r := range []int{1 << 40, math.MaxInt, math.MaxInt - 1} {
		for _, rank := range []int{0, 7, r - 1} {
			s := &data.DistributedSampler{NumReplicas: r, Rank: rank}
			require.NoError(t, s.Validate())
			assert.Equal(t, 1, s.Len(10), "replicas %d: ceil(10/R) is 1", r)
			assert.Equal(t, []int{rank % 10}, s.Indices(10, 0), "replicas %d rank %d: padded[rank] is order[rank mod n]", r, rank)
			if r >= math.MaxInt-2 {
				assert.Equal(t, 1, s.Len(math.MaxInt-2))
			} else {
				assert.Equal(t, 1<<23, s.Len(math.MaxInt-2), "ceil((2^63-3)/2^40)")
			}
			s.DropLast = true
			assert.Equal(t, 0, s.Len(10), "ceil((10-R)/R) is 0")
			assert.Nil(t, s.Indices(10, 0))
		}
	}
	// Len near math.MaxInt does not overflow.
	s := &data.DistributedSampler{NumReplicas: 3}
	assert.Equal(t, math.MaxInt/3+1, s.Len(math.MaxInt))
	s.DropLast = true
	assert.Equal(t, math.MaxInt/3, s.Len(math.MaxInt))

	x := torch.Arange(torch.S(10)).Reshape([]int64{10, 1})
	ds, err := data.NewTensorDataset(x, x)
	require.NoError(t, err)
	for _, c := range []struct {
		s    data.DistributedSampler
		want string
	}{
		{data.DistributedSampler{NumReplicas: 0}, "NumReplicas must be positive, got 0"},
		{data.DistributedSampler{NumReplicas: -4}, "NumReplicas must be positive, got -4"},
		{data.DistributedSampler{NumReplicas: 2, Rank: 2}, "Rank 2 is not in [0, 2)"},
		{data.DistributedSampler{NumReplicas: 2, Rank: -1}, "Rank -1 is not in [0, 2)"},
		{data.DistributedSampler{NumReplicas: math.MaxInt, Rank: math.MinInt}, "Rank -9223372036854775808 is not in [0, 9223372036854775807)"},
	} {
		assert.Zero(t, c.s.Len(10))
		assert.Nil(t, c.s.Indices(10, 0))
		_, err := data.NewLoader(ds, data.Options{BatchSize: 2, Sampler: &c.s})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "Options.Sampler: data: DistributedSampler."+c.want)
	}
	// The loader with a huge world: one example per epoch, at once.
	l, err := data.NewLoader(ds, data.Options{BatchSize: 2, NoGC: true, Sampler: &data.DistributedSampler{NumReplicas: 1 << 40, Rank: 13}})
	require.NoError(t, err)
	assert.Equal(t, 1, l.Len())
	require.True(t, l.Scan())
	assert.Equal(t, []int{3}, l.Indices())
	assert.False(t, l.Scan())
	require.NoError(t, l.Err())
}

// TestDistributedSamplerMatchesPadding: the direct formula gives what
// padding the whole order and striding it gives, for every small case.
func TestDistributedSamplerMatchesPadding(t *testing.T) {
	for n := 1; n <= 12; n++ {
		for r := 1; r <= 15; r++ {
			for _, drop := range []bool{false, true} {
				for rank := 0; rank < r; rank++ {
					s := &data.DistributedSampler{NumReplicas: r, Rank: rank, Shuffle: true, Seed: 3, DropLast: drop}
					order := (&data.DistributedSampler{NumReplicas: 1, Shuffle: true, Seed: 3}).Indices(n, 2)
					per := (n + r - 1) / r
					if drop && n%r != 0 {
						per = int(math.Ceil(float64(n-r) / float64(r)))
					}
					var want []int
					for i := rank; i < per*r; i += r {
						want = append(want, order[i%n])
					}
					assert.Equal(t, want, s.Indices(n, 2), "n %d replicas %d rank %d drop %v", n, r, rank, drop)
				}
			}
		}
	}
}
