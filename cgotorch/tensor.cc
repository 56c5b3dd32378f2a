// tensor.cc: the hand-written part of the C ABI (see cgotorch.h).
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include <malloc.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <tuple>
#include <ATen/core/grad_mode.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/variable.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <caffe2/serialize/inline_container.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <ATen/EmptyTensor.h>
#include <torch/version.h>

#include "internal.h"

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

// check_pickle walks the opcodes of a pickle program before libtorch's
// unpickler runs it, and rejects what that unpickler (1.13) would turn into
// a huge allocation instead of an error: it grows its memo table to any
// LONG_BINPUT index it reads (a 337-byte file made it allocate 20 GB and
// more), and sizes strings and bytes from their length field before it
// reads them. A memo index is at most the program's length in a pickle
// that any pickler wrote; a length must fit in what is left. Opcodes it
// does not know end the walk: the unpickler reports them.
void check_pickle(const uint8_t *p, size_t n) {
  size_t i = 0;
  auto need = [&](uint64_t k) {
    TORCH_CHECK(k <= n - i, "corrupt pickle: opcode at offset ", i - 1, " needs ", k,
                " more bytes, ", n - i, " are left");
  };
  auto le = [&](size_t k) {
    need(k);
    uint64_t v = 0;
    for (size_t j = 0; j < k; j++) v |= static_cast<uint64_t>(p[i + j]) << (8 * j);
    i += k;
    return v;
  };
  auto skip = [&](uint64_t len) {
    need(len);
    i += static_cast<size_t>(len);
  };
  auto line = [&] {
    const void *nl = std::memchr(p + i, '\n', n - i);
    TORCH_CHECK(nl != nullptr, "corrupt pickle: unterminated line at offset ", i);
    i = static_cast<size_t>(static_cast<const uint8_t *>(nl) - p) + 1;
  };
  while (i < n) {
    switch (p[i++]) {
      case '.':  // STOP
        return;
      case '(': case '0': case '1': case '2': case 'N': case 'Q': case 'R':
      case 'a': case 'b': case 'd': case '}': case 'e': case 'l': case ']':
      case 'o': case 's': case 't': case ')': case 'u': case 0x81: case 0x85:
      case 0x86: case 0x87: case 0x88: case 0x89: case 0x8f: case 0x90:
      case 0x91: case 0x92: case 0x93: case 0x94: case 0x97: case 0x98:
        break;
      case 'q': case 'h': case 'K': case 0x80: case 0x82:  // BINPUT, BINGET, BININT1, PROTO, EXT1
        le(1);
        break;
      case 'M': case 0x83:  // BININT2, EXT2
        le(2);
        break;
      case 'r': {  // LONG_BINPUT
        uint64_t id = le(4);
        TORCH_CHECK(id < n, "corrupt pickle: memo index ", id, " at offset ", i - 5, " in a ",
                    n, "-byte pickle");
      } break;
      case 'j': case 'J': case 0x84:  // LONG_BINGET, BININT, EXT4
        le(4);
        break;
      case 'G': case 0x95:  // BINFLOAT, FRAME
        le(8);
        break;
      case 'U': case 'C': case 0x8c: case 0x8a:  // 1-byte length
        skip(le(1));
        break;
      case 'T': case 'X': case 'B': case 0x8b:  // 4-byte length
        skip(le(4));
        break;
      case 0x8d: case 0x8e: case 0x96:  // 8-byte length
        skip(le(8));
        break;
      case 'F': case 'I': case 'L': case 'S': case 'V': case 'g': case 'p': case 'P':
        line();
        break;
      case 'c': case 'i':
        line();
        line();
        break;
      default:
        return;
    }
  }
}

// check_loaded_tensor rejects a tensor whose sizes, strides and offset, as
// the file gave them, reach outside its storage: libtorch's unpickler sets
// them unchecked, and reading such a tensor reads out of bounds.
void check_loaded_tensor(const at::Tensor &t) {
  if (!t.defined() || !t.has_storage()) return;
  TORCH_CHECK(t.storage_offset() >= 0, "corrupt file: negative storage offset ", t.storage_offset());
  for (int64_t d = 0; d < t.dim(); d++) {
    TORCH_CHECK(t.size(d) >= 0 && t.stride(d) >= 0, "corrupt file: size ", t.sizes(),
                " with strides ", t.strides());
  }
  size_t need = at::detail::computeStorageNbytes(t.sizes(), t.strides(), t.dtype().itemsize(),
                                                 static_cast<size_t>(t.storage_offset()));
  TORCH_CHECK(need <= t.storage().nbytes(), "corrupt file: a tensor of size ", t.sizes(),
              ", strides ", t.strides(), " and offset ", t.storage_offset(), " needs ", need,
              " bytes, its storage has ", t.storage().nbytes());
}

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
    TORCH_CHECK(size > 0, "no data");
    {
      caffe2::serialize::PyTorchStreamReader reader(
          std::make_shared<BytesReader>(data, static_cast<size_t>(size)));
      TORCH_CHECK(reader.hasRecord("data.pkl"), "not a torch.save file: no data.pkl record");
      at::DataPtr pkl;
      size_t n;
      std::tie(pkl, n) = reader.getRecord("data.pkl");
      check_pickle(static_cast<const uint8_t *>(pkl.get()), n);
    }
    std::vector<char> bytes(data, data + size);
    c10::IValue v = torch::jit::pickle_load(bytes);
    TORCH_CHECK(v.isTensor(), "load: the file holds a ", v.tagKind(),
                ", not a single tensor");
    at::Tensor t = v.toTensor();
    check_loaded_tensor(t);
    return t;
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
