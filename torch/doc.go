// Package torch binds libtorch: tensors, the ATen ops generated from
// PyTorch's Declarations.yaml, autograd, devices and dtypes.
//
//	x := torch.FromNested([][]float32{{1, 2}, {3, 4}})
//	y := x.Matmul(x).SumAlong(1) // (x @ x).sum(1)
//	fmt.Println(y)               // tensor([17., 37.])
//
// Every snippet in this documentation is a runnable example in
// example_test.go.
//
// # Creating tensors
//
// From Go data, copied: FromSlice with a shape, or FromNested for nested
// slices; ToSlice[T] (or x.Float32s(), x.Int64s(), …) and x.Item() read
// them back.
//
//	a := torch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3) // torch.tensor([[1., 2., 3.], [4., 5., 6.]])
//	b := torch.FromNested([][]int64{{1, 2}, {3, 4}})
//
// The factories take the shape as []int64 and the dtype and device as
// options, with PyTorch's defaults (Float32 on the CPU):
//
//	z := torch.Zeros([]int64{2, 3})                              // torch.zeros(2, 3)
//	o := torch.Ones([]int64{2}, torch.WithDtype(torch.Int64))    // torch.ones(2, dtype=torch.int64)
//	f := torch.Full([]int64{2, 2}, torch.S(7.5))                 // torch.full((2, 2), 7.5)
//	r := torch.Arange(torch.S(5))                                // torch.arange(5)
//	n := torch.Randn([]int64{3, 4}, torch.WithDevice(torch.CPU)) // torch.randn(3, 4)
//	s := torch.ScalarTensor(torch.S(3.0))                        // torch.tensor(3.)
//
// A Scalar (torch.S(v)) carries a Go number to an op, keeping Python's
// int/float distinction. torch.ManualSeed seeds the random factories;
// GetRngState and SetRngState save and restore their generator's state.
// Load and Save read and write tensors; package torch/safetensors and
// torch/pt read PyTorch's files.
//
// # Names
//
// The ops are generated, one Go name per ATen overload: sum is Sum,
// sum.dim_IntList is SumDimIntList, pow.Tensor_Scalar is PowTensorScalar.
// Each is a function (torch.Sum(x)) and, where PyTorch has one, a method
// (x.Sum()). A few names keep Python's spelling (Matmul, Argmax, Argmin);
// the ATen declarations that are not generated, and why, are listed in
// internal/gen/skipped.md.
//
// The most-used ops also have Pythonic helpers, named by one rule:
//
//   - OpAll() is Python's x.op(), over all elements: x.SumAll(),
//     x.StdAll(), x.ArgmaxAll(). (x.All() and x.Any() are already that.)
//   - OpAlong(dim int64, keepdim ...bool) is x.op(dim) and x.op(dim,
//     keepdim): x.SumAlong(1), x.StdAlong(0), x.VarMeanAlong(1, true),
//     x.ArgmaxAlong(1). Ops that return values and indices return both:
//     values, indices := x.MaxAlong(1). TopkAlong(k, dim) and
//     SortAlong(dim, descending) take Python's other positional arguments.
//   - OpAny(v any) takes what Python takes there, a Tensor or a number:
//     x.SubAny(0.75) is x - 0.75, x.PowAny(2) is torch.pow(x, 2),
//     x.ClampAny(0, nil) is x.clamp(min=0), and torch.WhereAny(c, x, 0)
//     is torch.where(c, x, 0).
//
// Dimensions, sizes and shapes are int64 everywhere, as in ATen: the
// generated ops, these helpers, x.Dim(), x.Size(d), x.Shape() ([]int64),
// and nn's layers. So a shape spreads into a helper, x.ViewDims(y.Shape()...),
// and a loop over dimensions needs no conversion:
// for d := range x.Dim() { x.Size(d) }.
// Untyped constants fit int64 in Go and XGo alike; the one exception is
// an XGo variable, which is int (n := 64): ViewInts, ReshapeInts and
// PermuteInts take []int only so that XGo's x.view(-1, n) finds an
// overload for it, and Go code does not need them.
//
// Go+ code calls the same helpers with Python's spelling: x.sum(1) is
// x.SumAlong(1) through the overloads of gop_overloads.go, x - 0.75 is
// x.Gop_Sub(0.75) (gop.go), and package gopkg holds the Go+ functions
// (tensor literals, ones, sum(x, 1), …).
//
// # Options
//
// Keyword arguments are options named With plus the keyword:
// torch.Zeros(shape, torch.WithDtype(torch.Float64)) is torch.zeros(*shape,
// dtype=torch.float64). Each op's doc lists the options it takes. Any
// other option is an error that names the op, and the overload that takes
// the option where one does: x.Std(torch.WithDim(0)) fails with
// "unexpected option dim: StdDim or StdAlong takes it". When an option is
// given twice, the last one wins.
//
// # Errors
//
// Ops panic with a *torch.Error on failure, and each has a Try form that
// returns it instead: Sum and TrySum, FromNested and TryFromNested,
// ParseDevice and TryParseDevice. The error names the op and carries
// libtorch's message; errors.Is finds ErrUndefined and ErrFreed. Reading
// and writing files (Save, Load) returns an error, as Go's I/O does.
//
// # Memory
//
// A Tensor holds native memory that Go's collector does not see. Free it
// with Free when you are done, or let the caller's duty be one call per
// training step:
//
//	for step := 0; step < n; step++ {
//		torch.GC() // frees the tensors of the last step that are unreachable
//		...
//	}
//	torch.FinishGC()
//
// SetMemoryBudget bounds what may be allocated between two collections,
// and Scoped frees a computation's temporaries when it returns. The
// details, and what the data loader and gop-torch do for you, are in
// docs/memory.md.
//
// # Devices and autograd
//
// Factories take a device option, torch.WithDevice(torch.CUDA(0)), and
// x.To(torch.CUDA(0)) moves a tensor (x.To(torch.Float64) converts it).
// SetRequiresGrad(true) makes a leaf that records, Backward computes
// gradients (with WithGradient, WithRetainGraph and WithCreateGraph, as
// Python's backward takes them), and NoGrad runs a function with recording
// off.
//
// # Environment variables
//
// Some settings are read from the environment at start:
//
//	GOTORCH_MEMORY_BUDGET_MB=n  the memory budget in MiB (default 512)
//	GOTORCH_SMALL_ALLOC=0       no per-thread caches for small tensors
//	GOTORCH_BACKTRACE=1         C++ backtraces in errors (SetBacktrace)
//	GOTORCH_NUM_THREADS=n       intra-op threads (SetNumThreads)
//
// These are for diagnosis and tuning, and may change between releases.
package torch
