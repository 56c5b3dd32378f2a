// Command gowork is the Go worker of the benchmark harness (go run ./bench):
// the workloads written in plain Go as a GoTorch user would write them,
// with automatic memory management (no Free; torch.GC() at each step
// boundary). See package bench/internal/worker for the protocol.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/gotorch/gotorch/bench/internal/worker"
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

func main() {
	// As the README advises for training loops, and as *_train.gox scripts
	// get from the classfile framework: ops start from one OS thread, so
	// libgomp keeps one OpenMP team (docs/memory.md, "OpenMP teams").
	runtime.LockOSThread()
	switch worker.Mode() {
	case "startup":
		worker.Startup()
	case "serve":
		worker.Setup()
		serve()
	case "rss":
		worker.Setup()
		rss(worker.IntArg(2, 10000), worker.IntArg(3, 500))
	default:
		fmt.Fprintln(os.Stderr, "usage: gowork serve | startup | rss STEPS EVERY")
		os.Exit(2)
	}
}

func serve() {
	s := worker.NewServer("go")
	for s.Next() {
		job := s.Job()
		switch {
		case job == "mlp":
			train(s, mlp(), worker.MLPBatch, func(p []torch.Tensor) optim.Optimizer {
				return optim.SGD(p, optim.WithLR(0.01))
			})
		case job == "cnn":
			train(s, cnn(), worker.CNNBatch, func(p []torch.Tensor) optim.Optimizer {
				return optim.Adam(p, optim.WithLR(1e-3))
			})
		case job == "gadd4" || job == "gmm4":
			gpuPerOp(s, job)
		case job == "gmlp" || job == "gcnn64" || job == "gcnn1024" || job == "gtrans":
			gpuTrain(s, job)
		case worker.IsModelJob(job): // models.go
			if err := modelJob(s, job); err != nil {
				s.Fail(err)
				continue
			}
		case job == "trans":
			// The transformer step on the CPU: the GPU job's code.
			gpuTrain(s, "gtrans")
		case strings.HasPrefix(job, "add") || strings.HasPrefix(job, "mm"):
			if !perOp(s, job) {
				s.Unknown()
				continue
			}
		default:
			s.Unknown()
			continue
		}
		s.Done()
	}
}

// perOp runs one op on fixed inputs: add or mm, 4×4 or 256×256, with a
// trailing g for inputs that require grad. A repetition is one step: it
// starts with torch.GC(), which frees the previous repetition's results,
// and runs the op ITERS times, dropping the results as a user would.
func perOp(s *worker.Server, job string) bool {
	grad := strings.HasSuffix(job, "g")
	name := strings.TrimSuffix(job, "g")
	var n int64
	var op func(a, b torch.Tensor) torch.Tensor
	switch name {
	case "add4", "add256":
		op = func(a, b torch.Tensor) torch.Tensor { return torch.Add(a, b) }
	case "mm4", "mm256":
		op = torch.Mm
	default:
		return false
	}
	if strings.HasSuffix(name, "256") {
		n = 256
	} else {
		n = 4
	}
	x := torch.Randn([]int64{n, n}).SetRequiresGrad(grad)
	y := torch.Randn([]int64{n, n}).SetRequiresGrad(grad)
	iters := s.Iters()
	for r := 0; r < s.Reps(); r++ {
		t0 := time.Now()
		torch.GC()
		for i := 0; i < iters; i++ {
			op(x, y)
		}
		s.Record(time.Since(t0))
	}
	torch.FinishGC()
	return true
}

func mlp() nn.Moduler {
	return nn.Sequential(
		nn.Linear(784, 512), nn.ReLU(),
		nn.Linear(512, 512), nn.ReLU(),
		nn.Linear(512, 10),
	)
}

// cnn is the model of examples/fashion_mnist_go in one Sequential.
func cnn() nn.Moduler {
	return nn.Sequential(
		nn.Conv2d(1, 32, 3, nn.WithPadding(1)), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
		nn.Conv2d(32, 64, 3, nn.WithPadding(1)), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
		nn.Flatten(), nn.Dropout(nn.WithP(0.25)),
		nn.Linear(64*7*7, 128), nn.ReLU(), nn.Dropout(nn.WithP(0.5)),
		nn.Linear(128, 10),
	)
}

type model interface {
	Forward(torch.Tensor) torch.Tensor
	Parameters() []torch.Tensor
}

// train times training steps: a repetition is ITERS steps, each starting
// with torch.GC() (timed on its own too: the GC pause), then a
// torch.FinishGC() that ends the loop, as a training loop would.
func train(s *worker.Server, m nn.Moduler, batch func() (torch.Tensor, torch.Tensor), newOpt func([]torch.Tensor) optim.Optimizer) {
	net := m.(model)
	opt := newOpt(net.Parameters())
	x, y := batch()
	iters := s.Iters()
	for r := 0; r < s.Reps(); r++ {
		t0 := time.Now()
		for i := 0; i < iters; i++ {
			g0 := time.Now()
			torch.GC()
			p0 := time.Now()
			s.RecordGC(p0.Sub(g0))
			loss := F.CrossEntropy(net.Forward(x), y)
			p1 := time.Now()
			opt.ZeroGrad()
			p2 := time.Now()
			loss.Backward()
			p3 := time.Now()
			opt.Step()
			s.RecordPhases(p0, p1, p2, p3, time.Now())
		}
		torch.FinishGC()
		s.Record(time.Since(t0))
	}
}

// rss takes steps MLP training steps and samples RSS and live tensors
// after every `every` steps, right after the next step's torch.GC().
func rss(steps, every int) {
	net := mlp().(model)
	opt := optim.SGD(net.Parameters(), optim.WithLR(0.01))
	x, y := worker.MLPBatch()
	gc := make([]int64, 0, steps)
	t0 := time.Now()
	for i := 0; i <= steps; i++ {
		g0 := time.Now()
		torch.GC()
		gc = append(gc, time.Since(g0).Nanoseconds())
		if i > 0 && i%every == 0 {
			worker.Sample(i)
		}
		if i == steps {
			break
		}
		loss := F.CrossEntropy(net.Forward(x), y)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	torch.FinishGC()
	worker.RSSDone(time.Since(t0), gc)
}

// gpuPerOp is the GPU harness's per-op job (gadd4, gmm4) on
// worker.Device(): a repetition is ITERS ops between two synchronizations,
// with a torch.GC() every 1,000 ops, as a loop with its own collections.
func gpuPerOp(s *worker.Server, job string) {
	op := torch.Mm
	if job == "gadd4" {
		op = func(a, b torch.Tensor) torch.Tensor { return torch.Add(a, b) }
	}
	d := torch.WithDevice(worker.Device())
	torch.GC() // the previous job's tensors
	worker.ResetPeak()
	x, y := torch.Randn([]int64{4, 4}, d), torch.Randn([]int64{4, 4}, d)
	iters := s.Iters()
	for r := 0; r < s.Reps(); r++ {
		worker.Sync()
		t0 := time.Now()
		for i := 0; i < iters; i++ {
			if i%1000 == 0 {
				torch.GC()
			}
			op(x, y)
		}
		worker.Sync()
		s.Record(time.Since(t0))
		torch.FinishGC()
	}
}

// transformer is the GPU harness's 6 × TransformerEncoderLayer(512, 8,
// 2048) encoder, input (seq, batch, feature).
type transformer struct {
	*nn.TransformerEncoderModule
}

func (t transformer) Forward(x torch.Tensor) torch.Tensor {
	return t.TransformerEncoderModule.Forward(x)
}

// gpuTrain is the GPU harness's training job on worker.Device(): gmlp
// (Adam), gcnn64 and gcnn1024 (Adam), gtrans (AdamW, MSE loss against a
// random target). Each step starts with torch.GC() and ends with
// loss.Item(); the peak memory is measured from the model's creation.
func gpuTrain(s *worker.Server, job string) {
	torch.GC() // the previous job's tensors
	worker.ResetPeak()
	var net model
	loss := func(out, y torch.Tensor) torch.Tensor { return F.CrossEntropy(out, y) }
	switch job {
	case "gmlp":
		net = mlp().(model)
	case "gcnn64", "gcnn1024":
		net = cnn().(model)
	case "gtrans":
		net = transformer{nn.TransformerEncoder(nn.TransformerEncoderLayer(worker.TransDModel, worker.TransHeads,
			nn.WithDimFeedforward(worker.TransFF)), worker.TransLayers)}
		loss = func(out, y torch.Tensor) torch.Tensor { return F.MseLoss(out, y) }
	}
	if err := net.(interface{ To(...torch.Target) error }).To(worker.Device()); err != nil {
		panic(err)
	}
	var opt optim.Optimizer
	if job == "gtrans" {
		opt = optim.AdamW(net.Parameters(), optim.WithLR(1e-4))
	} else {
		opt = optim.Adam(net.Parameters(), optim.WithLR(1e-3))
	}
	x, y, _ := worker.GPUJobBatch(job)
	iters := s.Iters()
	for r := 0; r < s.Reps(); r++ {
		worker.Sync()
		t0 := time.Now()
		for i := 0; i < iters; i++ {
			g0 := time.Now()
			torch.GC()
			p0 := time.Now()
			s.RecordGC(p0.Sub(g0))
			l := loss(net.Forward(x), y)
			p1 := time.Now()
			opt.ZeroGrad()
			p2 := time.Now()
			l.Backward()
			p3 := time.Now()
			opt.Step()
			l.Item()
			if !worker.OnCUDA() {
				s.RecordPhases(p0, p1, p2, p3, time.Now())
			}
		}
		torch.FinishGC()
		s.Record(time.Since(t0))
	}
}
