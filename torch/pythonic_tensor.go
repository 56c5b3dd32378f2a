package torch

// Tensor methods of PyTorch that have no generated op: conversions
// (x.half(), x.byte(), …), facts about the storage (x.element_size(),
// x.stride()), x.new_tensor(data), x.tolist(), x.unique(), x.where(c, y)
// and x.type(). XGo calls them by PyTorch's name (x.elementSize(),
// x.newTensor(…)); x.stride and x.repeat_interleave are XGo overloads
// (gop_overloads.go). Like the generated ops, they panic with *Error.

// Half is Python's x.half(): t as Float16.
func (t Tensor) Half() Tensor { return t.To(Float16) }

// Bfloat16 is Python's x.bfloat16(): t as BFloat16.
func (t Tensor) Bfloat16() Tensor { return t.To(BFloat16) }

// Byte is Python's x.byte(): t as Uint8.
func (t Tensor) Byte() Tensor { return t.To(Uint8) }

// Short is Python's x.short(): t as Int16.
func (t Tensor) Short() Tensor { return t.To(Int16) }

// Char is Python's x.char(): t as Int8.
func (t Tensor) Char() Tensor { return t.To(Int8) }

// Cfloat is Python's x.cfloat(): t as Complex64.
func (t Tensor) Cfloat() Tensor { return t.To(Complex64) }

// Cdouble is Python's x.cdouble(): t as Complex128.
func (t Tensor) Cdouble() Tensor { return t.To(Complex128) }

// ElementSize is Python's x.element_size(): the size of one element in
// bytes.
func (t Tensor) ElementSize() int64 { return int64(t.DType().Size()) }

// Nelement is Python's x.nelement(), another name of Numel.
func (t Tensor) Nelement() int64 { return t.Numel() }

// Ndimension is Python's x.ndimension(), another name of Dim.
func (t Tensor) Ndimension() int64 { return t.Dim() }

// Strides is Python's x.stride(): how many elements apart consecutive
// indices of each dimension are.
func (t Tensor) Strides() []int64 {
	n := t.Dim()
	out := make([]int64, n)
	for d := int64(0); d < n; d++ {
		out[d] = Stride(t, d)
	}
	return out
}

// StrideAt is Python's x.stride(dim).
func (t Tensor) StrideAt(dim int64) int64 { return Stride(t, dim) }

// NewTensor is Python's x.new_tensor(data): a tensor of data (as
// FromNested takes it) with t's dtype and on t's device.
func (t Tensor) NewTensor(data any) Tensor {
	dtype, dev := t.DType(), t.Device()
	n, err := TryFromNested(data)
	if err != nil {
		panic(err)
	}
	if n.DType() == dtype && dev.Type == CPUDevice {
		return n
	}
	defer n.Free()
	return n.To(dtype, dev)
}

// Tolist is Python's x.tolist(): t's elements as nested []any, one level
// per dimension, of float64 (floating-point dtypes), complex128, bool or
// int64; a 0-dim tensor gives its one element.
func (t Tensor) Tolist() any {
	shape := t.Shape()
	var flat []any
	switch d := t.DType(); {
	case d == Bool:
		for _, v := range t.Bools() {
			flat = append(flat, v)
		}
	case d.IsComplex():
		for _, v := range ToSlice[complex128](t) {
			flat = append(flat, v)
		}
	case d.IsFloatingPoint():
		for _, v := range t.Float64s() {
			flat = append(flat, v)
		}
	default:
		for _, v := range t.Int64s() {
			flat = append(flat, v)
		}
	}
	if len(shape) == 0 {
		if len(flat) != 1 {
			panic(newError("tolist", nil, "a 0-dim tensor with %d elements", len(flat)))
		}
		return flat[0]
	}
	v, _ := nest(flat, shape)
	return v
}

// nest splits flat, row-major, into nested []any of the given shape and
// returns what it did not use.
func nest(flat []any, shape []int64) ([]any, []any) {
	out := make([]any, shape[0])
	for i := range out {
		if len(shape) == 1 {
			out[i], flat = flat[0], flat[1:]
			continue
		}
		out[i], flat = nest(flat, shape[1:])
	}
	return out, flat
}

// splitDim takes WithDim out of opts: the dim and the other options.
func splitDim(op string, opts []Option) (dim int64, has bool, rest []Option) {
	for _, o := range opts {
		if o.key != optDim {
			rest = append(rest, o)
			continue
		}
		if len(o.ints) != 1 {
			panic(newError(op, nil, "takes one dim, got %d", len(o.ints)))
		}
		dim, has = o.ints[0], true
	}
	return dim, has, rest
}

// Unique is Python's x.unique(): t's distinct elements, sorted unless
// WithSorted(false); with WithDim(d), t's distinct slices along d. For the
// inverse indices and the counts, UniqueInverseCounts. It is the function
// Unique (unique.go), with its options.
func (t Tensor) Unique(opts ...Option) Tensor { return Unique(t, opts...) }

// UniqueInverseCounts is Python's x.unique(return_inverse=True,
// return_counts=True): the distinct elements, where each element of t is
// among them, and how often each occurs.
func (t Tensor) UniqueInverseCounts(opts ...Option) (values, inverse, counts Tensor) {
	dim, has, rest := splitDim("unique", opts)
	rest = append(rest, WithReturnInverse(true), WithReturnCounts(true))
	if has {
		return UniqueDim(t, dim, rest...)
	}
	return InternalUnique2(t, rest...)
}

// UniqueConsecutive is Python's x.unique_consecutive(): t without
// consecutive repeats (along WithDim(d), if given). The function
// UniqueConsecutive also returns the inverse indices and the counts.
func (t Tensor) UniqueConsecutive(opts ...Option) Tensor {
	v, inv, counts := UniqueConsecutive(t, opts...)
	inv.Free()
	counts.Free()
	return v
}

// Where is Python's x.where(condition, y): t where condition is true, y
// (a Tensor or a number) elsewhere; torch.where(condition, x, y) is
// WhereAny.
func (t Tensor) Where(condition Tensor, y any) Tensor { return WhereAny(condition, t, y) }

// tensorTypeNames are the legacy type names of x.type().
var tensorTypeNames = map[DType]string{
	Float32: "FloatTensor", Float64: "DoubleTensor", Float16: "HalfTensor",
	BFloat16: "BFloat16Tensor", Uint8: "ByteTensor", Int8: "CharTensor",
	Int16: "ShortTensor", Int32: "IntTensor", Int64: "LongTensor", Bool: "BoolTensor",
	Complex64: "ComplexFloatTensor", Complex128: "ComplexDoubleTensor",
}

// Type is Python's x.type(): the legacy type name, torch.FloatTensor or
// torch.cuda.FloatTensor. (Python's x.type(dtype) is To(dtype).)
func (t Tensor) Type() string {
	n, ok := tensorTypeNames[t.DType()]
	if !ok {
		return t.DType().String()
	}
	if t.Device().Type == CUDADevice {
		return "torch.cuda." + n
	}
	return "torch." + n
}
