package data

import (
	"bytes"
	"context"
	"image"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

func TestDecodeIDX(t *testing.T) {
	valid := encodeIDX(IDXUint8, []int{2, 3}, []byte{1, 2, 3, 4, 5, 6})
	for _, tc := range []struct {
		name string
		in   []byte
		want *IDX
		err  string
	}{
		{"raw", valid, &IDX{Type: IDXUint8, Dims: []int{2, 3}, Data: []byte{1, 2, 3, 4, 5, 6}}, ""},
		{"gzip", gzipBytes(t, valid), &IDX{Type: IDXUint8, Dims: []int{2, 3}, Data: []byte{1, 2, 3, 4, 5, 6}}, ""},
		{"int16", encodeIDX(IDXInt16, []int{2}, []byte{0, 1, 0, 2}), &IDX{Type: IDXInt16, Dims: []int{2}, Data: []byte{0, 1, 0, 2}}, ""},
		{"empty dimension", encodeIDX(IDXUint8, []int{0, 28, 28}, nil), &IDX{Type: IDXUint8, Dims: []int{0, 28, 28}, Data: []byte{}}, ""},
		{"empty file", nil, nil, "not an IDX file: only 0 bytes"},
		{"short file", []byte{0, 0}, nil, "not an IDX file: only 2 bytes"},
		{"wrong magic", append([]byte{0x50, 0x4b, 3, 4}, valid[4:]...), nil, "not an IDX file: wrong magic number 0x504b0304"},
		{"unknown type", encodeIDX(0x42, []int{1}, []byte{1}), nil, "unknown IDX element type 0x42"},
		{"zero dimensions", encodeIDX(IDXUint8, nil, nil), nil, "IDX file with 0 dimensions"},
		{"truncated header", valid[:9], nil, "truncated IDX header: 2 dimensions announced"},
		{"truncated data", valid[:len(valid)-2], nil, "truncated: dimensions [2 3] call for 6 bytes of data, the file has 4"},
		{"truncated gzip", gzipBytes(t, valid)[:20], nil, "truncated"},
		{"trailing data", append(append([]byte{}, valid...), 9, 9), nil, "2 bytes after the data that the dimensions [2 3] call for"},
		{"overflowing dimensions", encodeIDX(IDXFloat64, []int{1 << 31, 1 << 31, 1 << 31}, nil), nil, "IDX dimensions [2147483648 2147483648 2147483648] overflow"},
		{"huge dimensions", encodeIDX(IDXUint8, []int{60000, 1000, 100}, []byte{1, 2, 3}), nil, "call for 6000000000 bytes of data, the file has 3"},
		{"too large", encodeIDX(IDXUint8, []int{60000, 60000, 60000}, []byte{1, 2, 3}), nil, "overflow: more than 17179869184 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeIDX(bytes.NewReader(tc.in))
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestLoadMNIST(t *testing.T) {
	for _, gz := range []bool{true, false} {
		t.Run(map[bool]string{true: "gzip", false: "raw"}[gz], func(t *testing.T) {
			dir := t.TempDir()
			writeMNIST(t, dir, "train", 12, 4, 3, gz)
			writeMNIST(t, dir, "t10k", 5, 4, 3, gz)
			train, err := LoadMNIST(dir, Train)
			require.NoError(t, err)
			test, err := LoadMNIST(dir, Test)
			require.NoError(t, err)
			assert.Equal(t, 12, train.Len())
			assert.Equal(t, 5, test.Len())
			rows, cols := train.Size()
			assert.Equal(t, []int{4, 3}, []int{rows, cols})
			assert.Equal(t, "7", train.Classes()[7])

			images, _ := mnistFixture(12, 4, 3)
			ex, err := train.Get(11)
			require.NoError(t, err)
			img := ex.Input.(*image.Gray)
			assert.Equal(t, image.Rect(0, 0, 3, 4), img.Bounds())
			assert.Equal(t, images[11*12:12*12], img.Pix)
			assert.Equal(t, uint8(images[11*12+1*3+2]), img.GrayAt(2, 1).Y)
			assert.Equal(t, 1, ex.Target)

			_, err = train.Get(12)
			assert.EqualError(t, err, "data: index 12 out of range [0, 12)")
			_, err = train.Get(-1)
			assert.Error(t, err)

			x, y, err := train.Tensors()
			require.NoError(t, err)
			assert.Equal(t, []int64{12, 1, 4, 3}, x.Shape())
			assert.Equal(t, torch.Uint8, x.DType())
			assert.Equal(t, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1}, y.Int64s())
		})
	}
}

func TestLoadMNISTErrors(t *testing.T) {
	images, labels := mnistFixture(4, 2, 2)
	imagesIDX := encodeIDX(IDXUint8, []int{4, 2, 2}, images)
	labelsIDX := encodeIDX(IDXUint8, []int{4}, labels)
	for _, tc := range []struct {
		name           string
		images, labels []byte
		file           string // the file the error names
		err            string
	}{
		{"count mismatch", imagesIDX, encodeIDX(IDXUint8, []int{3}, labels[:3]), "labels", "3 labels for the 4 images of"},
		{"wrong magic", append([]byte{1, 2, 3, 4}, imagesIDX[4:]...), labelsIDX, "images", "wrong magic number"},
		{"truncated images", imagesIDX[:len(imagesIDX)-1], labelsIDX, "images", "truncated: dimensions [4 2 2] call for 16 bytes of data, the file has 15"},
		{"overflowing dims", encodeIDX(IDXUint8, []int{1 << 30, 1 << 30, 1 << 30}, nil), labelsIDX, "images", "overflow"},
		{"labels as images", labelsIDX, labelsIDX, "images", "want images as a 3-dimensional uint8 IDX array, got 1 dimensions of uint8"},
		{"float images", encodeIDX(IDXFloat32, []int{1, 1, 1}, []byte{0, 0, 0, 0}), labelsIDX, "images", "got 3 dimensions of float32"},
		{"images as labels", imagesIDX, imagesIDX, "labels", "want labels as a 1-dimensional uint8 IDX array"},
		{"label out of range", imagesIDX, encodeIDX(IDXUint8, []int{4}, []byte{1, 2, 10, 3}), "labels", "label 10 of image 2 is out of range: 10 classes"},
		{"corrupt gzip", append([]byte{0x1f, 0x8b}, 1, 2, 3), labelsIDX, "images", "gzip"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"images": writeFile(t, filepath.Join(dir, "train-images-idx3-ubyte"), tc.images),
				"labels": writeFile(t, filepath.Join(dir, "train-labels-idx1-ubyte"), tc.labels),
			}
			_, err := LoadMNIST(dir, Train)
			require.Error(t, err)
			var fe *FileError
			require.ErrorAs(t, err, &fe, "%v", err)
			assert.Equal(t, files[tc.file], fe.Path)
			assert.Contains(t, err.Error(), "data: "+files[tc.file]+": ")
			assert.Contains(t, err.Error(), tc.err)
		})
	}

	t.Run("missing", func(t *testing.T) {
		dir := t.TempDir()
		_, err := LoadMNIST(dir, Test)
		require.Error(t, err)
		p := filepath.Join(dir, "t10k-images-idx3-ubyte")
		assert.EqualError(t, err, "data: neither "+p+".gz nor "+p+" exists")
	})
	t.Run("unreadable", func(t *testing.T) {
		_, err := ReadIDXFile(filepath.Join(t.TempDir(), "nope"))
		assert.ErrorIs(t, err, os.ErrNotExist)
	})
	t.Run("no classes given", func(t *testing.T) {
		dir := t.TempDir()
		im := writeFile(t, filepath.Join(dir, "im"), imagesIDX)
		lb := writeFile(t, filepath.Join(dir, "lb"), encodeIDX(IDXUint8, []int{4}, []byte{0, 40, 2, 1}))
		m, err := LoadIDXFiles(im, lb, nil)
		require.NoError(t, err)
		assert.Len(t, m.Classes(), 41)
	})
}

// TestFashionMNIST reads Debian's dataset-fashion-mnist package.
func TestFashionMNIST(t *testing.T) {
	if _, err := os.Stat(FashionMNISTDir); err != nil {
		t.Skipf("Fashion-MNIST is not installed in %s (Debian package dataset-fashion-mnist): %v", FashionMNISTDir, err)
	}
	test, err := LoadFashionMNIST("", Test)
	require.NoError(t, err)
	assert.Equal(t, 10000, test.Len())
	assert.Equal(t, "Ankle boot", test.Classes()[9])
	if raceEnabled {
		t.Log("the training set is not read under -race (slow to decompress)")
	} else {
		train, err := LoadFashionMNIST("", Train)
		require.NoError(t, err)
		assert.Equal(t, 60000, train.Len())
		counts := make([]int, 10)
		for i := 0; i < train.Len(); i++ {
			ex, err := train.Get(i)
			require.NoError(t, err)
			counts[ex.Target.(int)]++
		}
		assert.Equal(t, []int{6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000}, counts)
	}

	// The first test image is an ankle boot, as everyone's first
	// Fashion-MNIST tutorial shows.
	ex, err := test.Get(0)
	require.NoError(t, err)
	assert.Equal(t, 9, ex.Target)

	// A whole epoch of the test set through the loader.
	l, err := NewLoader(test, Options{
		BatchSize: 500, Workers: 2, Shuffle: true, Seed: 1,
		Transform: Compose(ToTensor(), Normalize([]float32{0.2860}, []float32{0.3530})),
	})
	require.NoError(t, err)
	n, sum := 0, 0.0
	for l.ScanContext(context.Background()) {
		x, y := l.Batch()
		require.Equal(t, []int64{500, 1, 28, 28}, x.Shape())
		require.Equal(t, torch.Float32, x.DType())
		require.Equal(t, []int64{500}, y.Shape())
		n += int(x.Size(0))
		sum += x.Sum().Item()
	}
	require.NoError(t, l.Err())
	assert.Equal(t, 10000, n)
	// Normalized with Fashion-MNIST's own statistics: mean about 0.
	assert.InDelta(t, 0, sum/float64(n*28*28), 0.02)

	// And as tensors.
	x, y, err := test.Tensors()
	require.NoError(t, err)
	assert.Equal(t, []int64{10000, 1, 28, 28}, x.Shape())
	assert.Equal(t, int64(9), y.Select(0, 0).ItemInt())
}

func TestLoadFashionMNISTMissingDir(t *testing.T) {
	_, err := LoadFashionMNIST(filepath.Join(t.TempDir(), "none"), Train)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "train-images-idx3-ubyte.gz nor")
}
