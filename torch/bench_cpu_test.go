package torch_test

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/gotorch/gotorch/torch"
)

// processCPU is the CPU time the whole process has used, every thread
// (Go's collector, the background sweeps, OpenMP workers) included. On a
// loaded machine it varies much less than wall time: a benchmark that
// waits for a CPU does not count the wait.
func processCPU(b *testing.B) time.Duration {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// reportCPU reports the process's CPU time per op since cpu0 as cpu-ns/op.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64((processCPU(b)-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkAdd4x4Drain compares ways of freeing the small tensors that a
// background sweep leaves to the allocating goroutine (drainSome): a batch
// of B tensors once every E tensors made (metrics ns/op-B-E and
// cpu-ns/op-B-E). glibc's per-thread cache holds 7 blocks per size:
// batches above that send frees to the arena.
func BenchmarkAdd4x4Drain(b *testing.B) {
	var settings []benchSetting
	for _, d := range []struct{ batch, every int }{{16, 8}, {6, 6}, {6, 5}, {7, 7}} {
		settings = append(settings, benchSetting{
			fmt.Sprintf("%d-%d", d.batch, d.every),
			func() func() { return torch.SetDrain(d.batch, d.every) },
		})
	}
	benchAdd4x4Settings(b, settings, interleaveBlock)
}

// BenchmarkAdd4x4Trigger compares how many step tensors start a background
// Go collection (metrics ns/op-N and cpu-ns/op-N): fewer keep the freed
// blocks warm, more pay for fewer collections. Each block is four times
// the largest setting, so that every setting collects within its blocks;
// the GC() between blocks (untimed) frees what a block leaves, less than
// 2% of a block's work.
func BenchmarkAdd4x4Trigger(b *testing.B) {
	var settings []benchSetting
	for _, n := range []int{8192, 16384, 32768} {
		settings = append(settings, benchSetting{
			fmt.Sprint(n),
			func() func() { return torch.SetCountTrigger(n) },
		})
	}
	benchAdd4x4Settings(b, settings, 4*32768)
}

// benchSetting is one of the settings that benchAdd4x4Settings compares:
// set applies it and returns what restores the previous one.
type benchSetting struct {
	name string
	set  func() (restore func())
}

// benchAdd4x4Settings runs the 4×4 add without Free inside a step, locked
// to its OS thread as bench's add4 job does, under each setting in turn,
// in blocks of block adds, so that the settings share the machine's slow
// drifts; each reports its wall and CPU time per add. Each block starts
// with a GC(), untimed, which ends the step and frees what is dead.
func benchAdd4x4Settings(b *testing.B, settings []benchSetting, block int) {
	x, y := benchInputs(b, false)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	torch.GC()
	defer torch.FinishGC()
	wall := make([]time.Duration, len(settings))
	cpu := make([]time.Duration, len(settings))
	ops := make([]int, len(settings))
	b.ResetTimer()
	for done, i := 0, 0; done < b.N; i = (i + 1) % len(settings) {
		k := min(block, b.N-done)
		b.StopTimer()
		torch.GC()
		b.StartTimer()
		restore := settings[i].set()
		c0, t0 := processCPU(b), time.Now()
		for range k {
			torch.Add(x, y)
		}
		wall[i] += time.Since(t0)
		cpu[i] += processCPU(b) - c0
		restore()
		ops[i] += k
		done += k
	}
	b.StopTimer()
	for i, s := range settings {
		if ops[i] == 0 {
			continue
		}
		b.ReportMetric(float64(wall[i].Nanoseconds())/float64(ops[i]), "ns/op-"+s.name)
		b.ReportMetric(float64(cpu[i].Nanoseconds())/float64(ops[i]), "cpu-ns/op-"+s.name)
	}
}
