package text

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// checkShapes compares a full-size model's parameter names, shapes and
// count with transformers' (testdata/shapes.json): no weights.
func checkShapes(t *testing.T, want gShapes, m interface {
	NamedParameters() []nn.Named
	StateDict() map[string]torch.Tensor
}) {
	t.Helper()
	got := m.NamedParameters()
	require.Len(t, got, len(want.Parameters), "parameters")
	count := int64(0)
	for i, p := range want.Parameters {
		var name string
		var shape []int64
		require.NoError(t, json.Unmarshal(p[0], &name))
		require.NoError(t, json.Unmarshal(p[1], &shape))
		assert.Equal(t, name, got[i].Name, "parameter %d", i)
		assert.Equal(t, shape, got[i].Tensor.Shape(), name)
		count += got[i].Tensor.Numel()
	}
	assert.Equal(t, want.Count, count, "parameter count")
	assert.ElementsMatch(t, want.StateDictKeys, keys(m.StateDict()), "state dict keys")
}

func TestFullSizeShapes(t *testing.T) {
	var s struct {
		GPT2 gShapes `json:"gpt2"`
		Bert gShapes `json:"bert"`
	}
	readJSON(t, "shapes.json", &s)
	t.Run("gpt2", func(t *testing.T) {
		c := gpt2Config(t, s.GPT2.Config)
		require.Equal(t, GPT2Small(), c, "shapes.json's config is GPT2Small")
		require.NoError(t, c.Validate())
		// The constructor without transformers' initialization, which
		// changes no shape and would double the test's time.
		m := newGPT2LMHeadModel(c)
		defer freeParams(m)
		require.EqualValues(t, 124439808, s.GPT2.Count)
		checkShapes(t, s.GPT2, m)
	})
	t.Run("bert", func(t *testing.T) {
		c := bertConfig(t, s.Bert.Config)
		require.Equal(t, BertBase(), c, "shapes.json's config is BertBase")
		require.NoError(t, c.Validate())
		m := newBertModel(c)
		defer freeParams(m)
		require.EqualValues(t, 109482240, s.Bert.Count)
		checkShapes(t, s.Bert, m)
	})
}

func freeParams(m interface{ Parameters() []torch.Tensor }) {
	for _, p := range m.Parameters() {
		p.Free()
	}
}
