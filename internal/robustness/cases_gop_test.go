package robustness

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

var gopTorch struct {
	once sync.Once
	path string
	err  error
}

// gopTorchBinary builds cmd/gop-torch once per test process. Under go
// test -race it is a race build too, except in -short mode (make test):
// each case's translation loads GoTorch's packages, 7 s of CPU under the
// race detector and 2 s without it (measured on the 2-core machine), and
// what the cases check (exit status 1, the compiler's errors, no panic,
// no xgo_autogen.go) does not depend on it. make test-long runs them
// under -race, and cmd/gop-torch's own tests run the translator under
// -race in make test. Either build only links: go vet compiles the
// packages without -race, cmd/gop-torch's test with it.
func gopTorchBinary() (string, error) {
	gopTorch.once.Do(func() {
		dir, err := os.MkdirTemp("", "robustness-gop-torch-")
		if err != nil {
			gopTorch.err = err
			return
		}
		gopTorch.path = filepath.Join(dir, "gop-torch")
		// Without DWARF, as make test links its test binaries: a
		// fifth less CPU for the link (issue 38).
		args := []string{"build", "-ldflags=-w", "-o", gopTorch.path}
		if raceEnabled && !testing.Short() {
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, "github.com/gotorch/gotorch/cmd/gop-torch")...).CombinedOutput()
		if err != nil {
			gopTorch.err = fmt.Errorf("building gop-torch: %v\n%s", err, out)
		}
	})
	return gopTorch.path, gopTorch.err
}

// translateGop runs gop-torch's translation (gop-torch go DIR) on a Go+
// training script in a fresh folder inside the module, as its own tests
// do. A script that does not compile must make gop-torch exit with status
// 1 and print the compiler's errors, with no panic; that output is the
// case's error.
func translateGop(t *testing.T, script string) func() error {
	return func() error {
		bin, err := gopTorchBinary()
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		dir, err := os.MkdirTemp("testdata", "_work-gop-")
		require.NoError(t, err)
		defer os.RemoveAll(dir)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "main_train.gox"), []byte(script), 0o644))
		abs, err := filepath.Abs(dir)
		require.NoError(t, err)
		var stderr bytes.Buffer
		cmd := exec.Command(bin, "go", abs)
		cmd.Stderr = &stderr
		err = cmd.Run()
		var ee *exec.ExitError
		require.True(t, errors.As(err, &ee), "gop-torch accepted the script (%v):\n%s", err, stderr.String())
		require.Equal(t, 1, ee.ExitCode(), stderr.String())
		require.NotContains(t, stderr.String(), "panic", "gop-torch crashed")
		require.NoFileExists(t, filepath.Join(dir, "xgo_autogen.go"))
		require.NoFileExists(t, filepath.Join(dir, "gop_autogen.go"))
		return errors.New(strings.TrimSpace(stderr.String()))
	}
}

// gopCases: Go+ training scripts with type and syntax errors.
func gopCases(t *testing.T) []badCase {
	return []badCase{
		{"Go+ tensor assigned to an int", "main_train.gox:2:13: cannot use x (type github.com/gotorch/gotorch/torch.Tensor) as type int", "", nil,
			translateGop(t, "x := tensor([1, 2, 3])\nvar n int = x\necho n\n")},
		{"Go+ string for epochs", "main_train.gox:1:8: cannot use \"three\"", "", nil,
			translateGop(t, "epochs \"three\"\necho 1\n")},
		{"Go+ undefined name", "main_train.gox:2:6: undefined: noSuchThing", "", nil,
			translateGop(t, "x := tensor([1, 2])\necho noSuchThing(x)\n")},
		{"Go+ no such method", "main_train.gox:2:6: x.NoSuchMethod undefined", "", nil,
			translateGop(t, "x := tensor([1, 2])\necho x.NoSuchMethod()\n")},
		{"Go+ tensor as a string", "main_train.gox:2:16: cannot use x (type github.com/gotorch/gotorch/torch.Tensor) as type string", "", nil,
			translateGop(t, "x := tensor([1, 2])\nvar s string = x\necho s\n")},
		{"Go+ syntax error", "main_train.gox:1:19: missing ',' before newline", "", nil,
			translateGop(t, "x := tensor([1, 2]\necho x\n")},
	}
}
