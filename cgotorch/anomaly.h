/* anomaly.h: autograd's anomaly mode (torch::autograd::AnomalyMode), the
 * setting behind torch.autograd.set_detect_anomaly: global, every thread.
 * anomaly.cc implements it; package torch (torch/anomaly.go) calls it. */
#ifndef GOTORCH_CGOTORCH_ANOMALY_H_
#define GOTORCH_CGOTORCH_ANOMALY_H_

#include "cgotorch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* gt_set_anomaly_enabled turns anomaly mode on or off; check_nan makes
 * backward fail on a gradient function that returns NaN. */
void gt_set_anomaly_enabled(int on, int check_nan);

/* gt_anomaly_enabled stores the two settings in *on and *check_nan, as 0
 * or 1. */
void gt_anomaly_enabled(int *on, int *check_nan);

#ifdef __cplusplus
}
#endif

#endif
