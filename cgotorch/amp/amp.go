// Package amp holds the C++ of package torch/amp (amp.h, amp.cc): libtorch's
// autocast state. Only torch/amp should import it.
package amp

/*
#cgo CPPFLAGS: -I${SRCDIR}/..
#cgo CXXFLAGS: -O2 -fno-strict-aliasing -I/usr/include/torch/csrc/api/include -Wno-deprecated-declarations
#cgo LDFLAGS: -ltorch_cpu -lc10
#include "amp.h"
*/
import "C"

import (
	// gotorch::guard and the other helpers of internal.h live in package cgotorch.
	_ "github.com/gotorch/gotorch/cgotorch"
)
