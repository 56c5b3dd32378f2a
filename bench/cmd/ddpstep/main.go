// Command ddpstep times data-parallel training steps with nn/parallel's
// DDP on Gloo: the Fashion-MNIST CNN (examples/fashion_mnist/cnn, Adam) or
// the MLP 784-512-512-10 (SGD) of go run ./bench, on a global batch of 64
// random examples split across the ranks: forward, cross-entropy, backward
// (with the bucketed gradient all-reduce), optimizer step. ddp_step.py is
// the same step in PyTorch. The ddp part of go run ./bench (bench/ddp.go)
// launches both; by hand, with torchrun or gop-torch's launcher:
//
//	go build -o /tmp/ddpstep ./bench/cmd/ddpstep
//	/usr/bin/python3 -m torch.distributed.run --standalone --no_python \
//	    --nproc_per_node 2 --redirects 2 --tee 2 /tmp/ddpstep -steps 60
//
// Each rank uses cores/world intra-op threads (-threads overrides), so
// that 1 and 2 processes use the machine's cores the same way. With
// -plain it trains alone, without DDP or a process group (the
// one-process baseline of the scaling efficiency). Rank 0 prints a line of
// text, or with -json one JSON object: the mean step time over the timed
// steps and the all-reduce time per step (DDPModule.CommTime: each
// bucket's all-reduce from its start to its end, summed, averaged over
// the ranks).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/gotorch/gotorch/classfile"
	"github.com/gotorch/gotorch/examples/fashion_mnist/cnn"
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/nn/parallel"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
)

// Result is what rank 0 prints with -json (bench/ddp.go reads it).
type Result struct {
	Impl     string  `json:"impl"`
	Model    string  `json:"model"`
	World    int     `json:"world"`
	Threads  int     `json:"threads"`
	Batch    int     `json:"batch"` // per rank
	Buckets  int     `json:"buckets"`
	Steps    int     `json:"steps"`
	StepMS   float64 `json:"step_ms"`
	CommMS   float64 `json:"comm_ms"`   // all-reduce time per step
	BucketMB float64 `json:"bucket_mb"` // bucket_cap_mb
}

func main() {
	steps := flag.Int("steps", 60, "timed steps")
	warmup := flag.Int("warmup", 10, "untimed steps first")
	global := flag.Int("batch", 64, "global batch size")
	threads := flag.Int("threads", 0, "intra-op threads per rank (0: cores / world size)")
	model := flag.String("model", "cnn", "cnn (Fashion-MNIST CNN, Adam) or mlp (784-512-512-10, SGD)")
	bucketMB := flag.Float64("bucket-mb", 25, "DDP's bucket_cap_mb")
	plain := flag.Bool("plain", false, "one process without DDP or a process group")
	asJSON := flag.Bool("json", false, "print one JSON object")
	flag.Parse()
	if err := run(*model, *steps, *warmup, *global, *threads, *bucketMB, *plain, *asJSON); err != nil {
		fmt.Fprintln(os.Stderr, "ddpstep:", err)
		os.Exit(1)
	}
}

func run(model string, steps, warmup, global, threads int, bucketMB float64, plain, asJSON bool) error {
	if steps < 1 || warmup < 0 || global < 1 {
		return fmt.Errorf("-steps must be positive, -warmup non-negative and -batch positive")
	}
	var pg *distributed.ProcessGroup
	world, rank := 1, 0
	if !plain {
		var err error
		if pg, err = distributed.InitProcessGroup(distributed.Gloo); err != nil {
			return err
		}
		defer distributed.DestroyProcessGroup()
		world, rank = pg.Size(), pg.Rank()
	}
	if global%world != 0 {
		return fmt.Errorf("global batch %d is not a multiple of the world size %d", global, world)
	}
	n := threads
	if n == 0 {
		n = max(1, runtime.NumCPU()/world)
	}
	torch.SetNumThreads(n)
	torch.ManualSeed(1)
	local := int64(global / world)
	var net interface {
		nn.Moduler
		Forward(torch.Tensor) torch.Tensor
		Parameters() []torch.Tensor
	}
	var opt optim.Optimizer
	var x torch.Tensor
	switch model {
	case "cnn":
		c := classfile.Build(new(cnn.Net))
		net, opt = c, optim.Adam(c.Parameters(), optim.WithLR(1e-3))
		x = torch.Randn([]int64{local, 1, 28, 28})
	case "mlp":
		m := nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
		net, opt = m, optim.SGD(m.Parameters(), optim.WithLR(0.01))
		x = torch.Randn([]int64{local, 784})
	default:
		return fmt.Errorf("-model %q: want cnn or mlp", model)
	}
	y := torch.Randint(10, []int64{local})
	forward := net.Forward
	var ddp *parallel.DDPModule
	if !plain {
		var err error
		if ddp, err = parallel.DDP(net, parallel.WithBucketCapMB(bucketMB)); err != nil {
			return err
		}
		defer ddp.Close()
		forward = ddp.Forward
	}
	barrier := func() error {
		if pg == nil {
			return nil
		}
		return pg.Barrier()
	}
	var start time.Time
	var comm0 time.Duration
	for i := 0; i < warmup+steps; i++ {
		if i == warmup {
			if err := barrier(); err != nil {
				return err
			}
			start = time.Now()
			if ddp != nil {
				comm0 = ddp.CommTime()
			}
		}
		opt.ZeroGrad()
		loss := F.CrossEntropy(forward(x), y)
		if err := loss.TryBackward(); err != nil {
			return err
		}
		opt.Step()
		torch.GC()
	}
	if err := barrier(); err != nil {
		return err
	}
	el := time.Since(start)
	res := Result{Impl: "go", Model: model, World: world, Threads: n, Batch: int(local), Steps: steps,
		StepMS: el.Seconds() * 1000 / float64(steps), BucketMB: bucketMB}
	if ddp != nil {
		res.Buckets = ddp.Buckets()
		comm := torch.FromSlice([]float64{(ddp.CommTime() - comm0).Seconds() * 1000 / float64(steps)}, 1)
		if err := pg.AllReduce(comm, distributed.Avg); err != nil {
			return err
		}
		res.CommMS = comm.Float64s()[0]
	}
	if rank != 0 {
		return nil
	}
	if asJSON {
		return json.NewEncoder(os.Stdout).Encode(res)
	}
	fmt.Printf("go ddp %s: world %d, %d threads/rank, batch %d/rank, buckets %d: %.2f steps/s (%.1f ms/step, all-reduce %.1f ms/step)\n",
		model, world, n, local, res.Buckets, 1000/res.StepMS, res.StepMS, res.CommMS)
	return nil
}
