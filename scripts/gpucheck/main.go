// Command gpucheck times GoTorch on cuda:0 for scripts/gpu-check.sh: a 4×4
// add and a 4×4 mm per op (median of 5 runs of 20,000 ops, synchronized at
// both ends, torch.GC every 1,000 ops), and an MLP training step
// (784-512-512-10, SGD, batch 1024, median of 100 steps after 10 of
// warm-up, loss.Item() ending each), with the caching allocator's peak.
// ops.py beside it does the same in PyTorch. Without a GPU it says so and
// exits 0.
package main

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/cuda"
)

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpucheck:", err)
		os.Exit(1)
	}
}

func perOp(name string, f func(a, b torch.Tensor) torch.Tensor) {
	dev := torch.CUDA(0)
	a := torch.Rand([]int64{4, 4}, torch.WithDevice(dev))
	b := torch.Rand([]int64{4, 4}, torch.WithDevice(dev))
	const n = 20000
	var runs []time.Duration
	for r := 0; r < 5; r++ {
		check(cuda.Synchronize())
		start := time.Now()
		for i := 0; i < n; i++ {
			f(a, b)
			if i%1000 == 999 {
				torch.GC()
			}
		}
		check(cuda.Synchronize())
		runs = append(runs, time.Since(start)/n)
	}
	torch.FinishGC()
	fmt.Printf("go %s 4x4 per op: %v (runs %v)\n", name, median(runs), runs)
}

func mlpStep() {
	dev := torch.CUDA(0)
	opts := []torch.Option{torch.WithDevice(dev)}
	w1 := torch.Randn([]int64{784, 512}, opts...).MulScalar(torch.S(0.03)).SetRequiresGrad(true)
	w2 := torch.Randn([]int64{512, 512}, opts...).MulScalar(torch.S(0.04)).SetRequiresGrad(true)
	w3 := torch.Randn([]int64{512, 10}, opts...).MulScalar(torch.S(0.04)).SetRequiresGrad(true)
	x := torch.Randn([]int64{1024, 784}, opts...)
	y := torch.Randint(10, []int64{1024}, opts...)
	params := []torch.Tensor{w1, w2, w3}
	step := func() {
		torch.GC()
		loss := torch.CrossEntropyLoss(x.Mm(w1).Relu().Mm(w2).Relu().Mm(w3), y)
		loss.Backward()
		torch.NoGrad(func() {
			for _, p := range params {
				p.Sub_(p.Grad().MulScalar(torch.S(0.01)))
				p.Grad().Zero_()
			}
		})
		loss.Item()
	}
	for i := 0; i < 10; i++ {
		step()
	}
	if cuda.HasAllocatorStats() {
		check(cuda.ResetPeakMemoryStats(0))
	}
	var steps []time.Duration
	for i := 0; i < 100; i++ {
		start := time.Now()
		step()
		steps = append(steps, time.Since(start))
	}
	torch.FinishGC()
	peak := "n/a (built without -DGOTORCH_CUDA)"
	if cuda.HasAllocatorStats() {
		p, err := cuda.MaxMemoryAllocated(0)
		check(err)
		peak = fmt.Sprintf("%.1f MiB", float64(p)/(1<<20))
	}
	fmt.Printf("go mlp step (784-512-512-10, batch 1024): %v, max_memory_allocated %s\n", median(steps), peak)
}

func main() {
	if !cuda.IsAvailable() {
		fmt.Println("gpucheck: no CUDA device (libtorch has CUDA:", cuda.Built(), "); nothing timed")
		return
	}
	free, total, err := cuda.MemGetInfo(0)
	check(err)
	fmt.Printf("cuda devices %d, cuda:0 free %.0f / %.0f MiB, cuDNN %v, libtorch %s\n",
		cuda.DeviceCount(), float64(free)/(1<<20), float64(total)/(1<<20), cuda.CuDNNAvailable(), torch.LibtorchVersion())
	perOp("add", func(a, b torch.Tensor) torch.Tensor { return a.Add(b) })
	perOp("mm", func(a, b torch.Tensor) torch.Tensor { return a.Mm(b) })
	mlpStep()
}
