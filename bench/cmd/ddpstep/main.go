// Command ddpstep times data-parallel training steps of the Fashion-MNIST
// CNN (examples/fashion_mnist/cnn) with nn/parallel's DDP on Gloo: a
// global batch of 64 random images split across the ranks, forward,
// cross-entropy, backward (the gradient all-reduce) and Adam. Run it with
// gop-torch's launcher or torchrun; ddp_step.py is the same step in
// PyTorch (docs/distributed.md has both commands and the numbers):
//
//	go build -o /tmp/ddpstep ./bench/cmd/ddpstep
//	/usr/bin/python3 -m torch.distributed.run --standalone --no_python \
//	    --nproc_per_node 2 --redirects 2 --tee 2 /tmp/ddpstep -steps 60
//
// Each rank uses cores/world intra-op threads (-threads overrides), so
// that 1 and 2 processes use the machine's cores the same way. Rank 0
// prints steps per second over the timed steps.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/gotorch/gotorch/classfile"
	"github.com/gotorch/gotorch/examples/fashion_mnist/cnn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/nn/parallel"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
)

func main() {
	steps := flag.Int("steps", 60, "timed steps")
	warmup := flag.Int("warmup", 10, "untimed steps first")
	global := flag.Int("batch", 64, "global batch size")
	threads := flag.Int("threads", 0, "intra-op threads per rank (0: cores / world size)")
	flag.Parse()
	pg, err := distributed.InitProcessGroup(distributed.Gloo)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer distributed.DestroyProcessGroup()
	n := *threads
	if n == 0 {
		n = max(1, runtime.NumCPU()/pg.Size())
	}
	torch.SetNumThreads(n)
	torch.ManualSeed(1)
	net := classfile.Build(new(cnn.Net))
	ddp, err := parallel.DDP(net)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	opt := optim.Adam(net.Parameters(), optim.WithLR(1e-3))
	local := int64(*global / pg.Size())
	x := torch.RandN([]int64{local, 1, 28, 28})
	y := torch.RandInt(10, []int64{local})
	var start time.Time
	for i := 0; i < *warmup+*steps; i++ {
		if i == *warmup {
			if err := pg.Barrier(); err != nil {
				panic(err)
			}
			start = time.Now()
		}
		opt.ZeroGrad()
		loss := F.CrossEntropy(ddp.Forward(x), y)
		loss.Backward()
		opt.Step()
		torch.GC()
	}
	if err := pg.Barrier(); err != nil {
		panic(err)
	}
	el := time.Since(start)
	if pg.Rank() == 0 {
		fmt.Printf("go ddp: world %d, %d threads/rank, batch %d/rank, buckets %d: %.2f steps/s (%.1f ms/step)\n",
			pg.Size(), n, local, ddp.Buckets(), float64(*steps)/el.Seconds(), el.Seconds()*1000/float64(*steps))
	}
}
