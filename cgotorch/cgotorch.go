// Package cgotorch holds the C ABI between Go and libtorch: a plain C header
// (cgotorch.h, plus the generated ops_gen*.h) and its C++ implementation.
//
// cgo compiles the C++ here as part of this package, so a plain go build is
// the whole build. Package torch includes the header and calls the functions;
// nothing else should.
//
// By default the build uses Debian's libtorch (package libtorch-dev):
// headers under /usr/include, libraries in the default search path. To use
// another libtorch, set CGO_CPPFLAGS and CGO_LDFLAGS from LIBTORCH as the
// project's Makefile does (see README.md).
//
// The C++ standard is the compiler's default (C++17 for g++ 11 to 14) unless
// CGO_CXXFLAGS names one: the Makefile adds -std=c++20 for libtorch 2.7 and
// later, whose newest headers require it. (A -std in the #cgo lines below
// would come after CGO_CXXFLAGS and override it.)
package cgotorch

/*
#cgo CXXFLAGS: -O2 -fno-strict-aliasing -I/usr/include/torch/csrc/api/include -Wno-deprecated-declarations
#cgo LDFLAGS: -ltorch_cpu -lc10
#include "cgotorch.h"
*/
import "C"

// Version is the libtorch version this package was built against.
func Version() string { return C.GoString(C.gt_version()) }
