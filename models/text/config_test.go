package text

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// A transformers config.json reads over the defaults; the fields Go has
// no use for are ignored.
func TestReadGPT2Config(t *testing.T) {
	c, err := ReadGPT2Config(writeFile(t, `{
  "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "n_ctx": 1024,
  "n_embd": 1024, "n_head": 16, "n_inner": null, "n_layer": 24, "n_positions": 1024,
  "task_specific_params": {"text-generation": {"do_sample": true, "max_length": 50}}, "vocab_size": 50257}`))
	require.NoError(t, err)
	want := GPT2Small()
	want.NEmbd, want.NHead, want.NLayer = 1024, 16, 24 // gpt2-medium
	assert.Equal(t, want, c)

	_, err = ReadGPT2Config(writeFile(t, `{"n_embd": 100, "n_head": 16}`))
	assert.ErrorIs(t, err, ErrConfig)
	assert.ErrorContains(t, err, "n_embd (100) must be a multiple of n_head (16)")
	assert.ErrorContains(t, err, "config.json")
	_, err = ReadGPT2Config(writeFile(t, `{"n_embd": "wide"}`))
	assert.ErrorContains(t, err, "config.json")
	_, err = ReadGPT2Config(filepath.Join(t.TempDir(), "none.json"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestReadBertConfig(t *testing.T) {
	c, err := ReadBertConfig(writeFile(t, `{
  "architectures": ["BertForSequenceClassification"], "hidden_size": 384, "num_attention_heads": 12,
  "intermediate_size": 1536, "num_hidden_layers": 6, "classifier_dropout": null,
  "id2label": {"0": "NEGATIVE", "1": "NEUTRAL", "2": "POSITIVE"}, "model_type": "bert"}`))
	require.NoError(t, err)
	want := BertBase()
	want.HiddenSize, want.IntermediateSize, want.NumHiddenLayers, want.NumLabels = 384, 1536, 6, 3
	assert.Equal(t, want, c)

	c, err = ReadBertConfig(writeFile(t, `{"classifier_dropout": 0.3}`))
	require.NoError(t, err)
	require.NotNil(t, c.ClassifierDropout)
	m, err := NewBertForSequenceClassification(tinyBert(c))
	require.NoError(t, err)
	assert.Equal(t, 0.3, m.Dropout.P)

	_, err = ReadBertConfig(writeFile(t, `{"hidden_act": "gelu_fast"}`))
	assert.ErrorIs(t, err, ErrConfig)
	assert.ErrorContains(t, err, `hidden_act "gelu_fast"`)
}

// tinyBert shrinks c so that building it is cheap.
func tinyBert(c BertConfig) BertConfig {
	c.VocabSize, c.HiddenSize, c.NumHiddenLayers, c.NumAttentionHeads, c.IntermediateSize = 20, 8, 1, 2, 16
	c.MaxPositionEmbeddings = 8
	return c
}
