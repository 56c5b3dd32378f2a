package main

import (
	"os"
	"strings"
)

// The programs that the tests build (go run, go test and go build of the
// fixtures, gop-torch's own build and run commands, gop-torch init's
// modules) link libtorch without DWARF, as make test links the test
// binaries (-ldflags=-w): about a fifth of each link's CPU time (issue 38).
// Stack traces, which TestPanicFramesGolden reads, come from the symbol
// table and keep their files and lines. A GOFLAGS that already sets
// -ldflags is left as it is.
func init() {
	flags := os.Getenv("GOFLAGS")
	if strings.Contains(flags, "-ldflags") {
		return
	}
	os.Setenv("GOFLAGS", strings.TrimSpace(flags+" -ldflags=-w"))
}
