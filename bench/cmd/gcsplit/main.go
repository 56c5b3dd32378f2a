// Command gcsplit splits the Go MLP training step of the benchmarks into
// its parts, to see where torch.GC()'s pause goes: the step's compute,
// Go's own collection (runtime.GC), torch.GC() right after it (a second
// collection plus freeing the step's tensors), and torch.GC() with nothing
// left to free. It prints the medians:
//
//	go run ./bench/cmd/gcsplit
//	GOMAXPROCS=1 go run ./bench/cmd/gcsplit
//
// The thread count comes from BENCH_THREADS (default 2), as in the workers.
package main

import (
	"flag"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/gotorch/gotorch/bench/internal/worker"
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

func median(x []time.Duration) time.Duration {
	slices.Sort(x)
	return x[len(x)/2]
}

func main() {
	steps := flag.Int("steps", 300, "measured steps (after 20 warm-up steps)")
	flag.Parse()
	worker.Setup()
	net := nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
	opt := optim.SGD(net.Parameters(), optim.WithLR(0.01))
	x, y := worker.MLPBatch()
	var compute, goGC, torchGC, emptyGC []time.Duration
	torch.GC()
	for i := 0; i < *steps+20; i++ {
		t0 := time.Now()
		loss := F.CrossEntropy(net.Forward(x), y)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
		t1 := time.Now()
		runtime.GC()
		t2 := time.Now()
		torch.GC()
		t3 := time.Now()
		torch.GC()
		t4 := time.Now()
		if i >= 20 {
			compute = append(compute, t1.Sub(t0))
			goGC = append(goGC, t2.Sub(t1))
			torchGC = append(torchGC, t3.Sub(t2))
			emptyGC = append(emptyGC, t4.Sub(t3))
		}
	}
	torch.FinishGC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("GOMAXPROCS %d, %d intra-op threads, Go heap in use %d KiB\n", runtime.GOMAXPROCS(0), torch.GetNumThreads(), ms.HeapInuse>>10)
	fmt.Printf("median of %d steps: compute %v, runtime.GC() %v, torch.GC() after it %v, torch.GC() with nothing to free %v\n",
		*steps, median(compute), median(goGC), median(torchGC), median(emptyGC))
}
