package torch

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Out of memory
//
// libtorch reports an allocation that fails as a c10::Error (CUDA's caching
// allocator: "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; …)";
// the CPU allocator: "DefaultCPUAllocator: can't allocate memory: you tried
// to allocate N bytes"). GoTorch gives such errors a typed cause,
// *OutOfMemoryError, which matches ErrOutOfMemory under errors.Is and names
// the device and the sizes. When one is seen, GoTorch collects at once (the
// memory of unreachable tensors is what a garbage-collected program most
// often lacks) and every generated op runs once more before it fails, so
// that the memory the collection freed is used. RetryOnOOM does the same
// for a larger piece of work, a whole step.

// oomRetries counts the ops run again after an out-of-memory error.
var oomRetries atomic.Int64

// ErrOutOfMemory is the cause (errors.Is) of an op that failed because its
// device ran out of memory. errors.As with *OutOfMemoryError gives the
// details.
var ErrOutOfMemory = errors.New("out of memory")

// OutOfMemoryError details an out-of-memory failure. Sizes that libtorch's
// message did not give are -1; CUDA's messages round them (to 0.01 of the
// unit they print).
type OutOfMemoryError struct {
	Device    Device // where the allocation failed
	Requested int64  // bytes the op tried to allocate
	Total     int64  // the device's total memory (CUDA)
	Free      int64  // the device's free memory then (CUDA)
	// Collected is how many unreachable tensors GoTorch freed when it saw
	// the error, before returning it. A generated op collects and runs once
	// more at its first failure; Collected counts the collection after the
	// second, which frees only what became unreachable in between.
	Collected int
}

func (e *OutOfMemoryError) Error() string {
	s := "out of memory on " + e.Device.String()
	if e.Requested >= 0 {
		s += fmt.Sprintf(": tried to allocate %s", formatBytes(e.Requested))
	}
	if e.Total >= 0 {
		s += fmt.Sprintf(", %s total", formatBytes(e.Total))
	}
	if e.Free >= 0 {
		s += fmt.Sprintf(", %s free", formatBytes(e.Free))
	}
	return s
}

// Is makes errors.Is(err, ErrOutOfMemory) hold.
func (e *OutOfMemoryError) Is(target error) bool { return target == ErrOutOfMemory }

func formatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f := float64(n)
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return strconv.FormatInt(n, 10) + " B"
	}
	return strconv.FormatFloat(f, 'f', 2, 64) + " " + units[i]
}

var (
	oomSize     = `([0-9]+(?:\.[0-9]+)?) ?(B|bytes|KiB|MiB|GiB|TiB)`
	reRequested = regexp.MustCompile(`[Tt]ried to allocate ` + oomSize)
	reGPU       = regexp.MustCompile(`GPU ([0-9]+)`)
	reTotalOld  = regexp.MustCompile(oomSize + ` total capacity`)        // 1.13: "7.79 GiB total capacity"
	reTotalNew  = regexp.MustCompile(`total capacity of ` + oomSize)     // 2.x: "a total capacity of 79.11 GiB"
	reFreeOld   = regexp.MustCompile(`; ` + oomSize + ` free`)           // 1.13: "; 3.06 MiB free"
	reFreeNew   = regexp.MustCompile(`of which ` + oomSize + ` is free`) // 2.x
	unitBytes   = map[string]float64{"B": 1, "bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}
)

func parseSize(re *regexp.Regexp, msg string) int64 {
	m := re.FindStringSubmatch(msg)
	if m == nil {
		return -1
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return -1
	}
	return int64(v * unitBytes[m[2]])
}

// classifyOOM returns the details of an out-of-memory message from
// libtorch, or nil for any other message.
func classifyOOM(msg string) *OutOfMemoryError {
	var e *OutOfMemoryError
	switch {
	case strings.Contains(msg, "CUDA out of memory"):
		e = &OutOfMemoryError{Device: Device{CUDADevice, -1}}
		if m := reGPU.FindStringSubmatch(msg); m != nil {
			e.Device.Index, _ = strconv.Atoi(m[1])
		}
	case strings.Contains(msg, "DefaultCPUAllocator: can't allocate memory"),
		strings.Contains(msg, "DefaultCPUAllocator: not enough memory"),
		strings.Contains(msg, "GoTorch CPUAllocator: can't allocate memory"): // cgotorch/allocator.cc
		e = &OutOfMemoryError{Device: CPU}
	default:
		return nil
	}
	e.Requested = parseSize(reRequested, msg)
	e.Total = parseSize(reTotalNew, msg)
	if e.Total < 0 {
		e.Total = parseSize(reTotalOld, msg)
	}
	e.Free = parseSize(reFreeNew, msg)
	if e.Free < 0 {
		e.Free = parseSize(reFreeOld, msg)
	}
	return e
}

// oomCollecting keeps an out-of-memory error met while collecting (by a
// finalizer, say) from collecting again.
var oomCollecting atomic.Bool

// onOutOfMemory collects the unreachable tensors and tells how many were
// freed, then runs the device hooks (torch/cuda's EmptyCache is not among
// them: the caching allocator reuses what the collection gave back).
func onOutOfMemory() int {
	if !oomCollecting.CompareAndSwap(false, true) {
		return 0
	}
	defer oomCollecting.Store(false)
	mem.Lock()
	stepping := mem.stepping
	mem.Unlock()
	return collect(stepping, sweepTrim)
}

// RetryOnOOM runs f, and runs it once more if it failed for lack of memory
// (an error or a panic that matches ErrOutOfMemory): the failure already
// made GoTorch free every unreachable tensor. A second failure is returned
// as it is. f must be safe to run twice (a training step before
// optimizer.Step, a forward pass).
func RetryOnOOM(f func() error) error {
	err := runCatchingOOM(f)
	if errors.Is(err, ErrOutOfMemory) {
		err = runCatchingOOM(f)
	}
	return err
}

func runCatchingOOM(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok && errors.Is(e, ErrOutOfMemory) {
				err = e
				return
			}
			panic(r)
		}
	}()
	return f()
}

// Device memory under the budget.
//
// The byte budget (SetMemoryBudget) counts the storages of every live
// tensor, whatever its device. A device package with an allocator that
// keeps its own books (torch/cuda, with the caching allocator's statistics)
// registers a DeviceMemory source: every deviceCheckEvery new tensors, and
// then whenever a device's allocated bytes grew by more than the budget
// since the last collection, the allocating goroutine collects, so that a
// GPU's memory is bounded per device and not only in sum.

// DeviceMemory is a source of per-device allocated bytes; see
// RegisterDeviceMemory.
type DeviceMemory struct {
	Type DeviceType
	// Allocated returns the bytes allocated for tensors on each device of
	// Type, indexed by device.
	Allocated func() []int64
}

const deviceCheckEvery = 256

var devMem struct {
	on     atomic.Bool
	mu     sync.Mutex
	srcs   []DeviceMemory
	last   map[Device]int64 // at the last collection
	checks atomic.Int64
}

// RegisterDeviceMemory adds a source of device memory to the collector's
// budget. torch/cuda registers the caching allocator when a GPU is present
// and the build reads its statistics.
func RegisterDeviceMemory(d DeviceMemory) {
	devMem.mu.Lock()
	devMem.srcs = append(devMem.srcs, d)
	if devMem.last == nil {
		devMem.last = map[Device]int64{}
	}
	devMem.mu.Unlock()
	devMem.on.Store(true)
	markDeviceMemory()
}

func readDeviceMemory(f func(dev Device, b int64)) {
	devMem.mu.Lock()
	srcs := devMem.srcs
	devMem.mu.Unlock()
	for _, s := range srcs {
		for i, b := range s.Allocated() {
			f(Device{s.Type, i}, b)
		}
	}
}

// markDeviceMemory records the devices' bytes after a collection.
func markDeviceMemory() {
	if !devMem.on.Load() {
		return
	}
	cur := map[Device]int64{}
	readDeviceMemory(func(d Device, b int64) { cur[d] = b })
	devMem.mu.Lock()
	devMem.last = cur
	devMem.mu.Unlock()
}

// deviceOverBudget reports whether a device's allocated bytes grew by more
// than the budget since the last collection.
func deviceOverBudget() bool {
	budget := mem.budget.Load()
	over := false
	devMem.mu.Lock()
	last := devMem.last
	devMem.mu.Unlock()
	readDeviceMemory(func(d Device, b int64) {
		if b-last[d] > budget {
			over = true
		}
	})
	return over
}

// checkDeviceMemory is newTensor's periodic check.
func checkDeviceMemory() {
	if devMem.checks.Add(1)%deviceCheckEvery != 0 {
		return
	}
	if deviceOverBudget() {
		collectUnderPressure()
	}
}
