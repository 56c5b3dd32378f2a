//go:build gotorch_jemalloc

package torch

// Built with -tags gotorch_jemalloc, GoTorch programs use jemalloc instead
// of glibc's malloc for everything, libtorch's tensors included (Debian
// package libjemalloc2). Step tensors are freed in batches, after a
// collection, and jemalloc handles that pattern better than glibc: the
// automatic 4×4 add took about two thirds of the time (docs/memory.md).

/*
#cgo LDFLAGS: -l:libjemalloc.so.2
*/
import "C"

// Allocator names the malloc the program was linked with.
const Allocator = "jemalloc"
