/* deterministic.h: torch.use_deterministic_algorithms and the flags it
 * sets, at::globalContext()'s deterministic-algorithm settings, which are
 * global (every thread, every device). deterministic.cc implements it;
 * package torch (torch/deterministic.go) calls it. Apart from cgotorch.h
 * so that a change here recompiles only deterministic.cc. */
#ifndef GOTORCH_CGOTORCH_DETERMINISTIC_H_
#define GOTORCH_CGOTORCH_DETERMINISTIC_H_

#include "cgotorch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gt_set_deterministic_algorithms sets the flags: on makes the ops that
 * have no deterministic form fail (warn instead, with warn_only). */
gt_error gt_set_deterministic_algorithms(int on, int warn_only);

/* gt_deterministic_algorithms stores the two flags in *on and
 * *warn_only, as 0 or 1. */
void gt_deterministic_algorithms(int *on, int *warn_only);

#ifdef __cplusplus
}
#endif

#endif
