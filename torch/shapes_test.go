package torch_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// shapesGolden is the part of testdata/pythonic_tensor.json that
// testdata/pythonic_tensor.py writes for torch/shapes.go.
type shapesGolden struct {
	Broadcast []struct {
		Shapes [][]int64 `json:"shapes"`
		Want   []int64   `json:"want"`
	} `json:"broadcast_shapes"`
	BroadcastBad [][][]int64 `json:"broadcast_shapes_bad"`
	Numel        int64       `json:"numel"`
	GetDeviceCPU int64       `json:"get_device_cpu"`
}

func TestShapeHelpers(t *testing.T) {
	b, err := os.ReadFile("testdata/pythonic_tensor.json")
	require.NoError(t, err)
	var g shapesGolden
	require.NoError(t, json.Unmarshal(b, &g))
	require.NotEmpty(t, g.Broadcast)
	require.NotEmpty(t, g.BroadcastBad)

	for _, c := range g.Broadcast {
		got, err := torch.TryBroadcastShapes(c.Shapes...)
		require.NoError(t, err, "%v", c.Shapes)
		assert.Equal(t, c.Want, got, "%v", c.Shapes)
		assert.Equal(t, c.Want, torch.BroadcastShapes(c.Shapes...), "%v", c.Shapes)
	}
	for _, c := range g.BroadcastBad {
		_, err := torch.TryBroadcastShapes(c...)
		require.Error(t, err, "%v", c)
		var te *torch.Error
		require.ErrorAs(t, err, &te)
		assert.Contains(t, err.Error(), "does not broadcast", "%v", c)
		assert.Panics(t, func() { torch.BroadcastShapes(c...) }, "%v", c)
	}
	_, err = torch.TryBroadcastShapes([]int64{2, -1})
	assert.ErrorContains(t, err, "negative size -1 at dimension 1")
	assert.Equal(t, []int64{}, torch.BroadcastShapes())

	x := torch.Arange(torch.S(24), torch.WithDtype(torch.Float32)).ViewDims(2, 3, 4)
	assert.Equal(t, g.Numel, torch.Numel(x))
	assert.Equal(t, g.GetDeviceCPU, torch.GetDevice(x))
	assert.Panics(t, func() { torch.Numel(torch.Tensor{}) })
	assert.Panics(t, func() { torch.GetDevice(torch.Tensor{}) })
}
