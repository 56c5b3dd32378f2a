// countalloc.cc: countalloc.h as a shared library for the Python worker
// (bench/out/libcountalloc.so, built by the harness and loaded with ctypes).
#include "countalloc.h"
