package robustness

import (
	"math"
	"testing"

	"github.com/gotorch/gotorch/torch"
)

// hostileCases: the extremes of int64 and int32, and the sizes where 32-bit
// arithmetic wraps, as sizes, indices, offsets and strides (issue #27;
// TestHostileArgs and FuzzHostileArgs cover every pair of them); the
// backward ops that trust the shapes of their forward pass; and freed
// tensors inside the arguments that ops pin for their call.
func hostileCases(t *testing.T) []badCase {
	const minI64, maxI64 = int64(math.MinInt64), int64(math.MaxInt64)
	return []badCase{
		// Sizes.
		{"zeros of 2^31 by 2^31", "overflow", "zeros", nil,
			func() error { return e1(torch.TryZeros(shape(1<<31, 1<<31))) }},
		{"zeros of MaxInt64 by 2", "overflow", "zeros", nil,
			func() error { return e1(torch.TryZeros(shape(maxI64, 2))) }},
		{"zeros of MinInt64", "cannot be represented", "zeros", nil,
			func() error { return e1(torch.TryZeros(shape(minI64))) }},
		{"zeros of MinInt32", "negative dimension -2147483648", "zeros", nil,
			func() error { return e1(torch.TryZeros(shape(2, math.MinInt32))) }},
		{"full of 2^40 by 2^40", "overflow", "full", nil,
			func() error { return e1(torch.TryFull(shape(1<<40, 1<<40), torch.S(1))) }},
		{"randperm of MaxInt64", "overflow", "randperm", nil,
			func() error { return e1(torch.TryRandperm(maxI64)) }},
		{"randperm of -1", "negative dimension", "randperm", nil,
			func() error { return e1(torch.TryRandperm(-1)) }},
		{"resize_ to MaxInt64", "overflow", "resize_", nil,
			func() error { return e1(x34().TryResize_(shape(maxI64, 2))) }},
		{"expand to MaxInt64 rows", "overflow", "expand", nil,
			func() error { return e1(x34().TryExpand(shape(maxI64, 3, 4))) }},
		{"reshape to 2^32", "is invalid for input of size 12", "reshape", nil,
			func() error { return e1(x34().TryReshape(shape(1 << 32))) }},
		{"view as MinInt32 rows", "invalid shape dimension -2147483648", "view", nil,
			func() error { return e1(x34().TryView(shape(math.MinInt32))) }},
		// Indices, offsets, strides.
		{"select MaxInt64", "out of range", "select", nil,
			func() error { return e1(x34().TrySelect(0, maxI64)) }},
		{"select MinInt64", "out of range", "select", nil,
			func() error { return e1(x34().TrySelect(0, minI64)) }},
		{"select dim 2^32", "out of range", "select", nil,
			func() error { return e1(x34().TrySelect(1<<32, 0)) }},
		{"narrow start 2^31", "out of range", "narrow", nil,
			func() error { return e1(x34().TryNarrow(0, 1<<31, 1)) }},
		{"narrow length MaxInt64", "exceeds dimension size", "narrow", nil,
			func() error { return e1(x34().TryNarrow(0, 1, maxI64)) }},
		{"as_strided offset 2^40", "storage offset 1099511627776", "as_strided", nil,
			func() error {
				return e1(x34().TryAsStrided(shape(2, 2), shape(1, 1), torch.WithStorageOffset(int64(1)<<40)))
			}},
		{"as_strided offset -1", "invalid storage offset -1", "as_strided", nil,
			func() error { return e1(x34().TryAsStrided(shape(2, 2), shape(1, 1), torch.WithStorageOffset(-1))) }},
		{"as_strided stride 2^32", "storage", "as_strided", nil,
			func() error { return e1(x34().TryAsStrided(shape(2, 2), shape(1<<32, 1))) }},
		{"index_select index MinInt64", "out of range", "index_select", nil,
			func() error { return e1(x34().TryIndexSelect(0, i64(minI64))) }},
		{"gather index 2^40", "out of bounds", "gather", nil,
			func() error { return e1(x34().TryGather(1, torch.FromSlice([]int64{1 << 40, 0, 0}, 3, 1))) }},
		{"topk k MaxInt64", "out of range", "topk", nil,
			func() error { return e2(x34().TryTopk(maxI64)) }},
		{"unfold step MinInt64", "step", "unfold", nil,
			func() error { return e1(x34().TryUnfold(0, 2, minI64)) }},
		{"transpose dim MinInt32", "out of range", "transpose", nil,
			func() error { return e1(x34().TryTranspose(math.MinInt32, 0)) }},
		{"randint high MinInt64", "expects 'from' to be less than 'to'", "randint", nil,
			func() error { return e1(torch.TryRandint(minI64, shape(3))) }},
		{"unsqueeze dim MaxInt64", "out of range", "unsqueeze", nil,
			func() error { return e1(x34().TryUnsqueeze(maxI64)) }},

		// Backward ops given shapes their forward pass would not make.
		{"unfold_backward grad of the wrong shape", "grad_in has size [2, 2]", "unfold_backward", nil,
			func() error { return e1(torch.TryUnfoldBackward(torch.Rand(shape(2, 2)), shape(10), 0, 3, 1)) }},
		{"unfold_backward size past the input", "is larger than dimension 0", "unfold_backward", nil,
			func() error { return e1(torch.TryUnfoldBackward(torch.Rand(shape(1, 5)), shape(4), 0, 5, 1)) }},
		{"unfold_backward step 0", "step is 0", "unfold_backward", nil,
			func() error { return e1(torch.TryUnfoldBackward(torch.Rand(shape(2, 2)), shape(4), 0, 2, 0)) }},
		{"unfold_backward dim out of range", "dim 5 is out of range", "unfold_backward", nil,
			func() error { return e1(torch.TryUnfoldBackward(torch.Rand(shape(2, 2)), shape(4), 5, 2, 1)) }},
		{"_cdist_backward cdist of the wrong shape", "cdist has size [3, 3]", "_cdist_backward", nil,
			func() error {
				return e1(torch.TryInternalCdistBackward(torch.Rand(shape(3, 3)), torch.Rand(shape(2, 4)), torch.Rand(shape(3, 4)), 2, torch.Rand(shape(3, 3))))
			}},
		{"_cdist_backward columns differ", "columns", "_cdist_backward", nil,
			func() error {
				return e1(torch.TryInternalCdistBackward(torch.Rand(shape(2, 3)), torch.Rand(shape(2, 4)), torch.Rand(shape(3, 5)), 2, torch.Rand(shape(2, 3))))
			}},
		{"_cdist_backward grad of the wrong shape", "grad has size [1, 1]", "_cdist_backward", nil,
			func() error {
				return e1(torch.TryInternalCdistBackward(torch.Rand(shape(1, 1)), torch.Rand(shape(2, 4)), torch.Rand(shape(3, 4)), 2, torch.Rand(shape(2, 3))))
			}},
		{"_pdist_backward pdist of the wrong length", "pdist has size [2]", "_pdist_backward", nil,
			func() error {
				return e1(torch.TryInternalPdistBackward(torch.Rand(shape(2)), torch.Rand(shape(4, 3)), 2, torch.Rand(shape(2))))
			}},
		{"_pdist_backward self of 3 dimensions", "self must have 2 dimensions", "_pdist_backward", nil,
			func() error {
				return e1(torch.TryInternalPdistBackward(torch.Rand(shape(1)), torch.Rand(shape(2, 2, 2)), 2, torch.Rand(shape(1))))
			}},
		{"_pdist_backward grad of the wrong shape", "grad has size [5]", "_pdist_backward", nil,
			func() error {
				return e1(torch.TryInternalPdistBackward(torch.Rand(shape(5)), torch.Rand(shape(3, 2)), 2, torch.Rand(shape(3))))
			}},

		// Freed tensors among pinned arguments: the ones pinned before
		// the freed one are unpinned again (TestFreedArgumentUnpins).
		{"freed tensor last in a list", "argument tensors: tensor used after Free", "cat", torch.ErrFreed,
			func() error { return e1(torch.TryCat([]torch.Tensor{x34(), x34(), freed()})) }},
		{"freed second argument", "argument other: tensor used after Free", "add", torch.ErrFreed,
			func() error { return e1(torch.TryAdd(x34(), freed())) }},
		{"freed optional argument after a list", "tensor used after Free", "index_put", torch.ErrFreed,
			func() error { return e1(torch.TryIndexPut(x34(), []torch.Tensor{i64(0)}, freed())) }},
		{"freed gradient of Backward", "argument gradient: tensor used after Free", "backward", torch.ErrFreed,
			func() error {
				w := torch.Ones(shape(2), torch.WithRequiresGrad(true))
				return torch.Mul(w, f32(1, 2)).TryBackward(torch.WithGradient(freed()))
			}},
		{"freed source of SetData", "argument src: tensor used after Free", "set_data", torch.ErrFreed,
			func() error { return x34().TrySetData(freed()) }},
		{"Save of a freed tensor", "tensor used after Free", "save", torch.ErrFreed,
			func() error { return torch.Save(freed(), t.TempDir()+"/x.pt") }},
		{"To of a freed tensor", "tensor used after Free", "to", torch.ErrFreed,
			func() error { return e1(freed().TryTo(torch.Float64)) }},
		{"ToSlice of a freed tensor", "tensor used after Free", "to_slice", torch.ErrFreed,
			func() error { return e1(torch.TryToSlice[float32](freed())) }},
	}
}
