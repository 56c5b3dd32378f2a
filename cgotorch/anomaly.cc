//go:build !gotorch_prebuilt

// anomaly.cc: autograd's anomaly mode (anomaly.h).
#include "anomaly.h"

#include <torch/csrc/autograd/anomaly_mode.h>

#include "internal.h"

extern "C" {

void gt_set_anomaly_enabled(int on, int check_nan) {
  torch::autograd::AnomalyMode::set_enabled(on != 0, check_nan != 0);
}

void gt_anomaly_enabled(int *on, int *check_nan) {
  *on = torch::autograd::AnomalyMode::is_enabled() ? 1 : 0;
  *check_nan = torch::autograd::AnomalyMode::should_check_nan() ? 1 : 0;
}

}  // extern "C"
