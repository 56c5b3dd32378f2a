// Package worker is the Go side of the benchmark harness's worker protocol,
// shared by the Go worker (bench/cmd/gowork) and the Go+ worker
// (bench/gopwork). The C++ (bench/cxx/work.cc) and Python
// (bench/py/work.py) workers speak the same protocol.
//
// A worker runs in one of three modes, named by its first argument:
//
//	serve     read commands from stdin, one a line, "JOB ITERS WARMUP REPS";
//	          run JOB's body ITERS times per repetition, WARMUP untimed
//	          repetitions and then REPS timed ones, and answer one JSON line
//	          {"job":..., "iters":..., "ns":[ns per repetition], "gc_ns":[...]}.
//	          Before the first command it writes a hello line
//	          {"impl":..., "version":..., "threads":...}.
//	startup   do one 4×4 add and print {"first_op_unix_ns": N}, the wall
//	          clock (CLOCK_REALTIME) right after it, then exit.
//	rss N K   take N MLP training steps; after every K steps print
//	          {"step":..., "rss":..., "live":...}; at the end
//	          {"done":true, "total_ns":..., "gc_ns":[...]}.
//
// The thread count comes from BENCH_THREADS (default 2), the device from
// BENCH_DEVICE (cpu, the default, or cuda: the GPU jobs gadd4, gmm4, gmlp,
// gcnn64, gcnn1024 and gtrans, and the models part's jobs, on cuda:0, each
// answer with "peak_bytes", the caching allocator's peak of allocated bytes
// during the job, -1 where it cannot be read).
//
// BENCH_COUNT_ALLOC=1 counts live CPU tensor memory (bench/cxx/countalloc.h):
// every answer then carries "peak_bytes", the most bytes of tensor storage
// live at once since the command was read (the previous job's tensors
// collected first), and "hwm_bytes", the process's peak RSS (VmHWM).
//
// The models part's jobs (ResNet-18, GPT-2 generation, BERT) and their
// shapes (BENCH_MODEL_SHAPES) are in models.go.
package worker

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gotorch/gotorch/bench/internal/countalloc"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/cuda"
)

// Threads is the intra-op thread count the harness asks for (BENCH_THREADS,
// default 2).
func Threads() int {
	if n, err := strconv.Atoi(os.Getenv("BENCH_THREADS")); err == nil && n > 0 {
		return n
	}
	return 2
}

// Setup sets the thread count and the seed, as every worker does first.
// When the device the harness asked for (BENCH_DEVICE) is not there, it
// writes the error as the worker's first line and exits.
func Setup() {
	if err := CheckDevice(); err != nil {
		writeJSON(map[string]any{"error": err.Error()})
		os.Exit(1)
	}
	torch.SetNumThreads(Threads())
	torch.ManualSeed(1)
	if os.Getenv("BENCH_COUNT_ALLOC") != "" {
		countalloc.Install()
	}
}

// Mode is the worker's mode, its first argument ("serve" when none).
func Mode() string {
	if len(os.Args) > 1 {
		return os.Args[1]
	}
	return "serve"
}

// IntArg returns argument i (os.Args[i]) as an int, or def.
func IntArg(i, def int) int {
	if len(os.Args) > i {
		if n, err := strconv.Atoi(os.Args[i]); err == nil {
			return n
		}
	}
	return def
}

func writeJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(append(b, '\n'))
}

// Startup does the first op and prints the wall clock after it.
func Startup() {
	Setup()
	x := torch.Ones([]int64{4, 4})
	y := torch.Add(x, x)
	t := time.Now().UnixNano()
	_ = y
	writeJSON(map[string]any{"first_op_unix_ns": t})
}

// Server reads commands and writes results (serve mode).
type Server struct {
	sc                   *bufio.Scanner
	job                  string
	iters, warmup, reps  int
	done                 int
	ns, gcNS             []int64
	phases               []int64 // see RecordPhases
	impl, version, extra string
}

// NewServer writes the hello line and returns a server reading stdin.
func NewServer(impl string) *Server {
	s := &Server{sc: bufio.NewScanner(os.Stdin), impl: impl}
	writeJSON(map[string]any{"impl": impl, "version": torch.LibtorchVersion(), "threads": torch.GetNumThreads()})
	return s
}

// Next reads the next command; false at the end of input.
func (s *Server) Next() bool {
	for s.sc.Scan() {
		f := strings.Fields(s.sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			writeJSON(map[string]any{"error": fmt.Sprintf("bad command %q", s.sc.Text())})
			continue
		}
		n := make([]int, 3)
		ok := true
		for i := range n {
			v, err := strconv.Atoi(f[i+1])
			if err != nil || v < 0 {
				ok = false
			}
			n[i] = v
		}
		if !ok {
			writeJSON(map[string]any{"error": fmt.Sprintf("bad command %q", s.sc.Text())})
			continue
		}
		s.job, s.iters, s.warmup, s.reps = f[0], n[0], n[1], n[2]
		s.done, s.ns, s.gcNS, s.phases = 0, nil, nil, nil
		if countalloc.Installed() {
			torch.FinishGC()
			countalloc.ResetPeak()
		}
		return true
	}
	return false
}

// Job is the current command's job.
func (s *Server) Job() string { return s.job }

// Iters is the number of iterations (ops or steps) per repetition.
func (s *Server) Iters() int { return s.iters }

// Reps is the number of repetitions to run, warm-up included.
func (s *Server) Reps() int { return s.warmup + s.reps }

// Record records the time of one repetition; warm-up ones are dropped.
func (s *Server) Record(d time.Duration) {
	if s.done >= s.warmup {
		s.ns = append(s.ns, d.Nanoseconds())
	}
	s.done++
}

// RecordGC records the pause of one torch.GC() call of a timed repetition.
func (s *Server) RecordGC(d time.Duration) {
	if s.done >= s.warmup {
		s.gcNS = append(s.gcNS, d.Nanoseconds())
	}
}

// RecordPhases adds the phases of one training step of a timed repetition
// to the answer's phases_ns: forward with the loss (t0 to t1), zero_grad,
// backward and the optimizer step (t3 to t4), as the C++ and Python
// workers time them.
func (s *Server) RecordPhases(t0, t1, t2, t3, t4 time.Time) {
	if s.phases == nil {
		s.phases = make([]int64, 4)
	}
	if s.done >= s.warmup {
		for i, d := range []time.Duration{t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3)} {
			s.phases[i] += d.Nanoseconds()
		}
	}
}

// Done writes the result of the current command; on CUDA with the peak
// of allocated bytes since the job's ResetPeak (peak_bytes).
func (s *Server) Done() {
	m := map[string]any{"job": s.job, "iters": s.iters, "ns": s.ns, "gc_ns": s.gcNS}
	if s.phases != nil {
		m["phases_ns"] = s.phases
	}
	if OnCUDA() {
		m["peak_bytes"] = peakBytes()
	} else if countalloc.Installed() {
		m["peak_bytes"] = countalloc.Peak()
		m["hwm_bytes"] = HWM()
	}
	writeJSON(m)
}

// Unknown answers a command whose job this worker does not have.
func (s *Server) Unknown() {
	writeJSON(map[string]any{"job": s.job, "error": "unknown job " + s.job})
}

// Fail answers the current command with an error: what went wrong, for
// the harness's report, instead of a result.
func (s *Server) Fail(err error) {
	writeJSON(map[string]any{"job": s.job, "error": err.Error()})
}

// HWM returns the peak resident set size of this process in bytes
// (VmHWM in /proc/self/status), -1 if it cannot be read.
func HWM() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// RSS returns the resident set size of this process in bytes, from
// /proc/self/statm.
func RSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return -1
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}

// Sample prints one RSS sample of rss mode: the step count, RSS and live
// tensors.
func Sample(step int) {
	writeJSON(map[string]any{"step": step, "rss": RSS(), "live": torch.ReadMemStats().LiveTensors})
}

// RSSDone prints the end of rss mode: the total time and the GC pauses.
func RSSDone(total time.Duration, gcNS []int64) {
	writeJSON(map[string]any{"done": true, "total_ns": total.Nanoseconds(), "gc_ns": gcNS})
}

// MLPBatch is the synthetic MLP batch: 64 standard-normal 784-vectors and
// random labels in [0, 10).
func MLPBatch() (x, y torch.Tensor) {
	return torch.Randn([]int64{64, 784}), torch.Randint(10, []int64{64})
}

// CNNBatch is the synthetic CNN batch: 64 standard-normal 1×28×28 images
// and random labels in [0, 10).
func CNNBatch() (x, y torch.Tensor) {
	return torch.Randn([]int64{64, 1, 28, 28}), torch.Randint(10, []int64{64})
}

// The device of the workloads: BENCH_DEVICE, "cpu" (the default) or
// "cuda" (the harness's -device cuda: every workload on cuda:0, each
// repetition between two synchronizations, with the peak of the caching
// allocator's allocated bytes in every answer).

// OnCUDA reports whether the harness asked for cuda:0 (BENCH_DEVICE=cuda).
func OnCUDA() bool { return os.Getenv("BENCH_DEVICE") == "cuda" }

// Device is the workloads' device: cuda:0 under BENCH_DEVICE=cuda, the CPU
// otherwise.
func Device() torch.Device {
	if OnCUDA() {
		return torch.CUDA(0)
	}
	return torch.CPU
}

// CheckDevice returns a clear error when the device the harness asked for
// is not there: BENCH_DEVICE other than cpu or cuda, or cuda without a
// CUDA device (or with a libtorch built without CUDA).
func CheckDevice() error {
	switch d := os.Getenv("BENCH_DEVICE"); d {
	case "", "cpu":
		return nil
	case "cuda":
		if !cuda.IsAvailable() {
			return fmt.Errorf("-device cuda: no CUDA device (libtorch has CUDA: %v; devices: %d)", cuda.Built(), cuda.DeviceCount())
		}
		return nil
	default:
		return fmt.Errorf("BENCH_DEVICE=%q: want cpu or cuda", d)
	}
}

// Sync waits for the device's queued work (cuda.Synchronize); nothing on
// the CPU.
func Sync() {
	if OnCUDA() {
		if err := cuda.Synchronize(); err != nil {
			panic(err)
		}
	}
}

// ResetPeak starts a job's peak memory measure (cuda.ResetPeakMemoryStats);
// nothing on the CPU.
func ResetPeak() {
	if OnCUDA() && cuda.HasAllocatorStats() {
		if err := cuda.ResetPeakMemoryStats(0); err != nil {
			panic(err)
		}
	}
}

// peakBytes is cuda:0's peak of allocated bytes since ResetPeak, -1 when
// it cannot be read (the CPU, or a build without the allocator's
// statistics).
func peakBytes() int64 {
	if !OnCUDA() || !cuda.HasAllocatorStats() {
		return -1
	}
	n, err := cuda.MaxMemoryAllocated(0)
	if err != nil {
		return -1
	}
	return n
}

// The GPU workloads (the harness's -device cuda), shared by the Go and
// Go+ workers; the C++ and Python workers have the same.
const (
	GPUMLPBatch = 1024 // MLP 784-512-512-10, Adam
	TransSeq    = 256  // 6 × TransformerEncoderLayer(512, 8, 2048), AdamW: (seq, batch, d)
	TransBatch  = 32
	TransDModel = 512
	TransHeads  = 8
	TransFF     = 2048
	TransLayers = 6
)

// GPUJobBatch returns the synthetic batch of a GPU training job on Device():
// gmlp (1024 × 784, labels), gcnn64 and gcnn1024 (N × 1 × 28 × 28,
// labels), gtrans (256 × 32 × 512 and a target of the same shape). ok is
// false for other jobs.
func GPUJobBatch(job string) (x, y torch.Tensor, ok bool) {
	d := torch.WithDevice(Device())
	switch job {
	case "gmlp":
		return torch.Randn([]int64{GPUMLPBatch, 784}, d), torch.Randint(10, []int64{GPUMLPBatch}, d), true
	case "gcnn64", "gcnn1024":
		n := int64(64)
		if job == "gcnn1024" {
			n = 1024
		}
		return torch.Randn([]int64{n, 1, 28, 28}, d), torch.Randint(10, []int64{n}, d), true
	case "gtrans":
		shape := []int64{TransSeq, TransBatch, TransDModel}
		return torch.Randn(shape, d), torch.Randn(shape, d), true
	}
	return torch.Tensor{}, torch.Tensor{}, false
}
