/* rng.h: the state of a CPU random generator, as torch.get_rng_state,
 * torch.set_rng_state and torch.Generator's get_state and set_state read
 * and write it (rng.cc). Apart from cgotorch.h so that a change here
 * recompiles only rng.cc, not the generated shards. Package torch
 * (torch/rng.go) calls these. */
#ifndef GOTORCH_CGOTORCH_RNG_H_
#define GOTORCH_CGOTORCH_RNG_H_

#include <stdint.h>

#include "cgotorch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gt_rng_get_state returns a copy of g's state, or of the default CPU
 * generator's for NULL: a 1-D uint8 tensor (5056 bytes on libtorch 1.13
 * to 2.x), taken under the generator's lock. */
gt_tensor_result gt_rng_get_state(gt_generator g);

/* gt_rng_set_state makes state, as gt_rng_get_state returned it, g's state
 * (the default CPU generator's for NULL). A state that is not a contiguous
 * uint8 CPU tensor of the generator's state size, or whose content the
 * generator refuses, is an error and leaves the generator as it was. */
gt_error gt_rng_set_state(gt_generator g, gt_tensor state);

#ifdef __cplusplus
}
#endif

#endif
