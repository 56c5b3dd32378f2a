// Package jit holds the C++ of TorchScript support: a plain C header
// (jit.h) over torch::jit::Module and its implementation (jit.cc). Package
// torch/jit includes the header and calls the functions; nothing else
// should. Importing this package links the implementation in.
package jit

/*
#cgo CXXFLAGS: -std=c++17 -O2 -fno-strict-aliasing -I${SRCDIR}/.. -I/usr/include/torch/csrc/api/include -Wno-deprecated-declarations
#cgo CFLAGS: -I${SRCDIR}/..
#cgo LDFLAGS: -ltorch_cpu -lc10
#include "jit.h"
*/
import "C"

import (
	// internal.h's helpers (gotorch::with_backtrace) live in cgotorch.
	_ "github.com/gotorch/gotorch/cgotorch"
)
