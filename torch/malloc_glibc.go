//go:build !gotorch_jemalloc

package torch

// Allocator names the malloc the program was linked with: glibc's by
// default, jemalloc with -tags gotorch_jemalloc (see malloc_jemalloc.go).
const Allocator = "glibc"
