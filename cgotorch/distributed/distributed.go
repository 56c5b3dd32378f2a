// Package distributed compiles GoTorch's C ABI over c10d, PyTorch's
// distributed engine: stores (TCPStore, FileStore), ProcessGroupGloo, its
// collectives and work handles, broadcast_coalesced, and c10d's gradient
// Reducer, which nn/parallel's DDP hooks into autograd (distributed.h,
// distributed.cc). compat/ stands in for a header that Debian 12's
// libtorch-dev lacks (see docs/distributed.md).
//
// It needs Gloo's headers (Debian's libgloo-dev, installed by
// scripts/setup.sh); the Gloo code itself is in libtorch_cpu.so. Package
// torch/distributed is its Go API; nothing else should call it.
package distributed

/*
#cgo CXXFLAGS: -O2 -fno-strict-aliasing -I${SRCDIR}/.. -I${SRCDIR}/compat -I/usr/include/torch/csrc/api/include -Wno-deprecated-declarations -DUSE_C10D_GLOO
#cgo CFLAGS: -I${SRCDIR}/..
#cgo LDFLAGS: -ltorch_cpu -lc10
#include "distributed.h"
*/
import "C"

import _ "github.com/gotorch/gotorch/cgotorch"

// HasNCCL reports whether the libtorch this was built against has NCCL.
func HasNCCL() bool { return C.gt_dist_has_nccl() != 0 }
