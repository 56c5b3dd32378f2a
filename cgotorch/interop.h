/* interop.h: libtorch's inter-op thread pool (at::get_num_interop_threads,
 * at::set_num_interop_threads) and at::init_num_threads. interop.cc
 * implements it; package torch (torch/interop.go) calls it. */
#ifndef GOTORCH_CGOTORCH_INTEROP_H_
#define GOTORCH_CGOTORCH_INTEROP_H_

#include "cgotorch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gt_get_num_interop_threads is the size of the inter-op pool, or the size
 * it will have once started. */
int gt_get_num_interop_threads(void);

/* gt_set_num_interop_threads sizes the inter-op pool: once, before the pool
 * starts; later calls are libtorch's error, and change nothing. */
gt_error gt_set_num_interop_threads(int n);

/* gt_init_num_threads applies the intra-op thread setting to the calling
 * thread (at::init_num_threads). */
gt_error gt_init_num_threads(void);

#ifdef __cplusplus
}
#endif

#endif
