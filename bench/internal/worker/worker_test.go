package worker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/cuda"
)

func TestCheckDevice(t *testing.T) {
	t.Setenv("BENCH_DEVICE", "")
	assert.NoError(t, CheckDevice())
	assert.False(t, OnCUDA())
	assert.Equal(t, torch.CPU, Device())
	assert.Equal(t, int64(-1), peakBytes(), "no peak on the CPU")

	t.Setenv("BENCH_DEVICE", "tpu")
	assert.EqualError(t, CheckDevice(), `BENCH_DEVICE="tpu": want cpu or cuda`)

	t.Setenv("BENCH_DEVICE", "cuda")
	assert.True(t, OnCUDA())
	assert.Equal(t, torch.CUDA(0), Device())
	if cuda.IsAvailable() {
		assert.NoError(t, CheckDevice())
		return
	}
	err := CheckDevice()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-device cuda: no CUDA device")
}

func TestGPUJobBatch(t *testing.T) {
	t.Setenv("BENCH_DEVICE", "cpu")
	for job, shapes := range map[string][2][]int64{
		"gmlp":     {{GPUMLPBatch, 784}, {GPUMLPBatch}},
		"gcnn64":   {{64, 1, 28, 28}, {64}},
		"gcnn1024": {{1024, 1, 28, 28}, {1024}},
		"gtrans":   {{TransSeq, TransBatch, TransDModel}, {TransSeq, TransBatch, TransDModel}},
	} {
		x, y, ok := GPUJobBatch(job)
		require.True(t, ok, job)
		assert.Equal(t, shapes[0], x.Shape(), job)
		assert.Equal(t, shapes[1], y.Shape(), job)
		assert.Equal(t, torch.CPU, x.Device(), job)
	}
	_, _, ok := GPUJobBatch("mlp")
	assert.False(t, ok)
}
