package torch_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// goldenJSON is torch/testdata/golden.json, written by testdata/golden.py with
// the reference PyTorch.
type goldenJSON struct {
	TorchVersion string                                `json:"torch_version"`
	Repr         map[string]string                     `json:"repr"`
	Autograd     map[string]map[string]json.RawMessage `json:"autograd"`
	PyTensor     struct {
		File   string    `json:"file"`
		DType  string    `json:"dtype"`
		Shape  []int64   `json:"shape"`
		Values []float64 `json:"values"`
	} `json:"py_tensor"`
}

// goldenValues is one tensor in golden.json: its shape and its values,
// flattened in row-major order.
type goldenValues struct {
	Shape  []int64   `json:"shape"`
	Values []float64 `json:"values"`
}

var (
	goldenOnce sync.Once
	goldenData goldenJSON
	goldenErr  error
)

func loadGolden(t testing.TB) *goldenJSON {
	t.Helper()
	goldenOnce.Do(func() {
		b, err := os.ReadFile(filepath.Join("testdata", "golden.json"))
		if err != nil {
			goldenErr = err
			return
		}
		goldenErr = json.Unmarshal(b, &goldenData)
	})
	require.NoError(t, goldenErr, "golden.json (regenerate with /usr/bin/python3 torch/testdata/golden.py)")
	return &goldenData
}

// catch runs f and returns the value it panicked with (nil if it did not).
func catch(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// mustPanicErr runs f, requires it to panic with a *torch.Error for op,
// and returns that error.
func mustPanicErr(t *testing.T, op string, f func()) *torch.Error {
	t.Helper()
	r := catch(f)
	require.NotNil(t, r, "expected a panic from %s", op)
	err, ok := r.(error)
	require.True(t, ok, "panic value %T (%v) is not an error", r, r)
	var te *torch.Error
	require.True(t, errors.As(err, &te), "panic value %T (%v) is not a *torch.Error", r, r)
	assert.Equal(t, op, te.Op)
	assert.True(t, strings.Contains(te.Error(), op), "message %q does not name the op %q", te.Error(), op)
	assert.True(t, strings.HasPrefix(te.Error(), "torch."+op+": "), "message %q", te.Error())
	return te
}

// requireTorchErr requires err to be a *torch.Error for op.
func requireTorchErr(t *testing.T, op string, err error) *torch.Error {
	t.Helper()
	require.Error(t, err)
	var te *torch.Error
	require.True(t, errors.As(err, &te), "error %T (%v) is not a *torch.Error", err, err)
	assert.Equal(t, op, te.Op)
	assert.Contains(t, te.Error(), op)
	return te
}

// ok checks that the library still works after an error: a fresh op
// succeeds and gives the right answer.
func ok(t *testing.T) {
	t.Helper()
	a := torch.FromSlice([]float32{1, 2})
	b := torch.FromSlice([]float32{10, 20})
	c := torch.Add(a, b)
	assert.Equal(t, []float32{11, 22}, c.Float32s())
	c.Free()
}

func i64s(v ...int64) []int64 { return v }

// The creation functions whose Go signatures come from the code generator
// (PyTorch's arange(start, end, step) and eye(n, m)) are called only
// through these helpers.

func tryArange(start, end torch.Scalar, step torch.Option, opts ...torch.Option) (torch.Tensor, error) {
	return torch.TryArangeStartStep(start, end, append([]torch.Option{step}, opts...)...)
}

func arange(start, end torch.Scalar, step torch.Option, opts ...torch.Option) torch.Tensor {
	return torch.ArangeStartStep(start, end, append([]torch.Option{step}, opts...)...)
}

func tryEye(n, m int64, opts ...torch.Option) (torch.Tensor, error) {
	return torch.TryEyeM(n, m, opts...)
}

func eye(n, m int64, opts ...torch.Option) torch.Tensor { return torch.EyeM(n, m, opts...) }
