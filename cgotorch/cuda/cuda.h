/* cuda.h: the C ABI of GoTorch's CUDA runtime API (package torch/cuda):
 * devices, seeds, the caching allocator's statistics, cuDNN and TF32
 * settings, streams and events, pinned memory and non-blocking copies.
 *
 * Everything here works through libtorch's device-generic interfaces
 * (at::detail::getCUDAHooks(), at::globalContext(), c10::Stream,
 * c10::Event), which need no CUDA headers, except the caching allocator's
 * statistics and EmptyCache: they are compiled only with -DGOTORCH_CUDA
 * (make env sets it where it finds the CUDA toolkit's headers) and are
 * "unsupported" otherwise. A few CUDA runtime calls that libtorch does not
 * wrap portably (cudaMemGetInfo, cudaEventElapsedTime on libtorch 1.13) are
 * looked up with dlsym in the libcudart that libtorch_cuda loaded.
 *
 * Every function returns its error (NULL on success); results go through
 * out-pointers. A build without CUDA answers "no CUDA". */
#ifndef GOTORCH_CGOTORCH_CUDA_H_
#define GOTORCH_CGOTORCH_CUDA_H_

#include <stdint.h>

#include "cgotorch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gt_cuda_stream_s *gt_cuda_stream; /* an owned c10::Stream */
typedef struct gt_cuda_event_s *gt_cuda_event;   /* an owned c10::Event */

/* Build facts: bit 0 libtorch has CUDA kernels loaded (hasCUDART), bit 1
 * compiled with -DGOTORCH_CUDA, bit 2 cuDNN available. */
int gt_cuda_build_flags(void);
gt_error gt_cuda_current_device(int64_t *d);
gt_error gt_cuda_set_device(int64_t d);
gt_error gt_cuda_synchronize(int64_t d);
gt_error gt_cuda_manual_seed(int64_t d, uint64_t seed);
gt_error gt_cuda_manual_seed_all(uint64_t seed);

/* out: allocated current, allocated peak, reserved current, reserved peak. */
gt_error gt_cuda_memory_stats(int64_t d, int64_t out[4]);
gt_error gt_cuda_reset_peak_memory_stats(int64_t d);
gt_error gt_cuda_empty_cache(void);
gt_error gt_cuda_mem_get_info(int64_t d, int64_t *free_bytes, int64_t *total_bytes);

/* Settings: 0 cudnn.benchmark, 1 cudnn.deterministic, 2 cudnn.allow_tf32,
 * 3 matmul.allow_tf32, 4 cudnn.enabled. */
gt_error gt_cuda_get_flag(int which, int *v);
gt_error gt_cuda_set_flag(int which, int v);

gt_error gt_cuda_stream_new(int64_t d, int high_priority, gt_cuda_stream *s);
gt_error gt_cuda_stream_current(int64_t d, gt_cuda_stream *s);
gt_error gt_cuda_stream_default(int64_t d, gt_cuda_stream *s);
void gt_cuda_stream_free(gt_cuda_stream s);
/* Makes s the calling thread's current stream on its device; *prev gets
 * the one it replaces (to be restored the same way and freed). */
gt_error gt_cuda_stream_exchange(gt_cuda_stream s, gt_cuda_stream *prev);
gt_error gt_cuda_stream_synchronize(gt_cuda_stream s);
gt_error gt_cuda_stream_query(gt_cuda_stream s, int *done);
gt_error gt_cuda_stream_wait_event(gt_cuda_stream s, gt_cuda_event e);
void gt_cuda_stream_info(gt_cuda_stream s, int64_t *id, int64_t *device);

gt_error gt_cuda_event_new(int timing, gt_cuda_event *e);
void gt_cuda_event_free(gt_cuda_event e);
gt_error gt_cuda_event_record(gt_cuda_event e, gt_cuda_stream s);
gt_error gt_cuda_event_query(gt_cuda_event e, int *done);
gt_error gt_cuda_event_synchronize(gt_cuda_event e);
gt_error gt_cuda_event_elapsed_ms(gt_cuda_event start, gt_cuda_event end, double *ms);

/* Tensors. */
gt_error gt_cuda_pin_memory(gt_tensor t, gt_tensor *out, int64_t *nbytes);
gt_error gt_cuda_is_pinned(gt_tensor t, int *pinned);
gt_error gt_cuda_to(gt_tensor t, int32_t dev_type, int32_t dev_index, int non_blocking,
                    gt_tensor *out, int64_t *nbytes);
gt_error gt_cuda_record_stream(gt_tensor t, gt_cuda_stream s);

#ifdef __cplusplus
}
#endif

#endif /* GOTORCH_CGOTORCH_CUDA_H_ */
