package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// build builds the example once for the tests of this run.
func build(t *testing.T) string {
	t.Helper()
	built.Do(func() {
		dir, err := os.MkdirTemp("", "finetune_resnet")
		if err != nil {
			built.err = err
			return
		}
		built.exe = filepath.Join(dir, "finetune_resnet")
		out, err := exec.Command("go", "build", "-o", built.exe, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, built.err)
	return built.exe
}

var built struct {
	sync.Once
	exe string
	err error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.exe != "" {
		os.RemoveAll(filepath.Dir(built.exe))
	}
	os.Exit(code)
}

const fashionMNIST = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"

// TestFineTuneRuns builds this example (xgo_autogen.go, which
// xgo_autogen_uptodate_test.go keeps equal to the .gox files) and runs two
// batches: once from the random trunk, once loading a state dict that
// torchvision saved (models/vision/testdata/keys_resnet18.pt: resnet18's
// keys and shapes, every tensor one value), strictly, before the head is
// replaced. About 30 s on the 2-core machine; skipped with -short.
func TestFineTuneRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example: skipped with -short")
	}
	exe := build(t)
	if _, err := os.Stat(fashionMNIST); err != nil {
		t.Skipf("built; not run: %v", err)
	}
	weights, err := filepath.Abs(filepath.Join("..", "..", "models", "vision", "testdata", "keys_resnet18.pt"))
	require.NoError(t, err)
	for _, args := range [][]string{nil, {weights}} {
		c := exec.Command(exe, append([]string{"-progress=false", "-limit-batches", "2"}, args...)...)
		c.Dir = t.TempDir()
		out, err := c.CombinedOutput()
		require.NoError(t, err, string(out))
		assert.Contains(t, string(out), "Linear(in_features=512, out_features=10, bias=True)")
		assert.Contains(t, string(out), "epoch 1 test loss ")
		if args != nil {
			assert.Contains(t, string(out), "loaded "+weights)
		}
		assert.NotContains(t, string(out), "warning")
	}
}

// TestBadWeightsFileFails checks that a state dict of another model stops
// the script with an error that names the key.
func TestBadWeightsFileFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example: skipped with -short")
	}
	exe := build(t)
	if _, err := os.Stat(fashionMNIST); err != nil {
		t.Skipf("built; not run: %v", err)
	}
	other, err := filepath.Abs(filepath.Join("..", "..", "models", "vision", "testdata", "keys_resnet50.pt"))
	require.NoError(t, err)
	c := exec.Command(exe, "-progress=false", "-limit-batches", "1", other)
	c.Dir = t.TempDir()
	out, err := c.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "layer1.0.conv3.weight")
}
