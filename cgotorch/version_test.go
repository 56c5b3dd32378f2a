package cgotorch

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLibtorchFlagMustMatchHeaders builds this package as if make had been
// run against another libtorch (GOTORCH_LIBTORCH=1): the build must stop
// with the message of cgotorch/internal.h instead of mixing objects made
// against two versions' headers.
func TestLibtorchFlagMustMatchHeaders(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles C++")
	}
	var flags []string
	for _, f := range strings.Fields(os.Getenv("CGO_CPPFLAGS")) {
		if !strings.HasPrefix(f, "-DGOTORCH_LIBTORCH=") {
			flags = append(flags, f)
		}
	}
	flags = append(flags, "-DGOTORCH_LIBTORCH=1")
	cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
	// The C++ must be compiled here: without the Makefile's
	// -tags=gotorch_prebuilt, which links it from a library instead.
	var goflags []string
	for _, f := range strings.Fields(os.Getenv("GOFLAGS")) {
		if f != "-tags=gotorch_prebuilt" {
			goflags = append(goflags, f)
		}
	}
	cmd.Env = append(os.Environ(), "CGO_CPPFLAGS="+strings.Join(flags, " "), "GOFLAGS="+strings.Join(goflags, " "))
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "a build for another libtorch compiled")
	assert.Contains(t, string(out), "configured for another libtorch")
}
