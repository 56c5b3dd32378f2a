// Command hello is GoTorch's smallest real program: it makes tensors, runs
// a matrix product and an add, and lets autograd compute gradients.
//
//	go run ./examples/hello
package main

import (
	"errors"
	"fmt"
	"log"

	"github.com/gotorch/gotorch/torch"
)

func main() {
	fmt.Println("libtorch", torch.LibtorchVersion(), "threads", torch.GetNumThreads())

	// y = x·w + b for a 2×3 input and a 3×2 weight that autograd tracks.
	x := torch.FromNested([][]float32{{1, 2, 3}, {4, 5, 6}})
	w := torch.Ones([]int64{3, 2}).SetRequiresGrad(true)
	b := torch.Full([]int64{2}, torch.S(0.5))
	y := torch.Add(torch.Mm(x, w), b)
	fmt.Println("y =", y)

	// The gradient of sum(y) with respect to w is xᵀ·ones(2, 2).
	y.Backward(torch.WithGradient(torch.Ones([]int64{2, 2})))
	fmt.Println("dy/dw =", w.Grad())

	// Every op has a Try form that returns a *torch.Error instead of
	// panicking: here a 2×3 by 2×3 product, whose shapes do not match.
	if _, err := torch.TryMm(x, x); err != nil {
		var te *torch.Error
		if !errors.As(err, &te) {
			log.Fatal(err)
		}
		fmt.Printf("TryMm failed as it should: op %q: %s\n", te.Op, firstLine(te.Msg))
	}
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}
