package gopkg_test

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/gopkg"
	"github.com/gotorch/gotorch/torch"
)

func TestMakeGrid(t *testing.T) {
	// Three 1×2×2 images with values 1, 2, 3, two to a row.
	x := torch.FromSlice([]float32{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}, 3, 1, 2, 2)
	g := gopkg.MakeGrid__1(x, 2)
	// 2 rows of (2+2) pixels plus 2, 2 columns of (2+2) plus 2.
	require.Equal(t, []int64{1, 10, 10}, g.Shape())
	assert.Equal(t, torch.Float32, g.DType())
	px := g.Float32s()
	at := func(y, x int) float32 { return px[y*10+x] }
	assert.Equal(t, float32(0), at(0, 0), "padding")
	assert.Equal(t, float32(1), at(2, 2))
	assert.Equal(t, float32(1), at(3, 3))
	assert.Equal(t, float32(0), at(4, 4), "padding between images")
	assert.Equal(t, float32(2), at(2, 6))
	assert.Equal(t, float32(3), at(6, 2))
	assert.Equal(t, float32(0), at(6, 6), "no fourth image")
	var sum float32
	for _, v := range px {
		sum += v
	}
	assert.Equal(t, float32(4*(1+2+3)), sum, "every pixel copied once")

	// Eight to a row by default; one image is returned as it is.
	assert.Equal(t, []int64{3, 2*6 + 2, 8*6 + 2}, gopkg.MakeGrid__0(torch.Zeros([]int64{16, 3, 4, 4})).Shape())
	assert.Equal(t, []int64{3, 4, 4}, gopkg.MakeGrid__0(torch.Zeros([]int64{1, 3, 4, 4})).Shape())
	assert.Equal(t, []int64{1, 4, 5}, gopkg.MakeGrid__0(torch.Zeros([]int64{4, 5})).Shape())
	assert.Equal(t, torch.Float32, gopkg.MakeGrid__0(torch.Zeros([]int64{2, 1, 2, 2}, torch.WithDtype(torch.Uint8))).DType())
	assert.Equal(t, torch.Float64, gopkg.MakeGrid__0(torch.Zeros([]int64{2, 1, 2, 2}, torch.WithDtype(torch.Float64))).DType())

	assert.PanicsWithError(t, "makeGrid: nrow must be at least 1, got 0", func() { gopkg.MakeGrid__1(x, 0) })
	assert.Panics(t, func() { gopkg.MakeGrid__0(torch.Zeros([]int64{1, 1, 1, 1, 1})) })
}

func TestSaveImage(t *testing.T) {
	dir := t.TempDir()

	// Grey: values map to 0–255 as torchvision rounds them, clipped.
	grey := torch.FromSlice([]float32{0, 0.5, 1, 2, -1, 0.25}, 2, 3)
	path := filepath.Join(dir, "grey.png")
	gopkg.SaveImage__0(grey, path)
	img := readPNG(t, path)
	g, ok := img.(*image.Gray)
	require.True(t, ok, "one channel gives a grey PNG, got %T", img)
	assert.Equal(t, image.Rect(0, 0, 3, 2), g.Bounds())
	assert.Equal(t, []uint8{0, 128, 255, 255, 0, 64}, []uint8{g.GrayAt(0, 0).Y, g.GrayAt(1, 0).Y, g.GrayAt(2, 0).Y,
		g.GrayAt(0, 1).Y, g.GrayAt(1, 1).Y, g.GrayAt(2, 1).Y})

	// RGB: a batch of two 3×1×1 images, tiled with padding.
	rgb := torch.FromSlice([]float32{1, 0, 0, 0, 0, 1}, 2, 3, 1, 1)
	path = filepath.Join(dir, "rgb.png")
	gopkg.SaveImage__1(rgb, path, 2)
	img = readPNG(t, path)
	assert.Equal(t, image.Rect(0, 0, 2*3+2, 1+4), img.Bounds())
	r, gr, b, a := img.At(2, 2).RGBA()
	assert.Equal(t, []uint32{0xffff, 0, 0, 0xffff}, []uint32{r, gr, b, a}, "first image red")
	r, gr, b, _ = img.At(5, 2).RGBA()
	assert.Equal(t, []uint32{0, 0, 0xffff}, []uint32{r, gr, b}, "second image blue")
	r, gr, b, _ = img.At(0, 0).RGBA()
	assert.Equal(t, []uint32{0, 0, 0}, []uint32{r, gr, b}, "black padding")

	assert.PanicsWithError(t, "saveImage(x.png): want 1 or 3 channels, got 2 (shape [2 1 1])", func() {
		gopkg.SaveImage__0(torch.Zeros([]int64{2, 1, 1}), "x.png")
	})
	assert.Panics(t, func() { gopkg.SaveImage__0(grey, filepath.Join(dir, "missing", "x.png")) })
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	return img
}
