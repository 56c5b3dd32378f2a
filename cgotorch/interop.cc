//go:build !gotorch_prebuilt

// interop.cc: the inter-op thread settings of interop.h (ATen/Parallel.h).
#include "interop.h"

#include <ATen/Parallel.h>

#include "internal.h"

extern "C" {

int gt_get_num_interop_threads(void) {
  int n = 0;
  gt_error e = gotorch::guard([&] { n = at::get_num_interop_threads(); });
  if (e != nullptr) {
    gt_free_error(e);
    return 0;
  }
  return n;
}

gt_error gt_set_num_interop_threads(int n) {
  return gotorch::guard([&] { at::set_num_interop_threads(n); });
}

gt_error gt_init_num_threads(void) {
  return gotorch::guard([] { at::init_num_threads(); });
}

}  // extern "C"
