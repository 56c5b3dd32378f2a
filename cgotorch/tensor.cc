// tensor.cc: the hand-written part of the C ABI (see cgotorch.h).
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <malloc.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mutex>
#include <ATen/core/grad_mode.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/version.h>

#include "internal.h"

namespace gotorch {

std::atomic<bool> with_backtrace{false};

at::TensorOptions options(int32_t dtype, int32_t dev_type, int32_t dev_index,
                          int32_t layout) {
  at::TensorOptions o;
  if (dtype >= 0) o = o.dtype(scalar_type(dtype));
  if (dev_type >= 0) o = o.device(device(dev_type, dev_index));
  if (layout >= 0) o = o.layout(gotorch::layout(layout));
  return o;
}

}  // namespace gotorch

using namespace gotorch;

extern "C" {

void gt_free_error(gt_error err) { std::free(err); }
void gt_set_backtrace(int on) { with_backtrace.store(on != 0); }

const char *gt_version(void) { return TORCH_VERSION; }
int gt_cuda_is_available(void) { return at::hasCUDA() ? 1 : 0; }
int64_t gt_cuda_device_count(void) {
  try {
    return at::hasCUDA() ? static_cast<int64_t>(at::detail::getCUDAHooks().getNumGPUs()) : 0;
  } catch (...) {
    return 0;
  }
}
int gt_get_num_threads(void) { return at::get_num_threads(); }
gt_error gt_set_num_threads(int n) {
  return guard([&] { at::set_num_threads(n); });
}
gt_error gt_manual_seed(uint64_t seed) {
  return guard([&] { at::manual_seed(seed); });
}
int gt_grad_enabled(void) { return at::GradMode::is_enabled() ? 1 : 0; }
void gt_set_grad_enabled(int on) { at::GradMode::set_enabled(on != 0); }

void gt_tensor_free(gt_tensor t) { delete reinterpret_cast<at::Tensor *>(t); }
void gt_tensor_free_many(gt_tensor *ts, int64_t n) {
  for (int64_t i = 0; i < n; i++) delete reinterpret_cast<at::Tensor *>(ts[i]);
}
int64_t gt_thread_id(void) { return static_cast<int64_t>(syscall(SYS_gettid)); }
void gt_tune_malloc(int arenas, int64_t mmap_threshold) {
  if (arenas > 0) mallopt(M_ARENA_MAX, arenas);
  // A fixed threshold turns off glibc's dynamic one, which otherwise rises
  // after the first large free and keeps freed tensor data in the heap.
  if (mmap_threshold > 0) mallopt(M_MMAP_THRESHOLD, static_cast<int>(mmap_threshold));
}
void gt_malloc_trim(void) { malloc_trim(0); }
gt_tensor gt_tensor_share(gt_tensor t) { return wrap(T(t)); }

int gt_tensor_defined(gt_tensor t) { return T(t).defined() ? 1 : 0; }
int64_t gt_tensor_dim(gt_tensor t) { return T(t).dim(); }
int64_t gt_tensor_sizes(gt_tensor t, int64_t *dst, int64_t cap) {
  auto s = T(t).sizes();
  int64_t n = static_cast<int64_t>(s.size());
  for (int64_t i = 0; i < n && i < cap; i++) dst[i] = s[i];
  return n;
}
int64_t gt_tensor_numel(gt_tensor t) { return T(t).numel(); }
int32_t gt_tensor_dtype(gt_tensor t) {
  return static_cast<int32_t>(T(t).scalar_type());
}
int32_t gt_tensor_device_type(gt_tensor t) {
  return static_cast<int32_t>(T(t).device().type());
}
int32_t gt_tensor_device_index(gt_tensor t) { return T(t).device().index(); }
int gt_tensor_requires_grad(gt_tensor t) { return T(t).requires_grad() ? 1 : 0; }
int gt_tensor_is_leaf(gt_tensor t) { return T(t).is_leaf() ? 1 : 0; }
int64_t gt_tensor_nbytes(gt_tensor t) { return storage_bytes(T(t)); }
char *gt_tensor_grad_fn_name(gt_tensor t) {
  const auto &fn = T(t).grad_fn();
  if (!fn) return nullptr;
  return make_error(fn->name().c_str());
}

gt_tensor_result gt_tensor_from_blob(const void *data, const int64_t *shape,
                                     int64_t ndim, int32_t dtype) {
  return tensor_result([&] {
    auto o = at::TensorOptions().dtype(scalar_type(dtype));
    return at::from_blob(const_cast<void *>(data), IA(shape, ndim), o).clone();
  });
}

gt_error gt_tensor_copy_to(gt_tensor t, void *dst, int64_t nbytes, int32_t dtype) {
  return guard([&] {
    at::Tensor x = T(t).detach().to(at::kCPU, scalar_type(dtype))
                       .contiguous();
    int64_t have = static_cast<int64_t>(x.numel() * x.element_size());
    TORCH_CHECK(have == nbytes, "copy to host: tensor holds ", have,
                " bytes, destination has ", nbytes);
    if (nbytes > 0) std::memcpy(dst, x.data_ptr(), static_cast<size_t>(nbytes));
  });
}

gt_double_result gt_tensor_item_double(gt_tensor t) {
  gt_double_result r{0, nullptr};
  r.err = guard([&] { r.v = T(t).item<double>(); });
  return r;
}
gt_int_result gt_tensor_item_int(gt_tensor t) {
  gt_int_result r{0, nullptr};
  r.err = guard([&] { r.v = T(t).item<int64_t>(); });
  return r;
}
gt_error gt_tensor_item_complex(gt_tensor t, double *re_im) {
  return guard([&] {
    auto c = T(t).item<c10::complex<double>>();
    re_im[0] = c.real();
    re_im[1] = c.imag();
  });
}

gt_tensor_result gt_tensor_to(gt_tensor t, int32_t dtype, int32_t dev_type,
                              int32_t dev_index, int copy) {
  return tensor_result([&] {
    const at::Tensor &x = T(t);
    at::ScalarType st = dtype >= 0 ? scalar_type(dtype) : x.scalar_type();
    at::Device dev = dev_type >= 0
                         ? device(dev_type, dev_index)
                         : x.device();
    return x.to(dev, st, /*non_blocking=*/false, copy != 0);
  });
}
gt_error gt_tensor_set_requires_grad(gt_tensor t, int on) {
  return guard([&] { T(t).set_requires_grad(on != 0); });
}
gt_error gt_tensor_backward(gt_tensor t, gt_tensor grad, int retain_graph,
                            int create_graph) {
  return guard([&] {
    c10::optional<bool> keep;
    if (retain_graph >= 0) keep = retain_graph != 0;
    T(t).backward(OT(grad), keep, create_graph != 0);
  });
}
gt_tensor_result gt_tensor_grad(gt_tensor t) {
  return tensor_result([&] { return at::Tensor(T(t).grad()); });
}
gt_error gt_tensor_set_data(gt_tensor t, gt_tensor src) {
  return guard([&] { T(t).set_data(T(src)); });
}
gt_error gt_tensor_zero_grad(gt_tensor t) {
  return guard([&] {
    auto &g = T(t).mutable_grad();
    if (g.defined()) g = at::Tensor();
  });
}

gt_error gt_tensor_save(gt_tensor t, char **data, int64_t *size) {
  *data = nullptr;
  *size = 0;
  return guard([&] {
    std::vector<char> bytes = torch::jit::pickle_save(c10::IValue(T(t)));
    char *p = static_cast<char *>(std::malloc(bytes.size() ? bytes.size() : 1));
    TORCH_CHECK(p != nullptr, "save: out of memory");
    std::memcpy(p, bytes.data(), bytes.size());
    *data = p;
    *size = static_cast<int64_t>(bytes.size());
  });
}
gt_tensor_result gt_tensor_load(const char *data, int64_t size) {
  return tensor_result([&] {
    std::vector<char> bytes(data, data + size);
    c10::IValue v = torch::jit::pickle_load(bytes);
    TORCH_CHECK(v.isTensor(), "load: the file holds a ", v.tagKind(),
                ", not a single tensor");
    return v.toTensor();
  });
}
void gt_free_bytes(char *data) { std::free(data); }

gt_generator gt_generator_new(uint64_t seed) {
  return reinterpret_cast<gt_generator>(
      new at::Generator(at::detail::createCPUGenerator(seed)));
}
void gt_generator_free(gt_generator g) {
  delete reinterpret_cast<at::Generator *>(g);
}
gt_error gt_generator_set_seed(gt_generator g, uint64_t seed) {
  return guard([&] {
    auto &gen = *reinterpret_cast<at::Generator *>(g);
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_current_seed(seed);
  });
}
uint64_t gt_generator_seed(gt_generator g) {
  return reinterpret_cast<at::Generator *>(g)->current_seed();
}

gt_error gt_bench_direct(gt_tensor a, gt_tensor b, int64_t n, int mm) {
  return guard([&] {
    for (int64_t i = 0; i < n; i++) {
      at::Tensor r = mm ? at::mm(T(a), T(b)) : at::add(T(a), T(b));
      (void)r;
    }
  });
}

void gt_free_tensor_array(gt_tensor *p) { std::free(p); }
void gt_free_int_array(int64_t *p) { std::free(p); }

}  // extern "C"
