package data

import (
	"fmt"
	"image"
	"image/color"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

func TestLoadCIFAR10(t *testing.T) {
	dir := t.TempDir()
	// Five training batches of 3 records (numbered 10 and up, to check that
	// the batches are read in numeric order) and a test batch of 2.
	for b := 1; b <= 5; b++ {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("data_batch_%d.bin", b*2)), cifarRecords(3*(b-1), 3))
	}
	writeFile(t, filepath.Join(dir, "data_batch_x.bin"), []byte("ignored"))
	writeFile(t, filepath.Join(dir, "test_batch.bin"), cifarRecords(100, 2))

	train, err := LoadCIFAR10(dir, Train)
	require.NoError(t, err)
	assert.Equal(t, 15, train.Len())
	test, err := LoadCIFAR10(dir, Test)
	require.NoError(t, err)
	assert.Equal(t, 2, test.Len())
	assert.Equal(t, "truck", train.Classes()[9])

	for _, i := range []int{0, 4, 14} {
		ex, err := train.Get(i)
		require.NoError(t, err)
		assert.Equal(t, i%10, ex.Target)
		img := ex.Input.(*image.RGBA)
		require.Equal(t, image.Rect(0, 0, 32, 32), img.Bounds())
		// Pixel (x, y) of record i: red at p = y*32+x, green at 1024+p,
		// blue at 2048+p.
		for _, xy := range [][2]int{{0, 0}, {5, 7}, {31, 31}} {
			p := xy[1]*32 + xy[0]
			want := color.RGBA{byte(i + p), byte(i + 1024 + p), byte(i + 2048 + p), 255}
			assert.Equal(t, want, img.RGBAAt(xy[0], xy[1]), "record %d at %v", i, xy)
		}
	}
	_, err = train.Get(15)
	assert.Error(t, err)

	// ToTensor gives back the planes of the file.
	ex, err := test.Get(1)
	require.NoError(t, err)
	a, err := ToTensor().Apply(ex.Input, nil)
	require.NoError(t, err)
	arr := a.(Array[float32])
	assert.Equal(t, []int64{3, 32, 32}, arr.Shape)
	rec := cifarRecords(100, 2)[cifarRecord+1:]
	for _, p := range []int{0, 1000, 2047, 3071} {
		assert.Equal(t, float32(rec[p])/255, arr.Data[p])
	}

	x, y, err := train.Tensors()
	require.NoError(t, err)
	assert.Equal(t, []int64{15, 3, 32, 32}, x.Shape())
	assert.Equal(t, torch.Uint8, x.DType())
	assert.Equal(t, int64(4), y.Select(0, 4).ItemInt())
	// Record 14's pixel byte 2000 is byte(14+2000).
	assert.Equal(t, int64((14+2000)%256), x.Select(0, 14).Flatten().Select(0, 2000).ItemInt())
}

func TestLoadCIFAR10Errors(t *testing.T) {
	for _, tc := range []struct {
		name string
		file []byte
		err  string
	}{
		{"truncated", cifarRecords(0, 2)[:2*cifarRecord-1], "size 6145 is not a multiple of CIFAR-10's 3073-byte records"},
		{"extra byte", append(cifarRecords(0, 1), 0), "size 3074 is not a multiple"},
		{"empty", []byte{}, "empty CIFAR-10 file"},
		{"bad label", func() []byte { b := cifarRecords(0, 3); b[2*cifarRecord] = 57; return b }(), "record 2 (offset 6146) has label 57; CIFAR-10's labels are 0 to 9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "data_batch_1.bin"), cifarRecords(0, 2))
			bad := writeFile(t, filepath.Join(dir, "data_batch_2.bin"), tc.file)
			_, err := LoadCIFAR10(dir, Train)
			require.Error(t, err)
			var fe *FileError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, bad, fe.Path)
			assert.Contains(t, err.Error(), "data: "+bad+": "+tc.err)
		})
	}
	t.Run("no batches", func(t *testing.T) {
		dir := t.TempDir()
		_, err := LoadCIFAR10(dir, Train)
		assert.EqualError(t, err, "data: no CIFAR-10 training batches (data_batch_N.bin) in "+dir)
		_, err = LoadCIFAR10(dir, Test)
		assert.ErrorContains(t, err, filepath.Join(dir, "test_batch.bin"))
		_, err = LoadCIFAR10Files()
		assert.Error(t, err)
		_, err = LoadCIFAR10(dir, Split(7))
		assert.EqualError(t, err, "data: unknown split data.Split(7)")
	})
}
