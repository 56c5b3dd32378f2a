/* amp.h: the C ABI of automatic mixed precision (package torch/amp):
 * libtorch's thread-local autocast state, per device type. */
#ifndef GOTORCH_CGOTORCH_AMP_H_
#define GOTORCH_CGOTORCH_AMP_H_

#include <stdint.h>

#include "cgotorch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The calling thread's autocast state for dev_type (0 CPU, 1 CUDA). */
gt_error gt_autocast_get(int32_t dev_type, int *enabled, int32_t *dtype);
/* Enters an autocast region: sets the state and counts one more nesting
 * level (torch.autocast.__enter__). */
gt_error gt_autocast_enter(int32_t dev_type, int enabled, int32_t dtype);
/* Leaves one: restores the state given and clears the cast cache when the
 * outermost region ends (torch.autocast.__exit__). */
gt_error gt_autocast_exit(int32_t dev_type, int enabled, int32_t dtype);

#ifdef __cplusplus
}
#endif

#endif /* GOTORCH_CGOTORCH_AMP_H_ */
