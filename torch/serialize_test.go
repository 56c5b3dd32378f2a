package torch_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// Files written by Save are read by Python's torch.load: checked once by
// hand with the reference PyTorch (/usr/bin/python3, torch 1.13) on files
// saved from Go for float32 2x3, int64, bool, float16, complex64, a 0-dim
// float64, an empty (0, 3) float32 and a requires_grad leaf; torch.load
// printed the same values, dtypes and requires_grad=True.

func saveCases() map[string]func() torch.Tensor {
	return map[string]func() torch.Tensor{
		"float32 2x3": func() torch.Tensor { return torch.FromSlice([]float32{1.5, -2, 3.25, 4, 0, -6.75}, 2, 3) },
		"float64":     func() torch.Tensor { return torch.FromSlice([]float64{0.1, -1e300}) },
		"float16":     func() torch.Tensor { return f32(1, 0.5, -2).To(torch.Float16) },
		"bfloat16":    func() torch.Tensor { return f32(1, 0.5, -2).To(torch.BFloat16) },
		"int64":       func() torch.Tensor { return torch.FromSlice([]int64{1, -2, 1 << 40}) },
		"int32":       func() torch.Tensor { return torch.FromSlice([]int32{-7, 7}) },
		"int16":       func() torch.Tensor { return torch.FromSlice([]int16{-7, 7}) },
		"int8":        func() torch.Tensor { return torch.FromSlice([]int8{-128, 127}) },
		"uint8":       func() torch.Tensor { return torch.FromSlice([]uint8{0, 255}) },
		"bool":        func() torch.Tensor { return torch.FromSlice([]bool{true, false}) },
		"complex64":   func() torch.Tensor { return torch.FromSlice([]complex64{1 + 2i, -3i}) },
		"complex128":  func() torch.Tensor { return torch.FromSlice([]complex128{1 + 2i, -3i}) },
		"0-dim":       func() torch.Tensor { return torch.FromNested(2.5) },
		"empty":       func() torch.Tensor { return torch.Zeros(i64s(0, 3)) },
		"3-d":         func() torch.Tensor { return torch.FromSlice(arangeF32(24), 2, 3, 4) },
		"large":       func() torch.Tensor { return torch.FromSlice(arangeF32(5000), 50, 100) },
		"leaf":        func() torch.Tensor { return leaf(1, 2) },
	}
}

func assertSameTensor(t *testing.T, want, got torch.Tensor) {
	t.Helper()
	assert.Equal(t, want.DType(), got.DType())
	assert.Equal(t, want.Shape(), got.Shape())
	assert.Equal(t, want.Device(), got.Device())
	assert.Equal(t, want.RequiresGrad(), got.RequiresGrad())
	assert.Equal(t, torch.ToSlice[complex128](want), torch.ToSlice[complex128](got))
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for name, build := range saveCases() {
		t.Run(name, func(t *testing.T) {
			x := build()
			path := filepath.Join(dir, name+".pt")
			require.NoError(t, torch.Save(x, path))
			y, err := torch.Load(path)
			require.NoError(t, err)
			assertSameTensor(t, x, y)
			assert.True(t, y.IsLeaf())

			// Encode and Decode are the same bytes without the file.
			data := x.Encode()
			onDisk, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, onDisk, data)
			z, err := torch.Decode(data)
			require.NoError(t, err)
			assertSameTensor(t, x, z)
		})
	}
	// Save leaves no temporary files behind.
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, len(saveCases()))
}

func TestSaveOverwrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.pt")
	require.NoError(t, torch.Save(f32(1, 2, 3), path))
	require.NoError(t, torch.Save(torch.FromSlice([]int64{9}), path))
	y, err := torch.Load(path)
	require.NoError(t, err)
	assert.Equal(t, []int64{9}, y.Int64s())
	assert.Equal(t, torch.Int64, y.DType())
}

// py_tensor.pt was written by Python's torch.save (testdata/golden.py).
func TestLoadPythonFile(t *testing.T) {
	g := loadGolden(t)
	x, err := torch.Load(filepath.Join("testdata", g.PyTensor.File))
	require.NoError(t, err)
	assert.Equal(t, g.PyTensor.DType, x.DType().String())
	assert.Equal(t, g.PyTensor.Shape, x.Shape())
	assert.Equal(t, g.PyTensor.Values, x.Float64s())
	assert.False(t, x.RequiresGrad())
	// It prints as Python printed it.
	assert.Equal(t, "tensor([[ 1.5000, -2.0000,  3.2500],\n        [ 4.0000,  0.0000, -6.7500]])", x.String())
	// And what Go writes back decodes to the same tensor.
	y, err := torch.Decode(x.Encode())
	require.NoError(t, err)
	assertSameTensor(t, x, y)
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	valid, err := os.ReadFile(filepath.Join("testdata", "py_tensor.pt"))
	require.NoError(t, err)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		return p
	}
	corruptMiddle := append([]byte(nil), valid...)
	for i := len(corruptMiddle) / 3; i < 2*len(corruptMiddle)/3; i++ {
		corruptMiddle[i] ^= 0x5a
	}
	cases := []struct {
		name string
		path string
		msg  string
	}{
		{"empty file", write("empty.pt", nil), "no data"},
		{"garbage", write("garbage.pt", []byte("this is not a tensor file at all")), "zip archive"},
		{"one byte", write("one.pt", []byte{0}), ""},
		{"truncated", write("truncated.pt", valid[:len(valid)/2]), "zip archive"},
		{"truncated end", write("truncated_end.pt", valid[:len(valid)-1]), ""},
		{"corrupt middle", write("corrupt.pt", corruptMiddle), ""},
		{"python list", filepath.Join("testdata", "py_not_tensor.pt"), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x, err := torch.Load(tc.path)
			require.Error(t, err)
			assert.False(t, x.Defined())
			te := requireTorchErr(t, "load", err)
			assert.Contains(t, err.Error(), tc.path, "Load names the file")
			if tc.msg != "" {
				assert.Contains(t, te.Msg, tc.msg)
			}
			data, rerr := os.ReadFile(tc.path)
			require.NoError(t, rerr)
			_, derr := torch.Decode(data)
			requireTorchErr(t, "load", derr)
			ok(t)
		})
	}

	_, err = torch.Load(filepath.Join(dir, "missing.pt"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, fs.ErrNotExist))
	_, err = torch.Decode(nil)
	requireTorchErr(t, "load", err)
	ok(t)
}

func TestSaveErrors(t *testing.T) {
	dir := t.TempDir()
	freed := f32(1)
	freed.Free()
	path := filepath.Join(dir, "freed.pt")
	err := torch.Save(freed, path)
	requireTorchErr(t, "save", err)
	assert.ErrorIs(t, err, torch.ErrFreed)
	assert.NoFileExists(t, path)

	err = torch.Save(torch.Tensor{}, path)
	assert.ErrorIs(t, err, torch.ErrUndefined)
	assert.NoFileExists(t, path)

	err = torch.Save(f32(1), filepath.Join(dir, "no", "such", "dir", "x.pt"))
	assert.Error(t, err)
	ok(t)
}
