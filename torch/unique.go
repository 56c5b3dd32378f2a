package torch

// Unique is PyTorch's torch.unique(input, sorted=True, return_inverse=False,
// return_counts=False, dim=None) returning one tensor: input's distinct
// elements, sorted unless WithSorted(false); with WithDim(d), input's
// distinct slices along d (always sorted, as in PyTorch). x.Unique() is the
// same. Python's return_inverse=True and return_counts=True return more
// tensors, which UniqueInverseCounts returns: here WithReturnInverse(true)
// and WithReturnCounts(true) are errors that name it, and false is
// accepted. It panics where TryUnique returns an error.
func Unique(input Tensor, opts ...Option) Tensor { return must1(TryUnique(input, opts...)) }

// TryUnique is Unique returning its error: an option other than those
// four, or libtorch's (a dim out of range).
func TryUnique(input Tensor, opts ...Option) (Tensor, error) {
	const op = "unique"
	var rest []Option
	var dim int64
	hasDim := false
	for _, o := range opts {
		switch o.key {
		case optSorted:
			rest = append(rest, o)
		case optDim:
			if len(o.ints) != 1 {
				return Tensor{}, newError(op, nil, "takes one dim, got %d", len(o.ints))
			}
			dim, hasDim = o.ints[0], true
		case optReturnInverse, optReturnCounts:
			if o.b {
				return Tensor{}, newError(op, nil, "%s=True returns more than the unique values: UniqueInverseCounts returns them with the inverse indices and the counts", o.name())
			}
		default:
			return Tensor{}, badOption(op, o)
		}
	}
	var values, inverse, counts Tensor
	var err error
	if hasDim {
		values, inverse, counts, err = TryUniqueDim(input, dim, rest...)
	} else {
		values, inverse, counts, err = TryInternalUnique2(input, rest...)
	}
	inverse.Free()
	counts.Free()
	return values, err
}
