package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// generated lists the files the generator writes, relative to the root.
var generated = []string{
	"cgotorch/ops_gen.h",
	"cgotorch/ops/shard0/ops_gen.cc", "cgotorch/ops/shard0/glue_gen.go", "cgotorch/ops/shard0/prebuilt_gen.go",
	"cgotorch/ops/shard1/ops_gen.cc", "cgotorch/ops/shard1/glue_gen.go", "cgotorch/ops/shard1/prebuilt_gen.go",
	"cgotorch/ops/shard2/ops_gen.cc", "cgotorch/ops/shard2/glue_gen.go", "cgotorch/ops/shard2/prebuilt_gen.go",
	"cgotorch/ops/shard3/ops_gen.cc", "cgotorch/ops/shard3/glue_gen.go", "cgotorch/ops/shard3/prebuilt_gen.go",
	"torch/ops_gen.go", "torch/options_gen.go", "cmd/gop-torch/genops_gen.go",
	"internal/gen/skipped.md",
}

// TestGeneratedUpToDate regenerates the bindings from the committed
// declarations extracts (decls/) into a temporary directory and checks that
// the committed files are identical: go generate ./... followed by git diff
// --exit-code is clean. It needs no PyTorch.
func TestGeneratedUpToDate(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command("go", "run", ".", "-root", "../..", "-out", out)
	cmd.Env = append(os.Environ(), "GOTORCH_DECLARATIONS=")
	cmd.Dir = "."
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	for _, f := range generated {
		want, err := os.ReadFile(filepath.Join(out, f))
		require.NoError(t, err, "generator did not write %s", f)
		got, err := os.ReadFile(filepath.Join("../..", f))
		require.NoError(t, err)
		assert.True(t, string(want) == string(got), "%s is stale: run go generate ./... and commit", f)
	}
}

// TestHeaderStampsCurrent checks, without torchgen and in -short mode too,
// that the header hashes stamped into the generated files match the
// headers: a header edited without go generate would otherwise leave the
// build cache's shards compiled against the old one (see headerStamp).
func TestHeaderStampsCurrent(t *testing.T) {
	stamped := map[string][]string{
		"cgotorch/ops/shard0/ops_gen.cc": {"internal.h", "cgotorch.h", "ops_gen.h"},
		"cgotorch/ops/shard1/ops_gen.cc": {"internal.h", "cgotorch.h", "ops_gen.h"},
		"cgotorch/ops/shard2/ops_gen.cc": {"internal.h", "cgotorch.h", "ops_gen.h"},
		"cgotorch/ops/shard3/ops_gen.cc": {"internal.h", "cgotorch.h", "ops_gen.h"},
		"torch/ops_gen.go":               {"cgotorch.h"},
	}
	stampLine := regexp.MustCompile(`(?m)^//   (\S+) sha256 ([0-9a-f]{64})$`)
	for file, headers := range stamped {
		src, err := os.ReadFile(filepath.Join("../..", file))
		require.NoError(t, err)
		got := map[string]string{}
		for _, m := range stampLine.FindAllStringSubmatch(string(src), -1) {
			got[m[1]] = m[2]
		}
		for _, h := range headers {
			data, err := os.ReadFile(filepath.Join("../../cgotorch", h))
			require.NoError(t, err)
			assert.Equal(t, fmt.Sprintf("%x", sha256.Sum256(data)), got[h],
				"%s: the stamp of %s is stale: run go generate ./... and commit", file, h)
		}
	}
}
