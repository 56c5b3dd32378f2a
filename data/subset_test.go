package data

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRandomSplit(t *testing.T) {
	ds := &seqDataset{n: 10}
	parts, err := RandomSplit(ds, 7, 7, 3)
	require.NoError(t, err)
	require.Len(t, parts, 2)
	assert.Equal(t, 7, parts[0].Len())
	assert.Equal(t, 3, parts[1].Len())
	var all []int
	for _, p := range parts {
		for i := 0; i < p.Len(); i++ {
			ex, err := p.Get(i)
			require.NoError(t, err)
			all = append(all, ex.Target.(int))
		}
	}
	assert.ElementsMatch(t, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, all)
	again, err := RandomSplit(ds, 7, 7, 3)
	require.NoError(t, err)
	assert.Equal(t, parts, again, "the same split for the same seed")
	other, err := RandomSplit(ds, 8, 7, 3)
	require.NoError(t, err)
	assert.NotEqual(t, parts[0].Indices, other[0].Indices)

	_, err = parts[1].Get(3)
	assert.Error(t, err)
	_, err = RandomSplit(ds, 1, 5, 4)
	assert.EqualError(t, err, "data: RandomSplit: sizes [5 4] add up to 9, the dataset has 10 examples")
	_, err = RandomSplit(ds, 1, 11, -1)
	assert.Error(t, err)
}
