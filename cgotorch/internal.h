// internal.h: C++ helpers shared by the hand-written and the generated shim.
// Not part of the C ABI; never included from Go.
#ifndef GOTORCH_CGOTORCH_INTERNAL_H_
#define GOTORCH_CGOTORCH_INTERNAL_H_

#if !__has_include(<ATen/ATen.h>)
#error "gotorch: libtorch headers not found. Install Debian's libtorch-dev (apt-get install libtorch-dev) or set LIBTORCH=/path/to/libtorch and build through the project's Makefile (see README.md, 'Using another libtorch')."
#endif

#include <ATen/ATen.h>
#include <torch/version.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <array>
#include <utility>
#include <vector>

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

// GT_LIBTORCH is the version of the libtorch headers being compiled
// against, as one number (2.6.0 is 20600); the generated shim guards the
// functions that not every version has with it (internal/gen/versions.go).
#define GT_LIBTORCH (TORCH_VERSION_MAJOR * 10000 + TORCH_VERSION_MINOR * 100 + TORCH_VERSION_PATCH)

// A build that says which libtorch it meant (make passes
// -DGOTORCH_LIBTORCH=<GT_LIBTORCH of the headers it found>, see the
// Makefile) must compile against that one: Go's build cache does not hash
// system headers, and without the flag in the cache key an upgraded
// libtorch-dev would link objects compiled against the old headers.
#if defined(GOTORCH_LIBTORCH) && GOTORCH_LIBTORCH != GT_LIBTORCH
#error "gotorch: the build was configured for another libtorch than the headers found (GOTORCH_LIBTORCH differs from torch/version.h): rerun make, or eval \"$(make -s env)\""
#endif

// unsupported_prefix starts the message of a function that the linked
// libtorch lacks; package torch turns it into ErrUnsupported.
#define GT_UNSUPPORTED_PREFIX "gotorch-unsupported: "

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

// unsupported is the error of op, which this libtorch lacks for the
// reason why.
inline gt_error unsupported(const char *op, const char *why) {
  std::string msg = std::string(GT_UNSUPPORTED_PREFIX) + op + " is not in this libtorch (" TORCH_VERSION "): " + why;
  return make_error(msg.c_str());
}

// A gt_tensor is a TensorImpl* that owns one reference, the pointer an
// at::Tensor holds: making a handle costs no allocation, and using one no
// extra indirection. An at::Tensor is exactly that pointer, so T views the
// handle variable itself as an at::Tensor that borrows the reference: it
// must be called on a variable (a parameter, an array element) that outlives
// the use. The view is const, so that it cannot be assigned to or moved
// from (which would drop or steal the borrowed reference); TM gives the
// mutable at::Tensor& that out= arguments are declared with, whose ops
// change the tensor, never the handle. Go never passes NULL here (it checks
// for undefined and freed tensors first). The view reads a gt_tensor
// variable through another type; the shim is compiled with
// -fno-strict-aliasing so that the compiler may not assume they differ.
static_assert(sizeof(at::Tensor) == sizeof(gt_tensor),
              "an at::Tensor must be a single TensorImpl pointer");
inline const at::Tensor &T(const gt_tensor &t) {
  TORCH_INTERNAL_ASSERT_DEBUG_ONLY(t != nullptr);
  return *reinterpret_cast<const at::Tensor *>(&t);
}
inline at::Tensor &TM(gt_tensor &t) {
  TORCH_INTERNAL_ASSERT_DEBUG_ONLY(t != nullptr);
  return *reinterpret_cast<at::Tensor *>(&t);
}

// release drops the reference a handle owns.
inline void release(gt_tensor t) {
  if (t == nullptr) return;
  c10::intrusive_ptr<at::TensorImpl, at::UndefinedTensorImpl>::reclaim(
      reinterpret_cast<at::TensorImpl *>(t));
}

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
  return reinterpret_cast<gt_tensor>(t.unsafeReleaseTensorImpl());
}
inline gt_tensor wrap(const at::Tensor &t) {
  at::Tensor c = t;
  return reinterpret_cast<gt_tensor>(c.unsafeReleaseTensorImpl());
}
// wrap_opt returns NULL for an undefined tensor.
inline gt_tensor wrap_opt(at::Tensor &&t) {
  return t.defined() ? wrap(std::move(t)) : nullptr;
}
inline gt_tensor wrap_opt(const at::Tensor &t) {
  return t.defined() ? wrap(t) : nullptr;
}

// tensor_result runs f and returns its tensor; an undefined result comes
// back as NULL, the Go zero Tensor.
inline int64_t storage_bytes(const at::Tensor &t) {
  if (!t.defined() || !t.has_storage()) return 0;
  return static_cast<int64_t>(t.storage().nbytes());
}

template <class F>
inline gt_tensor_result tensor_result(F &&f) noexcept {
  gt_tensor_result r{nullptr, nullptr, 0};
  r.err = guard([&] {
    at::Tensor t = f();
    r.nbytes = storage_bytes(t);
    r.t = wrap_opt(std::move(t));
  });
  return r;
}

// unsupported_argument refuses an argument of op that the linked
// libtorch's declaration of op does not have, given a value other than its
// default (internal/gen/versions.go, adapt).
[[noreturn]] inline void unsupported_argument(const char *op, const char *arg) {
  throw std::runtime_error(std::string(GT_UNSUPPORTED_PREFIX) + op + ": argument " + arg +
                           " is not in this libtorch's (" TORCH_VERSION ") declaration of " + op +
                           "; leave it at its default");
}

// scalar_to_int converts a Scalar argument for a libtorch that declares
// it an integer, refusing what would change in the conversion.
inline int64_t scalar_to_int(const at::Scalar &s, const char *arg) {
  if (!s.isIntegral(/*includeBool=*/false)) {
    if (s.isFloatingPoint() && s.toDouble() == static_cast<double>(static_cast<int64_t>(s.toDouble()))) {
      return static_cast<int64_t>(s.toDouble());
    }
    throw std::runtime_error(std::string(GT_UNSUPPORTED_PREFIX) + "argument " + arg +
                             " must be an integer in this libtorch (" TORCH_VERSION ")");
  }
  return s.toLong();
}
inline c10::optional<int64_t> scalar_to_int_opt(const c10::optional<at::Scalar> &s, const char *arg) {
  if (!s.has_value()) return c10::nullopt;
  return scalar_to_int(*s, arg);
}

// unsupported_tensor is unsupported for a function with a tensor result.
inline gt_tensor_result unsupported_tensor(const char *op, const char *why) {
  return gt_tensor_result{nullptr, unsupported(op, why), 0};
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

// Checked conversions of enum values coming from Go: libtorch aborts the
// process on some out-of-range values instead of throwing.
// gt_max_dtype is the first dtype number GoTorch knows that this libtorch
// does not (torch/dtype.go lists them: 18-22 bits, 23-26 float8, 27-29
// unsigned integers); 30 and up are invalid everywhere.
constexpr int32_t gt_known_dtypes = 30;
inline at::ScalarType scalar_type(int32_t v) {
  const int32_t n = static_cast<int32_t>(at::ScalarType::NumOptions);
  if (v >= n && v < gt_known_dtypes) {
    throw std::runtime_error(std::string(GT_UNSUPPORTED_PREFIX) + "dtype " + std::to_string(v) +
                             " is not in this libtorch (" TORCH_VERSION ")");
  }
  TORCH_CHECK(v >= 0 && v < n && v != static_cast<int32_t>(at::ScalarType::Undefined), "invalid dtype ", v);
  return static_cast<at::ScalarType>(v);
}
inline at::Layout layout(int32_t v) {
  TORCH_CHECK(v >= 0 && v < static_cast<int32_t>(at::Layout::NumOptions), "invalid layout ", v);
  return static_cast<at::Layout>(v);
}
inline at::MemoryFormat memory_format(int32_t v) {
  TORCH_CHECK(v >= 0 && v < static_cast<int32_t>(at::MemoryFormat::NumOptions),
              "invalid memory format ", v);
  return static_cast<at::MemoryFormat>(v);
}

inline at::Device device(int32_t type, int32_t index) {
  TORCH_CHECK(type >= 0 && type < static_cast<int32_t>(at::DeviceType::COMPILE_TIME_MAX_DEVICE_TYPES),
              "invalid device type ", type);
  TORCH_CHECK(index >= -1 && index < 128, "invalid device index ", index);
  return at::Device(static_cast<at::DeviceType>(type),
                    static_cast<c10::DeviceIndex>(index));
}

// options builds TensorOptions; a negative value leaves that field unset.
at::TensorOptions options(int32_t dtype, int32_t dev_type, int32_t dev_index,
                          int32_t layout);

template <class V>
inline c10::optional<V> optional(V v, int has) {
  if (!has) return c10::nullopt;
  return c10::optional<V>(std::move(v));
}

// OIA: an optional int list; a negative length stands for None.
inline at::OptionalIntArrayRef OIA(const int64_t *p, int64_t n) {
  if (n < 0) return c10::nullopt;
  return at::IntArrayRef(p, static_cast<size_t>(n));
}

// ODA: an optional float list; a negative length stands for None.
inline c10::optional<at::ArrayRef<double>> ODA(const double *p, int64_t n) {
  if (n < 0) return c10::nullopt;
  return at::ArrayRef<double>(p, static_cast<size_t>(n));
}

inline std::vector<at::Tensor> tensor_list(gt_tensor *p, int64_t n) {
  std::vector<at::Tensor> v;
  v.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) v.push_back(T(p[i]));
  return v;
}

// opt_tensor_list builds the Tensor?[] of advanced indexing: NULL is None.
inline c10::List<c10::optional<at::Tensor>> opt_tensor_list(gt_tensor *p, int64_t n) {
  c10::List<c10::optional<at::Tensor>> l;
  l.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) l.push_back(opt(p[i]));
  return l;
}

inline std::vector<at::Scalar> scalar_list(const gt_scalar *p, int64_t n) {
  std::vector<at::Scalar> v;
  v.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) v.push_back(S(p[i]));
  return v;
}

inline c10::optional<at::Generator> generator(gt_generator g) {
  if (g == nullptr) return c10::nullopt;
  return *reinterpret_cast<at::Generator *>(g);
}

template <size_t N>
inline std::array<bool, N> bool_array(int mask) {
  std::array<bool, N> a;
  for (size_t i = 0; i < N; i++) a[i] = (mask >> i) & 1;
  return a;
}

// wrap_list returns a malloc'd array of new handles (NULL for undefined
// tensors); the caller frees it with gt_free_tensor_array.
inline gt_tensor *wrap_list(const std::vector<at::Tensor> &v, int64_t *n) {
  *n = static_cast<int64_t>(v.size());
  auto *p = static_cast<gt_tensor *>(std::malloc(sizeof(gt_tensor) * (v.size() ? v.size() : 1)));
  TORCH_CHECK(p != nullptr, "out of memory");
  for (size_t i = 0; i < v.size(); i++) p[i] = v[i].defined() ? wrap(v[i]) : nullptr;
  return p;
}

inline int64_t *int_list(const std::vector<int64_t> &v, int64_t *n) {
  *n = static_cast<int64_t>(v.size());
  auto *p = static_cast<int64_t *>(std::malloc(sizeof(int64_t) * (v.size() ? v.size() : 1)));
  TORCH_CHECK(p != nullptr, "out of memory");
  for (size_t i = 0; i < v.size(); i++) p[i] = v[i];
  return p;
}

inline gt_scalar from_scalar(const at::Scalar &s) {
  gt_scalar r{0, 0, 0, 0};
  if (s.isBoolean()) {
    r.kind = 2;
    r.i = s.toBool() ? 1 : 0;
  } else if (s.isIntegral(false)) {
    r.kind = 0;
    r.i = s.toLong();
  } else if (s.isComplex()) {
    r.kind = 3;
    auto c = s.toComplexDouble();
    r.re = c.real();
    r.im = c.imag();
  } else {
    r.kind = 1;
    r.re = s.toDouble();
  }
  return r;
}

}  // namespace gotorch

#endif  // GOTORCH_CGOTORCH_INTERNAL_H_
