package torch

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func gib(v float64, shift int) int64 { return int64(v * float64(int64(1)<<shift)) }

// Messages as libtorch words them (1.13 and 2.x CUDA, the CPU allocator).
func TestClassifyOOM(t *testing.T) {
	for _, c := range []struct {
		msg  string
		want *OutOfMemoryError
	}{
		{"CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; 6.55 GiB already allocated; 3.06 MiB free; 6.58 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.",
			&OutOfMemoryError{Device: CUDA(0), Requested: 20 << 20, Total: gib(7.79, 30), Free: gib(3.06, 20)}},
		{"CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.11 GiB of which 1.50 GiB is free. Including non-PyTorch memory, this process has 77.60 GiB memory in use. Of the allocated memory 75.00 GiB is allocated by PyTorch, and 1.20 GiB is reserved by PyTorch but unallocated.",
			&OutOfMemoryError{Device: CUDA(1), Requested: 2 << 30, Total: gib(79.11, 30), Free: gib(1.5, 30)}},
		{"[enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate 4398046511104 bytes. Error code 12 (Cannot allocate memory)",
			&OutOfMemoryError{Device: CPU, Requested: 4398046511104, Total: -1, Free: -1}},
		{"DefaultCPUAllocator: not enough memory: you tried to allocate 64 bytes.",
			&OutOfMemoryError{Device: CPU, Requested: 64, Total: -1, Free: -1}},
		{"CUDA out of memory.", &OutOfMemoryError{Device: Device{CUDADevice, -1}, Requested: -1, Total: -1, Free: -1}},
		{"The size of tensor a (3) must match the size of tensor b (4)", nil},
		{"out of memory", nil}, // too vague to be sure
	} {
		got := classifyOOM(c.msg)
		assert.Equal(t, c.want, got, c.msg)
	}
	e := classifyOOM("CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 79.11 GiB of which 1.50 GiB is free.")
	assert.Equal(t, "out of memory on cuda:1: tried to allocate 2.00 GiB, 79.11 GiB total, 1.50 GiB free", e.Error())
	assert.ErrorIs(t, e, ErrOutOfMemory)
}

// A device source over budget makes the allocating goroutine collect.
func TestDeviceMemoryBudget(t *testing.T) {
	var bytes int64
	RegisterDeviceMemory(DeviceMemory{Type: CUDADevice, Allocated: func() []int64 { return []int64{0, bytes} }})
	defer func() {
		devMem.mu.Lock()
		devMem.srcs = nil
		devMem.last = map[Device]int64{}
		devMem.mu.Unlock()
		devMem.on.Store(false)
	}()
	x := Ones([]int64{1})
	before := ReadMemStats().Collections
	for range 2 * deviceCheckEvery {
		x.Neg()
	}
	assert.False(t, deviceOverBudget())
	bytes = mem.budget.Load() + 1 // cuda:1 grew past the budget
	assert.True(t, deviceOverBudget())
	for range 2 * deviceCheckEvery {
		x.Neg()
	}
	assert.Greater(t, ReadMemStats().Collections, before)
	assert.False(t, deviceOverBudget(), "the collection marks the devices' bytes")
}
