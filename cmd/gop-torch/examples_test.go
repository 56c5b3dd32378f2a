package main

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Go+ examples mlp, char_lstm and dcgan: their committed
// xgo_autogen.go files are current, they build, and each runs a couple of
// batches (not a training run) and prints what it should: 25 to 70 s
// for the three on the 2-core machine, by its load. -short (make test)
// skips both tests: make test-long runs them.

const fashionMNIST = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"

var goplusExamples = []struct {
	dir  string
	args []string
	// needs is a file the run reads; the run is skipped without it.
	needs string
	want  []string
}{
	{
		dir:   "examples/mlp",
		args:  []string{"-epochs", "1", "-limit-batches", "3"},
		needs: fashionMNIST,
		want:  []string{"(fc1): Linear(in_features=784, out_features=256, bias=True)", "epoch 1 test loss "},
	},
	{
		dir:   "examples/char_lstm",
		args:  []string{"-epochs", "1", "-limit-batches", "2"},
		needs: "/usr/share/common-licenses/GPL-3",
		want:  []string{"vocabulary ", "(lstm): LSTM(64, 256, num_layers=2, batch_first=True, dropout=0.3)", "epoch 1: train loss ", ", test loss ", "\nThe "},
	},
	{
		dir:   "examples/dcgan",
		args:  []string{"-limit-batches", "2"},
		needs: fashionMNIST,
		want:  []string{"(up1): ConvTranspose2d(64, 128, kernel_size=(7, 7)", "epoch 1 saved "},
	},
	{
		dir:   "examples/finetune_resnet",
		args:  []string{"-epochs", "1", "-limit-batches", "2"},
		needs: fashionMNIST,
		want:  []string{"Linear(in_features=512, out_features=10, bias=True)", "epoch 1 test loss "},
	},
}

func TestGoplusExamplesUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("translates the examples again (49 s under -race): make test-long; make test runs their xgo_autogen_uptodate_test.go")
	}
	tr := sharedTranslator(t)
	for _, ex := range goplusExamples {
		rs, err := tr.translate(filepath.Join(moduleRoot, ex.dir))
		require.NoError(t, err, ex.dir)
		for _, r := range rs {
			assert.False(t, r.Changed, "%s was out of date; rewritten: commit it", r.Dir)
		}
	}
}

func TestGoplusExamplesRun(t *testing.T) {
	if testing.Short() {
		// go test ./... compiles every example package already.
		t.Skip("builds and runs the examples: make test-long")
	}
	bin := t.TempDir()
	for _, ex := range goplusExamples {
		t.Run(filepath.Base(ex.dir), func(t *testing.T) {
			exe := filepath.Join(bin, filepath.Base(ex.dir))
			var stdout, stderr bytes.Buffer
			rc := run([]string{"build", "-o", exe, filepath.Join(moduleRoot, ex.dir)}, &stdout, &stderr)
			require.Equal(t, 0, rc, stderr.String())
			if _, err := os.Stat(ex.needs); err != nil {
				t.Skipf("built; not run: %v", err)
			}
			args := append([]string{"-progress=false"}, ex.args...)
			grid := filepath.Join(t.TempDir(), "grid.png")
			if ex.dir == "examples/dcgan" {
				args = append(args, grid)
			}
			c := exec.Command(exe, args...)
			c.Dir = t.TempDir()
			out, err := c.CombinedOutput()
			require.NoError(t, err, string(out))
			for _, w := range ex.want {
				assert.Contains(t, string(out), w)
			}
			assert.NotContains(t, string(out), "warning")
			if ex.dir == "examples/dcgan" {
				f, err := os.Open(grid)
				require.NoError(t, err)
				defer f.Close()
				cfg, err := png.DecodeConfig(f)
				require.NoError(t, err)
				// 64 images of 28×28, 8 to a row, 2 pixels of padding.
				assert.Equal(t, 8*30+2, cfg.Width)
				assert.Equal(t, 8*30+2, cfg.Height)
			}
		})
	}
}
