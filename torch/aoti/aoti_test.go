package aoti_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/aoti"
)

// hasAOTI reports whether the linked libtorch is 2.6 or newer.
func hasAOTI(t *testing.T) bool {
	parts := strings.SplitN(torch.LibtorchVersion(), ".", 3)
	require.GreaterOrEqual(t, len(parts), 2, "libtorch version %q", torch.LibtorchVersion())
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	require.NoError(t, errors.Join(err1, err2))
	return major > 2 || major == 2 && minor >= 6
}

func TestUnsupportedBefore26(t *testing.T) {
	if hasAOTI(t) {
		t.Skipf("libtorch %s has AOTInductor", torch.LibtorchVersion())
	}
	path := filepath.Join(t.TempDir(), "model.pt2")
	require.NoError(t, os.WriteFile(path, []byte("PK\x05\x06"), 0o644))
	_, err := aoti.Load(path)
	require.Error(t, err)
	assert.ErrorIs(t, err, torch.ErrUnsupported)
	assert.Contains(t, err.Error(), "2.6")
}

type expected struct {
	X, Y      []float64
	XShape    []int64 `json:"x_shape"`
	YShape    []int64 `json:"y_shape"`
	Out       [][]float64
	OutShapes [][]int64 `json:"out_shapes"`
	Package   string
}

// compile runs testdata/make_pt2.py with the system's PyTorch, which must
// be 2.6 or newer (the Debian 13 root's), into a temporary folder.
func compile(t *testing.T) (string, *expected) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to compile an AOTInductor package with")
	}
	dir := t.TempDir()
	cmd := exec.Command(py, "testdata/make_pt2.py", dir)
	cmd.Env = append(os.Environ(), "TORCHINDUCTOR_CACHE_DIR="+filepath.Join(dir, "cache"))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 3 {
		t.Skipf("python3's PyTorch cannot compile AOTInductor packages: %s", out)
	}
	if err != nil && strings.Contains(string(out), "No module named 'torch'") {
		t.Skipf("python3 has no PyTorch: %s", out)
	}
	require.NoError(t, err, "make_pt2.py (needs g++ and python3-setuptools beside python3-torch): %s", out)
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	require.NoError(t, err)
	var e expected
	require.NoError(t, json.Unmarshal(b, &e))
	return filepath.Join(dir, e.Package), &e
}

func vec(v []float64, shape []int64) torch.Tensor {
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	return torch.FromSlice(f, shape...)
}

// TestRun compiles a small model with PyTorch's AOTInductor and runs the
// package from Go against PyTorch's outputs.
func TestRun(t *testing.T) {
	if !hasAOTI(t) {
		t.Skipf("libtorch %s has no AOTInductor (TestUnsupportedBefore26)", torch.LibtorchVersion())
	}
	path, e := compile(t)
	m, err := aoti.Load(path)
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, 2, m.NumInputs())
	assert.Equal(t, 2, m.NumOutputs())
	md, err := m.Metadata()
	require.NoError(t, err)
	assert.Equal(t, "cpu", md["AOTI_DEVICE_KEY"])

	x, y := vec(e.X, e.XShape), vec(e.Y, e.YShape)
	check := func(t testing.TB, outs []torch.Tensor) {
		require.Len(t, outs, len(e.Out))
		for i, o := range outs {
			assert.Equal(t, e.OutShapes[i], o.Shape())
			golden.TensorClose(t, e.Out[i], o, "output %d", i)
		}
	}
	outs, err := m.Run(x, y)
	require.NoError(t, err)
	check(t, outs)

	_, err = m.Run(x)
	require.ErrorContains(t, err, "takes 2 input tensor(s), got 1")
	_, err = m.Run(x, torch.Tensor{})
	require.ErrorIs(t, err, torch.ErrUndefined)

	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				outs, err := m.Run(x, y)
				if !assert.NoError(t, err) {
					return
				}
				for i, o := range outs {
					assert.True(t, golden.For(torch.Float32).Close(e.Out[i][0], o.Float64s()[0]))
				}
			}
		}()
	}
	wg.Wait()

	require.NoError(t, m.Close())
	_, err = m.Run(x, y)
	require.ErrorIs(t, err, aoti.ErrClosed)
	_, err = m.Metadata()
	require.ErrorIs(t, err, aoti.ErrClosed)
}

func TestLoadErrors(t *testing.T) {
	_, err := aoti.Load(filepath.Join(t.TempDir(), "missing.pt2"))
	require.ErrorIs(t, err, os.ErrNotExist)
	if !hasAOTI(t) {
		return
	}
	for name, data := range map[string][]byte{
		"empty":         nil,
		"not zip":       []byte("this is not a package"),
		"zip, no model": {'P', 'K', 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.pt2")
			require.NoError(t, os.WriteFile(path, data, 0o644))
			_, err := aoti.Load(path)
			var te *torch.Error
			require.ErrorAs(t, err, &te)
			assert.Contains(t, err.Error(), path)
		})
	}
}
