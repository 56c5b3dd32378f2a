// Package ptstorage holds the C++ that package torch/pt needs to save
// tensors that share a storage as torch.save does: a plain C header
// (ptstorage.h) that tells a tensor's storage, its size and the tensor's
// offset in it, and its implementation (ptstorage.cc). Package torch/pt
// includes the header and calls the function; importing this package
// links it in.
package ptstorage

/*
#cgo CXXFLAGS: -O2 -fno-strict-aliasing -I${SRCDIR}/.. -I/usr/include/torch/csrc/api/include -Wno-deprecated-declarations
#cgo CFLAGS: -I${SRCDIR}/..
#cgo LDFLAGS: -ltorch_cpu -lc10
#include "ptstorage.h"
*/
import "C"

import (
	// internal.h's helpers live in cgotorch.
	_ "github.com/gotorch/gotorch/cgotorch"
)
