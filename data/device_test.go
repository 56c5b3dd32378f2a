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

// On the CPU the device path does nothing: the batch's own tensors come
// back, no copy stream is made and there is no event to wait for.
func TestToDeviceOnCPU(t *testing.T) {
	x, y := torch.Randn([]int64{3, 2}), torch.Randint(5, []int64{3})
	for _, opts := range []Options{{BatchSize: 1}, {BatchSize: 1, Device: torch.CPU}, {BatchSize: 1, PinMemory: true}} {
		if opts.PinMemory && cuda.IsAvailable() {
			continue // pinning copies with a GPU present
		}
		l, err := NewLoader(tensorDatasetOf(t, x, y), opts)
		require.NoError(t, err)
		gx, gy, ready, err := l.toDevice(x, y)
		require.NoError(t, err)
		assert.True(t, gx == x && gy == y, "%+v: the same tensors", opts)
		assert.Nil(t, ready, "%+v: no copy to wait for", opts)
		assert.Nil(t, l.copies.s, "%+v: no side stream", opts)
		assert.NoError(t, l.awaitBatch(ready, Batch{Input: gx, Target: gy}))
	}
}

// On a GPU the copies go to the loader's side stream, not the consumer's,
// and the batches arrive whole, with and without loading goroutines.
func TestLoaderDeviceSideStream(t *testing.T) {
	if !cuda.IsAvailable() {
		t.Skip("no CUDA device: the side-stream copies run under scripts/gpu-check.sh")
	}
	for _, workers := range []int{0, 2} {
		got, err := loadAll(t, Options{BatchSize: 3, Workers: workers, PinMemory: true, Device: torch.CUDA(0)})
		require.NoError(t, err)
		assert.Equal(t, []float32{1, 2, 3, 4, 5, 6, 7, 8}, got, "workers %d", workers)
	}
	l, err := NewLoader(tensorDatasetOf(t, torch.Randn([]int64{4, 2}), torch.Randint(5, []int64{4})), Options{BatchSize: 2, Device: torch.CUDA(0)})
	require.NoError(t, err)
	require.True(t, l.Scan(), l.Err())
	side, cur := l.copies.s, must(cuda.CurrentStream(0))
	require.NotNil(t, side)
	assert.NotEqual(t, cur.ID(), side.ID(), "the copies are not on the consumer's stream")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// tensorDatasetOf is NewTensorDataset that fails t on an error.
func tensorDatasetOf(t *testing.T, x, y torch.Tensor) Dataset {
	t.Helper()
	ds, err := NewTensorDataset(x, y)
	require.NoError(t, err)
	return ds
}
