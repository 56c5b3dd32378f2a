// Package aoti holds the C++ of AOTInductor support: a plain C header
// (aoti.h) over libtorch's torch::inductor::AOTIModelPackageLoader (2.6 and
// newer) and its implementation (aoti.cc). Package torch/aoti includes the
// header and calls the functions; importing this package links them in.
package aoti

/*
#cgo CXXFLAGS: -O2 -fno-strict-aliasing -I${SRCDIR}/.. -I/usr/include/torch/csrc/api/include -Wno-deprecated-declarations
#cgo CFLAGS: -I${SRCDIR}/..
#cgo LDFLAGS: -ltorch_cpu -lc10
#include "aoti.h"
*/
import "C"

import (
	// internal.h's helpers (gotorch::with_backtrace) live in cgotorch.
	_ "github.com/gotorch/gotorch/cgotorch"
)
