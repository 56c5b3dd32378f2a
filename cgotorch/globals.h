/* globals.h: torch's remaining global settings that libtorch's C++ API
 * has: inference mode (c10::InferenceMode, per thread), flushing denormals
 * (at::globalContext().setFlushDenormal), the float32 matmul precision, and
 * the default CPU generator's seed (initial_seed, seed). globals.cc
 * implements it; package torch (torch/globals.go) calls it. */
#ifndef GOTORCH_CGOTORCH_GLOBALS_H_
#define GOTORCH_CGOTORCH_GLOBALS_H_

#include <stdint.h>

#include "cgotorch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gt_inference_mode_enabled reports whether the calling thread is in
 * inference mode. */
int gt_inference_mode_enabled(void);

/* gt_inference_mode_enter puts the calling thread in inference mode (on
 * true) or out of it, and stores in *out the guard that
 * gt_inference_mode_exit, called on the same thread, in reverse order,
 * ends. */
gt_error gt_inference_mode_enter(int on, void **out);
void gt_inference_mode_exit(void *guard);

/* gt_set_flush_denormal turns flushing denormals to zero on or off on the
 * CPU; it returns whether the CPU supports it (the setting is then made). */
int gt_set_flush_denormal(int on);

/* The float32 matmul precision, as the index of "highest", "high",
 * "medium" (at::Float32MatmulPrecision). */
int gt_get_float32_matmul_precision(void);
gt_error gt_set_float32_matmul_precision(int p);

/* gt_initial_seed is the default CPU generator's current seed;
 * gt_seed seeds it from a non-deterministic source and returns that seed. */
uint64_t gt_initial_seed(void);
gt_error gt_seed(uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif
