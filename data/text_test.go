package data

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCharDataset(t *testing.T) {
	d, err := NewCharDataset("hello, wörld", 4)
	require.NoError(t, err)
	assert.Equal(t, []rune{' ', ',', 'd', 'e', 'h', 'l', 'o', 'r', 'w', 'ö'}, d.Vocab())
	assert.Equal(t, 10, d.VocabSize())
	assert.Equal(t, 12-4, d.Len())
	for i := 0; i < d.Len(); i++ {
		ex, err := d.Get(i)
		require.NoError(t, err)
		x, y := ex.Input.(Array[int64]), ex.Target.(Array[int64])
		assert.Equal(t, []int64{4}, x.Shape)
		runes := []rune("hello, wörld")
		assert.Equal(t, string(runes[i:i+4]), d.Decode(x.Data))
		assert.Equal(t, string(runes[i+1:i+5]), d.Decode(y.Data), "next characters")
	}
	ids, err := d.Encode("wörld")
	require.NoError(t, err)
	assert.Equal(t, "wörld", d.Decode(ids))
	_, err = d.Encode("x")
	assert.EqualError(t, err, `data: character 'x' is not in the vocabulary`)
	assert.Equal(t, "h\uFFFD", d.Decode([]int64{4, 99}))
	_, err = d.Get(8)
	assert.Error(t, err)

	// Batches of sequences.
	l, err := NewLoader(d, Options{BatchSize: 3, DropLast: true})
	require.NoError(t, err)
	require.True(t, l.Scan())
	x, y := l.Batch()
	assert.Equal(t, []int64{3, 4}, x.Shape())
	assert.Equal(t, []int64{3, 4}, y.Shape())
	want, _ := d.Encode("ello")
	assert.Equal(t, want, y.Int64s()[:4])
	l.Stop()
}

func TestCharDatasetErrors(t *testing.T) {
	for _, tc := range []struct {
		text string
		n    int
		err  string
	}{
		{"abc", 0, "sequence length must be at least 1, got 0"},
		{"abc", 3, "a text of 3 characters has no window of 3 characters and a next one"},
		{"ab\xff", 1, "the text is not valid UTF-8"},
	} {
		_, err := NewCharDataset(tc.text, tc.n)
		assert.EqualError(t, err, "data: NewCharDataset: "+tc.err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "input.txt")
	require.NoError(t, os.WriteFile(p, []byte("to be or not to be"), 0o644))
	d, err := LoadCharDataset(p, 5)
	require.NoError(t, err)
	assert.Equal(t, 13, d.Len())
	require.NoError(t, os.WriteFile(p, []byte("ab"), 0o644))
	_, err = LoadCharDataset(p, 5)
	assert.EqualError(t, err, "data: "+p+": a text of 2 characters has no window of 5 characters and a next one")
	require.NoError(t, os.WriteFile(p, []byte{0xff, 0xfe}, 0o644))
	_, err = LoadCharDataset(p, 1)
	assert.EqualError(t, err, "data: "+p+": not valid UTF-8 text")
}
