// Package gopbench holds Go+ code that torch's benchmarks run, compiled by
// gop-torch: loops whose tensors gop-torch frees itself, with no Free in
// the source. xgo_autogen.go is gop-torch's output; regenerate it with
// go generate.
package gopbench

//go:generate go run ../../../cmd/gop-torch go .
