//go:build !gotorch_prebuilt

// amp.cc: autocast state (amp.h). libtorch 2.6 and later have one API for
// every device type; 1.13 has a pair of functions per device.
#include "amp.h"

#include <ATen/autocast_mode.h>

#include "internal.h"

using gotorch::guard;

namespace {

at::DeviceType device_type(int32_t t) {
  TORCH_CHECK(t == 0 || t == 1, "autocast: device type must be cpu or cuda, got ", t);
  return t == 0 ? at::kCPU : at::kCUDA;
}

bool get_enabled(at::DeviceType d) {
#if GT_LIBTORCH >= 20600
  return at::autocast::is_autocast_enabled(d);
#else
  return d == at::kCPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

at::ScalarType get_dtype(at::DeviceType d) {
#if GT_LIBTORCH >= 20600
  return at::autocast::get_autocast_dtype(d);
#else
  return d == at::kCPU ? at::autocast::get_autocast_cpu_dtype() : at::autocast::get_autocast_gpu_dtype();
#endif
}

void set_state(at::DeviceType d, bool enabled, at::ScalarType dtype) {
#if GT_LIBTORCH >= 20600
  at::autocast::set_autocast_enabled(d, enabled);
  at::autocast::set_autocast_dtype(d, dtype);
#else
  if (d == at::kCPU) {
    at::autocast::set_cpu_enabled(enabled);
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_enabled(enabled);
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
#endif
}

}  // namespace

extern "C" {

gt_error gt_autocast_get(int32_t dev_type, int *enabled, int32_t *dtype) {
  return guard([&] {
    auto d = device_type(dev_type);
    *enabled = get_enabled(d) ? 1 : 0;
    *dtype = static_cast<int32_t>(get_dtype(d));
  });
}

gt_error gt_autocast_enter(int32_t dev_type, int enabled, int32_t dtype) {
  return guard([&] {
    auto d = device_type(dev_type);
    auto st = gotorch::scalar_type(dtype);
    set_state(d, enabled != 0, st);
    at::autocast::increment_nesting();
  });
}

gt_error gt_autocast_exit(int32_t dev_type, int enabled, int32_t dtype) {
  return guard([&] {
    auto d = device_type(dev_type);
    auto st = gotorch::scalar_type(dtype);
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    set_state(d, enabled != 0, st);
  });
}

}  // extern "C"
