package robustness

import (
	"math"
	"testing"

	"github.com/gotorch/gotorch/torch"
)

// Arguments that libtorch's kernels trust (issue #27): each call below
// killed the process before the shim checked it (SIGFPE for the integer
// division overflows, SIGSEGV or SIGABRT for the index arguments), as a
// probe of every candidate op in a child process found. The checks are
// internal/gen's trustedArgs table and cgotorch/checks.h; docs/robustness.md
// lists them.

const big = int64(1) << 40

func i32(v ...int32) torch.Tensor { return torch.FromSlice(v) }

func lng() []torch.Option { return []torch.Option{torch.WithDtype(torch.Int64)} }

// full64 is a tensor of the given shape, every value v, of dtype int64.
func full64(v int64, s ...int64) torch.Tensor {
	return torch.Full(s, torch.S(v), lng()...)
}

// maxPoolIndices returns a 1×1×4×4 input, the gradient of its 2×2 max
// pooling and indices of that shape, all v.
func maxPoolIndices(v int64) (grad, input, indices torch.Tensor) {
	input = torch.Rand(shape(1, 1, 4, 4))
	return torch.Ones(shape(1, 1, 2, 2)), input, full64(v, 1, 1, 2, 2)
}

func nativeCases(t *testing.T) []badCase {
	const minI64 = math.MinInt64
	trunc, floor := torch.WithRoundingMode("trunc"), torch.WithRoundingMode("floor")
	overflow := "integer overflow: the minimum int64 divided by -1"
	overflow32 := "integer overflow: the minimum int32 divided by -1"
	return []badCase{
		// The minimum int64/int32 divided by -1: SIGFPE.
		{"div trunc int64 min by -1", overflow, "div", nil,
			func() error { return e1(torch.TryDivTensorMode(i64(minI64), i64(-1), trunc)) }},
		{"div floor int64 min by -1", overflow, "div", nil,
			func() error { return e1(torch.TryDivTensorMode(i64(5, minI64), i64(-1), floor)) }},
		{"div trunc int32 min by -1", overflow32, "div", nil,
			func() error { return e1(torch.TryDivTensorMode(i32(math.MinInt32), i32(-1), trunc)) }},
		{"div int32 min by a 0-dim int64 -1", overflow32, "div", nil,
			// A 0-dim tensor does not promote: the division is in int32.
			func() error {
				return e1(torch.TryDivTensorMode(i32(3, math.MinInt32), torch.ScalarTensor(torch.S(int64(-1)), lng()...), trunc))
			}},
		{"div broadcast min by -1", overflow, "div", nil,
			func() error {
				return e1(torch.TryDivTensorMode(i64(minI64, 6).View(shape(2, 1)), i64(2, -1), floor))
			}},
		{"div scalar mode int64 min by -1", overflow, "div", nil,
			func() error { return e1(torch.TryDivScalarMode(i64(minI64), torch.S(-1), trunc)) }},
		{"div scalar mode int32 min by -1", overflow32, "div", nil,
			func() error { return e1(torch.TryDivScalarMode(i32(math.MinInt32), torch.S(-1), floor)) }},
		{"div out mode min by -1", overflow, "div_out", nil,
			func() error {
				return e1(torch.TryDivOutModeOut(torch.Empty(shape(1), lng()...), i64(minI64), i64(-1), trunc))
			}},
		{"div_ in place min by -1", overflow, "div_", nil,
			func() error { return e1(i64(minI64).TryDivTensorMode_(i64(-1), floor)) }},
		{"divide trunc min by -1", overflow, "divide", nil,
			func() error { return e1(torch.TryDivideTensorMode(i64(minI64), i64(-1), trunc)) }},
		{"floor_divide min by -1", overflow, "floor_divide", nil,
			func() error { return e1(torch.TryFloorDivide(i64(minI64), i64(-1))) }},
		{"floor_divide scalar min by -1", overflow, "floor_divide", nil,
			func() error { return e1(torch.TryFloorDivideScalar(i64(minI64), torch.S(-1))) }},
		{"remainder min by -1", overflow, "remainder", nil,
			func() error { return e1(torch.TryRemainder(i64(minI64), i64(-1))) }},
		{"remainder scalar min by -1", overflow, "remainder", nil,
			func() error { return e1(torch.TryRemainderScalar(i64(minI64), torch.S(-1))) }},
		{"remainder scalar-tensor min by -1", overflow, "remainder", nil,
			func() error { return e1(torch.TryRemainderScalarTensor(torch.S(int64(minI64)), i64(-1))) }},
		{"remainder int32 min by -1", overflow32, "remainder", nil,
			func() error { return e1(torch.TryRemainder(i32(math.MinInt32), i32(-1))) }},
		{"fmod min by -1", overflow, "fmod", nil,
			func() error { return e1(torch.TryFmod(i64(minI64), i64(-1))) }},
		{"fmod scalar int32 min by -1", overflow32, "fmod", nil,
			func() error { return e1(torch.TryFmodScalar(i32(math.MinInt32), torch.S(-1))) }},

		// Index arguments: SIGSEGV or SIGABRT.
		{"searchsorted sorter out of range", "sorter holds 1099511627776, out of range [0, 3)", "searchsorted", nil,
			func() error {
				return e1(torch.TrySearchsorted(f32(1, 2, 3), f32(0.5), torch.WithSorter(i64(big, 1, 2))))
			}},
		{"searchsorted sorter negative", "sorter holds -1", "searchsorted", nil,
			func() error {
				return e1(torch.TrySearchsorted(f32(1, 2, 3), f32(0.5), torch.WithSorter(i64(-1, 1, 2))))
			}},
		{"searchsorted scalar sorter out of range", "sorter holds", "searchsorted", nil,
			func() error {
				return e1(torch.TrySearchsortedScalar(f32(1, 2, 3), torch.S(0.5), torch.WithSorter(i64(big, 1, 2))))
			}},
		{"segment_reduce unsafe", "unsafe=true", "segment_reduce", nil,
			func() error {
				return e1(torch.TrySegmentReduce(torch.Rand(shape(4)), "sum", torch.WithLengths(i64(big, 2)), torch.WithUnsafe(true)))
			}},
		{"segment_reduce offsets out of range", "offsets holds 1099511627776", "segment_reduce", nil,
			func() error {
				return e1(torch.TrySegmentReduce(torch.Rand(shape(4)), "sum", torch.WithOffsets(i64(0, big))))
			}},
		{"_segment_reduce_backward lengths", "must sum to the size of data", "_segment_reduce_backward", nil,
			func() error {
				return e1(torch.TryInternalSegmentReduceBackward(torch.Rand(shape(2)), torch.Rand(shape(2)), torch.Rand(shape(4)), "max", torch.WithLengths(i64(big, 2))))
			}},
		{"_segment_reduce_backward offsets", "offsets holds", "_segment_reduce_backward", nil,
			func() error {
				return e1(torch.TryInternalSegmentReduceBackward(torch.Rand(shape(2)), torch.Rand(shape(2)), torch.Rand(shape(4)), "sum", torch.WithOffsets(i64(0, big, 4))))
			}},
		{"max_pool2d backward indices out of range", "indices holds 1099511627776, out of range [0, 16)", "max_pool2d_with_indices_backward", nil,
			func() error {
				g, x, idx := maxPoolIndices(big)
				return e1(torch.TryMaxPool2dWithIndicesBackward(g, x, shape(2, 2), shape(2, 2), shape(0, 0), shape(1, 1), false, idx))
			}},
		{"max_pool2d backward indices past the plane", "indices holds 16", "max_pool2d_with_indices_backward", nil,
			// Silent heap corruption before: a write one plane too far.
			func() error {
				g, x, idx := maxPoolIndices(16)
				return e1(torch.TryMaxPool2dWithIndicesBackward(g, x, shape(2, 2), shape(2, 2), shape(0, 0), shape(1, 1), false, idx))
			}},
		{"max_pool2d backward indices negative", "indices holds -1099511627776", "max_pool2d_with_indices_backward", nil,
			func() error {
				g, x, idx := maxPoolIndices(-big)
				return e1(torch.TryMaxPool2dWithIndicesBackward(g, x, shape(2, 2), shape(2, 2), shape(0, 0), shape(1, 1), false, idx))
			}},
		{"max_pool2d backward indices shape", "they must match", "max_pool2d_with_indices_backward", nil,
			func() error {
				g, x, _ := maxPoolIndices(0)
				return e1(torch.TryMaxPool2dWithIndicesBackward(g, x, shape(2, 2), shape(2, 2), shape(0, 0), shape(1, 1), false, full64(0, 1, 1, 1, 1)))
			}},
		{"max_pool3d backward indices", "indices holds", "max_pool3d_with_indices_backward", nil,
			func() error {
				return e1(torch.TryMaxPool3dWithIndicesBackward(torch.Ones(shape(1, 1, 1, 1, 1)), torch.Rand(shape(1, 1, 2, 2, 2)), shape(2, 2, 2), shape(2, 2, 2), shape(0, 0, 0), shape(1, 1, 1), false, full64(big, 1, 1, 1, 1, 1)))
			}},
		{"adaptive_max_pool2d backward indices", "indices holds", "adaptive_max_pool2d_backward", nil,
			func() error {
				g, x, idx := maxPoolIndices(big)
				return e1(torch.TryAdaptiveMaxPool2dBackward(g, x, idx))
			}},
		{"adaptive_max_pool3d backward indices", "indices holds", "adaptive_max_pool3d_backward", nil,
			func() error {
				return e1(torch.TryAdaptiveMaxPool3dBackward(torch.Ones(shape(1, 1, 1, 1, 1)), torch.Rand(shape(1, 1, 2, 2, 2)), full64(big, 1, 1, 1, 1, 1)))
			}},
		{"fractional_max_pool2d backward indices", "indices holds", "fractional_max_pool2d_backward", nil,
			// libtorch's own check is an internal assert that asks to report a bug.
			func() error {
				g, x, idx := maxPoolIndices(big)
				return e1(torch.TryFractionalMaxPool2dBackward(g, x, shape(2, 2), shape(2, 2), idx))
			}},
		{"embedding_dense_backward indices", "indices holds 1099511627776, out of range [0, 4)", "embedding_dense_backward", nil,
			func() error {
				return e1(torch.TryEmbeddingDenseBackward(torch.Rand(shape(2, 3)), i64(big, 1), 4, -1, true))
			}},
		{"embedding_dense_backward negative index", "indices holds -1", "embedding_dense_backward", nil,
			func() error {
				return e1(torch.TryEmbeddingDenseBackward(torch.Rand(shape(2, 3)), i64(-1, 1), 4, -1, true))
			}},
		{"embedding_backward indices", "indices holds", "embedding_backward", nil,
			func() error {
				return e1(torch.TryEmbeddingBackward(torch.Rand(shape(2, 3)), i64(big, 1), 4, -1, true, false))
			}},
		{"_embedding_bag_dense_backward offset2bag", "offset2bag holds 1099511627776, out of range [0, 1)", "_embedding_bag_dense_backward", nil,
			func() error {
				return e1(torch.TryInternalEmbeddingBagDenseBackward(torch.Rand(shape(1, 3)), i64(0, 1), i64(big, 0), i64(2), i64(0), 4, false, 0, torch.Tensor{}))
			}},
		{"_embedding_bag_dense_backward indices", "indices holds", "_embedding_bag_dense_backward", nil,
			func() error {
				return e1(torch.TryInternalEmbeddingBagDenseBackward(torch.Rand(shape(1, 3)), i64(big, 1), i64(0, 0), i64(2), i64(0), 4, true, 0, torch.Tensor{}))
			}},
		{"_embedding_bag_backward offset2bag", "offset2bag holds", "_embedding_bag_backward", nil,
			func() error {
				return e1(torch.TryInternalEmbeddingBagBackward(torch.Rand(shape(1, 3)), i64(0, 1), i64(0), i64(big, 0), i64(2), i64(0), 4, false, 0, false, torch.Tensor{}))
			}},
		{"_embedding_bag_per_sample_weights_backward offset2bag", "offset2bag holds", "_embedding_bag_per_sample_weights_backward", nil,
			func() error {
				return e1(torch.TryInternalEmbeddingBagPerSampleWeightsBackward(torch.Rand(shape(1, 3)), torch.Rand(shape(4, 3)), i64(0, 1), i64(0), i64(big, 0), 0))
			}},
		{"nll_loss_backward reduction none target", "target holds 1099511627776, out of range [0, 3)", "nll_loss_backward", nil,
			func() error {
				return e1(torch.TryNllLossBackward(torch.Ones(shape(2)), torch.Rand(shape(2, 3)), i64(big, 0), torch.Tensor{}, 0, -100, torch.ScalarTensor(torch.S(2.0))))
			}},
		{"nll_loss2d_backward reduction none target", "target holds", "nll_loss2d_backward", nil,
			func() error {
				return e1(torch.TryNllLoss2dBackward(torch.Ones(shape(1, 2, 2)), torch.Rand(shape(1, 3, 2, 2)), full64(big, 1, 2, 2), torch.Tensor{}, 0, -100, torch.ScalarTensor(torch.S(4.0))))
			}},
		{"_gather_sparse_backward index", "index holds", "_gather_sparse_backward", nil,
			func() error { return e1(torch.TryInternalGatherSparseBackward(f32(1, 2, 3), 0, i64(big), f32(1))) }},
		{"ctc_loss target class out of range", "targets holds 1099511627776, out of range [0, 3)", "ctc_loss", nil,
			func() error {
				lp := torch.Rand(shape(5, 1, 3)).LogSoftmax(2)
				return e1(torch.TryCtcLossIntList(lp, i64(big, 1).View(shape(1, 2)), shape(5), shape(2)))
			}},
		{"_ctc_loss target class negative", "targets holds -1", "_ctc_loss", nil,
			func() error {
				lp := torch.Rand(shape(5, 1, 3)).LogSoftmax(2)
				return e2(torch.TryInternalCtcLoss(lp, i64(-1, 1), shape(5), shape(2)))
			}},
		{"_ctc_loss_backward input lengths", "input_lengths holds 1099511627776", "_ctc_loss_backward", nil,
			func() error {
				lp := torch.Rand(shape(5, 1, 3)).LogSoftmax(2)
				return e1(torch.TryInternalCtcLossBackward(torch.Ones(shape(1)), lp, i64(1, 2), shape(big), shape(2), torch.Rand(shape(1)), torch.Rand(shape(1, 5, 5)), 0))
			}},
		{"_ctc_loss_backward log_alpha shape", "log_alpha has size [1, 2, 2]", "_ctc_loss_backward", nil,
			func() error {
				lp := torch.Rand(shape(5, 1, 3)).LogSoftmax(2)
				return e1(torch.TryInternalCtcLossBackward(torch.Ones(shape(1)), lp, i64(1, 2), shape(5), shape(2), torch.Rand(shape(1)), torch.Rand(shape(1, 2, 2)), 0))
			}},
		{"_ctc_loss_backward blank", "blank 1099511627776 is not a class", "_ctc_loss_backward", nil,
			func() error {
				lp := torch.Rand(shape(5, 1, 3)).LogSoftmax(2)
				return e1(torch.TryInternalCtcLossBackward(torch.Ones(shape(1)), lp, i64(1, 2), shape(5), shape(2), torch.Rand(shape(1)), torch.Rand(shape(1, 5, 5)), big))
			}},
		{"_reshape_alias past the storage", "reaches past the storage of 12 bytes", "_reshape_alias", nil,
			func() error { return e1(torch.TryInternalReshapeAlias(f32(1, 2, 3), shape(1000000), shape(1000))) }},
		{"_reshape_alias_copy past the storage", "reaches past the storage", "_reshape_alias_copy", nil,
			func() error { return e1(torch.TryInternalReshapeAliasCopy(f32(1, 2, 3), shape(2, 2), shape(2, 1))) }},
		{"_sparse_coo_tensor_unsafe index out of range", "size is inconsistent with indices", "_sparse_coo_tensor_unsafe", nil,
			func() error {
				return e1(torch.TryInternalSparseCooTensorUnsafe(i64(big).View(shape(1, 1)), f32(1), shape(3)))
			}},
		{"_sparse_coo_tensor_unsafe negative index", "negative", "_sparse_coo_tensor_unsafe", nil,
			func() error {
				return e1(torch.TryInternalSparseCooTensorUnsafe(i64(-big).View(shape(1, 1)), f32(1), shape(3)))
			}},
		{"_sparse_coo_tensor_with_dims_and_tensors index", "size is inconsistent with indices", "_sparse_coo_tensor_with_dims_and_tensors", nil,
			func() error {
				return e1(torch.TryInternalSparseCooTensorWithDimsAndTensors(1, 0, shape(3), i64(big).View(shape(1, 1)), f32(1), torch.WithLayout(torch.SparseCOO)))
			}},
		{"_sparse_csc_tensor_unsafe row index", "row_indices", "_sparse_csc_tensor_unsafe", nil,
			func() error {
				return e1(torch.TryInternalSparseCscTensorUnsafe(i64(0, 1), i64(big), f32(1), shape(3, 1)))
			}},
		{"_sparse_compressed_tensor_unsafe crow index", "crow_indices", "_sparse_compressed_tensor_unsafe", nil,
			func() error {
				return e1(torch.TryInternalSparseCompressedTensorUnsafe(i64(0, big), i64(0), f32(1), shape(1, 3), torch.WithLayout(torch.SparseCSR)))
			}},
		{"_convert_indices_from_csr_to_coo negative crow", "crow_indices holds -5", "_convert_indices_from_csr_to_coo", nil,
			func() error { return e1(torch.TryInternalConvertIndicesFromCsrToCoo(i64(0, -5), i64(0))) }},
		{"_convert_indices_from_coo_to_csr negative index", "indices holds -5", "_convert_indices_from_coo_to_csr", nil,
			func() error { return e1(torch.TryInternalConvertIndicesFromCooToCsr(i64(-5, 0), 3)) }},
		{"linalg_ldl_solve zero pivot", "pivot 0 out of range", "linalg_ldl_solve", nil,
			func() error {
				return e1(torch.TryLinalgLdlSolve(torch.Rand(shape(3, 3)), i32(0, 2, 3), torch.Rand(shape(3, 1))))
			}},
		{"linalg_ldl_solve huge pivot", "pivot 1073741824 out of range", "linalg_ldl_solve", nil,
			func() error {
				return e1(torch.TryLinalgLdlSolve(torch.Rand(shape(3, 3)), i32(1<<30, 2, 3), torch.Rand(shape(3, 1))))
			}},
		{"linalg_ldl_solve lone negative pivot", "not followed by the same one", "linalg_ldl_solve", nil,
			func() error {
				return e1(torch.TryLinalgLdlSolve(torch.Rand(shape(3, 3)), i32(1, 2, -3), torch.Rand(shape(3, 1))))
			}},
		{"_sobol_engine_initialize_state_ dimension", "the Sobol state has size [2, 30]", "_sobol_engine_initialize_state_", nil,
			func() error { return e1(torch.TryInternalSobolEngineInitializeState_(full64(0, 2, 30), 1000)) }},
		{"_sobol_engine_draw dimension", "the Sobol state has size", "_sobol_engine_draw", nil,
			func() error {
				return e2(torch.TryInternalSobolEngineDraw(full64(0, 2), 10, full64(0, 2, 30), 1000, 0))
			}},
		{"_sobol_engine_ff_ dimension", "the Sobol state has size", "_sobol_engine_ff_", nil,
			func() error { return e1(torch.TryInternalSobolEngineFf_(full64(0, 2), 10, full64(0, 2, 30), 1000, 0)) }},
	}
}
