package nn_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGeneratedLayersUpToDate checks that activation_gen.go,
// dropout_gen.go, loss_gen.go and vision_gen.go are what
// internal/genlayers writes from its tables (run go generate ./nn after
// editing them).
func TestGeneratedLayersUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the generator")
	}
	dir := t.TempDir()
	out, err := exec.Command("go", "run", "./internal/genlayers", "-o", dir).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, name := range []string{"activation_gen.go", "dropout_gen.go", "loss_gen.go", "vision_gen.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		got, err := os.ReadFile(name)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%s is stale: run go generate ./nn", name)
	}
}
