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
// of Batch tensors once every Every tensors made. The 4×4 add runs without
// Free inside a step, locked to its OS thread, as bench's add4 job does.
// The settings take turns in blocks of interleaveBlock adds, so that they
// share the machine's slow drifts; each reports its wall and CPU time per
// add (metrics ns/op-B-E and cpu-ns/op-B-E). glibc's per-thread cache
// holds 7 blocks per size: batches above that send frees to the arena.
func BenchmarkAdd4x4Drain(b *testing.B) {
	x, y := benchInputs(b, false)
	settings := []struct{ batch, every int }{{16, 8}, {6, 6}, {6, 5}, {7, 7}}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	torch.GC()
	defer torch.FinishGC()
	wall := make([]time.Duration, len(settings))
	cpu := make([]time.Duration, len(settings))
	ops := make([]int, len(settings))
	b.ResetTimer()
	for done, i := 0, 0; done < b.N; i = (i + 1) % len(settings) {
		k := min(interleaveBlock, b.N-done)
		s := settings[i]
		restore := torch.SetDrain(s.batch, s.every)
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
		name := fmt.Sprintf("%d-%d", s.batch, s.every)
		b.ReportMetric(float64(wall[i].Nanoseconds())/float64(ops[i]), "ns/op-"+name)
		b.ReportMetric(float64(cpu[i].Nanoseconds())/float64(ops[i]), "cpu-ns/op-"+name)
	}
}
