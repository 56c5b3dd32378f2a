package data

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/cuda"
)

func loadAll(t *testing.T, opts Options) ([]float32, error) {
	t.Helper()
	x := torch.FromSlice([]float32{1, 2, 3, 4, 5, 6, 7, 8}, 4, 2)
	y := torch.FromSlice([]int64{0, 1, 0, 1})
	ds, err := NewTensorDataset(x, y)
	require.NoError(t, err)
	l, err := NewLoader(ds, opts)
	require.NoError(t, err)
	var got []float32
	for l.Scan() {
		in, tg := l.Batch()
		assert.Equal(t, opts.Device.Type, in.Device().Type)
		assert.Equal(t, opts.Device.Type, tg.Device().Type)
		if opts.PinMemory && cuda.IsAvailable() && opts.Device.Type == torch.CPUDevice {
			pinned, err := cuda.IsPinned(in)
			require.NoError(t, err)
			assert.True(t, pinned)
		}
		got = append(got, in.To(torch.CPU).Float32s()...)
	}
	return got, l.Err()
}

// PinMemory without a GPU loads the same batches; with one they are pinned.
func TestPinMemory(t *testing.T) {
	for _, workers := range []int{0, 2} {
		got, err := loadAll(t, Options{BatchSize: 3, Workers: workers, PinMemory: true})
		require.NoError(t, err)
		assert.Equal(t, []float32{1, 2, 3, 4, 5, 6, 7, 8}, got)
	}
}

// Device: batches arrive on the GPU; without one the loader says why.
func TestLoaderDevice(t *testing.T) {
	opts := Options{BatchSize: 3, Workers: 2, PinMemory: true, Device: torch.CUDA(0)}
	got, err := loadAll(t, opts)
	if !cuda.IsAvailable() {
		require.Error(t, err)
		assert.ErrorIs(t, err, cuda.ErrNoDevice)
		assert.Contains(t, err.Error(), "copying the batch's input to cuda:0")
		return
	}
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 6, 7, 8}, got)
}
