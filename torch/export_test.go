package torch

// Test-only access to internals.

// BenchDirect runs n adds (mm=false) or mms directly in C++.
func BenchDirect(a, b Tensor, n int, mm bool) { benchDirect(a, b, n, mm) }
