// Command livepeak prints GoTorch's own live bytes (torch.ReadMemStats:
// the storages that Go handles keep alive) at each phase of a training
// step, with Go's collector off, so that only explicit frees lower them:
// what modules, functions and optimizers leave alive beyond the
// parameters, gradients and optimizer state until the next GC(). On a GPU
// that is memory the caching allocator cannot reuse within the step
// (issue #22's peak-memory goal). Autograd's saved tensors have no Go
// handle and are not counted.
//
//	go run ./bench/cmd/livepeak                 # transformer and CNN, CPU
//	go run ./bench/cmd/livepeak -seq 256 -batch 32
package main

import (
	"flag"
	"fmt"
	"runtime/debug"

	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

type model interface {
	Forward(torch.Tensor) torch.Tensor
	Parameters() []torch.Tensor
}

type encoder struct{ *nn.TransformerEncoderModule }

func (e encoder) Forward(x torch.Tensor) torch.Tensor { return e.TransformerEncoderModule.Forward(x) }

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// measure takes two steps (the first makes the optimizer's state) and
// prints the second's live bytes above the parameters, gradients and
// state at each phase.
func measure(name string, m model, opt optim.Optimizer, x, y torch.Tensor, loss func(out, y torch.Tensor) torch.Tensor) {
	var params int64
	for _, p := range m.Parameters() {
		params += p.Numel() * 4
	}
	step := func(report bool) {
		torch.FinishGC()
		old := debug.SetGCPercent(-1)
		defer debug.SetGCPercent(old)
		base := torch.ReadMemStats().LiveBytes
		peak := int64(0)
		phase := func(what string) {
			d := torch.ReadMemStats().LiveBytes - base
			peak = max(peak, d)
			if report {
				fmt.Printf("  %-28s %+12s\n", what, mib(d))
			}
		}
		out := m.Forward(x)
		l := loss(out, y)
		phase("after forward and loss")
		opt.ZeroGrad()
		l.Backward()
		phase("after backward")
		opt.Step()
		phase("after the optimizer step")
		out.Free()
		l.Free()
		phase("after freeing out and loss")
		if report {
			fmt.Printf("  largest of those: %s (parameters: %s)\n", mib(peak), mib(params))
		}
	}
	fmt.Printf("%s: live bytes above the step's start (parameters, gradients, optimizer state)\n", name)
	step(false)
	step(true)
}

func main() {
	seq := flag.Int64("seq", 64, "transformer sequence length")
	batch := flag.Int64("batch", 8, "transformer batch")
	cnnBatch := flag.Int64("cnn-batch", 64, "CNN batch")
	flag.Parse()
	torch.ManualSeed(1)

	enc := encoder{nn.TransformerEncoder(nn.TransformerEncoderLayer(512, 8, nn.WithDimFeedforward(2048)), 6)}
	x, y := torch.Randn([]int64{*seq, *batch, 512}), torch.Randn([]int64{*seq, *batch, 512})
	measure(fmt.Sprintf("6 x TransformerEncoderLayer(512, 8, 2048), AdamW, %dx%d", *batch, *seq), enc,
		optim.AdamW(enc.Parameters(), optim.WithLR(1e-4)), x, y, func(o, t torch.Tensor) torch.Tensor { return F.MseLoss(o, t) })

	cnn := nn.Sequential(
		nn.Conv2d(1, 32, 3, nn.WithPadding(1)), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
		nn.Conv2d(32, 64, 3, nn.WithPadding(1)), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
		nn.Flatten(), nn.Dropout(nn.WithP(0.25)),
		nn.Linear(64*7*7, 128), nn.ReLU(), nn.Dropout(nn.WithP(0.5)),
		nn.Linear(128, 10),
	)
	cx, cy := torch.Randn([]int64{*cnnBatch, 1, 28, 28}), torch.Randint(10, []int64{*cnnBatch})
	measure(fmt.Sprintf("Fashion-MNIST CNN, Adam, batch %d", *cnnBatch), cnn, optim.Adam(cnn.Parameters(), optim.WithLR(1e-3)),
		cx, cy, func(o, t torch.Tensor) torch.Tensor { return F.CrossEntropy(o, t) })
}
