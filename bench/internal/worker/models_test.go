package worker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestShapes(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want ModelShapes
	}{
		{"", ModelShapes{Image: 224, GPT2Layers: 12, BertLayers: 12, BertSeq: 128}},
		{"full", ModelShapes{Image: 224, GPT2Layers: 12, BertLayers: 12, BertSeq: 128}},
		{"small", ModelShapes{Image: 64, GPT2Layers: 2, BertLayers: 2, BertSeq: 32}},
	} {
		t.Setenv("BENCH_MODEL_SHAPES", tc.env)
		got, err := Shapes()
		require.NoError(t, err, tc.env)
		assert.Equal(t, tc.want, got, tc.env)
	}
	t.Setenv("BENCH_MODEL_SHAPES", "huge")
	_, err := Shapes()
	assert.EqualError(t, err, `BENCH_MODEL_SHAPES="huge": want full or small`)
}

func TestIsModelJob(t *testing.T) {
	for _, j := range []string{"r18b1", "r18b32", "r18train", "gpt2gen", "bert"} {
		assert.True(t, IsModelJob(j), j)
	}
	for _, j := range []string{"", "mlp", "gtrans", "r18", "bert "} {
		assert.False(t, IsModelJob(j), j)
	}
}
