package text

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/torch"
)

// A reserved cache (Generate's) gives the logits and the keys and values
// that a growing one gives, through chunks of several tokens, and keeps
// each block's keys in one buffer: the keys after a step are a view of
// the same storage as before it.
func TestReservedCacheMatchesGrowingCache(t *testing.T) {
	m := tinyGPT2(t)
	m.Eval()
	ids := torch.RandintGenerator(m.Config.VocabSize, []int64{2, 12}, torch.NewGenerator(7))
	grow := &KVCache{}
	defer grow.Free()
	res := &KVCache{reserve: 12}
	defer res.Free()
	start := int64(0)
	for step, n := range []int64{5, 1, 4, 2} {
		chunk := ids.Narrow(1, start, n)
		want, err := m.TryForward(chunk, grow)
		require.NoError(t, err)
		got, err := m.TryForward(chunk, res)
		require.NoError(t, err)
		require.True(t, golden.AllClose(t, want.Float64s(), got.Float64s(), torch.Float32, "logits of positions %d..%d", start, start+n-1))
		require.Equal(t, start+n, res.Len())
		for i := range grow.Keys {
			require.Equal(t, grow.Keys[i].Shape(), res.Keys[i].Shape())
			require.True(t, golden.AllClose(t, grow.Keys[i].Float64s(), res.Keys[i].Float64s(), torch.Float32, "block %d's keys after step %d", i, step))
			require.True(t, golden.AllClose(t, grow.Values[i].Float64s(), res.Values[i].Float64s(), torch.Float32, "block %d's values after step %d", i, step))
			require.True(t, res.Keys[i] == res.views[i], "block %d's keys after step %d are not the buffer's view", i, step)
		}
		start += n
	}
	require.Len(t, res.kbuf, int(m.Config.NLayer))
	assert.Equal(t, []int64{2, m.Config.NHead, 12, m.Config.NEmbd / m.Config.NHead}, res.kbuf[0].Shape())
}

// A reserved cache falls back to concatenation, with the same results,
// when the tokens outgrow it or when the caller replaced its keys.
func TestReservedCacheFallsBack(t *testing.T) {
	m := tinyGPT2(t)
	m.Eval()
	ids := torch.RandintGenerator(m.Config.VocabSize, []int64{1, 9}, torch.NewGenerator(8))
	full := m.Forward(ids)
	check := func(c *KVCache, start, n int64, what string) {
		t.Helper()
		got, err := m.TryForward(ids.Narrow(1, start, n), c)
		require.NoError(t, err, what)
		want := full.Narrow(1, start, n).Contiguous()
		require.True(t, golden.AllClose(t, want.Float64s(), got.Float64s(), torch.Float32, "%s: logits of positions %d..%d", what, start, start+n-1))
		require.Equal(t, start+n, c.Len(), what)
	}

	small := &KVCache{reserve: 4}
	defer small.Free()
	check(small, 0, 3, "in the reserve")
	check(small, 3, 1, "filling the reserve")
	check(small, 4, 2, "past the reserve")
	assert.False(t, small.Keys[0] == small.views[0], "keys past the reserve are the buffer's view")
	check(small, 6, 3, "after the reserve")

	user := &KVCache{reserve: 9}
	defer user.Free()
	check(user, 0, 4, "in the reserve")
	for i := range user.Keys { // the caller's own tensors, the same values
		k, v := user.Keys[i].Contiguous(), user.Values[i].Contiguous()
		user.Keys[i].Free()
		user.Values[i].Free()
		user.Keys[i], user.Values[i] = k, v
	}
	check(user, 4, 2, "the caller's keys")
	assert.False(t, user.Keys[0] == user.views[0], "the caller's keys were copied into the buffer")
	check(user, 6, 3, "after the caller's keys")
}

// Generate leaves nothing live but its result: the reserved cache, its
// views and every step's intermediates are freed.
func TestGenerateFreesItsCache(t *testing.T) {
	m := tinyGPT2(t)
	m.Eval()
	prompt := torch.FromSlice([]int64{1, 2, 3}, 1, 3)
	m.Generate(prompt, WithMaxNewTokens(2)) // the first call's one-time tensors
	torch.FinishGC()
	before := torch.ReadMemStats()
	out := m.Generate(prompt, WithMaxNewTokens(10))
	after := torch.ReadMemStats()
	require.Equal(t, []int64{1, 13}, out.Shape())
	assert.EqualValues(t, 1, after.LiveTensors-before.LiveTensors, "tensors Generate left live besides its result")
}
