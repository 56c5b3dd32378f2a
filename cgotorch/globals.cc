//go:build !gotorch_prebuilt

// globals.cc: the settings of globals.h.
#include "globals.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/core/Generator.h>
#include <c10/core/InferenceMode.h>

#include <mutex>

#include "internal.h"

extern "C" {

int gt_inference_mode_enabled(void) { return c10::InferenceMode::is_enabled() ? 1 : 0; }

gt_error gt_inference_mode_enter(int on, void **out) {
  *out = nullptr;
  return gotorch::guard([&] { *out = new c10::InferenceMode(on != 0); });
}

void gt_inference_mode_exit(void *guard) { delete static_cast<c10::InferenceMode *>(guard); }

int gt_set_flush_denormal(int on) { return at::globalContext().setFlushDenormal(on != 0) ? 1 : 0; }

int gt_get_float32_matmul_precision(void) {
  return static_cast<int>(at::globalContext().float32MatmulPrecision());
}

gt_error gt_set_float32_matmul_precision(int p) {
  return gotorch::guard([&] {
    TORCH_CHECK(p >= 0 && p <= static_cast<int>(at::Float32MatmulPrecision::MEDIUM),
                "float32 matmul precision ", p, " is not one of 0 (highest), 1 (high), 2 (medium)");
    // The string form: libtorch 2.14 has no overload that takes the enum.
    static const char *const names[] = {"highest", "high", "medium"};
    at::globalContext().setFloat32MatmulPrecision(names[p]);
  });
}

// Both take the generator's lock, as torch.initial_seed and torch.seed do.
uint64_t gt_initial_seed(void) {
  at::Generator gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.current_seed();
}

gt_error gt_seed(uint64_t *out) {
  return gotorch::guard([&] {
    at::Generator gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    *out = gen.seed();
  });
}

}  // extern "C"
