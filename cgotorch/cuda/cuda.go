// Package cuda holds the C++ of package torch/cuda (cuda.h, cuda.cc): the
// CUDA runtime API that is not an ATen op. Only torch/cuda should import it.
//
// It builds against any libtorch, with or without CUDA; the caching
// allocator's statistics need -DGOTORCH_CUDA and the CUDA toolkit's headers
// (make env sets both where they are found; docs/gpu.md).
package cuda

/*
#cgo CPPFLAGS: -I${SRCDIR}/..
#cgo CXXFLAGS: -O2 -fno-strict-aliasing -I/usr/include/torch/csrc/api/include -Wno-deprecated-declarations
#cgo LDFLAGS: -ltorch_cpu -lc10
#include "cuda.h"
*/
import "C"

import (
	// gotorch::guard and the other helpers of internal.h live in package cgotorch.
	_ "github.com/gotorch/gotorch/cgotorch"
)
