package torch_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/childtest"
	"github.com/gotorch/gotorch/internal/fileio"
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

// Load checks the file before reading it: a FIFO with no writer, a
// directory or a device is an error at once, never a wait or an endless
// read.
func TestLoadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.pt")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, path := range []string{fifo, dir, "/dev/zero", "/dev/null"} {
		_, err := torch.Load(path)
		require.Error(t, err, path)
		assert.ErrorIs(t, err, fileio.ErrNotRegular, path)
		assert.Contains(t, err.Error(), path)
	}
	ok(t)
}

// A save that cannot write the whole file fails and leaves the previous
// file as it was. The file-size limit (RLIMIT_FSIZE) makes the write fail
// part-way, as a full disk would; it is set in a child process so that it
// binds no other test.
func TestSaveFailureKeepsOldFile(t *testing.T) {
	if os.Getenv("GOTORCH_TEST_FSIZE_CHILD") != "" {
		path := os.Getenv("GOTORCH_TEST_FSIZE_CHILD")
		lim := syscall.Rlimit{Cur: 1 << 20, Max: 1 << 20}
		require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim))
		err := torch.Save(torch.Zeros(i64s(4<<20), torch.WithDtype(torch.Uint8)), path)
		require.Error(t, err)
		requireTorchErr(t, "save", err)
		assert.Contains(t, err.Error(), "write")
		t.Log(err)
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "x.pt")
	require.NoError(t, torch.Save(f32(1, 2, 3), path))
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	out := childtest.Rerun(t, "GOTORCH_TEST_FSIZE_CHILD", path, 5*time.Minute)
	assert.Contains(t, out, "torch.save: write: File too large", "child: %s", out)

	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the old file is intact")
	y, err := torch.Load(path)
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3}, torch.ToSlice[float32](y))
	left, err := filepath.Glob(filepath.Join(dir, ".x.pt.tmp-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file is left behind")
}

// memAvailable is /proc/meminfo's MemAvailable in bytes, 0 if unknown.
func memAvailable() uint64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		var kb uint64
		if _, err := fmt.Sscanf(line, "MemAvailable: %d kB", &kb); err == nil {
			return kb << 10
		}
	}
	return 0
}

// Sizes past 2 and 4 GiB are ordinary model sizes: Save streams them, Load
// reads them back whole, and Encode returns all their bytes. (Before, a
// C int length cut a 4 GiB archive to its last 927 bytes, and panicked on
// a 2 GiB one.)
func TestSaveLoadPast4GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 4 GiB file")
	}
	const n = 4<<30 + 4096 // a multiple of 8, for checksum
	if avail := memAvailable(); avail < 2*n {
		t.Skipf("needs %d GiB of free memory, the machine has %d GiB", 2*n>>30, avail>>30)
	}
	dir := t.TempDir()
	var st syscall.Statfs_t
	require.NoError(t, syscall.Statfs(dir, &st))
	if free := st.Bavail * uint64(st.Bsize); free < 2*n {
		t.Skipf("needs %d GiB of free disk in %s, it has %d GiB", 2*n>>30, dir, free>>30)
	}
	x := torch.Zeros(i64s(n), torch.WithDtype(torch.Uint8))
	// Marks at both ends and across the 2 and 4 GiB boundaries.
	marks := map[int64]int64{0: 7, 1<<31 - 1: 11, 1 << 31: 13, 1<<32 - 1: 17, 1 << 32: 19, n - 1: 23}
	for i, v := range marks {
		x.Select(0, i).FillScalar_(torch.S(v))
	}
	path := filepath.Join(dir, "big.pt")
	require.NoError(t, torch.Save(x, path))
	// One 4 GiB tensor at a time: x goes before y comes.
	sum := checksum(x)
	x.Free()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Greater(t, fi.Size(), int64(n), "the file holds every byte")

	y, err := torch.Load(path)
	require.NoError(t, err)
	defer y.Free()
	require.Equal(t, []int64{n}, y.Shape())
	for i, v := range marks {
		assert.Equal(t, v, y.Select(0, i).ItemInt(), "element %d", i)
	}
	assert.Equal(t, sum, checksum(y), "and nothing else changed")
}

// checksum sums the bytes of a uint8 tensor as int64 words: a sum of the
// bytes themselves would first convert them all to int64, 8 times their
// size.
func checksum(x torch.Tensor) int64 {
	w := x.ViewDtype(torch.Int64)
	defer w.Free()
	s := torch.Sum(w)
	defer s.Free()
	return s.ItemInt()
}

func TestEncodePast2GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes a 2 GiB tensor")
	}
	const n = 2<<30 + 8 // a multiple of 8, for checksum
	if avail := memAvailable(); avail < 5*n {
		t.Skipf("needs %d GiB of free memory, the machine has %d GiB", 5*n>>30, avail>>30)
	}
	x := torch.Zeros(i64s(n), torch.WithDtype(torch.Uint8))
	defer x.Free()
	x.Select(0, n-1).FillScalar_(torch.S(42))
	sum := checksum(x)
	data := x.Encode()
	assert.Greater(t, len(data), n)
	y, err := torch.Decode(data)
	data = nil
	require.NoError(t, err)
	defer y.Free()
	assert.Equal(t, int64(42), y.Select(0, n-1).ItemInt())
	assert.Equal(t, sum, checksum(y))
}
