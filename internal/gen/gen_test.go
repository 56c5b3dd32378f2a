package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// generated lists the files the generator writes, relative to the root.
var generated = []string{
	"cgotorch/ops_gen.h",
	"cgotorch/ops/shard0/ops_gen.cc", "cgotorch/ops/shard0/glue_gen.go",
	"cgotorch/ops/shard1/ops_gen.cc", "cgotorch/ops/shard1/glue_gen.go",
	"cgotorch/ops/shard2/ops_gen.cc", "cgotorch/ops/shard2/glue_gen.go",
	"cgotorch/ops/shard3/ops_gen.cc", "cgotorch/ops/shard3/glue_gen.go",
	"torch/ops_gen.go", "torch/options_gen.go",
	"internal/gen/skipped.md",
}

// TestGeneratedUpToDate regenerates the bindings into a temporary directory
// and checks that the committed files are identical: go generate ./...
// followed by git diff --exit-code is clean.
func TestGeneratedUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("regeneration runs torchgen; skipped in -short mode")
	}
	if _, err := exec.Command("/usr/bin/python3", "-c", "import torchgen").CombinedOutput(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs python3-torch (torchgen) to check the generated code: %v", err)
		}
		t.Skip("python3-torch (torchgen) is not installed")
	}
	out := t.TempDir()
	cmd := exec.Command("go", "run", ".", "-root", "../..", "-out", out)
	cmd.Env = append(os.Environ(), "GOTORCH_DECLARATIONS=")
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
