package cuda

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyntaxAgainstCUDAHeaders compiles cuda.cc, syntax only, against a
// libtorch with CUDA (Debian 13's libtorch-cuda-dev 2.6) and the CUDA
// toolkit's headers, with and without -DGOTORCH_CUDA, using the headers
// that scripts/cuda-headers.sh unpacked into the Debian 13 root. It skips
// when they are not there (run the script once to get them).
func TestSyntaxAgainstCUDAHeaders(t *testing.T) {
	root := os.Getenv("GOTORCH_DEBIAN13")
	if root == "" {
		root = "/var/cache/gotorch/debian13"
	}
	dir := filepath.Join(root, "opt/gotorch-cuda-headers")
	rel, err := os.ReadFile(filepath.Join(dir, "cuda-include"))
	if _, errDone := os.Stat(filepath.Join(dir, ".done")); err != nil || errDone != nil {
		t.Skipf("no CUDA headers in %s: run scripts/cuda-headers.sh to download them", dir)
	}
	if testing.Short() {
		t.Skip("-short: the compiles take about a minute")
	}
	gxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("no g++")
	}
	torchInc := filepath.Join(dir, "torch/usr/include")
	cudaInc := filepath.Join(dir, strings.TrimSpace(string(rel)))
	// The two compiles run in parallel: each takes about 40 s of a core.
	for name, flags := range map[string][]string{"hooks": nil, "GOTORCH_CUDA": {"-DGOTORCH_CUDA", "-isystem", cudaInc}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"-std=c++17", "-fsyntax-only", "-Wall", "-Wno-deprecated-declarations",
				"-Wno-unused-function", "-isystem", torchInc, "-isystem", filepath.Join(torchInc, "torch/csrc/api/include"),
				"-I.."}, flags...)
			args = append(args, "cuda.cc")
			out, err := exec.Command(gxx, args...).CombinedOutput()
			if err != nil {
				t.Errorf("g++ %s: %v\n%s", strings.Join(flags, " "), err, out)
			}
		})
	}
}
