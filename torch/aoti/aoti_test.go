package aoti_test

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

type batch struct {
	X, Y []float64
	Out  [][]float64
}

type expected struct {
	X, Y        []float64
	XShape      []int64 `json:"x_shape"`
	YShape      []int64 `json:"y_shape"`
	Out         [][]float64
	OutShapes   [][]int64 `json:"out_shapes"`
	Package     string
	Dynamic     string
	Batches     map[string]batch
	Spec        string
	DynamicSpec string `json:"dynamic_spec"`

	dir string
}

var compiled struct {
	once sync.Once
	e    *expected
	skip string
	err  error
}

// compile runs testdata/make_pt2.py with the system's PyTorch, which must
// be 2.6 or newer (the Debian 13 root's), into a temporary folder, once
// for all the tests (about 40 s).
func compile(t *testing.T) *expected {
	if !hasAOTI(t) {
		t.Skipf("libtorch %s has no AOTInductor (TestUnsupportedBefore26)", torch.LibtorchVersion())
	}
	compiled.once.Do(func() { compiled.e, compiled.skip, compiled.err = runMakePT2() })
	if compiled.skip != "" {
		t.Skip(compiled.skip)
	}
	require.NoError(t, compiled.err)
	return compiled.e
}

func runMakePT2() (*expected, string, error) {
	py, err := exec.LookPath("python3")
	if err != nil {
		return nil, "no python3 to compile an AOTInductor package with", nil
	}
	dir, err := os.MkdirTemp("", "aoti-test-")
	if err != nil {
		return nil, "", err
	}
	cleanups = append(cleanups, func() { os.RemoveAll(dir) })
	cmd := exec.Command(py, "testdata/make_pt2.py", dir)
	cmd.Env = append(os.Environ(), "TORCHINDUCTOR_CACHE_DIR="+filepath.Join(dir, "cache"))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 3 {
		return nil, "python3's PyTorch cannot compile AOTInductor packages: " + string(out), nil
	}
	if err != nil && strings.Contains(string(out), "No module named 'torch'") {
		return nil, "python3 has no PyTorch: " + string(out), nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("make_pt2.py (needs g++ and python3-setuptools beside python3-torch): %v: %s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		return nil, "", err
	}
	var e expected
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, "", err
	}
	e.dir = dir
	return &e, "", nil
}

var cleanups []func()

func TestMain(m *testing.M) {
	code := m.Run()
	for _, f := range cleanups {
		f()
	}
	os.Exit(code)
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
	e := compile(t)
	path := filepath.Join(e.dir, e.Package)
	m, err := aoti.Load(path)
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, 2, m.NumInputs())
	assert.Equal(t, 2, m.NumOutputs())
	md, err := m.Metadata()
	require.NoError(t, err)
	assert.Equal(t, "cpu", md["AOTI_DEVICE_KEY"])
	assert.Equal(t, e.Spec, md[aoti.MetadataKey], "the spec gotorch_aoti.py put in the metadata")
	assert.Equal(t, "0: torch.float32 [2, 4] on cpu; 1: torch.float32 [2, 3] on cpu", m.InputSpec().String())

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
	_, err = m.Run(x, y, y)
	require.ErrorContains(t, err, "takes 2 input tensor(s), got 3")
	_, err = m.Run(x, torch.Tensor{})
	require.ErrorIs(t, err, torch.ErrUndefined)

	// Wrong inputs are errors that name the input, before the compiled
	// code reads them.
	for name, tc := range map[string]struct {
		in   []torch.Tensor
		want string
	}{
		"rank":        {[]torch.Tensor{x.Reshape([]int64{2, 2, 2}), y}, "input 0 has shape [2, 2, 2], want [2, 4]: 3 dimensions, want 2"},
		"static size": {[]torch.Tensor{x, torch.Zeros([]int64{2, 30})}, "input 1 has shape [2, 30], want [2, 3]: size 30 at dimension 1, want 3"},
		"batch":       {[]torch.Tensor{torch.Zeros([]int64{64, 4}), torch.Zeros([]int64{64, 3})}, "input 0 has shape [64, 4], want [2, 4]: size 64 at dimension 0, want 2"},
		"dtype":       {[]torch.Tensor{x.To(torch.Float64), y}, "input 0 has dtype torch.float64, want torch.float32"},
		"int dtype":   {[]torch.Tensor{x, torch.Zeros([]int64{2, 3}, torch.WithDtype(torch.Int8))}, "input 1 has dtype torch.int8, want torch.float32"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := m.Run(tc.in...)
			require.ErrorIs(t, err, aoti.ErrBadInput)
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	// A non-contiguous input of the right shape is copied into a
	// contiguous one: the same values give the same outputs.
	xt := x.T().Contiguous().T()
	outs, err = m.Run(xt, y)
	require.NoError(t, err)
	check(t, outs)
	// An expanded one (stride 0, 4 elements in its storage) too.
	row := vec(e.X[:4], []int64{1, 4}).Expand([]int64{2, 4})
	outs, err = m.Run(row, y)
	require.NoError(t, err)
	want, err := m.Run(row.Contiguous(), y)
	require.NoError(t, err)
	for i := range outs {
		golden.TensorClose(t, want[i].Float64s(), outs[i], "expanded input, output %d", i)
	}

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

// TestDynamic runs the package exported with a dynamic batch dimension
// (1 to 64, shared by both inputs) at several batch sizes, and refuses
// batches outside the range or that differ between the inputs.
func TestDynamic(t *testing.T) {
	e := compile(t)
	m, err := aoti.Load(filepath.Join(e.dir, e.Dynamic))
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, "0: torch.float32 [s0, 4] on cpu (s0 1..64); 1: torch.float32 [s0, 3] on cpu (s0 1..64)", m.InputSpec().String())
	md, err := m.Metadata()
	require.NoError(t, err)
	assert.Equal(t, e.DynamicSpec, md[aoti.MetadataKey])
	require.Len(t, e.Batches, 3)
	for name, b := range e.Batches {
		n, err := strconv.ParseInt(name, 10, 64)
		require.NoError(t, err)
		outs, err := m.Run(vec(b.X, []int64{n, 4}), vec(b.Y, []int64{n, 3}))
		require.NoError(t, err, "batch %d", n)
		require.Len(t, outs, 2)
		assert.Equal(t, []int64{n, 3}, outs[0].Shape())
		assert.Equal(t, []int64{n}, outs[1].Shape())
		for i, o := range outs {
			golden.TensorClose(t, b.Out[i], o, "batch %d, output %d", n, i)
		}
	}
	for name, tc := range map[string]struct {
		x, y []int64
		want string
	}{
		"too large": {[]int64{65, 4}, []int64{65, 3}, "input 0 has shape [65, 4], want [s0, 4] (s0 1..64): size 65 at dimension 0 makes s0 = 65, outside 1..64"},
		"empty":     {[]int64{0, 4}, []int64{0, 3}, "makes s0 = 0, outside 1..64"},
		"disagree":  {[]int64{3, 4}, []int64{5, 3}, "input 1 has shape [5, 3], want [s0, 3] (s0 1..64): size 5 at dimension 0 makes s0 = 5, but input 0's dimension 0 made it 3"},
		"static":    {[]int64{3, 5}, []int64{3, 3}, "input 0 has shape [3, 5], want [s0, 4] (s0 1..64): size 5 at dimension 1, want 4"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := m.Run(torch.Zeros(tc.x), torch.Zeros(tc.y))
			require.ErrorIs(t, err, aoti.ErrBadInput)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// withoutSpec copies the package at src with its metadata reduced to the
// device, as aoti_compile_and_package writes it without gotorch_aoti.py.
func withoutSpec(t *testing.T, src string) string {
	zr, err := zip.OpenReader(src)
	require.NoError(t, err)
	defer zr.Close()
	dst := filepath.Join(t.TempDir(), "plain.pt2")
	f, err := os.Create(dst)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	replaced := 0
	for _, zf := range zr.File {
		if !strings.HasSuffix(zf.Name, "_metadata.json") {
			require.NoError(t, zw.Copy(zf))
			continue
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: zf.Name, Method: zip.Store})
		require.NoError(t, err)
		_, err = io.WriteString(w, `{"AOTI_DEVICE_KEY": "cpu"}`)
		require.NoError(t, err)
		replaced++
	}
	require.Equal(t, 1, replaced)
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return dst
}

// TestNoSpec: a package without the spec loads only with one given, or
// unchecked.
func TestNoSpec(t *testing.T) {
	e := compile(t)
	path := withoutSpec(t, filepath.Join(e.dir, e.Package))
	_, err := aoti.Load(path)
	require.ErrorIs(t, err, aoti.ErrNoInputSpec)
	assert.Contains(t, err.Error(), path)

	x, y := vec(e.X, e.XShape), vec(e.Y, e.YShape)
	spec := &aoti.InputSpec{Inputs: []aoti.TensorSpec{
		aoti.Input(torch.Float32, aoti.Static(2), aoti.Static(4)),
		aoti.Input(torch.Float32, aoti.Static(2), aoti.Static(3)),
	}}
	m, err := aoti.Load(path, aoti.WithInputSpec(spec))
	require.NoError(t, err)
	defer m.Close()
	outs, err := m.Run(x, y)
	require.NoError(t, err)
	golden.TensorClose(t, e.Out[0], outs[0], "output 0")
	_, err = m.Run(x, torch.Zeros([]int64{2, 4}))
	require.ErrorIs(t, err, aoti.ErrBadInput)
	assert.Contains(t, err.Error(), "input 1 has shape [2, 4], want [2, 3]")

	// A spec that wants exact strides (a package compiled for a
	// non-contiguous layout): a transposed copy is refused, not copied.
	strided := &aoti.InputSpec{Inputs: []aoti.TensorSpec{
		{DType: torch.Float32, Device: torch.CPUDevice, Sizes: []aoti.Dim{aoti.Static(2), aoti.Static(4)}, Strides: []int64{4, 1}},
		{DType: torch.Float32, Device: torch.CPUDevice, Sizes: []aoti.Dim{aoti.Static(2), aoti.Static(3)}, Strides: []int64{-1, 1}},
	}}
	s, err := aoti.Load(path, aoti.WithInputSpec(strided))
	require.NoError(t, err)
	defer s.Close()
	outs, err = s.Run(x, y)
	require.NoError(t, err)
	golden.TensorClose(t, e.Out[0], outs[0], "output 0")
	_, err = s.Run(x.T().Contiguous().T(), y)
	require.ErrorContains(t, err, "input 0 has strides [1, 2], want [4, 1]")
	_, err = s.Run(x, y.T().Contiguous().T())
	require.ErrorContains(t, err, "input 1 has strides [1, 2], want [-1, 1]")

	// A spec that does not fit the package.
	_, err = aoti.Load(path, aoti.WithInputSpec(&aoti.InputSpec{Inputs: spec.Inputs[:1]}))
	require.ErrorIs(t, err, aoti.ErrBadSpec)
	assert.Contains(t, err.Error(), "1 inputs, but the package takes 2")

	u, err := aoti.Load(path, aoti.WithUncheckedInputs())
	require.NoError(t, err)
	defer u.Close()
	assert.Nil(t, u.InputSpec())
	outs, err = u.Run(x, y)
	require.NoError(t, err)
	golden.TensorClose(t, e.Out[1], outs[1], "output 1")
	_, err = u.Run(x)
	require.ErrorContains(t, err, "takes 2 input tensor(s), got 1")
}
