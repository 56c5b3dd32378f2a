package torch

// Python's signatures for tensor methods in Go+.
//
// In Python, x.sum(), x.sum(1) and x.sum(1, keepdim=True) are one method.
// Go+ can overload a method on Tensor when this package declares
// GopPackage and a Gopo_Tensor_Name constant lists the methods that make
// up the overload. An overload cannot share its name with a method that
// Tensor declares, so the generated Sum, View and the other names below
// are methods of *handle, which Tensor embeds: Go code calls x.Sum() as
// before, and Go+ code calls x.sum, x.sum(1) and x.sum(1, true), which
// pick SumAll, SumAlong(1) and SumAlong(1, true).
//
// The members are ordinary methods, which read well from Go too:
// x.SumAlong(1) is x.SumDimIntList([]int64{1}).

// GopPackage marks torch as a Go+ package: it declares overloads.
const GopPackage = true

// Go+ overloads: the methods that x.name(args) may call, tried in order.
const (
	Gopo_Tensor_Sum     = ".SumAll,.SumAlong"
	Gopo_Tensor_Mean    = ".MeanAll,.MeanAlong"
	Gopo_Tensor_Prod    = ".ProdAll,.ProdAlong"
	Gopo_Tensor_Amax    = ".AmaxAll,.AmaxAlong"
	Gopo_Tensor_Amin    = ".AminAll,.AminAlong"
	Gopo_Tensor_Max     = ".MaxAll,.MaxAlong"
	Gopo_Tensor_Min     = ".MinAll,.MinAlong"
	Gopo_Tensor_View    = ".ViewDims,.ViewInts,.ViewShape"
	Gopo_Tensor_Reshape = ".ReshapeDims,.ReshapeInts,.ReshapeShape"
	Gopo_Tensor_Permute = ".PermuteDims,.PermuteInts,.PermuteShape"
	Gopo_Tensor_Flatten = ".FlattenAll,.FlattenFrom"
	Gopo_Tensor_Squeeze = ".SqueezeAll,.SqueezeDim"
	Gopo_Tensor_Std     = ".StdAll,.StdAlong"
	Gopo_Tensor_Var     = ".VarAll,.VarAlong"
	Gopo_Tensor_Argmax  = ".ArgmaxAll,.ArgmaxAlong"
	Gopo_Tensor_Argmin  = ".ArgminAll,.ArgminAlong"

	// x.logsumexp(1) and x.topk(3, 1) take PyTorch's positional dim, which
	// the generated Logsumexp and Topk (on *handle) take as an option.
	Gopo_Tensor_Logsumexp = ".LogsumexpAlong"
	Gopo_Tensor_Topk      = ".TopkAlong,.TopkWith"

	// PyTorch's names of methods whose overloads have Go names of their
	// own (pythonic_tensor.go, ops_gen.go).
	Gopo_Tensor_Stride           = ".Strides,.StrideAt"
	Gopo_Tensor_RepeatInterleave = ".RepeatInterleaveSelfInt,.RepeatInterleaveSelfTensor"
)

// keepdimOf reads an optional keepdim argument.
func keepdimOf(op string, keepdim []bool) Option {
	if len(keepdim) > 1 {
		panic(newError(op, nil, "takes one keepdim argument, got %d", len(keepdim)))
	}
	return WithKeepdim(len(keepdim) == 1 && keepdim[0])
}

// SumAll is Python's x.sum(): the sum of all elements.
func (t Tensor) SumAll() Tensor { return t.Sum() }

// SumAlong is Python's x.sum(dim) and x.sum(dim, keepdim).
func (t Tensor) SumAlong(dim int64, keepdim ...bool) Tensor {
	return t.SumDimIntList([]int64{dim}, keepdimOf("sum", keepdim))
}

// MeanAll is Python's x.mean(): the mean of all elements.
func (t Tensor) MeanAll() Tensor { return t.Mean() }

// MeanAlong is Python's x.mean(dim) and x.mean(dim, keepdim).
func (t Tensor) MeanAlong(dim int64, keepdim ...bool) Tensor {
	return t.MeanDim([]int64{dim}, keepdimOf("mean", keepdim))
}

// ProdAll is Python's x.prod(): the product of all elements.
func (t Tensor) ProdAll() Tensor { return t.Prod() }

// ProdAlong is Python's x.prod(dim) and x.prod(dim, keepdim).
func (t Tensor) ProdAlong(dim int64, keepdim ...bool) Tensor {
	return t.ProdDimInt(dim, keepdimOf("prod", keepdim))
}

// AmaxAll is Python's x.amax(): the largest element.
func (t Tensor) AmaxAll() Tensor { return t.Amax() }

// AmaxAlong is Python's x.amax(dim) and x.amax(dim, keepdim).
func (t Tensor) AmaxAlong(dim int64, keepdim ...bool) Tensor {
	return t.Amax(WithDim(dim), keepdimOf("amax", keepdim))
}

// AminAll is Python's x.amin(): the smallest element.
func (t Tensor) AminAll() Tensor { return t.Amin() }

// AminAlong is Python's x.amin(dim) and x.amin(dim, keepdim).
func (t Tensor) AminAlong(dim int64, keepdim ...bool) Tensor {
	return t.Amin(WithDim(dim), keepdimOf("amin", keepdim))
}

// MaxAll is Python's x.max(): the largest element.
func (t Tensor) MaxAll() Tensor { return t.Max() }

// MaxAlong is Python's values, indices = x.max(dim) (and x.max(dim,
// keepdim)): the largest elements along dim and where they are.
func (t Tensor) MaxAlong(dim int64, keepdim ...bool) (values, indices Tensor) {
	return t.MaxDim(dim, keepdimOf("max", keepdim))
}

// MinAll is Python's x.min(): the smallest element.
func (t Tensor) MinAll() Tensor { return t.Min() }

// MinAlong is Python's values, indices = x.min(dim) (and x.min(dim,
// keepdim)).
func (t Tensor) MinAlong(dim int64, keepdim ...bool) (values, indices Tensor) {
	return t.MinDim(dim, keepdimOf("min", keepdim))
}

// ViewDims is Python's x.view(-1, 784).
func (t Tensor) ViewDims(dims ...int64) Tensor { return t.View(dims) }

// ViewShape is Python's x.view(shape) with a shape such as y.shape.
func (t Tensor) ViewShape(shape []int64) Tensor { return t.View(shape) }

// ReshapeDims is Python's x.reshape(2, -1).
func (t Tensor) ReshapeDims(dims ...int64) Tensor { return t.Reshape(dims) }

// ReshapeShape is Python's x.reshape(shape) with a shape such as y.shape.
func (t Tensor) ReshapeShape(shape []int64) Tensor { return t.Reshape(shape) }

// ViewInts is x.view(-1, n) for XGo code that holds sizes in int
// variables (n := 64); Go code and sizes from x.Size() use ViewDims.
func (t Tensor) ViewInts(dims ...int) Tensor { return t.View(ints64(dims)) }

// ReshapeInts is x.reshape(n, -1) with int sizes, as ViewInts.
func (t Tensor) ReshapeInts(dims ...int) Tensor { return t.Reshape(ints64(dims)) }

// PermuteInts is x.permute(i, j) with int dims, as ViewInts.
func (t Tensor) PermuteInts(dims ...int) Tensor { return t.Permute(ints64(dims)) }

// ints64 converts int sizes or dims to GoTorch's int64.
func ints64(s []int) []int64 {
	out := make([]int64, len(s))
	for i, v := range s {
		out[i] = int64(v)
	}
	return out
}

// PermuteDims is Python's x.permute(0, 2, 1).
func (t Tensor) PermuteDims(dims ...int64) Tensor { return t.Permute(dims) }

// PermuteShape is Python's x.permute(dims) with the dims in a slice.
func (t Tensor) PermuteShape(dims []int64) Tensor { return t.Permute(dims) }

// FlattenAll is Python's x.flatten(): all dimensions into one.
func (t Tensor) FlattenAll() Tensor { return t.Flatten() }

// FlattenFrom is Python's x.flatten(start_dim) and x.flatten(start_dim,
// end_dim).
func (t Tensor) FlattenFrom(startDim int64, endDim ...int64) Tensor {
	switch len(endDim) {
	case 0:
		return t.Flatten(WithStartDim(startDim))
	case 1:
		return t.Flatten(WithStartDim(startDim), WithEndDim(endDim[0]))
	}
	panic(newError("flatten", nil, "takes start_dim and one end_dim, got %d end dims", len(endDim)))
}

// SqueezeAll is Python's x.squeeze(): without its dimensions of size 1.
func (t Tensor) SqueezeAll() Tensor { return t.Squeeze() }
