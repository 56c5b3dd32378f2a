//go:build !gotorch_prebuilt

// tensor.cc: the hand-written part of the C ABI (see cgotorch.h).
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <dlfcn.h>
#include <link.h>
#include <malloc.h>
// jemalloc's control interface, present only when the program links it.
extern "C" int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp,
                       size_t newlen) __attribute__((weak));
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <tuple>
#include <ATen/core/grad_mode.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/csrc/jit/serialization/export.h>
#include <torch/csrc/jit/serialization/pickler.h>
#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <torch/csrc/jit/serialization/import_read.h>
#include <torch/csrc/jit/serialization/storage_context.h>
#include <ATen/EmptyTensor.h>
#include <torch/version.h>

#include "internal.h"
#include "loadcheck.h"

namespace gotorch {

std::atomic<bool> with_backtrace{false};

// usable_device is device() that also refuses CUDA on a libtorch without
// it: libtorch's own error comes from deep in the dispatcher, a page-long
// list of backends that does not say that CUDA is missing.
at::Device usable_device(int32_t type, int32_t index) {
  at::Device d = device(type, index);
  TORCH_CHECK(!d.is_cuda() || at::hasCUDA(),
              "device ", d, " requested, but this libtorch has no CUDA support or sees no GPU "
              "(torch.CUDAIsAvailable() is false)");
  return d;
}

at::TensorOptions options(int32_t dtype, int32_t dev_type, int32_t dev_index,
                          int32_t layout) {
  at::TensorOptions o;
  if (dtype >= 0) o = o.dtype(scalar_type(dtype));
  if (dev_type >= 0) o = o.device(usable_device(dev_type, dev_index));
  if (layout >= 0) o = o.layout(gotorch::layout(layout));
  return o;
}

}  // namespace gotorch

using namespace gotorch;

namespace {

// BytesReader is PyTorchStreamReader's view of a byte array; unlike
// caffe2's MemoryReadAdapter it never reads past the end.
class BytesReader final : public caffe2::serialize::ReadAdapterInterface {
 public:
  BytesReader(const char *p, size_t n) : p_(p), n_(n) {}
  size_t size() const override { return n_; }
  size_t read(uint64_t pos, void *buf, size_t n, const char * /*what*/) const override {
    if (pos >= n_) return 0;
    size_t k = static_cast<size_t>(std::min<uint64_t>(n, n_ - pos));
    std::memcpy(buf, p_ + pos, k);
    return k;
  }

 private:
  const char *p_;
  size_t n_;
};

}  // namespace

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
// omp_runtime_symbol finds an OpenMP function in the runtime that
// libtorch_cpu itself calls: dlsym on libtorch_cpu's handle searches that
// library and then its dependencies, in load order, which is where its
// OpenMP runtime is, whatever it is named. A lookup by name across the
// process (RTLD_DEFAULT) can instead find a second runtime, loaded for
// another library (a pip wheel bundles a renamed libgomp beside the
// system's), whose calls then act on threads libtorch never uses.
static void *omp_runtime_symbol(const char *name) {
  static void *const lib = [] {
    // The loaded libtorch_cpu, by path: dl_iterate_phdr lists every loaded
    // object with the path it was loaded from.
    std::string path;
    dl_iterate_phdr(
        [](struct dl_phdr_info *info, size_t, void *data) {
          const char *p = info->dlpi_name;
          if (p != nullptr && std::strstr(p, "libtorch_cpu") != nullptr) {
            *static_cast<std::string *>(data) = p;
            return 1;
          }
          return 0;
        },
        &path);
    return path.empty() ? nullptr : dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  }();
  // Without it (a static libtorch), the process-wide lookup is all there is.
  return dlsym(lib != nullptr ? lib : RTLD_DEFAULT, name);
}

gt_error gt_set_thread_num_threads(int n) {
  return guard([&] {
    TORCH_CHECK(n > 0, "number of threads must be positive, got ", n);
    // libtorch gives a thread its OpenMP thread count the first time the
    // thread asks for it (at::internal::lazy_init_num_threads), from the
    // process-wide setting: ask first, or that first op would undo this.
    at::get_num_threads();
    // The OpenMP runtime libtorch was linked with (libgomp, libomp, or the
    // renamed copy a pip wheel bundles), looked up from libtorch_cpu's own
    // dependencies (omp_runtime_symbol), not by name in the whole process,
    // which may hold another runtime that libtorch does not use.
    using set_fn = void (*)(int);
    static const set_fn set = reinterpret_cast<set_fn>(omp_runtime_symbol("omp_set_num_threads"));
    TORCH_CHECK(set != nullptr,
                "per-thread intra-op threads need a libtorch built with OpenMP");
    set(n);
    // An MKL build's BLAS calls follow MKL's own setting, which
    // at::set_num_threads sets process-wide: set this thread's.
    using mkl_fn = int (*)(int);
    static const mkl_fn mkl_local = reinterpret_cast<mkl_fn>(omp_runtime_symbol("mkl_set_num_threads_local"));
    if (mkl_local != nullptr) mkl_local(n);
    // A thread that ran parallel ops before keeps its team of workers,
    // which libgomp goes on counting against the CPUs: with one thread
    // there is nothing for it to do, so end it (it ends only this
    // thread's team; omp_pause_soft is 1).
    if (n == 1) {
      using pause_fn = int (*)(int);
      static const pause_fn pause =
          reinterpret_cast<pause_fn>(omp_runtime_symbol("omp_pause_resource_all"));
      if (pause != nullptr) pause(1);
    }
    TORCH_CHECK(at::get_num_threads() == n,
                "per-thread intra-op threads need a libtorch built with OpenMP "
                "(asked for ", n, ", the thread has ", at::get_num_threads(), ")");
  });
}
gt_error gt_manual_seed(uint64_t seed) {
  return guard([&] { at::manual_seed(seed); });
}
int gt_grad_enabled(void) { return at::GradMode::is_enabled() ? 1 : 0; }
void gt_set_grad_enabled(int on) { at::GradMode::set_enabled(on != 0); }

void gt_tensor_free(gt_tensor t) { release(t); }
void gt_tensor_free_many(gt_tensor *ts, int64_t n) {
  for (int64_t i = 0; i < n; i++) release(ts[i]);
}
int64_t gt_thread_id(void) { return static_cast<int64_t>(syscall(SYS_gettid)); }
void gt_tune_malloc(int arenas, int64_t mmap_threshold, int64_t trim_threshold, int no_fastbins) {
  if (arenas > 0) mallopt(M_ARENA_MAX, arenas);
  // Batch frees coalesce neighbouring blocks into large free chunks, and
  // each such free makes glibc consolidate every fastbin.
  if (no_fastbins) mallopt(M_MXFAST, 0);
  // Fixing either threshold turns off glibc's dynamic adjustment of both.
  if (mmap_threshold > 0) mallopt(M_MMAP_THRESHOLD, static_cast<int>(mmap_threshold));
  if (trim_threshold > 0) mallopt(M_TRIM_THRESHOLD, static_cast<int>(trim_threshold));
}
void gt_malloc_trim(void) {
  gt_small_alloc_trim();
  // Linked with jemalloc (the gotorch_jemalloc build tag), malloc_trim is
  // glibc's and sees none of the program's memory: purge jemalloc's arenas
  // instead (4096 is MALLCTL_ARENAS_ALL).
  if (mallctl != nullptr) {
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    return;
  }
  malloc_trim(0);
}
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
    // Sparse and other non-strided layouts have no flat element order
    // (libtorch 2.x words this as an internal error); say what to do.
    TORCH_CHECK(T(t).layout() == at::kStrided, "copy to host: a tensor of layout ", T(t).layout(),
                " has no flat elements; call to_dense first");
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
                         ? usable_device(dev_type, dev_index)
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

namespace {

// save_to writes t in torch.save's format (a zip archive holding data.pkl
// and one record per storage) through write, as torch::jit::pickle_save
// does, but streaming: pickle_save builds the whole archive in a
// std::vector first. write returns false when it fails; save_to then
// returns false.
//
// PyTorchStreamWriter must never see a short write: it throws, and its
// destructor then writes the end of the archive again and throws during
// the unwinding, which ends the process (libtorch 1.13). So the first
// failure is remembered, the rest of the archive is discarded, and the
// caller reports the error once the writer is done.
bool save_to(const at::Tensor &t, const std::function<bool(const void *, size_t)> &write) {
  std::vector<char> pickle;
  torch::jit::Pickler pickler(
      [&](const char *p, size_t n) { pickle.insert(pickle.end(), p, p + n); },
      /*tensor_table=*/nullptr, nullptr, nullptr);
  pickler.protocol();
  pickler.pushIValue(c10::IValue(t));
  pickler.stop();
  bool ok = true;
  caffe2::serialize::PyTorchStreamWriter writer([&](const void *p, size_t n) -> size_t {
    if (ok) ok = write(p, n);
    return n;
  });
  torch::jit::writeArchiveAndTensors("data", pickle.data(), pickle.size(), pickler.tensorData(),
                                     writer);
  writer.writeEndOfFile();
  return ok;
}

// FdReader is PyTorchStreamReader's view of a regular file of known size,
// read with pread, so that a file is never held in memory whole.
class FdReader final : public caffe2::serialize::ReadAdapterInterface {
 public:
  FdReader(int fd, size_t n) : fd_(fd), n_(n) {}
  size_t size() const override { return n_; }
  size_t read(uint64_t pos, void *buf, size_t n, const char * /*what*/) const override {
    if (pos >= n_) return 0;
    n = static_cast<size_t>(std::min<uint64_t>(n, n_ - pos));
    size_t done = 0;
    while (done < n) {
      ssize_t k = ::pread(fd_, static_cast<char *>(buf) + done,
                          std::min<size_t>(n - done, size_t(1) << 30),
                          static_cast<off_t>(pos + done));
      if (k < 0 && errno == EINTR) continue;
      TORCH_CHECK(k >= 0, "read at offset ", pos + done, ": ", std::strerror(errno));
      if (k == 0) break;  // the file shrank: the reader reports the short read
      done += static_cast<size_t>(k);
    }
    return done;
  }

 private:
  int fd_;
  size_t n_;
};

// load_from reads a single tensor in torch.save's format:
// torch::jit::pickle_load, with checks. The pickle is walked first, and
// the storages are made from the records as they are, so that their size
// is the data's and not what the pickle claims.
at::Tensor load_from(std::shared_ptr<caffe2::serialize::ReadAdapterInterface> in) {
  caffe2::serialize::PyTorchStreamReader reader(std::move(in));
  TORCH_CHECK(reader.hasRecord("data.pkl"), "not a torch.save file: no data.pkl record");
  {
    at::DataPtr pkl;
    size_t n;
    std::tie(pkl, n) = reader.getRecord("data.pkl");
    check_pickle(static_cast<const uint8_t *>(pkl.get()), n, "data.pkl");
  }
  auto storages = std::make_shared<torch::jit::DeserializationStorageContext>();
  const std::string dir = "data/";
  for (const std::string &name : reader.getAllRecords()) {
    if (name.compare(0, dir.size(), dir) != 0) continue;
    at::DataPtr ptr;
    size_t n;
    std::tie(ptr, n) = reader.getRecord(name);
    storages->addStorage(name.substr(dir.size()),
                         at::Storage(c10::Storage::use_byte_size_t(), n, std::move(ptr),
                                     /*allocator=*/nullptr, /*resizable=*/false));
  }
  c10::IValue v = torch::jit::readArchiveAndTensors(
      "data", /*pickle_prefix=*/"", /*tensor_prefix=*/"", /*type_resolver=*/c10::nullopt,
      /*obj_loader=*/c10::nullopt, /*device=*/c10::nullopt, reader,
      torch::jit::Unpickler::defaultTypeParser, storages);
  TORCH_CHECK(v.isTensor(), "the file holds a ", v.tagKind(), ", not a single tensor");
  at::Tensor t = v.toTensor();
  check_loaded_tensor(t);
  return t;
}

}  // namespace

gt_error gt_tensor_save(gt_tensor t, char **data, int64_t *size) {
  *data = nullptr;
  *size = 0;
  char *buf = nullptr;
  size_t len = 0, cap = 0;
  gt_error e = guard([&] {
    // The archive is the tensor's storage plus a few KiB of pickle, zip
    // headers and alignment padding: reserve that much up front rather
    // than doubling past it (a 2 GiB tensor would take a 4 GiB buffer).
    const at::Tensor &x = T(t);
    if (x.has_storage()) cap = x.storage().nbytes() + (size_t(1) << 16);
    buf = static_cast<char *>(std::malloc(cap ? cap : 1));
    TORCH_CHECK(buf != nullptr, "out of memory for a ", cap, "-byte archive");
    bool ok = save_to(x, [&](const void *p, size_t n) {
      if (n > cap - len) {
        size_t c = std::max(cap + cap / 2, len + n);
        char *b = static_cast<char *>(std::realloc(buf, c));
        if (b == nullptr) return false;
        buf = b;
        cap = c;
      }
      std::memcpy(buf + len, p, n);
      len += n;
      return true;
    });
    TORCH_CHECK(ok, "out of memory for a ", len, "-byte archive");
  });
  if (e != nullptr) {
    std::free(buf);
    return e;
  }
  *data = buf;
  *size = static_cast<int64_t>(len);
  return nullptr;
}

gt_error gt_tensor_save_fd(gt_tensor t, int fd) {
  return guard([&] {
    int err = 0;
    bool ok = save_to(T(t), [&](const void *p, size_t n) {
      size_t done = 0;
      while (done < n) {
        ssize_t k = ::write(fd, static_cast<const char *>(p) + done,
                            std::min<size_t>(n - done, size_t(1) << 30));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
          err = k < 0 ? errno : EIO;
          return false;
        }
        done += static_cast<size_t>(k);
      }
      return true;
    });
    TORCH_CHECK(ok, "write: ", std::strerror(err));
  });
}

gt_tensor_result gt_tensor_load(const char *data, int64_t size) {
  return tensor_result([&] {
    TORCH_CHECK(size > 0, "no data");
    return load_from(std::make_shared<BytesReader>(data, static_cast<size_t>(size)));
  });
}

gt_tensor_result gt_tensor_load_fd(int fd, int64_t size) {
  return tensor_result([&] {
    TORCH_CHECK(size > 0, "no data");
    return load_from(std::make_shared<FdReader>(fd, static_cast<size_t>(size)));
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

// The convolution self-check (issue 40), in this translation unit: its
// own would parse ATen's headers again.
#include "convcheck_impl.h"
