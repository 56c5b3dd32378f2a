/* convcheck.h: oneDNN (mkldnn) and the convolution self-check of
 * convcheck_impl.h, compiled as part of tensor.cc (issue 40). Apart from cgotorch.h, which every generated
 * shard includes, so that a change here recompiles only tensor.cc. */
#ifndef GOTORCH_CGOTORCH_CONVCHECK_H_
#define GOTORCH_CGOTORCH_CONVCHECK_H_

#include "cgotorch.h"

#ifdef __cplusplus
extern "C" {
#endif

int gt_mkldnn_available(void);
int gt_mkldnn_enabled(void); /* torch.backends.mkldnn.enabled */
void gt_set_mkldnn_enabled(int on);
/* gt_conv_check computes small float32 convolutions, forward and both
 * gradients, and compares them with float64: *worst gets the largest
 * difference relative to the largest magnitude, which (which_len bytes) the
 * case and part it was in. perturb is added to one float32 gradient
 * (tests: a check that fails). */
gt_error gt_conv_check(double perturb, double *worst, char *which, int64_t which_len);

#ifdef __cplusplus
}
#endif

#endif
