package optim_test

import (
	"fmt"

	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// Fit y = 2x + 1 with SGD and momentum, a linear warm-up and a cosine
// decay, and gradient clipping.
func Example() {
	x := torch.FromSlice([]float32{-1, -0.5, 0, 0.5, 1, 1.5})
	y := x.MulScalar(torch.S(2)).AddScalar(torch.S(1))
	w := torch.Zeros([]int64{1}).SetRequiresGrad(true)
	b := torch.Zeros([]int64{1}).SetRequiresGrad(true)

	opt := optim.SGD([]torch.Tensor{w, b}, optim.WithLR(0.2), optim.WithMomentum(0.9))
	sched := optim.SequentialLR(opt, []optim.Scheduler{
		optim.LinearLR(opt, optim.WithStartFactor(0.1), optim.WithTotalIters(10)),
		optim.CosineAnnealingLR(opt, 190),
	}, []int{10})
	for step := 0; step < 200; step++ {
		opt.ZeroGrad()
		loss := x.Mul(w).Add(b).Sub(y).PowTensorScalar(torch.S(2)).Mean()
		loss.Backward()
		optim.ClipGradNorm_([]torch.Tensor{w, b}, 1)
		opt.Step()
		sched.Step()
	}
	fmt.Printf("w=%.3f b=%.3f lr=%.3g\n", w.Item(), b.Item(), sched.LastLR()[0])
	// Output: w=2.000 b=1.000 lr=0
}

// LBFGS minimizes (w-3)² with a closure that reevaluates the loss.
func ExampleLBFGS() {
	w := torch.Zeros([]int64{1}).SetRequiresGrad(true)
	opt := optim.LBFGS([]torch.Tensor{w})
	opt.Step(func() torch.Tensor {
		opt.ZeroGrad()
		loss := w.SubAny(3).PowAny(2).Sum()
		loss.Backward()
		return loss
	})
	fmt.Printf("%.4f\n", w.Item())
	// Output: 3.0000
}

// ReduceLROnPlateau lowers the learning rate once the metric stalls for
// more than patience steps.
func ExampleReduceLROnPlateau() {
	w := torch.Zeros([]int64{1}).SetRequiresGrad(true)
	opt := optim.SGD([]torch.Tensor{w}, optim.WithLR(0.1))
	plateau := optim.ReduceLROnPlateau(opt, optim.WithPatience(2))
	for _, loss := range []float64{1, 0.5, 0.5, 0.5, 0.5} {
		plateau.Step(loss)
		fmt.Printf("%.3g ", plateau.LastLR()[0])
	}
	fmt.Println()
	// Output: 0.1 0.1 0.1 0.1 0.01
}
