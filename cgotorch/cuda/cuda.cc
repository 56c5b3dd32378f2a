//go:build !gotorch_prebuilt

// cuda.cc: GoTorch's CUDA runtime API (cuda.h). See cuda.h for what needs
// -DGOTORCH_CUDA and what is found with dlsym.
#include "cuda.h"

#include <dlfcn.h>

#include <ATen/Context.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/Stream.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <mutex>
#include <string>

#ifdef GOTORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include "internal.h"

using gotorch::guard;
using gotorch::T;

namespace {

constexpr c10::DeviceType kCUDA = c10::DeviceType::CUDA;

// no_cuda_prefix starts the message of a call made without a CUDA device;
// torch/cuda turns it into ErrNoDevice (it checks first, so C sees it only
// in a race with nothing).
#define GT_NO_CUDA "gotorch-no-cuda: "

bool has_cuda() { return at::hasCUDA(); }

void require_cuda(const char *op) {
  if (!has_cuda()) {
    throw std::runtime_error(std::string(GT_NO_CUDA) + op + ": no CUDA device (this libtorch " +
                             (at::detail::getCUDAHooks().hasCUDART() ? "has CUDA but sees no GPU"
                                                                     : "was built or linked without CUDA") +
                             ")");
  }
}

const c10::impl::DeviceGuardImplInterface *impl(const char *op) {
  require_cuda(op);
  return c10::impl::getDeviceGuardImpl(kCUDA);
}

// device_index checks d (-1: the current device) and returns it resolved.
c10::DeviceIndex device_index(const char *op, int64_t d) {
  auto *g = impl(op);
  int64_t n = at::detail::getCUDAHooks().getNumGPUs();
  if (d == -1) return g->getDevice().index();
  TORCH_CHECK(d >= 0 && d < n, op, ": CUDA device index ", d, " out of range: there are ", n,
              " CUDA devices");
  return static_cast<c10::DeviceIndex>(d);
}

// cudart looks up a CUDA runtime function in the libcudart that
// libtorch_cuda loaded.
template <class F>
F cudart(const char *name) {
  void *p = dlsym(RTLD_DEFAULT, name);
  TORCH_CHECK(p != nullptr, name, " is not visible in this process (libtorch_cuda links the CUDA runtime "
              "statically or is not loaded): ", dlerror() ? "dlsym failed" : "");
  return reinterpret_cast<F>(p);
}

void cuda_check(int err, const char *what) {
  if (err == 0) return;
  using get_string = const char *(*)(int);
  void *p = dlsym(RTLD_DEFAULT, "cudaGetErrorString");
  const char *msg = p ? reinterpret_cast<get_string>(p)(err) : "unknown error";
  TORCH_CHECK(false, what, " failed: CUDA error ", err, ": ", msg);
}

struct Event {
  void *ev = nullptr;  // cudaEvent_t, made by the first record
  c10::DeviceIndex device = -1;
  c10::EventFlag flag;
};

c10::Stream &S(gt_cuda_stream s) { return *reinterpret_cast<c10::Stream *>(s); }
Event &E(gt_cuda_event e) { return *reinterpret_cast<Event *>(e); }
gt_cuda_stream wrap_stream(const c10::Stream &s) {
  return reinterpret_cast<gt_cuda_stream>(new c10::Stream(s));
}

}  // namespace

extern "C" {

int gt_cuda_build_flags(void) {
  int f = 0;
  try {
    if (at::detail::getCUDAHooks().hasCUDART()) f |= 1;
#ifdef GOTORCH_CUDA
    f |= 2;
#endif
    if (has_cuda() && at::detail::getCUDAHooks().hasCuDNN()) f |= 4;
  } catch (...) {
  }
  return f;
}

gt_error gt_cuda_current_device(int64_t *d) {
  return guard([&] { *d = impl("current_device")->getDevice().index(); });
}

gt_error gt_cuda_set_device(int64_t d) {
  return guard([&] {
    auto idx = device_index("set_device", d);
    impl("set_device")->setDevice(c10::Device(kCUDA, idx));
  });
}

gt_error gt_cuda_synchronize(int64_t d) {
  return guard([&] { at::detail::getCUDAHooks().deviceSynchronize(device_index("synchronize", d)); });
}

static void seed_device(c10::DeviceIndex idx, uint64_t seed) {
  auto gen = at::globalContext().defaultGenerator(c10::Device(kCUDA, idx));
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_current_seed(seed);
}

gt_error gt_cuda_manual_seed(int64_t d, uint64_t seed) {
  return guard([&] { seed_device(device_index("manual_seed", d), seed); });
}

gt_error gt_cuda_manual_seed_all(uint64_t seed) {
  return guard([&] {
    require_cuda("manual_seed_all");
    int n = at::detail::getCUDAHooks().getNumGPUs();
    for (int i = 0; i < n; i++) seed_device(static_cast<c10::DeviceIndex>(i), seed);
  });
}

#ifdef GOTORCH_CUDA
gt_error gt_cuda_memory_stats(int64_t d, int64_t out[4]) {
  return guard([&] {
    auto idx = device_index("memory_stats", d);
    auto s = c10::cuda::CUDACachingAllocator::getDeviceStats(idx);
    const size_t agg = 0;  // StatType::AGGREGATE in every version
    out[0] = s.allocated_bytes[agg].current;
    out[1] = s.allocated_bytes[agg].peak;
    out[2] = s.reserved_bytes[agg].current;
    out[3] = s.reserved_bytes[agg].peak;
  });
}
gt_error gt_cuda_reset_peak_memory_stats(int64_t d) {
  return guard([&] { c10::cuda::CUDACachingAllocator::resetPeakStats(device_index("reset_peak_memory_stats", d)); });
}
gt_error gt_cuda_empty_cache(void) {
  return guard([&] {
    require_cuda("empty_cache");
    c10::cuda::CUDACachingAllocator::emptyCache();
  });
}
#else
static const char *no_headers =
    "GoTorch was built without the CUDA toolkit's headers (no -DGOTORCH_CUDA; see docs/gpu.md)";
gt_error gt_cuda_memory_stats(int64_t d, int64_t out[4]) {
  gt_error e = guard([&] { device_index("memory_stats", d); });
  return e ? e : gotorch::unsupported("cuda.memory_stats", no_headers);
}
gt_error gt_cuda_reset_peak_memory_stats(int64_t d) {
  gt_error e = guard([&] { device_index("reset_peak_memory_stats", d); });
  return e ? e : gotorch::unsupported("cuda.reset_peak_memory_stats", no_headers);
}
gt_error gt_cuda_empty_cache(void) {
  gt_error e = guard([&] { require_cuda("empty_cache"); });
  return e ? e : gotorch::unsupported("cuda.empty_cache", no_headers);
}
#endif

gt_error gt_cuda_mem_get_info(int64_t d, int64_t *free_bytes, int64_t *total_bytes) {
  return guard([&] {
    auto idx = device_index("mem_get_info", d);
    c10::DeviceGuard g(c10::Device(kCUDA, idx));
    using fn = int (*)(size_t *, size_t *);
    size_t f = 0, t = 0;
    cuda_check(cudart<fn>("cudaMemGetInfo")(&f, &t), "cudaMemGetInfo");
    *free_bytes = static_cast<int64_t>(f);
    *total_bytes = static_cast<int64_t>(t);
  });
}

gt_error gt_cuda_get_flag(int which, int *v) {
  return guard([&] {
    auto &c = at::globalContext();
    switch (which) {
      case 0: *v = c.benchmarkCuDNN(); break;
      case 1: *v = c.deterministicCuDNN(); break;
      case 2: *v = c.allowTF32CuDNN(); break;
      case 3: *v = c.allowTF32CuBLAS(); break;
      case 4: *v = c.userEnabledCuDNN(); break;
      default: TORCH_CHECK(false, "unknown CUDA setting ", which);
    }
  });
}

gt_error gt_cuda_set_flag(int which, int v) {
  return guard([&] {
    auto &c = at::globalContext();
    bool b = v != 0;
    switch (which) {
      case 0: c.setBenchmarkCuDNN(b); break;
      case 1: c.setDeterministicCuDNN(b); break;
      case 2: c.setAllowTF32CuDNN(b); break;
      case 3: c.setAllowTF32CuBLAS(b); break;
      case 4: c.setUserEnabledCuDNN(b); break;
      default: TORCH_CHECK(false, "unknown CUDA setting ", which);
    }
  });
}

gt_error gt_cuda_stream_new(int64_t d, int high_priority, gt_cuda_stream *s) {
  return guard([&] {
    auto idx = device_index("stream", d);
    *s = wrap_stream(impl("stream")->getStreamFromGlobalPool(c10::Device(kCUDA, idx), high_priority != 0));
  });
}

gt_error gt_cuda_stream_current(int64_t d, gt_cuda_stream *s) {
  return guard([&] {
    auto idx = device_index("current_stream", d);
    *s = wrap_stream(impl("current_stream")->getStream(c10::Device(kCUDA, idx)));
  });
}

gt_error gt_cuda_stream_default(int64_t d, gt_cuda_stream *s) {
  return guard([&] {
    auto idx = device_index("default_stream", d);
    *s = wrap_stream(impl("default_stream")->getDefaultStream(c10::Device(kCUDA, idx)));
  });
}

void gt_cuda_stream_free(gt_cuda_stream s) { delete reinterpret_cast<c10::Stream *>(s); }

gt_error gt_cuda_stream_exchange(gt_cuda_stream s, gt_cuda_stream *prev) {
  return guard([&] { *prev = wrap_stream(impl("set_stream")->exchangeStream(S(s))); });
}

gt_error gt_cuda_stream_synchronize(gt_cuda_stream s) {
  return guard([&] { S(s).synchronize(); });
}

gt_error gt_cuda_stream_query(gt_cuda_stream s, int *done) {
  return guard([&] { *done = S(s).query() ? 1 : 0; });
}

gt_error gt_cuda_stream_wait_event(gt_cuda_stream s, gt_cuda_event e) {
  return guard([&] {
    Event &ev = E(e);
    if (ev.ev == nullptr) return;  // never recorded: nothing to wait for, as in PyTorch
    impl("stream.wait_event")->block(ev.ev, S(s));
  });
}

void gt_cuda_stream_info(gt_cuda_stream s, int64_t *id, int64_t *device) {
  *id = static_cast<int64_t>(S(s).id());
  *device = S(s).device_index();
}

gt_error gt_cuda_event_new(int timing, gt_cuda_event *e) {
  return guard([&] {
    require_cuda("event");
    auto *ev = new Event;
    ev->flag = timing ? c10::EventFlag::BACKEND_DEFAULT : c10::EventFlag::PYTORCH_DEFAULT;
    *e = reinterpret_cast<gt_cuda_event>(ev);
  });
}

void gt_cuda_event_free(gt_cuda_event e) {
  Event *ev = reinterpret_cast<Event *>(e);
  if (ev->ev != nullptr) {
    try {
      c10::impl::getDeviceGuardImpl(kCUDA)->destroyEvent(ev->ev, ev->device);
    } catch (...) {
    }
  }
  delete ev;
}

gt_error gt_cuda_event_record(gt_cuda_event e, gt_cuda_stream s) {
  return guard([&] {
    Event &ev = E(e);
    const c10::Stream &st = S(s);
    TORCH_CHECK(ev.ev == nullptr || ev.device == st.device_index(), "event.record: the event belongs to cuda:",
                static_cast<int>(ev.device), ", the stream to cuda:", static_cast<int>(st.device_index()));
    impl("event.record")->record(&ev.ev, st, st.device_index(), ev.flag);
    ev.device = st.device_index();
  });
}

gt_error gt_cuda_event_query(gt_cuda_event e, int *done) {
  return guard([&] {
    Event &ev = E(e);
    *done = ev.ev == nullptr ? 1 : impl("event.query")->queryEvent(ev.ev);
  });
}

gt_error gt_cuda_event_synchronize(gt_cuda_event e) {
  return guard([&] {
    Event &ev = E(e);
    if (ev.ev == nullptr) return;
    using fn = int (*)(void *);
    cuda_check(cudart<fn>("cudaEventSynchronize")(ev.ev), "cudaEventSynchronize");
  });
}

gt_error gt_cuda_event_elapsed_ms(gt_cuda_event start, gt_cuda_event end, double *ms) {
  return guard([&] {
    Event &a = E(start), &b = E(end);
    TORCH_CHECK(a.ev != nullptr && b.ev != nullptr, "event.elapsed_time: both events must be recorded first");
    TORCH_CHECK(a.flag == c10::EventFlag::BACKEND_DEFAULT && b.flag == c10::EventFlag::BACKEND_DEFAULT,
                "event.elapsed_time: both events must be made with timing enabled");
    using fn = int (*)(float *, void *, void *);
    float f = 0;
    cuda_check(cudart<fn>("cudaEventElapsedTime")(&f, a.ev, b.ev), "cudaEventElapsedTime");
    *ms = f;
  });
}

gt_error gt_cuda_pin_memory(gt_tensor t, gt_tensor *out, int64_t *nbytes) {
  return guard([&] {
    require_cuda("pin_memory");
    at::Tensor r = T(t).pin_memory();
    *nbytes = gotorch::storage_bytes(r);
    *out = gotorch::wrap(std::move(r));
  });
}

gt_error gt_cuda_is_pinned(gt_tensor t, int *pinned) {
  return guard([&] { *pinned = has_cuda() && T(t).is_pinned() ? 1 : 0; });
}

gt_error gt_cuda_to(gt_tensor t, int32_t dev_type, int32_t dev_index, int non_blocking, gt_tensor *out,
                    int64_t *nbytes) {
  return guard([&] {
    const at::Tensor &x = T(t);
    at::Device dev = gotorch::device(dev_type, dev_index);
    if (dev.is_cuda()) require_cuda("to");
    at::Tensor r = x.to(dev, x.scalar_type(), non_blocking != 0, false);
    *nbytes = gotorch::storage_bytes(r);
    *out = gotorch::wrap(std::move(r));
  });
}

gt_error gt_cuda_record_stream(gt_tensor t, gt_cuda_stream s) {
  return guard([&] { T(t).record_stream(S(s)); });
}

}  // extern "C"
