package data

import (
	"image"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// imageFolderFixture writes root/{cat,dog,emu} with PNG and JPEG images
// of 6×4 pixels, and returns root.
func imageFolderFixture(t *testing.T) string {
	root := t.TempDir()
	rgba := image.NewRGBA(image.Rect(0, 0, 6, 4))
	gray := image.NewGray(image.Rect(0, 0, 6, 4))
	nrgba := image.NewNRGBA(image.Rect(0, 0, 6, 4))
	for y := 0; y < 4; y++ {
		for x := 0; x < 6; x++ {
			rgba.SetRGBA(x, y, color.RGBA{uint8(40 * x), uint8(60 * y), 7, 255})
			gray.SetGray(x, y, color.Gray{uint8(10*x + y)})
			nrgba.SetNRGBA(x, y, color.NRGBA{200, 100, 50, 128}) // translucent
		}
	}
	writeFile(t, filepath.Join(root, "dog", "b.png"), encodePNG(t, rgba))
	writeFile(t, filepath.Join(root, "dog", "a.JPG"), encodeJPEG(t, rgba))
	writeFile(t, filepath.Join(root, "cat", "sub", "c.png"), encodePNG(t, gray))
	writeFile(t, filepath.Join(root, "cat", "d.png"), encodePNG(t, nrgba))
	writeFile(t, filepath.Join(root, "cat", "notes.txt"), []byte("not an image"))
	writeFile(t, filepath.Join(root, "emu", "e.jpeg"), encodeJPEG(t, gray))
	writeFile(t, filepath.Join(root, "README"), []byte("a file beside the classes"))
	return root
}

func TestImageFolder(t *testing.T) {
	root := imageFolderFixture(t)
	f, err := NewImageFolder(root)
	require.NoError(t, err)
	assert.Equal(t, []string{"cat", "dog", "emu"}, f.Classes())
	assert.Equal(t, []ImageSample{
		{filepath.Join(root, "cat", "d.png"), 0},
		{filepath.Join(root, "cat", "sub", "c.png"), 0},
		{filepath.Join(root, "dog", "a.JPG"), 1},
		{filepath.Join(root, "dog", "b.png"), 1},
		{filepath.Join(root, "emu", "e.jpeg"), 2},
	}, f.Samples())
	require.Equal(t, 5, f.Len())

	for i, s := range f.Samples() {
		ex, err := f.Get(i)
		require.NoError(t, err)
		assert.Equal(t, s.Label, ex.Target)
		img, ok := ex.Input.(*image.RGBA)
		require.True(t, ok, "%T", ex.Input)
		assert.Equal(t, image.Rect(0, 0, 6, 4), img.Bounds())
		assert.True(t, img.Opaque())
	}
	at := func(i, x, y int) color.RGBA {
		ex, err := f.Get(i)
		require.NoError(t, err)
		return ex.Input.(*image.RGBA).RGBAAt(x, y)
	}
	// Translucent PNG: colors kept, alpha dropped (PIL's convert("RGB")).
	assert.Equal(t, color.RGBA{200, 100, 50, 255}, at(0, 1, 1))
	// Gray PNG: replicated into RGB.
	assert.Equal(t, color.RGBA{52, 52, 52, 255}, at(1, 5, 2))
	// RGB PNG: exact.
	assert.Equal(t, color.RGBA{160, 120, 7, 255}, at(3, 4, 2))
	// JPEG: close.
	c := at(2, 4, 2)
	assert.InDelta(t, 160, float64(c.R), 12)
	assert.InDelta(t, 120, float64(c.G), 12)

	_, err = f.Get(5)
	assert.Error(t, err)
}

func TestImageFolderThroughLoader(t *testing.T) {
	f, err := NewImageFolder(imageFolderFixture(t))
	require.NoError(t, err)
	l, err := NewLoader(f, Options{BatchSize: 5, Workers: 2, Transform: Compose(Resize(8, 8), ToTensor())})
	require.NoError(t, err)
	require.True(t, l.Scan())
	x, y := l.Batch()
	assert.Equal(t, []int64{5, 3, 8, 8}, x.Shape())
	assert.Equal(t, []int64{0, 0, 1, 1, 2}, y.Int64s())
	assert.False(t, l.Scan())
	require.NoError(t, l.Err())
}

func TestImageFolderErrors(t *testing.T) {
	t.Run("corrupt image", func(t *testing.T) {
		root := imageFolderFixture(t)
		bad := filepath.Join(root, "dog", "b.png")
		b, err := os.ReadFile(bad)
		require.NoError(t, err)
		writeFile(t, bad, b[:len(b)/2]) // truncated
		f, err := NewImageFolder(root)
		require.NoError(t, err)
		_, err = f.Get(3)
		var fe *FileError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, bad, fe.Path)
		assert.Contains(t, err.Error(), "data: "+bad+": corrupt png image: ")

		// Through the loader: the error names the example and the file.
		l, err := NewLoader(f, Options{BatchSize: 2, Workers: 2, Transform: ToTensor()})
		require.NoError(t, err)
		for l.Scan() {
		}
		require.Error(t, l.Err())
		assert.Contains(t, l.Err().Error(), "data: example 3: "+bad+": corrupt png image")
	})
	t.Run("not an image", func(t *testing.T) {
		root := imageFolderFixture(t)
		bad := writeFile(t, filepath.Join(root, "emu", "fake.png"), []byte("GIF89a, not a PNG at all"))
		f, err := NewImageFolder(root)
		require.NoError(t, err)
		_, err = f.Get(5)
		assert.EqualError(t, err, "data: "+bad+": not a readable PNG or JPEG image: image: unknown format")
	})
	t.Run("too large", func(t *testing.T) {
		// A valid PNG header announcing 2^20×2^20 pixels.
		root := t.TempDir()
		big := encodePNG(t, image.NewGray(image.Rect(0, 0, 1, 1)))
		big[16], big[17], big[18], big[19] = 0, 0x10, 0, 0 // width
		big[20], big[21], big[22], big[23] = 0, 0x10, 0, 0 // height
		p := writeFile(t, filepath.Join(root, "a", "big.png"), big)
		f, err := NewImageFolder(root)
		require.NoError(t, err)
		_, err = f.Get(0)
		require.Error(t, err)
		// The CRC no longer matches the header: either error names the file.
		assert.Contains(t, err.Error(), "data: "+p+": ")
	})
	t.Run("no classes", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, "x.png"), []byte{})
		_, err := NewImageFolder(root)
		assert.EqualError(t, err, "data: "+root+": no class folders")
	})
	t.Run("no images", func(t *testing.T) {
		root := t.TempDir()
		writeFile(t, filepath.Join(root, "a", "x.txt"), []byte{})
		require.NoError(t, os.MkdirAll(filepath.Join(root, "b"), 0o755))
		_, err := NewImageFolder(root)
		assert.EqualError(t, err, "data: "+root+": no .png, .jpg or .jpeg files in the class folders [a b]")
	})
	t.Run("missing root", func(t *testing.T) {
		_, err := NewImageFolder(filepath.Join(t.TempDir(), "none"))
		assert.ErrorIs(t, err, os.ErrNotExist)
	})
}

func TestDecodeImageFileRefusesHugeImages(t *testing.T) {
	// A JPEG header may announce up to 65535×65535 pixels without a CRC to
	// break: craft one from a tiny JPEG by patching its SOF0 dimensions.
	b := encodeJPEG(t, image.NewGray(image.Rect(0, 0, 8, 8)))
	patched := false
	for i := 0; i+8 < len(b); i++ {
		if b[i] == 0xff && b[i+1] == 0xc0 { // SOF0: length(2) precision(1) height(2) width(2)
			b[i+5], b[i+6] = 0xff, 0xff
			b[i+7], b[i+8] = 0xff, 0xff
			patched = true
			break
		}
	}
	require.True(t, patched)
	p := writeFile(t, filepath.Join(t.TempDir(), "huge.jpg"), b)
	_, err := DecodeImageFile(p)
	assert.EqualError(t, err, "data: "+p+": jpeg image of 65535×65535 pixels is larger than MaxImagePixels")
}
