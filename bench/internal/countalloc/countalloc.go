// Package countalloc is the benchmark harness's count of live CPU tensor
// memory for the Go and Go+ workers (bench/cxx/countalloc.h, the same code
// as the C++ and Python workers'). Nothing is counted until Install.
package countalloc

/*
#cgo CXXFLAGS: -std=c++17 -O2 -Wno-deprecated-declarations -I/usr/include/torch/csrc/api/include
#cgo LDFLAGS: -lc10
#include "../../cxx/countalloc_api.h"
*/
import "C"

// Install wraps the process's CPU allocator in the counting one; the
// tensors allocated from then on are counted.
func Install() { C.bench_count_install() }

// Installed reports whether the counting allocator is the CPU allocator.
func Installed() bool { return C.bench_count_installed() != 0 }

// ResetPeak starts the peak again at the live count.
func ResetPeak() { C.bench_count_reset_peak() }

// Peak is the most bytes of counted blocks live at once since ResetPeak.
func Peak() int64 { return int64(C.bench_count_peak()) }

// Live is the bytes of counted blocks live now.
func Live() int64 { return int64(C.bench_count_live()) }
