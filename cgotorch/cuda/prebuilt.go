//go:build gotorch_prebuilt

package cuda

// With the gotorch_prebuilt tag (the Makefile's train and test targets),
// this package's C++ is not compiled here: it comes from the shared library
// scripts/prebuilt.sh builds once per content, whose folder the Makefile
// puts in CGO_LDFLAGS.

// #cgo LDFLAGS: -lgotorch_cgo
import "C"
