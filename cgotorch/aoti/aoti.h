/* aoti.h: a plain C ABI over AOTInductor packages (.pt2 files written by
 * torch._inductor.aoti_compile_and_package), run with libtorch's
 * torch::inductor::AOTIModelPackageLoader. Needs libtorch >= 2.6; with an
 * older one every function returns an error that Go reads as
 * torch.ErrUnsupported. Every function catches every C++ exception. */
#ifndef GOTORCH_CGOTORCH_AOTI_H_
#define GOTORCH_CGOTORCH_AOTI_H_

#include <stdint.h>

#include "cgotorch.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gt_aoti_model_s *gt_aoti_model;

typedef struct gt_aoti_model_result_s {
  gt_aoti_model m;
  gt_error err;
} gt_aoti_model_result;

/* Loads the package at path; model_name "" means the default, "model". */
gt_aoti_model_result gt_aoti_load(const char *path, const char *model_name);
void gt_aoti_free(gt_aoti_model m);

/* The number of tensor inputs and outputs the compiled model has. */
typedef struct gt_aoti_counts_s {
  int64_t inputs;
  int64_t outputs;
  gt_error err;
} gt_aoti_counts;
gt_aoti_counts gt_aoti_counts_of(gt_aoti_model m);

/* Runs the model: n borrowed input handles in, a malloc'd array of *nout
 * new handles out (free the array with gt_aoti_tensors_free).
 *
 * layout (layout_len int64s, or NULL and 0) says, input by input, how
 * each must be laid out: 0, anything strided; 1, contiguous (a
 * non-contiguous input is copied into a contiguous one); 2, followed by
 * the rank k and k strides (-1 for any), those strides exactly, where the
 * size is above 1. Every input must be a strided (dense) tensor. */
typedef struct gt_aoti_tensors_s {
  gt_tensor *ts;
  int64_t n;
  gt_error err;
} gt_aoti_tensors;
gt_aoti_tensors gt_aoti_run(gt_aoti_model m, gt_tensor *in, int64_t n, const int64_t *layout,
                            int64_t layout_len);
void gt_aoti_tensors_free(gt_aoti_tensors *r);

/* The package's metadata, "key\0value\0key\0value\0..." in a malloc'd
 * buffer of n bytes (free with free via gt_aoti_bytes_free). */
typedef struct gt_aoti_bytes_s {
  char *p;
  int64_t n;
  gt_error err;
} gt_aoti_bytes;
gt_aoti_bytes gt_aoti_metadata(gt_aoti_model m);
void gt_aoti_bytes_free(gt_aoti_bytes *b);

#ifdef __cplusplus
}
#endif

#endif /* GOTORCH_CGOTORCH_AOTI_H_ */
