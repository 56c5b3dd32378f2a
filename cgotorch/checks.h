// checks.h: argument checks that the generated shim runs before kernels
// that trust their arguments (issue #27). internal/gen's trustedArgs table
// says which op calls which check, with which of its arguments; the call is
// emitted in the op's own shim function, inside its guard, so that a
// failed check comes back from the same call as a *torch.Error. Each check
// returns at once unless the call could reach the kernel's unchecked path:
// cheap tests (device, layout, dtype, a flag) come before any scan of
// values. docs/robustness.md explains the table. Not part of the C ABI.
#ifndef GOTORCH_CGOTORCH_CHECKS_H_
#define GOTORCH_CGOTORCH_CHECKS_H_

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace gotorch {
namespace checks {

// scannable: a tensor whose values a check can read here: defined, on the
// CPU (meta tensors have no values, and their kernels read none), strided.
inline bool scannable(const at::Tensor &t) {
  return t.defined() && t.device().is_cpu() && t.layout() == at::kStrided;
}

// integral: an integer tensor whose values a check can read (a kernel
// refuses other dtypes for an index argument itself).
inline bool integral(const at::Tensor &t) {
  return scannable(t) && at::isIntegralType(t.scalar_type(), /*includeBool=*/false);
}

// min_max returns the least and the greatest value of a non-empty integer
// tensor.
inline std::pair<int64_t, int64_t> min_max(const at::Tensor &t) {
  at::NoGradGuard no_grad;
  auto mm = at::aminmax(t);
  return {std::get<0>(mm).item<int64_t>(), std::get<1>(mm).item<int64_t>()};
}

// in_range checks that every value of idx is in [lo, hi).
inline void in_range(const char *op, const char *arg, const at::Tensor &idx, int64_t lo, int64_t hi) {
  if (!integral(idx) || idx.numel() == 0) return;
  auto mm = min_max(idx);
  TORCH_CHECK_INDEX(mm.first >= lo && mm.second < hi, op, ": ", arg, " holds ",
                    mm.first < lo ? mm.first : mm.second, ", out of range [", lo, ", ", hi,
                    ") (GoTorch checks this argument: the kernel trusts it)");
}

// nondecreasing checks that idx does not decrease along its last dimension.
inline void nondecreasing(const char *op, const char *arg, const at::Tensor &idx) {
  if (!integral(idx) || idx.dim() == 0 || idx.size(-1) < 2) return;
  at::NoGradGuard no_grad;
  TORCH_CHECK(at::diff(idx, 1, -1).ge(0).all().item<bool>(), op, ": ", arg,
              " must not decrease along its last dimension (GoTorch checks this argument: the kernel trusts it)");
}

// ---------------------------------------------------------------------------
// Integer division: the minimum int32 or int64 divided by -1 overflows, and
// x86's idiv traps (SIGFPE) instead of wrapping. Narrower integers are
// promoted to int in C++ and wrap without a trap. The kernels compute in
// the operands' promoted dtype (at::result_type), whatever the output's.

inline at::Tensor as_tensor(const at::Tensor &t) { return t; }
inline at::Tensor as_tensor(const at::Scalar &s) { return c10::scalar_to_tensor(s); }

template <class A, class B>
inline void int_div(const char *op, const A &a, const B &b) {
  const at::ScalarType t = at::result_type(a, b);
  if (t != at::kInt && t != at::kLong) return;
  at::Tensor x = as_tensor(a), y = as_tensor(b);
  if (!x.defined() || !y.defined() || !x.device().is_cpu() || !y.device().is_cpu()) return;
  at::NoGradGuard no_grad;
  if (x.layout() != at::kStrided) x = x.to_dense();
  if (y.layout() != at::kStrided) y = y.to_dense();
  at::Tensor minus_one = y.to(t).eq(-1);
  if (!minus_one.any().item<bool>()) return;
  const at::Scalar lowest = t == at::kInt ? at::Scalar(int64_t{std::numeric_limits<int32_t>::min()})
                                          : at::Scalar(std::numeric_limits<int64_t>::min());
  TORCH_CHECK(!at::logical_and(x.to(t).eq(lowest), minus_one).any().item<bool>(), op,
              ": integer overflow: the minimum ", t == at::kInt ? "int32" : "int64",
              " divided by -1 (the result does not fit in ", t == at::kInt ? "int32" : "int64", ")");
}

template <class A, class B>
inline void int_div_mode(const char *op, const A &a, const B &b, const c10::optional<c10::string_view> &mode) {
  // Without a rounding mode, div is true division, in floating point.
  if (mode.has_value()) int_div(op, a, b);
}

// ---------------------------------------------------------------------------
// Index arguments.

// searchsorted's sorter is a permutation of the sorted dimension; the
// kernel reads sorted_sequence[sorter[i]] unchecked.
inline void sorter(const char *op, const at::Tensor &seq, const c10::optional<at::Tensor> &s) {
  if (!s.has_value() || !s->defined() || seq.dim() == 0) return;
  in_range(op, "sorter", *s, 0, seq.size(-1));
}

// segment_reduce with unsafe=true skips its own checks of lengths; its
// offsets are never checked. The backward op checks neither.
inline void segments(const char *op, const at::Tensor &data, const c10::optional<at::Tensor> &lengths,
                     const c10::optional<at::Tensor> &offsets, int64_t axis) {
  if (!scannable(data)) return;
  const int64_t ax = c10::maybe_wrap_dim(axis, data.dim());
  const int64_t n = data.size(ax);
  if (lengths.has_value() && lengths->defined() && integral(*lengths) && lengths->numel() > 0) {
    at::NoGradGuard no_grad;
    auto mm = min_max(*lengths);
    TORCH_CHECK_INDEX(mm.first >= 0, op, ": lengths holds ", mm.first, ", a negative length");
    TORCH_CHECK_INDEX(lengths->sum(-1).eq(n).all().item<bool>(), op,
                      ": every row of lengths must sum to the size of data along axis, ", n);
  }
  if (offsets.has_value() && offsets->defined()) {
    in_range(op, "offsets", *offsets, 0, n + 1);
    nondecreasing(op, "offsets", *offsets);
  }
}

inline void segment_reduce(const char *op, const at::Tensor &data, const c10::optional<at::Tensor> &lengths,
                           const c10::optional<at::Tensor> &offsets, int64_t axis, bool unsafe) {
  TORCH_CHECK(!unsafe, op,
              ": unsafe=true skips the checks of lengths and offsets, and the kernel then reads out of "
              "bounds; GoTorch refuses it (leave unsafe false)");
  segments(op, data, lengths, offsets, axis);
}

inline void segment_reduce_backward(const char *op, const at::Tensor &grad, const at::Tensor &output,
                                    const at::Tensor &data, const c10::optional<at::Tensor> &lengths,
                                    const c10::optional<at::Tensor> &offsets, int64_t axis) {
  TORCH_CHECK(grad.sizes() == output.sizes(), op, ": grad has size ", grad.sizes(), ", output ",
              output.sizes());
  if (!scannable(data)) return;
  const int64_t ax = c10::maybe_wrap_dim(axis, data.dim());
  TORCH_CHECK(output.dim() == data.dim(), op, ": output has ", output.dim(), " dimensions, data ", data.dim());
  int64_t segs = -1;
  if (lengths.has_value() && lengths->defined() && lengths->dim() > 0) segs = lengths->size(-1);
  if (offsets.has_value() && offsets->defined() && offsets->dim() > 0) segs = offsets->size(-1) - 1;
  for (int64_t d = 0; d < data.dim(); d++) {
    const int64_t want = d == ax ? segs : data.size(d);
    TORCH_CHECK(want < 0 || output.size(d) == want, op, ": output has size ", output.sizes(),
                ", which does not match data ", data.sizes(), " and the segments (", segs, ")");
  }
  segments(op, data, lengths, offsets, axis);
}

// The backward ops of max pooling scatter the gradient to input positions
// read from indices: each must be a position in one plane of self (the
// last `dims` dimensions), and indices must match grad_output's shape.
inline void pool_indices(const char *op, int dims, const at::Tensor &grad_output, const at::Tensor &self,
                         const at::Tensor &indices) {
  TORCH_CHECK(indices.sizes() == grad_output.sizes(), op, ": indices has size ", indices.sizes(),
              ", grad_output ", grad_output.sizes(), "; they must match");
  if (self.dim() < dims) return;  // the kernel rejects the shape
  int64_t plane = 1;
  for (int d = 1; d <= dims; d++) plane *= self.size(-d);
  in_range(op, "indices", indices, 0, plane);
}
inline void pool2d_indices(const char *op, const at::Tensor &g, const at::Tensor &s, const at::Tensor &i) {
  pool_indices(op, 2, g, s, i);
}
inline void pool3d_indices(const char *op, const at::Tensor &g, const at::Tensor &s, const at::Tensor &i) {
  pool_indices(op, 3, g, s, i);
}

// embedding's backward ops count and scatter by index into num_weights rows.
inline void embedding_indices(const char *op, const at::Tensor &indices, int64_t num_weights) {
  in_range(op, "indices", indices, 0, num_weights);
}

// embedding_bag's backward ops: indices are rows of the weight, offset2bag
// maps each index to its bag (a row of grad), and bag_size and
// per_sample_weights are read per bag and per index. (maximum_indices, in
// max mode, goes through index_add, which checks it.)
inline void embedding_bag(const char *op, const at::Tensor &grad, const at::Tensor &indices,
                          const at::Tensor &offset2bag, int64_t num_weights,
                          const c10::optional<at::Tensor> &per_sample_weights) {
  in_range(op, "indices", indices, 0, num_weights);
  // An empty offset2bag is what the forward op returns in sum mode when no
  // gradient is needed; _embedding_bag_backward rebuilds it from offsets.
  TORCH_CHECK(offset2bag.numel() == indices.numel() || offset2bag.numel() == 0, op, ": offset2bag has ",
              offset2bag.numel(), " elements, indices ", indices.numel(), "; they must match");
  if (grad.dim() > 0) in_range(op, "offset2bag", offset2bag, 0, grad.size(0));
  if (per_sample_weights.has_value() && per_sample_weights->defined()) {
    TORCH_CHECK(per_sample_weights->numel() == indices.numel(), op, ": per_sample_weights has ",
                per_sample_weights->numel(), " elements, indices ", indices.numel(), "; they must match");
  }
}
inline void embedding_bag_sizes(const char *op, const at::Tensor &grad, const at::Tensor &indices,
                                const at::Tensor &offset2bag, const at::Tensor &bag_size, int64_t num_weights,
                                const c10::optional<at::Tensor> &per_sample_weights) {
  embedding_bag(op, grad, indices, offset2bag, num_weights, per_sample_weights);
  if (grad.dim() > 0) {
    TORCH_CHECK(bag_size.numel() >= grad.size(0), op, ": bag_size has ", bag_size.numel(),
                " elements for ", grad.size(0), " bags");
  }
}
inline void embedding_bag_weight(const char *op, const at::Tensor &grad, const at::Tensor &weight,
                                 const at::Tensor &indices, const at::Tensor &offset2bag) {
  if (weight.dim() > 0) embedding_bag(op, grad, indices, offset2bag, weight.size(0), c10::nullopt);
}

// nll_loss's backward ops read a class per target; with reduction none they
// do not check it.
inline void nll_target(const char *op, const at::Tensor &self, const at::Tensor &target, int64_t ignore_index) {
  if (!integral(target) || target.numel() == 0 || self.dim() == 0) return;
  const int64_t classes = self.dim() == 1 ? self.size(0) : self.size(1);
  at::NoGradGuard no_grad;
  at::Tensor t = target.masked_fill(target.eq(ignore_index), 0);
  in_range(op, "target", t, 0, classes);
}

// _gather_sparse_backward builds a sparse tensor from index unchecked.
inline void gather_sparse(const char *op, const at::Tensor &self, int64_t dim, const at::Tensor &index,
                          const at::Tensor &grad) {
  TORCH_CHECK(index.sizes() == grad.sizes(), op, ": index has size ", index.sizes(), ", grad ", grad.sizes(),
              "; they must match");
  const int64_t d = c10::maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  in_range(op, "index", index, 0, self.dim() == 0 ? 1 : self.size(d));
}

// The "unsafe" sparse constructors skip the validation that the checked
// ones do; their tensors are later densified or coalesced unchecked.
inline void sparse_coo(const char *op, const at::Tensor &indices, const at::Tensor &values, at::IntArrayRef size) {
  (void)op;
  at::_validate_sparse_coo_tensor_args(indices, values, size);
}
inline void sparse_coo_dims(const char *op, int64_t sparse_dim, int64_t dense_dim, at::IntArrayRef size,
                            const at::Tensor &indices, const at::Tensor &values) {
  TORCH_CHECK(indices.dim() == 2 && indices.size(0) == sparse_dim, op, ": indices has size ", indices.sizes(),
              " for sparse_dim ", sparse_dim);
  TORCH_CHECK(values.dim() == dense_dim + 1, op, ": values has ", values.dim(), " dimensions for dense_dim ",
              dense_dim);
  at::_validate_sparse_coo_tensor_args(indices, values, size);
}
inline void sparse_csc(const char *op, const at::Tensor &ci, const at::Tensor &pi, const at::Tensor &values,
                       at::IntArrayRef size) {
  (void)op;
  at::_validate_sparse_csc_tensor_args(ci, pi, values, size);
}
inline void sparse_bsr(const char *op, const at::Tensor &ci, const at::Tensor &pi, const at::Tensor &values,
                       at::IntArrayRef size) {
  (void)op;
  at::_validate_sparse_bsr_tensor_args(ci, pi, values, size);
}
inline void sparse_bsc(const char *op, const at::Tensor &ci, const at::Tensor &pi, const at::Tensor &values,
                       at::IntArrayRef size) {
  (void)op;
  at::_validate_sparse_bsc_tensor_args(ci, pi, values, size);
}
inline void sparse_compressed(const char *op, const at::Tensor &ci, const at::Tensor &pi, const at::Tensor &values,
                              at::IntArrayRef size, const at::TensorOptions &options) {
  TORCH_CHECK(options.has_layout(), op, ": a layout (sparse CSR, CSC, BSR or BSC) is required");
  at::_validate_sparse_compressed_tensor_args(ci, pi, values, size, options.layout());
}

inline at::Tensor lengths_tensor(const at::Tensor &t) { return t; }
inline at::Tensor lengths_tensor(at::IntArrayRef l) { return at::tensor(l, at::kLong); }

// ctc_loss reads log_probs at each target's class unchecked.
inline void ctc_targets(const char *op, const at::Tensor &log_probs, const at::Tensor &targets,
                        const at::Tensor &target_lengths) {
  if (!integral(targets) || !integral(target_lengths) || targets.numel() == 0 || log_probs.dim() == 0) return;
  const int64_t classes = log_probs.size(-1);
  at::NoGradGuard no_grad;
  if (targets.dim() == 1) {
    const int64_t n = std::min<int64_t>(target_lengths.clamp_min(0).sum().item<int64_t>(), targets.numel());
    in_range(op, "targets", targets.narrow(0, 0, n), 0, classes);
  } else if (targets.dim() == 2 && target_lengths.dim() == 1 && target_lengths.size(0) == targets.size(0)) {
    // Padded targets: only the first target_lengths[b] of row b are read.
    at::Tensor read = at::arange(targets.size(1), target_lengths.options()).unsqueeze(0).lt(target_lengths.unsqueeze(1));
    in_range(op, "targets", targets.masked_select(read), 0, classes);
  }
}
inline void ctc_targets(const char *op, const at::Tensor &log_probs, const at::Tensor &targets,
                        at::IntArrayRef target_lengths) {
  ctc_targets(op, log_probs, targets, lengths_tensor(target_lengths));
}

// _ctc_loss_backward also reads log_alpha and neg_log_likelihood at the
// shapes the forward op made them, and the lengths the forward op checked.
template <class L>
inline void ctc_backward(const char *op, const at::Tensor &grad, const at::Tensor &log_probs,
                         const at::Tensor &targets, const L &input_lengths_, const L &target_lengths_,
                         const at::Tensor &neg_log_likelihood, const at::Tensor &log_alpha, int64_t blank) {
  const at::Tensor input_lengths = lengths_tensor(input_lengths_), target_lengths = lengths_tensor(target_lengths_);
  TORCH_CHECK(log_probs.dim() == 3, op, ": log_probs must have 3 dimensions, got ", log_probs.dim());
  const int64_t T = log_probs.size(0), B = log_probs.size(1);
  TORCH_CHECK(blank >= 0 && blank < log_probs.size(2), op, ": blank ", blank, " is not a class of log_probs (",
              log_probs.size(2), ")");
  TORCH_CHECK(input_lengths.numel() == B && target_lengths.numel() == B, op,
              ": input_lengths and target_lengths must have one value per batch element (", B, ")");
  TORCH_CHECK(grad.numel() == B || grad.numel() == 1, op, ": grad has ", grad.numel(), " elements for a batch of ", B);
  TORCH_CHECK(neg_log_likelihood.numel() == B, op, ": neg_log_likelihood has ", neg_log_likelihood.numel(),
              " elements for a batch of ", B);
  in_range(op, "input_lengths", input_lengths, 0, T + 1);
  in_range(op, "target_lengths", target_lengths, 0, std::numeric_limits<int64_t>::max());
  if (!integral(target_lengths) || !integral(targets)) return;
  const int64_t max_len = B == 0 ? 0 : target_lengths.max().item<int64_t>();
  if (targets.dim() == 1) {
    TORCH_CHECK(target_lengths.sum().item<int64_t>() <= targets.numel(), op, ": target_lengths sum to more than the ",
                targets.numel(), " targets");
  } else {
    TORCH_CHECK(targets.dim() == 2 && targets.size(0) == B && max_len <= targets.size(1), op,
                ": targets has size ", targets.sizes(), " for a batch of ", B, " and target lengths up to ", max_len);
  }
  TORCH_CHECK(log_alpha.dim() == 3 && log_alpha.size(0) == B && log_alpha.size(1) == T &&
                  log_alpha.size(2) >= 2 * max_len + 1,
              op, ": log_alpha has size ", log_alpha.sizes(), ", not [", B, ", ", T, ", ", 2 * max_len + 1, "]");
  ctc_targets(op, log_probs, targets, target_lengths);
}

// _reshape_alias makes a view with the given sizes and strides without
// checking that it stays inside the storage.
inline void view_in_storage(const char *op, const at::Tensor &self, at::IntArrayRef size, at::IntArrayRef stride) {
  TORCH_CHECK(size.size() == stride.size(), op, ": ", size.size(), " sizes but ", stride.size(), " strides");
  if (!self.has_storage()) return;
  int64_t last = 0;  // the greatest element offset the view reaches
  bool empty = false;
  for (size_t i = 0; i < size.size(); i++) {
    TORCH_CHECK(size[i] >= 0, op, ": negative size ", size[i]);
    TORCH_CHECK(stride[i] >= 0, op, ": negative stride ", stride[i]);
    if (size[i] == 0) empty = true;
    int64_t reach = 0;
    TORCH_CHECK(!__builtin_mul_overflow(size[i] == 0 ? 0 : size[i] - 1, stride[i], &reach) &&
                    !__builtin_add_overflow(last, reach, &last),
                op, ": the view's extent overflows");
  }
  if (empty) return;
  int64_t end = 0, bytes = 0;
  TORCH_CHECK(!__builtin_add_overflow(last + 1, self.storage_offset(), &end) &&
                  !__builtin_mul_overflow(end, static_cast<int64_t>(self.itemsize()), &bytes) &&
                  bytes <= static_cast<int64_t>(self.storage().nbytes()),
              op, ": a view of size ", size, " and stride ", stride, " at offset ", self.storage_offset(),
              " reaches past the storage of ", self.storage().nbytes(), " bytes");
}

// Index conversions between compressed (CSR) and coordinate (COO) form.
inline void csr_to_coo(const char *op, const at::Tensor &crow, const at::Tensor &col) {
  in_range(op, "crow_indices", crow, 0, (col.dim() == 0 ? 1 : col.size(-1)) + 1);
  nondecreasing(op, "crow_indices", crow);
}
inline void coo_to_csr(const char *op, const at::Tensor &self, int64_t size) {
  TORCH_CHECK(self.dim() <= 1, op, ": the indices must be 1-dimensional, got size ", self.sizes());
  in_range(op, "indices", self, 0, size);
}

// linalg_ldl_solve passes pivots to LAPACK's sytrs, which swaps rows by
// them unchecked: 1 <= |p| <= n, and a negative pivot (a 2×2 block) is
// followed by the same one.
inline void ldl_pivots(const char *op, const at::Tensor &LD, const at::Tensor &pivots) {
  if (!scannable(pivots) || pivots.scalar_type() != at::kInt || LD.dim() < 2 || pivots.dim() < 1) return;
  const int64_t n = LD.size(-1);
  at::Tensor p = pivots.contiguous();
  const int32_t *v = p.data_ptr<int32_t>();
  const int64_t k = p.size(-1), rows = k == 0 ? 0 : p.numel() / k;
  TORCH_CHECK(k == n, op, ": pivots has ", k, " values per matrix of size ", n);
  for (int64_t r = 0; r < rows; r++) {
    const int32_t *q = v + r * k;
    for (int64_t i = 0; i < k; i++) {
      TORCH_CHECK(q[i] != 0 && q[i] >= -n && q[i] <= n, op, ": pivot ", q[i], " out of range [-", n, ", ", n,
                  "] or zero. Did you pass the result of linalg_ldl_factor?");
      if (q[i] < 0) {
        TORCH_CHECK(i + 1 < k && q[i + 1] == q[i], op, ": negative pivot ", q[i],
                    " not followed by the same one (a 2x2 block)");
        i++;
      }
    }
  }
}

// The Sobol engine's ops index its state (dimension × 30 direction
// numbers, as torch.quasirandom.SobolEngine makes it) by the dimension and
// by the bits of the number of points drawn.
constexpr int64_t sobol_maxbit = 30;
inline void sobol_state(const char *op, const at::Tensor &state, int64_t dimension) {
  TORCH_CHECK(state.dim() == 2 && state.size(1) >= sobol_maxbit && dimension >= 0 && dimension <= state.size(0), op,
              ": the Sobol state has size ", state.sizes(), ", it must be [dimension (", dimension, "), ", sobol_maxbit,
              "]");
}
inline void sobol_draw(const char *op, const at::Tensor &quasi, int64_t n, const at::Tensor &state,
                       int64_t dimension, int64_t num_generated) {
  sobol_state(op, state, dimension);
  TORCH_CHECK(quasi.numel() >= dimension, op, ": quasi has ", quasi.numel(), " elements for dimension ", dimension);
  TORCH_CHECK(n >= 0 && num_generated >= 0 && n <= (int64_t{1} << sobol_maxbit) - num_generated, op,
              ": drawing ", n, " points after ", num_generated, " exceeds the engine's 2^", sobol_maxbit);
}
inline void sobol_scramble(const char *op, const at::Tensor &state, const at::Tensor &ltm, int64_t dimension) {
  sobol_state(op, state, dimension);
  TORCH_CHECK(ltm.dim() == 3 && ltm.size(0) >= dimension && ltm.size(1) >= sobol_maxbit &&
                  ltm.size(2) >= sobol_maxbit,
              op, ": ltm has size ", ltm.sizes(), ", it must be [dimension (", dimension, "), ", sobol_maxbit, ", ",
              sobol_maxbit, "]");
}

// ---------------------------------------------------------------------------
// Backward ops that PyTorch's Python layer only ever calls with the shapes
// of their forward pass: given others, their kernels read and write past
// their tensors or return nonsense.

// unfold_backward: grad_in must have the shape that unfold(dim, size, step)
// gives a tensor of input_sizes.
inline void unfold_grad(const char *op, const at::Tensor &grad_in, at::IntArrayRef input_sizes, int64_t dim,
                        int64_t size, int64_t step) {
  TORCH_CHECK(step > 0, op, ": step is ", step, ", it must be positive");
  TORCH_CHECK(size >= 0, op, ": size is ", size, ", it must not be negative");
  for (int64_t s : input_sizes) TORCH_CHECK(s >= 0, op, ": input_sizes ", input_sizes, " has a negative size");
  std::vector<int64_t> want;
  if (input_sizes.empty()) {
    TORCH_CHECK(dim == 0 || dim == -1, op, ": dim ", dim, " is out of range for a 0-dimensional input");
    TORCH_CHECK(size <= 1, op, ": size ", size, " is larger than the 1 element of a 0-dimensional input");
    want = {size};
  } else {
    const int64_t n = static_cast<int64_t>(input_sizes.size());
    TORCH_CHECK_INDEX(dim >= -n && dim < n, op, ": dim ", dim, " is out of range for ", n, " input dimensions");
    const int64_t d = dim < 0 ? dim + n : dim;
    TORCH_CHECK(size <= input_sizes[d], op, ": size ", size, " is larger than dimension ", d, " of input_sizes ",
                input_sizes);
    want.assign(input_sizes.begin(), input_sizes.end());
    want[d] = (input_sizes[d] - size) / step + 1;
    want.push_back(size);
  }
  TORCH_CHECK(grad_in.sizes().equals(want), op, ": grad_in has size ", grad_in.sizes(), ", but unfold(", dim, ", ",
              size, ", ", step, ") of a tensor of size ", input_sizes, " has size ", at::IntArrayRef(want));
}

// _cdist_backward: x1 [..., r1, m] and x2 [..., r2, m] give cdist and grad
// of [batch..., r1, r2].
inline void cdist_grad(const char *op, const at::Tensor &grad, const at::Tensor &x1, const at::Tensor &x2,
                       const at::Tensor &cdist) {
  TORCH_CHECK(x1.dim() >= 2 && x2.dim() >= 2, op, ": x1 and x2 must have at least 2 dimensions, not ", x1.dim(),
              " and ", x2.dim());
  TORCH_CHECK(x1.size(-1) == x2.size(-1), op, ": x1 has ", x1.size(-1), " columns and x2 ", x2.size(-1));
  std::vector<int64_t> want =
      at::infer_size(x1.sizes().slice(0, x1.dim() - 2), x2.sizes().slice(0, x2.dim() - 2));
  want.push_back(x1.size(-2));
  want.push_back(x2.size(-2));
  TORCH_CHECK(cdist.sizes().equals(want), op, ": cdist has size ", cdist.sizes(), ", but the distances of x1 ",
              x1.sizes(), " and x2 ", x2.sizes(), " have size ", at::IntArrayRef(want));
  TORCH_CHECK(grad.sizes().equals(want), op, ": grad has size ", grad.sizes(), ", not cdist's ", cdist.sizes());
}

// _pdist_backward: self [n, m] gives pdist and grad of [n(n-1)/2].
inline void pdist_grad(const char *op, const at::Tensor &grad, const at::Tensor &self, const at::Tensor &pdist) {
  TORCH_CHECK(self.dim() == 2, op, ": self must have 2 dimensions, not ", self.dim());
  const int64_t n = self.size(0);
  const int64_t pairs = n < 2 ? 0 : n * (n - 1) / 2;
  TORCH_CHECK(pdist.dim() == 1 && pdist.size(0) == pairs, op, ": pdist has size ", pdist.sizes(), ", but the ", n,
              " rows of self have ", pairs, " pairs");
  TORCH_CHECK(grad.sizes().equals(pdist.sizes()), op, ": grad has size ", grad.sizes(), ", not pdist's ",
              pdist.sizes());
}

// ---------------------------------------------------------------------------
// Round 3 (issue #36): arguments that 1.13.1's kernels trust and later
// PyTorch checks, or that a probe of every op taking index, offset,
// sample, length or per-channel tensors found unchecked (docs/robustness.md,
// "Round 3: serving, samplers and op checks").

// maybe is an optional tensor argument as a tensor, undefined for none.
inline at::Tensor maybe(const at::Tensor &t) { return t; }
inline at::Tensor maybe(const c10::optional<at::Tensor> &t) { return t.has_value() ? *t : at::Tensor(); }

// per_channel checks that a defined per-channel tensor has one value per
// channel: the kernels read `channels` values from it.
inline void per_channel(const char *op, const char *arg, const at::Tensor &t, int64_t channels) {
  if (!t.defined()) return;
  TORCH_CHECK(t.numel() == channels, op, ": ", arg, " has ", t.numel(), " elements for ", channels,
              " channels; it must have one per channel (GoTorch checks this argument: the kernel trusts it)");
}

inline int64_t channels_of(const at::Tensor &input) { return input.dim() >= 2 ? input.size(1) : 1; }

// fractional_max_pool2d/3d read random_samples[n][c][0..dims) for every
// batch element and plane, and turn each into pooling windows that they do
// not clamp: a sample must be in [0, 1). PyTorch 2.x checks the batch and
// plane sizes; the values are still trusted upstream.
inline void fractional_samples(const char *op, int dims, const at::Tensor &self, const at::Tensor &samples) {
  if (self.dim() != dims + 1 && self.dim() != dims + 2) return;  // the kernel rejects the shape
  const int64_t batch = self.dim() == dims + 2 ? self.size(0) : 1;
  const int64_t planes = self.size(self.dim() - dims - 1);
  TORCH_CHECK(samples.dim() == 3 && samples.size(0) == batch && samples.size(1) == planes && samples.size(2) == dims,
              op, ": random_samples has size ", samples.sizes(), "; it must be [", batch, ", ", planes, ", ", dims,
              "] (batch, planes, one sample per pooled dimension)");
  if (!scannable(samples) || samples.numel() == 0 || !at::isFloatingType(samples.scalar_type())) return;
  at::NoGradGuard no_grad;
  auto mm = at::aminmax(samples);
  const double lo = std::get<0>(mm).item<double>(), hi = std::get<1>(mm).item<double>();
  TORCH_CHECK(lo >= 0 && hi < 1 && !at::isnan(samples).any().item<bool>(), op,
              ": random_samples must be in [0, 1), got values in [", lo, ", ", hi,
              "] (GoTorch checks this argument: the kernel trusts it)");
}
inline void fractional_samples2d(const char *op, const at::Tensor &self, const at::Tensor &samples) {
  fractional_samples(op, 2, self, samples);
}
inline void fractional_samples3d(const char *op, const at::Tensor &self, const at::Tensor &samples) {
  fractional_samples(op, 3, self, samples);
}

// _pad_packed_sequence walks data by batch_sizes: each step's batch must
// be in [1, the previous one], and together they must cover data's rows.
inline void packed_batch_sizes(const char *op, const at::Tensor &data, const at::Tensor &batch_sizes) {
  TORCH_CHECK(batch_sizes.dim() == 1 && batch_sizes.numel() > 0, op,
              ": batch_sizes must be a non-empty 1-D tensor, got size ", batch_sizes.sizes());
  if (!integral(batch_sizes)) return;
  at::NoGradGuard no_grad;
  at::Tensor b = batch_sizes.to(at::kLong);
  TORCH_CHECK(b.min().item<int64_t>() >= 1, op, ": batch_sizes holds ", b.min().item<int64_t>(),
              "; every step has at least one sequence");
  TORCH_CHECK(b.numel() < 2 || at::diff(b).le(0).all().item<bool>(), op,
              ": batch_sizes must not increase (the sequences are sorted by length, longest first)");
  const int64_t total = b.sum().item<int64_t>();
  TORCH_CHECK(data.dim() >= 1 && data.size(0) == total, op, ": batch_sizes sum to ", total, " but data has ",
              data.dim() >= 1 ? data.size(0) : 0, " rows");
}

// rrelu_with_noise writes (training) and reads noise at self's positions.
inline void rrelu_noise(const char *op, const at::Tensor &self, const at::Tensor &noise, bool training) {
  if (!training) return;
  TORCH_CHECK(noise.sizes().equals(self.sizes()), op, ": noise has size ", noise.sizes(), ", self ", self.sizes(),
              "; they must match (GoTorch checks this argument: the kernel trusts it)");
}
inline void rrelu_noise_backward(const char *op, const at::Tensor &grad, const at::Tensor &self,
                                 const at::Tensor &noise, bool training) {
  (void)grad;
  rrelu_noise(op, self, noise, training);
}

// channel_shuffle divides the channels into groups: groups must be
// positive and divide them (a zero or larger group count divides by zero).
inline void channel_groups(const char *op, const at::Tensor &self, int64_t groups) {
  TORCH_CHECK(groups > 0, op, ": groups must be positive, got ", groups);
  if (self.dim() < 3) return;  // the kernel rejects the shape
  TORCH_CHECK(self.size(1) % groups == 0, op, ": groups ", groups, " does not divide the ", self.size(1),
              " channels");
}

// The fused attention kernels divide the embedding by the head count.
inline void attention_heads(const char *op, int64_t embed_dim, int64_t heads) {
  TORCH_CHECK(heads > 0, op, ": the number of heads must be positive, got ", heads);
  TORCH_CHECK(embed_dim % heads == 0, op, ": embed_dim ", embed_dim, " is not divisible by ", heads, " heads");
}
inline void qkv_heads(const char *op, const at::Tensor &qkv, const at::Tensor &qkv_bias, int64_t heads) {
  TORCH_CHECK(heads > 0, op, ": num_heads must be positive, got ", heads);
  if (qkv.dim() != 3) return;  // the kernel rejects the shape
  TORCH_CHECK(qkv.size(2) % 3 == 0 && (qkv.size(2) / 3) % heads == 0, op, ": qkv's last dimension ", qkv.size(2),
              " must be 3 × embed_dim with embed_dim divisible by ", heads, " heads");
  TORCH_CHECK(qkv_bias.dim() == 1 && qkv_bias.size(0) == qkv.size(2), op, ": qkv_bias has size ", qkv_bias.sizes(),
              "; it must be [", qkv.size(2), "]");
}

// Batch norm reads weight, bias and the statistics at every channel.
template <class W, class B, class M, class V>
inline void batch_norm_args(const char *op, const at::Tensor &input, const W &weight, const B &bias,
                            const M &running_mean, const V &running_var) {
  const int64_t c = channels_of(input);
  per_channel(op, "weight", maybe(weight), c);
  per_channel(op, "bias", maybe(bias), c);
  per_channel(op, "running_mean", maybe(running_mean), c);
  per_channel(op, "running_var", maybe(running_var), c);
}
template <class W, class B>
inline void batch_norm_affine(const char *op, const at::Tensor &input, const W &weight, const B &bias) {
  batch_norm_args(op, input, weight, bias, at::Tensor(), at::Tensor());
}
template <class M, class V>
inline void batch_norm_stats(const char *op, const at::Tensor &input, const M &running_mean, const V &running_var) {
  batch_norm_args(op, input, at::Tensor(), at::Tensor(), running_mean, running_var);
}
// The backward reads the saved statistics in training, the running ones
// otherwise; the others may be empty.
inline void batch_norm_backward(const char *op, const at::Tensor &grad_out, const at::Tensor &input,
                                const c10::optional<at::Tensor> &weight, const c10::optional<at::Tensor> &running_mean,
                                const c10::optional<at::Tensor> &running_var,
                                const c10::optional<at::Tensor> &save_mean,
                                const c10::optional<at::Tensor> &save_invstd, bool train) {
  TORCH_CHECK(grad_out.sizes().equals(input.sizes()), op, ": grad_out has size ", grad_out.sizes(), ", input ",
              input.sizes(), "; they must match");
  const int64_t c = channels_of(input);
  per_channel(op, "weight", maybe(weight), c);
  if (train) {
    per_channel(op, "save_mean", maybe(save_mean), c);
    per_channel(op, "save_invstd", maybe(save_invstd), c);
  } else {
    per_channel(op, "running_mean", maybe(running_mean), c);
    per_channel(op, "running_var", maybe(running_var), c);
  }
}

// _weight_norm_interface reads g, and its backward saved_g and
// saved_norms, once per slice of v along dim (0 or the last).
inline int64_t weight_norm_slices(const char *op, const at::Tensor &v, int64_t dim) {
  TORCH_CHECK(v.dim() > 0 && (dim == 0 || dim == v.dim() - 1), op, ": dim must be 0 or the last dimension of v (",
              v.dim() - 1, "), got ", dim);
  return v.size(dim);
}
inline void weight_norm(const char *op, const at::Tensor &v, const at::Tensor &g, int64_t dim) {
  per_channel(op, "g", g, weight_norm_slices(op, v, dim));
}
inline void weight_norm_backward(const char *op, const at::Tensor &grad_w, const at::Tensor &saved_v,
                                 const at::Tensor &saved_g, const at::Tensor &saved_norms, int64_t dim) {
  const int64_t n = weight_norm_slices(op, saved_v, dim);
  TORCH_CHECK(grad_w.sizes().equals(saved_v.sizes()), op, ": grad_w has size ", grad_w.sizes(), ", saved_v ",
              saved_v.sizes(), "; they must match");
  per_channel(op, "saved_g", saved_g, n);
  per_channel(op, "saved_norms", saved_norms, n);
}

// multi_margin_loss reads weight at each target's class.
inline void margin_weight(const char *op, const at::Tensor &self, const c10::optional<at::Tensor> &weight) {
  if (self.dim() > 2) return;  // the kernel rejects the shape
  per_channel(op, "weight", maybe(weight), self.dim() == 0 ? 1 : self.size(-1));
}
inline void margin_weight_backward(const char *op, const at::Tensor &grad_output, const at::Tensor &self,
                                   const c10::optional<at::Tensor> &weight) {
  (void)grad_output;
  margin_weight(op, self, weight);
}

// _fused_moving_avg_obs_fq_helper reads the observer's flags and
// statistics: one each per tensor, or one per channel of ch_axis.
inline void fused_observer(const char *op, const at::Tensor &self, const at::Tensor &observer_on,
                           const at::Tensor &fake_quant_on, const at::Tensor &running_min,
                           const at::Tensor &running_max, const at::Tensor &scale, const at::Tensor &zero_point,
                           int64_t ch_axis, bool per_row) {
  TORCH_CHECK(observer_on.numel() >= 1 && fake_quant_on.numel() >= 1, op,
              ": observer_on and fake_quant_on must hold a value");
  int64_t n = 1;
  if (per_row) {
    TORCH_CHECK(self.dim() > 0, op, ": per-channel quantization needs a tensor with dimensions");
    n = self.size(c10::maybe_wrap_dim(ch_axis, self.dim()));
  }
  per_channel(op, "running_min", running_min, n);
  per_channel(op, "running_max", running_max, n);
  per_channel(op, "scale", scale, n);
  per_channel(op, "zero_point", zero_point, n);
}

// _cummax_helper and _cummin_helper write values and indices at self's
// positions.
inline void cum_outputs(const char *op, const at::Tensor &self, const at::Tensor &values, const at::Tensor &indices) {
  TORCH_CHECK(values.sizes().equals(self.sizes()) && indices.sizes().equals(self.sizes()), op, ": values (",
              values.sizes(), ") and indices (", indices.sizes(), ") must have self's size ", self.sizes());
}

// Softmax backward kernels read output at grad_output's positions.
inline void same_size(const char *op, const char *a, const at::Tensor &x, const char *b, const at::Tensor &y) {
  TORCH_CHECK(x.sizes().equals(y.sizes()), op, ": ", a, " has size ", x.sizes(), ", ", b, " ", y.sizes(),
              "; they must match (GoTorch checks this argument: the kernel trusts it)");
}
inline void softmax_grad(const char *op, const at::Tensor &grad_output, const at::Tensor &output) {
  same_size(op, "grad_output", grad_output, "output", output);
}

// _fft_c2r reads last_dim_size/2+1 values of self along its last
// transformed dimension.
inline void c2r_size(const char *op, const at::Tensor &self, at::IntArrayRef dim, int64_t last_dim_size) {
  TORCH_CHECK(last_dim_size >= 1, op, ": last_dim_size must be positive, got ", last_dim_size);
  if (dim.empty() || self.dim() == 0) return;
  const int64_t d = c10::maybe_wrap_dim(dim.back(), self.dim());
  TORCH_CHECK(self.size(d) >= last_dim_size / 2 + 1, op, ": a last dimension of ", last_dim_size, " needs ",
              last_dim_size / 2 + 1, " values of self along dimension ", d, ", which has ", self.size(d));
}

// grid_sampler's backward reads grad_output at every grid point of every
// channel.
inline void grid_grad(const char *op, const at::Tensor &grad_output, const at::Tensor &input,
                      const at::Tensor &grid) {
  if (input.dim() < 2 || grid.dim() != input.dim()) return;  // the kernel rejects the shape
  std::vector<int64_t> want{input.size(0), input.size(1)};
  for (int64_t d = 1; d < grid.dim() - 1; d++) want.push_back(grid.size(d));
  TORCH_CHECK(grad_output.sizes().equals(want), op, ": grad_output has size ", grad_output.sizes(),
              ", but input and grid give ", at::IntArrayRef(want));
}

// replication_pad3d_backward reads grad_output at the padded size.
inline void pad3d_grad(const char *op, const at::Tensor &grad_output, const at::Tensor &self,
                       at::IntArrayRef padding) {
  if (self.dim() < 4 || padding.size() != 6) return;  // the kernel rejects the shape
  std::vector<int64_t> want(self.sizes().begin(), self.sizes().end());
  const int64_t n = self.dim();
  want[n - 1] += padding[0] + padding[1];
  want[n - 2] += padding[2] + padding[3];
  want[n - 3] += padding[4] + padding[5];
  TORCH_CHECK(grad_output.sizes().equals(want), op, ": grad_output has size ", grad_output.sizes(),
              ", but self padded by ", padding, " has size ", at::IntArrayRef(want));
}

}  // namespace checks
}  // namespace gotorch

#endif  // GOTORCH_CGOTORCH_CHECKS_H_
