package optim_test

import (
	"testing"

	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// mlpShapes are the parameters of the benchmark harness's MLP
// (784-512-512-10: three weights, three biases); tinyShapes have as many
// parameters of 4 elements, so that a step is mostly its per-parameter
// cost: the gradient's handle, the cgo calls, the bookkeeping.
var (
	mlpShapes  = [][]int64{{512, 784}, {512}, {512, 512}, {512}, {10, 512}, {10}}
	tinyShapes = [][]int64{{2, 2}, {4}, {2, 2}, {4}, {2, 2}, {4}}
)

// benchParams makes parameters of the given shapes, each with a gradient.
func benchParams(shapes [][]int64) []torch.Tensor {
	ps := make([]torch.Tensor, len(shapes))
	for i, s := range shapes {
		ps[i] = torch.Randn(s).SetRequiresGrad(true)
		ps[i].Sum().Backward()
	}
	return ps
}

// BenchmarkStep times one optimizer step over six parameters inside a
// training loop's step (after torch.GC()), as the harness's MLP job runs
// it: SGD (the harness's) and Adam (an optimizer with state), on the MLP's
// parameters and on tiny ones (Tiny), whose time is the per-parameter
// overhead.
func BenchmarkStep(b *testing.B) {
	for _, c := range []struct {
		name   string
		shapes [][]int64
		mk     func([]torch.Tensor) optim.Optimizer
	}{
		{"SGD", mlpShapes, func(p []torch.Tensor) optim.Optimizer { return optim.SGD(p, optim.WithLR(0.01)) }},
		{"Adam", mlpShapes, func(p []torch.Tensor) optim.Optimizer { return optim.Adam(p, optim.WithLR(1e-3)) }},
		{"SGDTiny", tinyShapes, func(p []torch.Tensor) optim.Optimizer { return optim.SGD(p, optim.WithLR(0.01)) }},
		{"AdamTiny", tinyShapes, func(p []torch.Tensor) optim.Optimizer { return optim.Adam(p, optim.WithLR(1e-3)) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			o := c.mk(benchParams(c.shapes))
			o.Step() // the state
			torch.GC()
			defer torch.FinishGC()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				torch.GC()
				o.Step()
			}
		})
	}
}
