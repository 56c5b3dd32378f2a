//go:build !gotorch_prebuilt

// rng.cc: a CPU generator's state (rng.h), through the device-generic
// at::Generator interface that libtorch 1.13 and 2.x share
// (Generator::get_state and set_state, CPUGeneratorImpl underneath). A
// gt_generator is an owned at::Generator (tensor.cc, gt_generator_new).
#include "rng.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Generator.h>

#include <mutex>

#include "internal.h"

using gotorch::guard;
using gotorch::T;

namespace {

at::Generator generator_or_default(gt_generator g) {
  if (g == nullptr) return at::detail::getDefaultCPUGenerator();
  return *reinterpret_cast<at::Generator *>(g);
}

// check_state refuses what libtorch would refuse less clearly, or not at
// all: libtorch copies the bytes into its state struct, so the size must be
// the generator's own (its legacy pre-1.5 size is refused too: GoTorch and
// PyTorch since 1.5 never write it).
void check_state(const at::Tensor &s, int64_t want) {
  TORCH_CHECK(s.layout() == at::kStrided, "the RNG state must be a dense tensor, not ", s.layout());
  TORCH_CHECK(s.device().is_cpu(), "the RNG state must be on the CPU, not ", s.device());
  TORCH_CHECK(s.scalar_type() == at::kByte, "the RNG state must be a uint8 tensor, not ", s.scalar_type());
  TORCH_CHECK(s.is_contiguous(), "the RNG state must be contiguous (its strides are ", s.strides(), ")");
  TORCH_CHECK(s.numel() == want, "the RNG state has ", s.numel(), " bytes; this libtorch's (" TORCH_VERSION
              ") CPU generator's state has ", want);
}

}  // namespace

extern "C" {

// Both take the generator's lock, as Python's torch.get_rng_state and
// set_rng_state do (libtorch's note "Acquire lock when using random
// generators"): ops on other threads draw from it meanwhile.
gt_tensor_result gt_rng_get_state(gt_generator g) {
  return gotorch::tensor_result([&] {
    at::Generator gen = generator_or_default(g);
    std::lock_guard<std::mutex> lock(gen.mutex());
    return gen.get_state();
  });
}

gt_error gt_rng_set_state(gt_generator g, gt_tensor state) {
  return guard([&] {
    const at::Tensor &s = T(state);
    at::Generator gen = generator_or_default(g);
    std::lock_guard<std::mutex> lock(gen.mutex());
    check_state(s, gen.get_state().numel());
    gen.set_state(s);
  });
}

}  // extern "C"
