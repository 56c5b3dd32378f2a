package torch

/*
#include "cgotorch.h"
#include "anomaly.h"
*/
import "C"

// SetAnomalyEnabled turns autograd's anomaly detection on or off:
// torch.set_anomaly_enabled(mode, check_nan=True), the setting that
// Python's torch.autograd.detect_anomaly() scopes. With it on and
// WithCheckNan(true), the default, a backward pass whose gradient function
// returns NaN fails with an error naming that function ("Function
// 'SqrtBackward0' returned nan values in its 0th output."), where it would
// otherwise write NaN gradients. It is global, for every thread, and slows
// every backward. It panics where TrySetAnomalyEnabled returns an error.
func SetAnomalyEnabled(mode bool, opts ...Option) { must(TrySetAnomalyEnabled(mode, opts...)) }

// TrySetAnomalyEnabled is SetAnomalyEnabled returning its error: an option
// other than WithCheckNan.
func TrySetAnomalyEnabled(mode bool, opts ...Option) error {
	checkNan := true
	for _, o := range opts {
		if o.key != optCheckNan {
			return badOption("set_anomaly_enabled", o)
		}
		checkNan = o.b
	}
	C.gt_set_anomaly_enabled(cBool(mode), cBool(checkNan))
	return nil
}

// IsAnomalyEnabled reports whether anomaly detection is on:
// torch.is_anomaly_enabled().
func IsAnomalyEnabled() bool {
	on, _ := anomalyFlags()
	return on
}

// IsAnomalyCheckNanEnabled reports whether anomaly detection checks the
// gradients for NaN: torch.is_anomaly_check_nan_enabled(). It is
// SetAnomalyEnabled's last check_nan, also while anomaly detection is off.
func IsAnomalyCheckNanEnabled() bool {
	_, checkNan := anomalyFlags()
	return checkNan
}

func anomalyFlags() (on, checkNan bool) {
	var o, c C.int
	C.gt_anomaly_enabled(&o, &c)
	return o != 0, c != 0
}
