//go:build !gotorch_prebuilt

// deterministic.cc: the deterministic-algorithm flags of deterministic.h,
// read and written on at::globalContext().
#include "deterministic.h"

#include <ATen/Context.h>

#include "internal.h"

extern "C" {

gt_error gt_set_deterministic_algorithms(int on, int warn_only) {
  return gotorch::guard([&] { at::globalContext().setDeterministicAlgorithms(on != 0, warn_only != 0); });
}

void gt_deterministic_algorithms(int *on, int *warn_only) {
  const at::Context &ctx = at::globalContext();
  *on = ctx.deterministicAlgorithms() ? 1 : 0;
  *warn_only = ctx.deterministicAlgorithmsWarnOnly() ? 1 : 0;
}

}  // extern "C"
