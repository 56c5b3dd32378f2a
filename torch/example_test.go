package torch_test

import (
	"errors"
	"fmt"

	"github.com/gotorch/gotorch/torch"
)

// Every snippet of the package's documentation, as a test, so that none
// can drift from the API.

// The package comment's first example.
func Example() {
	x := torch.FromNested([][]float32{{1, 2}, {3, 4}})
	y := x.Matmul(x).SumAlong(1) // (x @ x).sum(1)
	fmt.Println(y)
	// Output: tensor([17., 37.])
}

// Creating tensors: the package comment's snippets.
func Example_creating() {
	a := torch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3) // torch.tensor([[1., 2., 3.], [4., 5., 6.]])
	b := torch.FromNested([][]int64{{1, 2}, {3, 4}})
	fmt.Println(a.Shape(), torch.ToSlice[float32](a), b.Int64s())

	z := torch.Zeros([]int64{2, 3})                              // torch.zeros(2, 3)
	o := torch.Ones([]int64{2}, torch.WithDtype(torch.Int64))    // torch.ones(2, dtype=torch.int64)
	f := torch.Full([]int64{2, 2}, torch.S(7.5))                 // torch.full((2, 2), 7.5)
	r := torch.Arange(torch.S(5))                                // torch.arange(5)
	n := torch.Randn([]int64{3, 4}, torch.WithDevice(torch.CPU)) // torch.randn(3, 4)
	s := torch.ScalarTensor(torch.S(3.0))                        // torch.tensor(3.)
	fmt.Println(z.Shape(), z.DType(), o.Int64s(), f.Float32s(), r.Int64s())
	fmt.Println(n.Shape(), n.Device(), s.Dim(), s.Item())
	// Output:
	// [2 3] [1 2 3 4 5 6] [1 2 3 4]
	// [2 3] torch.float32 [1 1] [7.5 7.5 7.5 7.5] [0 1 2 3 4]
	// [3 4] cpu 0 3
}

// The naming rule: OpAll, OpAlong and OpAny.
func Example_names() {
	x := torch.FromNested([][]float64{{1, 5, 2}, {8, 3, 0}})
	fmt.Println(x.SumAll().Item(), x.SumAlong(1).Float64s())
	fmt.Println(x.StdAlong(0).Shape(), x.ArgmaxAlong(1).Int64s())
	v, m := x.VarMeanAlong(1, true)
	fmt.Printf("%v %.4f\n", v.Shape(), m.Float64s())
	values, indices := x.MaxAlong(1)
	fmt.Println(values.Float64s(), indices.Int64s())
	top, _ := x.TopkAlong(2, 1)
	fmt.Println(top.Float64s())

	a := torch.FromSlice([]float32{1, 2, 3})
	fmt.Println(a.SubAny(0.75).Float32s(), a.PowAny(2).Float32s())
	fmt.Println(a.ClampAny(2, nil).Float32s())
	fmt.Println(torch.WhereAny(a.Gop_GT(1.5), a, 0.0).Float32s())
	// Output:
	// 19 [8 11]
	// [3] [1 0]
	// [2 1] [2.6667 3.6667]
	// [5 8] [1 0]
	// [5 2 8 3]
	// [0.25 1.25 2.25] [1 4 9]
	// [2 2 3]
	// [0 2 3]
}

// Options, and the error of an option the overload does not take.
func ExampleOption() {
	z := torch.Zeros([]int64{2, 3}, torch.WithDtype(torch.Float64)) // torch.zeros(2, 3, dtype=torch.float64)
	fmt.Println(z.DType())

	x := torch.FromNested([][]float32{{1, 2}, {3, 4}})
	fmt.Println(x.SumDimIntList([]int64{1}, torch.WithKeepdim(true))) // x.sum(1, keepdim=True)

	_, err := x.TryStd(torch.WithDim(0))
	fmt.Println(err)
	// Output:
	// torch.float64
	// tensor([[3.],
	//         [7.]])
	// torch.std: unexpected option dim: StdDim or StdAlong takes it
}

// Ops panic; their Try forms return the error.
func ExampleError() {
	_, err := torch.TryFromNested([][]float32{{1}, {1, 2}})
	var te *torch.Error
	fmt.Println(errors.As(err, &te))

	_, err = torch.TryParseDevice("gpu")
	fmt.Println(err)
	fmt.Println(torch.ParseDevice("cuda:1"))
	// Output:
	// true
	// torch: unknown device "gpu" (want cpu, cuda, cuda:N, mps or meta)
	// cuda:1
}

// Backward takes Python's keywords as options.
func ExampleTensor_Backward() {
	w := torch.FromSlice([]float32{1, 2}).SetRequiresGrad(true)
	y := w.MulAny(w) // w * w
	y.Backward(torch.WithGradient(torch.OnesLike(y)), torch.WithRetainGraph(true))
	fmt.Println(w.Grad())
	// Output: tensor([2., 4.])
}

// A loop that frees each step's tensors.
func ExampleGC() {
	w := torch.Zeros([]int64{2})
	for step := 0; step < 3; step++ {
		torch.GC() // frees the tensors of the last step that are unreachable
		w = w.AddAny(1)
	}
	torch.FinishGC()
	fmt.Println(w)
	// Output: tensor([3., 3.])
}

// Scoped frees a computation's temporaries when it returns.
func ExampleScoped() {
	x := torch.Ones([]int64{1, 2})
	w1 := torch.Ones([]int64{2, 2})
	w2 := torch.Ones([]int64{2, 1})
	y := torch.Scoped(func() torch.Tensor {
		h := x.Mm(w1).Relu() // freed when Scoped returns
		return h.Mm(w2)      // kept
	})
	fmt.Println(y)
	// Output: tensor([[4.]])
}

// The zero Tensor starts a sum, as Go+'s total += loss does.
func Example_zeroTensorSum() {
	var total torch.Tensor
	for _, loss := range []float64{0.5, 0.25} {
		total.Gop_AddAssign(loss)
	}
	fmt.Println(total.Item())
	// Output: 0.75
}

// A tensor prints as PyTorch's repr.
func ExampleTensor_String() {
	x := torch.FromNested([][]float64{{1, 2}, {3, 4}}).SetRequiresGrad(true)
	fmt.Println(x)
	// Output:
	// tensor([[1., 2.],
	//         [3., 4.]], dtype=torch.float64, requires_grad=True)
}

// Devices.
func ExampleTensor_To() {
	x := torch.FromSlice([]float32{1, 2})
	fmt.Println(x.To(torch.Float64).DType(), x.To(torch.CPU).Device())
	// Output: torch.float64 cpu
}

// NoGrad turns recording off.
func ExampleNoGrad() {
	w := torch.Ones([]int64{2}).SetRequiresGrad(true)
	var y torch.Tensor
	torch.NoGrad(func() { y = w.MulAny(2) })
	fmt.Println(y.RequiresGrad())
	// Output: false
}
