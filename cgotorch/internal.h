// internal.h: C++ helpers shared by the hand-written and the generated shim.
// Not part of the C ABI; never included from Go.
#ifndef GOTORCH_CGOTORCH_INTERNAL_H_
#define GOTORCH_CGOTORCH_INTERNAL_H_

#if !__has_include(<ATen/ATen.h>)
#error "gotorch: libtorch headers not found. Install Debian's libtorch-dev (apt-get install libtorch-dev) or set LIBTORCH=/path/to/libtorch and build through the project's Makefile (see README.md, 'Using another libtorch')."
#endif

#include <ATen/ATen.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <utility>

#include "cgotorch.h"

namespace gotorch {

extern std::atomic<bool> with_backtrace;

inline gt_error make_error(const char *msg) {
  size_t n = std::strlen(msg);
  char *p = static_cast<char *>(std::malloc(n + 1));
  if (p == nullptr) return nullptr;  // out of memory: nothing better to do
  std::memcpy(p, msg, n + 1);
  return p;
}

// guard runs f and turns any C++ exception into a gt_error.
template <class F>
inline gt_error guard(F &&f) noexcept {
  try {
    f();
    return nullptr;
  } catch (const c10::Error &e) {
    return make_error(with_backtrace.load(std::memory_order_relaxed)
                          ? e.what()
                          : e.what_without_backtrace());
  } catch (const std::exception &e) {
    return make_error(e.what());
  } catch (...) {
    return make_error("unknown C++ exception");
  }
}

inline at::Tensor &T(gt_tensor t) { return *reinterpret_cast<at::Tensor *>(t); }

// opt turns a possibly-NULL handle into a c10::optional<Tensor>.
inline c10::optional<at::Tensor> opt(gt_tensor t) {
  if (t == nullptr) return c10::nullopt;
  return T(t);
}

// OT turns a possibly-NULL handle into a tensor that is undefined for NULL.
inline at::Tensor OT(gt_tensor t) {
  return t == nullptr ? at::Tensor() : T(t);
}

inline gt_tensor wrap(at::Tensor &&t) {
  return reinterpret_cast<gt_tensor>(new at::Tensor(std::move(t)));
}
inline gt_tensor wrap(const at::Tensor &t) {
  return reinterpret_cast<gt_tensor>(new at::Tensor(t));
}
// wrap_opt returns NULL for an undefined tensor.
inline gt_tensor wrap_opt(at::Tensor &&t) {
  return t.defined() ? wrap(std::move(t)) : nullptr;
}

template <class F>
inline gt_tensor_result tensor_result(F &&f) noexcept {
  gt_tensor_result r{nullptr, nullptr};
  r.err = guard([&] { r.t = wrap(f()); });
  return r;
}

inline at::Scalar S(gt_scalar s) {
  switch (s.kind) {
    case 0: return at::Scalar(s.i);
    case 2: return at::Scalar(s.i != 0);
    case 3: return at::Scalar(c10::complex<double>(s.re, s.im));
    default: return at::Scalar(s.re);
  }
}

inline at::IntArrayRef IA(const int64_t *p, int64_t n) {
  return at::IntArrayRef(p, static_cast<size_t>(n));
}

// with_grad sets requires_grad on a freshly made tensor: the at:: factory
// functions ignore the flag in TensorOptions.
inline at::Tensor with_grad(at::Tensor t, int requires_grad) {
  if (requires_grad) t.set_requires_grad(true);
  return t;
}

at::TensorOptions options(int32_t dtype, int32_t dev_type, int32_t dev_index,
                          int requires_grad);

}  // namespace gotorch

#endif  // GOTORCH_CGOTORCH_INTERNAL_H_
