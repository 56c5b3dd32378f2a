package cuda_test

import (
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/childtest"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/cuda"
)

func needGPU(t *testing.T) {
	t.Helper()
	if !cuda.IsAvailable() {
		t.Skipf("no CUDA device (libtorch has CUDA: %v); GPU tests run under scripts/gpu-check.sh", cuda.Built())
	}
}

func noGPU(t *testing.T) {
	t.Helper()
	if cuda.IsAvailable() {
		t.Skip("a CUDA device is present; this test checks the errors without one")
	}
}

// Without a GPU every function that needs one says so, with errors that
// match ErrNoDevice (and ErrUnsupported when libtorch has no CUDA at all).
func TestNoDeviceErrors(t *testing.T) {
	noGPU(t)
	assert.Equal(t, 0, cuda.DeviceCount())
	x := torch.Ones([]int64{2, 2})
	s := &cuda.Stream{}
	checks := map[string]error{}
	_, checks["current_device"] = cuda.CurrentDevice()
	checks["set_device"] = cuda.SetDevice(0)
	checks["synchronize"] = cuda.Synchronize()
	checks["synchronize_device"] = cuda.SynchronizeDevice(1)
	checks["manual_seed"] = cuda.ManualSeed(1)
	checks["manual_seed_all"] = cuda.ManualSeedAll(1)
	_, checks["memory_allocated"] = cuda.MemoryAllocated(cuda.Current)
	_, checks["max_memory_allocated"] = cuda.MaxMemoryAllocated(0)
	_, checks["memory_reserved"] = cuda.MemoryReserved(0)
	_, checks["max_memory_reserved"] = cuda.MaxMemoryReserved(0)
	checks["reset_peak_memory_stats"] = cuda.ResetPeakMemoryStats(0)
	checks["empty_cache"] = cuda.EmptyCache()
	_, _, checks["mem_get_info"] = cuda.MemGetInfo(0)
	_, checks["stream"] = cuda.NewStream(0, false)
	_, checks["current_stream"] = cuda.CurrentStream(cuda.Current)
	_, checks["default_stream"] = cuda.DefaultStream(0)
	_, checks["event"] = cuda.NewEvent(true)
	checks["with_stream"] = cuda.WithStream(s, func() { t.Error("f must not run") })
	_, checks["pin_memory"] = cuda.PinMemory(x)
	_, checks["to"] = cuda.To(x, torch.CUDA(0), true)
	for name, err := range checks {
		require.Error(t, err, name)
		var te *torch.Error
		require.True(t, errors.As(err, &te), "%s: %T %v", name, err, err)
		if name == "with_stream" {
			continue // a zero Stream is refused first
		}
		assert.ErrorIs(t, err, cuda.ErrNoDevice, name)
		assert.Contains(t, err.Error(), "no CUDA", name)
		if !cuda.Built() {
			assert.ErrorIs(t, err, torch.ErrUnsupported, name)
		} else {
			assert.NotErrorIs(t, err, torch.ErrUnsupported, name)
		}
	}
}

func TestCPUOnlyFacts(t *testing.T) {
	noGPU(t)
	pinned, err := cuda.IsPinned(torch.Ones([]int64{3}))
	require.NoError(t, err)
	assert.False(t, pinned)
	_, err = cuda.IsPinned(torch.Tensor{})
	assert.ErrorIs(t, err, torch.ErrUndefined)
}

// Settings are process-wide flags that work without a GPU, as in PyTorch.
func TestSettingsRoundTrip(t *testing.T) {
	type flag struct {
		name string
		get  func() bool
		set  func(bool)
	}
	for _, f := range []flag{
		{"cudnn.benchmark", cuda.CuDNNBenchmark, cuda.SetCuDNNBenchmark},
		{"cudnn.deterministic", cuda.CuDNNDeterministic, cuda.SetCuDNNDeterministic},
		{"cudnn.allow_tf32", cuda.CuDNNAllowTF32, cuda.SetCuDNNAllowTF32},
		{"cudnn.enabled", cuda.CuDNNEnabled, cuda.SetCuDNNEnabled},
		{"matmul.allow_tf32", cuda.MatmulAllowTF32, cuda.SetMatmulAllowTF32},
	} {
		was := f.get()
		f.set(!was)
		assert.Equal(t, !was, f.get(), f.name)
		f.set(was)
		assert.Equal(t, was, f.get(), f.name)
	}
	// PyTorch's defaults.
	assert.False(t, cuda.CuDNNBenchmark())
	assert.False(t, cuda.CuDNNDeterministic())
	assert.True(t, cuda.CuDNNAllowTF32())
	assert.True(t, cuda.CuDNNEnabled())
}

// To with non_blocking is also a plain copy between CPU tensors' devices.
func TestToOnCPU(t *testing.T) {
	x := torch.FromSlice([]float32{1, 2, 3}, 3)
	y, err := cuda.To(x, torch.CPU, true)
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3}, y.Float32s())
	_, err = cuda.To(torch.Tensor{}, torch.CPU, false)
	assert.ErrorIs(t, err, torch.ErrUndefined)
	x.Free()
	_, err = cuda.To(x, torch.CPU, false)
	assert.ErrorIs(t, err, torch.ErrFreed)
}

func TestNilStreamAndEvent(t *testing.T) {
	var s *cuda.Stream
	var e *cuda.Event
	assert.Error(t, s.Synchronize())
	assert.Error(t, e.Record(nil))
	assert.Error(t, e.Synchronize())
	_, err := e.ElapsedTime(e)
	assert.Error(t, err)
}

// GPU tests: they skip here, and run under scripts/gpu-check.sh.

func TestGPUDevices(t *testing.T) {
	needGPU(t)
	n := cuda.DeviceCount()
	require.Positive(t, n)
	d, err := cuda.CurrentDevice()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, d, 0)
	assert.Less(t, d, n)
	require.NoError(t, cuda.SetDevice(0))
	err = cuda.SetDevice(n)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "out of range")
	require.NoError(t, cuda.Synchronize())
	require.NoError(t, cuda.SynchronizeDevice(0))
	assert.Error(t, cuda.SynchronizeDevice(n+3))
}

func TestGPUSeed(t *testing.T) {
	needGPU(t)
	draw := func() []float32 {
		return torch.Rand([]int64{8}, torch.WithDevice(torch.CUDA(0))).To(torch.CPU).Float32s()
	}
	require.NoError(t, cuda.ManualSeedAll(7))
	a := draw()
	require.NoError(t, cuda.ManualSeed(7))
	b := draw()
	assert.Equal(t, a, b)
	c := draw()
	assert.NotEqual(t, a, c)
}

func TestGPUMemoryStats(t *testing.T) {
	needGPU(t)
	free, total, err := cuda.MemGetInfo(0)
	require.NoError(t, err)
	assert.Positive(t, free)
	assert.GreaterOrEqual(t, total, free)
	if !cuda.HasAllocatorStats() {
		_, err := cuda.MemoryAllocated(0)
		assert.ErrorIs(t, err, torch.ErrUnsupported)
		t.Skip("built without the CUDA toolkit's headers: no allocator statistics")
	}
	torch.GC()
	require.NoError(t, cuda.ResetPeakMemoryStats(0))
	before, err := cuda.MemoryAllocated(0)
	require.NoError(t, err)
	x := torch.Empty([]int64{1 << 20}, torch.WithDevice(torch.CUDA(0))) // 4 MiB
	during, err := cuda.MemoryAllocated(0)
	require.NoError(t, err)
	assert.Equal(t, int64(4<<20), during-before)
	x.Free()
	after, err := cuda.MemoryAllocated(0)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	peak, err := cuda.MaxMemoryAllocated(0)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, peak, during)
	reserved, err := cuda.MemoryReserved(0)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, reserved, after)
	require.NoError(t, cuda.EmptyCache())
	_, err = cuda.MemoryAllocated(99)
	assert.Error(t, err)
}

// A copy on a side stream overlaps a computation on the current one; the
// events time both and the result is right.
func TestGPUStreamsAndEvents(t *testing.T) {
	needGPU(t)
	dev := torch.CUDA(0)
	side, err := cuda.NewStream(0, false)
	require.NoError(t, err)
	cur, err := cuda.CurrentStream(cuda.Current)
	require.NoError(t, err)
	assert.NotEqual(t, side.ID(), cur.ID())
	host, err := cuda.PinMemory(torch.Ones([]int64{1 << 20}))
	require.NoError(t, err)
	pinned, err := cuda.IsPinned(host)
	require.NoError(t, err)
	assert.True(t, pinned)

	start, err := cuda.NewEvent(true)
	require.NoError(t, err)
	end, err := cuda.NewEvent(true)
	require.NoError(t, err)
	require.NoError(t, start.Record(nil))
	a := torch.Rand([]int64{1024, 1024}, torch.WithDevice(dev))
	prod := a.Mm(a) // on the current stream
	var copied torch.Tensor
	require.NoError(t, side.WaitStream(cur))
	require.NoError(t, cuda.WithStream(side, func() {
		copied, err = cuda.To(host, dev, true) // on the side stream
	}))
	require.NoError(t, err)
	require.NoError(t, cur.WaitStream(side))
	require.NoError(t, end.Record(nil))
	require.NoError(t, end.Synchronize())
	el, err := start.ElapsedTime(end)
	require.NoError(t, err)
	assert.Positive(t, el)
	assert.Less(t, el, time.Minute)
	done, err := end.Query()
	require.NoError(t, err)
	assert.True(t, done)
	assert.InDelta(t, float64(1<<20), copied.Sum().To(torch.CPU).Item(), 0)
	assert.Equal(t, []int64{1024, 1024}, prod.Shape())

	untimed, err := cuda.NewEvent(false)
	require.NoError(t, err)
	require.NoError(t, untimed.Record(side))
	_, err = start.ElapsedTime(untimed)
	assert.Error(t, err)
	require.NoError(t, side.Synchronize())
	ok, err := side.Query()
	require.NoError(t, err)
	assert.True(t, ok)
}

// Bad inputs on CUDA give errors: device mismatch, use after free.
func TestGPUBadInputs(t *testing.T) {
	needGPU(t)
	g := torch.Ones([]int64{2, 2}, torch.WithDevice(torch.CUDA(0)))
	c := torch.Ones([]int64{2, 2})
	_, err := g.TryAdd(c)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "device")
	g.Free()
	_, err = g.TryAdd(g)
	assert.ErrorIs(t, err, torch.ErrFreed)
	_, err = cuda.To(g, torch.CPU, true)
	assert.ErrorIs(t, err, torch.ErrFreed)
}

// A CUDA allocation that cannot succeed gives a typed error naming the
// device and the size, and the device stays usable.
func TestGPUOutOfMemory(t *testing.T) {
	needGPU(t)
	_, err := torch.TryEmpty([]int64{1 << 40}, torch.WithDevice(torch.CUDA(0))) // 4 TiB
	require.Error(t, err)
	assert.ErrorIs(t, err, torch.ErrOutOfMemory)
	var oom *torch.OutOfMemoryError
	require.True(t, errors.As(err, &oom), "%v", err)
	assert.Equal(t, torch.CUDADevice, oom.Device.Type)
	assert.Equal(t, 0, oom.Device.Index)
	assert.InDelta(t, float64(int64(4)<<40), float64(oom.Requested), float64(int64(1)<<38))
	x := torch.Ones([]int64{2}, torch.WithDevice(torch.CUDA(0)))
	assert.Equal(t, []float32{2, 2}, x.Add(x).To(torch.CPU).Float32s())
}

// An index out of range inside a kernel (nll_loss's target) trips a
// device-side assert, which poisons the process's CUDA context: libtorch
// reports it asynchronously, at the op or at the next synchronization, and
// every later CUDA call fails. GoTorch turns each failure into an error
// (no crash, no hang), the CPU keeps working, and the process exits
// normally; it must restart to use the GPU again (docs/gpu.md). The
// poisoned context would break every later test, so the check runs in a
// child process.
func TestGPUDeviceSideAssert(t *testing.T) {
	if os.Getenv("GOTORCH_DEVICE_ASSERT_CHILD") == "1" {
		deviceAssertChild(t)
		return
	}
	needGPU(t)
	s := childtest.Rerun(t, "GOTORCH_DEVICE_ASSERT_CHILD", "1", 3*time.Minute)
	t.Logf("child:\n%s", s)
	assert.Contains(t, s, "first error: ")
	assert.Contains(t, s, "device-side assert")
	assert.Contains(t, s, "later CUDA error: ")
	assert.Contains(t, s, "cpu still works: [2 2]")
}

func deviceAssertChild(t *testing.T) {
	dev := torch.WithDevice(torch.CUDA(0))
	logp := torch.Randn([]int64{4, 3}, dev).LogSoftmax(1)
	target := torch.FromSlice([]int64{0, 1, 2, 7}).To(torch.CUDA(0)) // 7: no such class
	var first error
	loss, err := torch.TryNllLoss(logp, target)
	if err == nil {
		_, err = loss.TryItem() // the assert surfaces at the synchronization
	}
	first = err
	require.Error(t, first, "an out-of-range target must fail")
	fmt.Printf("first error: %v\n", first)
	var later error
	if x, err := torch.TryOnes([]int64{2}, dev); err != nil {
		later = err
	} else if s, err := x.TrySum(); err != nil {
		later = err
	} else if _, err := s.TryItem(); err != nil {
		later = err
	}
	require.Error(t, later, "the context is poisoned: later CUDA work fails")
	fmt.Printf("later CUDA error: %v\n", later)
	fmt.Printf("cpu still works: %v\n", torch.Ones([]int64{2}).MulScalar(torch.S(2)).Float32s())
	torch.GC()
}
