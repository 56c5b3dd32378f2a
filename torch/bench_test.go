package torch_test

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/cuda"
	"github.com/gotorch/gotorch/torch/internal/gopbench"
)

// The 4x4 benchmarks measure the per-call overhead of the binding (cgo,
// handle registration, freeing) more than libtorch's kernels. Each op runs
// seven ways in one run, so that the ratios are fair:
//
//   - CxxDirect: the same op called in a C++ loop, no Go at all, with
//     libtorch's default CPU allocator, as a C++ program runs it;
//   - CxxDirectSmallAlloc: the same C++ loop with GoTorch's small-tensor
//     allocator (cgotorch/allocator.cc), which the Go cases use;
//   - Binding: the generated cgo call, and a second one that frees the
//     result, with no Go handle: the floor under the Go cases;
//   - Free: every result freed explicitly;
//   - Auto: no Free, inside a step (after torch.GC()), the way a training
//     loop runs; memory is reclaimed by the budget-triggered collections;
//   - AutoLocked: Auto with the goroutine locked to its OS thread
//     (runtime.LockOSThread), so that it never changes threads at a Go
//     collection (see docs/memory.md);
//   - AutoExact: no Free, outside steps, one registration per tensor;
//   - GoplusRebind, GoplusRebindLocked (add only): no Free either, in a
//     Go+ loop that gop-torch compiled, which frees each result when the
//     variable holding it is rebound (benchGoplus).
//
// On a GPU (GOTORCH_BENCH_DEVICE=cuda, scripts/gpu-check.sh), the same
// cases run on that device and every case ends with a synchronization
// inside its timing, so that ns/op is the time per op of a long stream of
// launches, as bench's gadd4 and gmm4 jobs time it. The cases then split
// GoTorch's per-op time on the GPU into its parts: libtorch in this
// process without Go (CxxDirect), one cgo call more per op (Binding, and
// BindingLocked on one OS thread), GoTorch's handles and registry (Free,
// Auto, AutoLocked, AutoExact). Issue #22 measured 9.8 µs per 4×4 add on
// an H200 against C++'s 5.74 µs, where the CPU shows about 0.3 µs of
// binding overhead; these cases say which part the difference is in.

func benchBinary(b *testing.B, x, y torch.Tensor, mm bool, op func(a, b torch.Tensor) torch.Tensor) {
	ops := func(n int) {
		for range n {
			op(x, y)
		}
	}
	noSmallAlloc := ""
	if !torch.SmallAllocInstalled() {
		noSmallAlloc = "GOTORCH_SMALL_ALLOC=0"
	}
	for _, c := range []struct {
		name    string
		skip    string // why the case does not run, if it does not
		gpuOnly bool   // left out on the CPU, where it would repeat another
		locked  bool   // on one OS thread (runtime.LockOSThread)
		gc      int    // 1: inside a step (after torch.GC()); -1: outside steps
		loop    func(n int)
	}{
		{name: "CxxDirect", loop: func(n int) { torch.BenchDirect(x, y, n, mm, true) }},
		{name: "CxxDirectSmallAlloc", skip: noSmallAlloc, loop: func(n int) { torch.BenchDirect(x, y, n, mm, false) }},
		{name: "Binding", loop: func(n int) { torch.BenchBinding(x, y, n, mm) }},
		{name: "BindingLocked", gpuOnly: true, locked: true, loop: func(n int) { torch.BenchBinding(x, y, n, mm) }},
		{name: "Free", loop: func(n int) {
			for range n {
				op(x, y).Free()
			}
		}},
		{name: "Auto", gc: 1, loop: ops},
		{name: "AutoLocked", locked: true, gc: 1, loop: ops},
		{name: "AutoExact", gc: -1, loop: ops},
	} {
		if c.gpuOnly && benchDevice.Type == torch.CPUDevice {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			if c.skip != "" {
				b.Skip(c.skip)
			}
			if c.locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			switch c.gc {
			case 1:
				torch.GC()
				defer torch.FinishGC()
			case -1:
				torch.FinishGC()
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU(b)
			c.loop(b.N)
			benchSync(b)
			reportCPU(b, cpu0)
		})
	}
}

// benchDevice is where the 4×4 benchmarks' inputs live: the CPU, or the
// device that GOTORCH_BENCH_DEVICE names ("cuda", "cuda:0"; "cpu").
var benchDevice = func() torch.Device {
	s := os.Getenv("GOTORCH_BENCH_DEVICE")
	if s == "" {
		return torch.CPU
	}
	d, err := torch.TryParseDevice(s)
	if err == nil && d.Type != torch.CPUDevice && d.Type != torch.CUDADevice {
		err = fmt.Errorf("%v: the benchmarks read results back, so only cpu and cuda devices", d)
	}
	if err != nil {
		panic(fmt.Sprintf("GOTORCH_BENCH_DEVICE: %v", err))
	}
	return d
}()

// benchInputs returns the 4×4 benchmarks' operands on benchDevice: ones
// and, for an add, twos or, for an mm, the identity. A benchmark on a
// device that is missing fails, naming it.
func benchInputs(b *testing.B, mm bool) (x, y torch.Tensor) {
	d := torch.WithDevice(benchDevice)
	x, err := torch.TryOnes(i64s(4, 4), d)
	if err != nil {
		b.Fatalf("GOTORCH_BENCH_DEVICE=%v: %v", benchDevice, err)
	}
	if mm {
		return x, torch.Eye(4, d)
	}
	return x, torch.Full(i64s(4, 4), torch.S(2.0), d)
}

// benchSync waits for the work queued on a CUDA benchDevice, so that a
// case's time covers its ops' execution, not only their launches.
func benchSync(b *testing.B) {
	if benchDevice.Type != torch.CUDADevice {
		return
	}
	idx := benchDevice.Index
	if idx < 0 {
		idx = cuda.Current
	}
	if err := cuda.SynchronizeDevice(idx); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkAdd4x4(b *testing.B) {
	x, y := benchInputs(b, false)
	benchBinary(b, x, y, false, func(a, b torch.Tensor) torch.Tensor { return torch.Add(a, b) })
	benchGoplus(b, func(n int) { gopbench.AddLoop(x, y, n) })
}

// benchGoplus times a Go+ loop compiled by gop-torch (package gopbench)
// that runs n ops: with no Free in its source, gop-torch frees each
// result when the variable that holds it gets the next one
// (cmd/gop-torch/owned.go). It runs inside a step, as a training script's
// loops do, unlocked and locked to its OS thread as Auto and AutoLocked.
func benchGoplus(b *testing.B, loop func(n int)) {
	for _, locked := range []bool{false, true} {
		name := "GoplusRebind"
		if locked {
			name += "Locked"
		}
		b.Run(name, func(b *testing.B) {
			if locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			torch.GC()
			defer torch.FinishGC()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := processCPU(b)
			loop(b.N)
			benchSync(b)
			b.StopTimer()
			reportCPU(b, cpu0)
		})
	}
}

// BenchmarkAdd4x4Interleaved measures each way of running the 4×4 add
// against the C++ loop (CxxDirect) in alternating blocks of
// interleaveBlock adds within one benchmark, and reports the ratio as the
// metric x-cxx, with the C++ loop's own time as cxx-ns/op (ns/op is the Go
// loop's). This machine's speed drifts in slow waves over seconds; blocks
// of about 10 ms give both loops the same waves, where the separate cases
// of BenchmarkAdd4x4 run seconds apart. The blocks are timed with the
// benchmark timer stopped around the C++ loop.
//
// The Go collection that every 8,192 step tensors start runs inside the
// Auto block that makes them, but the background sweep that follows it may
// still free tensors on the other CPU when the next C++ block starts.
func BenchmarkAdd4x4Interleaved(b *testing.B) {
	x, y := benchInputs(b, false)
	add := func(n int) {
		for range n {
			torch.Add(x, y)
		}
	}
	for _, c := range []struct {
		name   string
		locked bool
		step   bool // run inside a step (after torch.GC())
		loop   func(n int)
	}{
		// The control: the C++ loop against itself reads 1.0 unless
		// the alternation favours one side.
		{"CxxDirect", false, false, func(n int) { torch.BenchDirect(x, y, n, false, true) }},
		{"Free", false, false, func(n int) {
			for range n {
				torch.Add(x, y).Free()
			}
		}},
		{"Auto", false, true, add},
		{"AutoLocked", true, true, add},
		{"GoplusRebind", false, true, func(n int) { gopbench.AddLoop(x, y, n) }},
		{"GoplusRebindLocked", true, true, func(n int) { gopbench.AddLoop(x, y, n) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			if c.step {
				torch.GC()
				defer torch.FinishGC()
			}
			b.ReportAllocs()
			b.ResetTimer()
			var cxx time.Duration
			for done := 0; done < b.N; {
				k := min(interleaveBlock, b.N-done)
				b.StopTimer()
				t0 := time.Now()
				torch.BenchDirect(x, y, k, false, true)
				benchSync(b)
				cxx += time.Since(t0)
				b.StartTimer()
				c.loop(k)
				benchSync(b)
				done += k
			}
			b.StopTimer()
			cxxNs := float64(cxx.Nanoseconds()) / float64(b.N)
			b.ReportMetric(cxxNs, "cxx-ns/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/cxxNs, "x-cxx")
		})
	}
}

// interleaveBlock is how many ops each loop of BenchmarkAdd4x4Interleaved
// runs before the other takes over: about 10 ms of 4×4 adds.
const interleaveBlock = 20000

func BenchmarkMM4x4(b *testing.B) {
	x, y := benchInputs(b, true)
	benchBinary(b, x, y, true, torch.Mm)
}

// BenchmarkAdd4x4Floor measures what any memory management that learns
// from Go's collector which tensors died must pay, however cheap its
// registration: the 4×4 add through the bare binding (as in Binding) with
// every result freed Lag tensors late, in batches, and with a full Go
// collection per batch (GC). Compare with Add4x4/CxxDirect in the same run;
// docs/memory.md discusses the numbers.
func BenchmarkAdd4x4Floor(b *testing.B) {
	x, y := benchInputs(b, false)
	for _, c := range []struct {
		lag int
		gc  bool
	}{{1, false}, {1024, false}, {8192, false}, {1024, true}, {4096, true}, {8192, true}} {
		name := fmt.Sprintf("Lag%d", c.lag)
		if c.gc {
			name += "GC"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			torch.BenchLate(x, y, b.N, c.lag, c.gc)
			benchSync(b)
		})
	}
}

// onBenchThread runs f on one OS thread that stays locked to a goroutine
// of its own for the rest of the test binary, and waits for it. testing
// runs every benchmark function, and each of its calls, on a new
// goroutine, which may land on another OS thread; every thread that starts
// a parallel op keeps an OpenMP team, and with two teams each parallel op
// waits for sleeping workers (BenchmarkOpenMPTeams). Running the 256×256
// benchmarks here starts all their parallel ops from one thread, as a
// training script's ops are (classfile locks it): run on the benchmarks'
// own goroutines, the 256×256 GopExpr cases read 72–86 µs for Free and
// Temp in one process, against 10.8 and 16.9 µs each alone.
func onBenchThread(f func()) {
	benchThreadOnce.Do(func() {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread is the benchmarks'
			for g := range benchCalls {
				g()
			}
		}()
	})
	done := make(chan struct{})
	benchCalls <- func() {
		defer close(done)
		f()
	}
	<-done
}

var (
	benchThreadOnce sync.Once
	benchCalls      = make(chan func())
)

func BenchmarkAdd256(b *testing.B) {
	b.ReportAllocs()
	onBenchThread(func() {
		x := torch.Ones(i64s(256, 256))
		y := torch.Full(i64s(256, 256), torch.S(2.0))
		b.ResetTimer()
		for range b.N {
			torch.Add(x, y).Free()
		}
		b.StopTimer()
	})
}

// BenchmarkGC measures the pause of torch.GC() at the end of a step that
// made 1,000 tensors; the tensors are made with the timer stopped.
func BenchmarkGC(b *testing.B) { benchGC(b) }

// BenchmarkGCLocked is BenchmarkGC on a goroutine locked to its OS thread,
// as a *_train.gox script runs (classfile.Gopt_Trainer_Main). A locked
// goroutine is handed its thread back at every yield of runtime.GC's
// sweep, so this reads about twice BenchmarkGC (see goGC).
func BenchmarkGCLocked(b *testing.B) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	benchGC(b)
}

func benchGC(b *testing.B) {
	x := torch.Ones(i64s(4, 4))
	torch.GC()
	defer torch.FinishGC()
	for b.Loop() {
		b.StopTimer()
		for range 1000 {
			x.Add(x)
		}
		b.StartTimer()
		torch.GC()
	}
}

// BenchmarkGopExpr times a + b*c as Go+ code runs it, in steps of 100
// expressions that start with torch.GC(), as gop-torch's loops do: with
// the product left to the collector (Plain), marked as a temporary that
// the addition frees at once (Temp), as gop-torch generates it, and with
// both the product and the sum freed by hand (Free).
func BenchmarkGopExpr(b *testing.B) {
	for _, n := range []int64{4, 256} {
		for _, c := range []struct {
			name string
			expr func(x, y, z torch.Tensor)
		}{
			{"Plain", func(x, y, z torch.Tensor) { x.Gop_Add(y.Gop_Mul(z)) }},
			{"Temp", func(x, y, z torch.Tensor) { x.Gop_Add(torch.Temp(y.Gop_Mul(z))) }},
			{"Free", func(x, y, z torch.Tensor) {
				t := y.Gop_Mul(z)
				x.Gop_Add(t).Free()
				t.Free()
			}},
		} {
			b.Run(fmt.Sprintf("%dx%d/%s", n, n, c.name), func(b *testing.B) {
				loop := func() {
					x := torch.Ones(i64s(n, n))
					y := torch.Full(i64s(n, n), torch.S(2.0))
					z := torch.Full(i64s(n, n), torch.S(3.0))
					defer torch.FinishGC()
					b.ResetTimer()
					for i := range b.N {
						if i%100 == 0 {
							torch.GC()
						}
						c.expr(x, y, z)
					}
					b.StopTimer()
				}
				if n < 256 {
					// No parallel ops, and GC() on a locked thread would
					// dominate steps of 100 tiny expressions (about 5.6
					// against 2.2 µs an expression; BenchmarkGCLocked).
					loop()
					return
				}
				// On one locked OS thread, as a *_train.gox script runs.
				onBenchThread(loop)
			})
		}
	}
}

// BenchmarkOpenMPTeams times a 256×256 add (parallel in libtorch: two
// OpenMP threads here) with explicit Free, on a goroutine locked to its OS
// thread: alone (OneTeam); while another OS thread that has run a parallel
// op is alive (TwoTeams); while another thread that ran the same op with
// SetThreadNumThreads(1), as the data package's loader workers do, is
// alive (OtherSerial); and while one that ran it with a team first and
// then called SetThreadNumThreads(1), which ends that team, is alive
// (OtherSerialAfterTeam). libgomp keeps a team of worker threads per OS
// thread that starts parallel regions, and when it manages more threads
// than there are CPUs its workers stop spinning between regions and sleep,
// so every region pays futex wake-ups. A Go program gets such teams
// whenever parallel ops run on more than one OS thread (goroutines change
// threads; loaders run ops on their own goroutines). Threads that ran
// parallel ops before, in this process, may already have teams, so OneTeam
// can read slow when it runs after other benchmarks; every case runs on
// the same thread (onBenchThread). See docs/memory.md.
func BenchmarkOpenMPTeams(b *testing.B) {
	run := func(b *testing.B, other func(x, y torch.Tensor)) {
		onBenchThread(func() {
			x := torch.Ones(i64s(256, 256))
			y := torch.Full(i64s(256, 256), torch.S(2.0))
			if other != nil {
				ready, done := make(chan bool), make(chan bool)
				go func() {
					// Never unlocked: the thread, and its OpenMP team,
					// end with the goroutine.
					runtime.LockOSThread()
					other(x, y)
					ready <- true
					<-done
				}()
				<-ready
				defer close(done)
			}
			b.ResetTimer()
			for range b.N {
				torch.Add(x, y).Free()
			}
			b.StopTimer()
		})
	}
	b.Run("OneTeam", func(b *testing.B) { run(b, nil) })
	b.Run("TwoTeams", func(b *testing.B) {
		run(b, func(x, y torch.Tensor) { torch.Add(x, y).Free() })
	})
	b.Run("OtherSerial", func(b *testing.B) {
		run(b, func(x, y torch.Tensor) {
			torch.SetThreadNumThreads(1)
			torch.Add(x, y).Free()
		})
	})
	b.Run("OtherSerialAfterTeam", func(b *testing.B) {
		run(b, func(x, y torch.Tensor) {
			torch.Add(x, y).Free() // starts a team on the other thread
			torch.SetThreadNumThreads(1)
			torch.Add(x, y).Free()
		})
	})
}
