package data

import (
	"image"
	"image/color"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

// grayImage returns a w×h gray image whose pixel (x, y) is 10*y+x.
func grayImage(w, h int) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetGray(x, y, color.Gray{uint8(10*y + x)})
		}
	}
	return img
}

func apply(t *testing.T, tf Transform, x any, seed uint64) any {
	t.Helper()
	out, err := tf.Apply(x, seeded(seed))
	require.NoError(t, err)
	return out
}

func TestToTensor(t *testing.T) {
	rgb := image.NewRGBA(image.Rect(0, 0, 2, 1))
	rgb.SetRGBA(0, 0, color.RGBA{255, 0, 51, 255})
	rgb.SetRGBA(1, 0, color.RGBA{0, 102, 255, 255})
	sub := grayImage(4, 4).SubImage(image.Rect(1, 2, 3, 3))
	for _, tc := range []struct {
		name string
		in   any
		want Array[float32]
	}{
		{"gray", grayImage(2, 2), Array[float32]{Shape: []int64{1, 2, 2}, Data: []float32{0, 1. / 255, 10. / 255, 11. / 255}}},
		{"gray sub-image", sub, Array[float32]{Shape: []int64{1, 1, 2}, Data: []float32{21. / 255, 22. / 255}}},
		{"rgb", rgb, Array[float32]{Shape: []int64{3, 1, 2}, Data: []float32{1, 0, 0, 0.4, 0.2, 1}}},
		{"uint8 array", Array[uint8]{Shape: []int64{1, 2}, Data: []uint8{0, 255}}, Array[float32]{Shape: []int64{1, 2}, Data: []float32{0, 1}}},
		{"float array", Array[float32]{Shape: []int64{1}, Data: []float32{7}}, Array[float32]{Shape: []int64{1}, Data: []float32{7}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := apply(t, ToTensor(), tc.in, 0).(Array[float32])
			assert.Equal(t, tc.want.Shape, got.Shape)
			assert.InDeltaSlice(t, tc.want.Data, got.Data, 1e-6)
		})
	}
	_, err := ToTensor().Apply("x", nil)
	assert.EqualError(t, err, "ToTensor: unsupported input string (want an image.Image or a data.Array[uint8])")
}

func TestNormalize(t *testing.T) {
	in := Array[float32]{Shape: []int64{2, 1, 2}, Data: []float32{1, 2, 3, 4}}
	got := apply(t, Normalize([]float32{1, 2}, []float32{0.5, 2}), in, 0).(Array[float32])
	assert.Equal(t, []float32{0, 2, 0.5, 1}, got.Data)
	assert.Equal(t, []float32{1, 2, 3, 4}, in.Data, "the input is not modified")
	got = apply(t, Normalize([]float32{1}, []float32{2}), in, 0).(Array[float32])
	assert.Equal(t, []float32{0, 0.5, 1, 1.5}, got.Data, "one mean for all channels")

	// Tensors: the same results.
	x := torch.FromSlice([]float32{1, 2, 3, 4}, 2, 1, 2)
	y := apply(t, Normalize([]float32{1, 2}, []float32{0.5, 2}), x, 0).(torch.Tensor)
	assert.Equal(t, []int64{2, 1, 2}, y.Shape())
	assert.Equal(t, []float32{0, 2, 0.5, 1}, y.Float32s())

	for _, tc := range []struct {
		in  any
		err string
	}{
		{Array[float32]{Shape: []int64{3, 1, 1}, Data: []float32{1, 2, 3}}, "Normalize: 3 channels, but 2 means and stds"},
		{Array[float32]{Shape: []int64{2, 2}, Data: []float32{1}}, "Normalize: data: Array of shape [2 2] needs 4 elements, it has 1"},
		{torch.FromSlice([]int64{1, 2}), "Normalize: want a floating-point tensor, got torch.int64"},
		{grayImage(1, 1), "Normalize: unsupported input *image.Gray"},
	} {
		_, err := Normalize([]float32{1, 2}, []float32{1, 1}).Apply(tc.in, nil)
		assert.ErrorContains(t, err, tc.err)
	}
	assert.PanicsWithError(t, "data.Normalize: std must be positive, got [1 0]", func() { Normalize([]float32{0, 0}, []float32{1, 0}) })
	assert.Panics(t, func() { Normalize([]float32{0}, []float32{1, 1}) })
}

func TestRandomCrop(t *testing.T) {
	img := grayImage(5, 4)
	// Without padding, a 5×4 image cropped to 4×4: the top is 0 and the
	// left 0 or 1.
	lefts := map[int]bool{}
	for seed := uint64(0); seed < 50; seed++ {
		out := apply(t, RandomCrop(4, 0), img, seed).(*image.Gray)
		require.Equal(t, image.Rect(0, 0, 4, 4), out.Bounds())
		left := int(out.GrayAt(0, 0).Y)
		lefts[left] = true
		for y := 0; y < 4; y++ {
			for x := 0; x < 4; x++ {
				require.Equal(t, uint8(10*y+x+left), out.GrayAt(x, y).Y)
			}
		}
	}
	assert.Equal(t, map[int]bool{0: true, 1: true}, lefts)

	// With padding: black borders, and the same crop for the same seed.
	crop := RandomCrop(4, 3)
	for seed := uint64(0); seed < 50; seed++ {
		a := apply(t, crop, img, seed).(*image.Gray)
		b := apply(t, crop, img, seed).(*image.Gray)
		require.Equal(t, a.Pix, b.Pix, "reproducible")
		// Find the offset: each output pixel is the source's or 0.
		r := seeded(seed)
		top, left := r.IntN(4+6-4+1)-3, r.IntN(5+6-4+1)-3
		for y := 0; y < 4; y++ {
			for x := 0; x < 4; x++ {
				sx, sy := x+left, y+top
				want := uint8(0)
				if sx >= 0 && sx < 5 && sy >= 0 && sy < 4 {
					want = uint8(10*sy + sx)
				}
				require.Equal(t, want, a.GrayAt(x, y).Y, "seed %d at (%d, %d)", seed, x, y)
			}
		}
	}

	// RGB images stay opaque; arrays crop the same as images.
	rgb := image.NewRGBA(image.Rect(0, 0, 3, 3))
	for i := range rgb.Pix {
		rgb.Pix[i] = 0xff
	}
	out := apply(t, RandomCrop(3, 2), rgb, 1).(*image.RGBA)
	assert.True(t, out.Opaque())
	arr := apply(t, ToTensor(), img, 0).(Array[float32])
	for seed := uint64(0); seed < 20; seed++ {
		fromImage := apply(t, ToTensor(), apply(t, crop, img, seed), 0).(Array[float32])
		fromArray := apply(t, crop, arr, seed).(Array[float32])
		require.Equal(t, fromImage, fromArray)
	}

	_, err := RandomCrop(10, 1).Apply(img, seeded(0))
	assert.EqualError(t, err, "RandomCrop: a 4×5 input padded by 1 is smaller than the crop size 10")
	_, err = RandomCrop(2, 0).Apply(Array[float32]{Shape: []int64{4}, Data: make([]float32, 4)}, seeded(0))
	assert.EqualError(t, err, "RandomCrop: want a CHW array, got shape [4]")
	assert.Panics(t, func() { RandomCrop(0, 0) })
	assert.Panics(t, func() { RandomCrop(3, -1) })
}

func TestRandomHorizontalFlip(t *testing.T) {
	img := grayImage(3, 2)
	flipped := apply(t, RandomHorizontalFlip(1), img, 0).(*image.Gray)
	assert.Equal(t, []uint8{2, 1, 0, 12, 11, 10}, flipped.Pix)
	assert.Same(t, img, apply(t, RandomHorizontalFlip(0), img, 0), "not flipped: the input itself")

	arr := Array[uint8]{Shape: []int64{2, 1, 3}, Data: []uint8{1, 2, 3, 4, 5, 6}}
	assert.Equal(t, []uint8{3, 2, 1, 6, 5, 4}, apply(t, RandomHorizontalFlip(1), arr, 0).(Array[uint8]).Data)
	x := torch.FromSlice([]float32{1, 2, 3, 4}, 1, 2, 2)
	assert.Equal(t, []float32{2, 1, 4, 3}, apply(t, RandomHorizontalFlip(1), x, 0).(torch.Tensor).Float32s())

	// p = 0.5: flips about half the time, reproducibly.
	flips := 0
	for seed := uint64(0); seed < 400; seed++ {
		a := apply(t, RandomHorizontalFlip(0.5), img, seed)
		b := apply(t, RandomHorizontalFlip(0.5), img, seed)
		require.Equal(t, a, b)
		if a != image.Image(img) {
			flips++
		}
	}
	assert.InDelta(t, 200, flips, 40)
	assert.Panics(t, func() { RandomHorizontalFlip(1.5) })
}

func TestResize(t *testing.T) {
	img := grayImage(4, 3)
	same := apply(t, Resize(3, 4), img, 0).(*image.Gray)
	assert.Equal(t, img.Pix, same.Pix, "resizing to the same size changes nothing")

	// 2×1 → 4×1: half-pixel centers give 0.25/0.75 blends.
	two := image.NewGray(image.Rect(0, 0, 2, 1))
	two.Pix = []uint8{0, 100}
	wide := apply(t, Resize(1, 4), two, 0).(*image.Gray)
	assert.Equal(t, []uint8{0, 25, 75, 100}, wide.Pix)

	// Halving averages 2×2 blocks: (0+1+10+11)/4 = 5.5 and
	// (2+3+12+13)/4 = 7.5, rounded.
	half := apply(t, Resize(1, 2), grayImage(4, 2), 0).(*image.Gray)
	assert.Equal(t, []uint8{6, 8}, half.Pix)

	// Color images stay opaque RGB; a constant image stays constant.
	rgb := image.NewNRGBA(image.Rect(0, 0, 5, 7))
	for i := 0; i < len(rgb.Pix); i += 4 {
		copy(rgb.Pix[i:], []uint8{10, 20, 30, 255})
	}
	big := apply(t, Resize(13, 11), rgb, 0).(*image.RGBA)
	assert.Equal(t, image.Rect(0, 0, 11, 13), big.Bounds())
	for y := 0; y < 13; y++ {
		for x := 0; x < 11; x++ {
			require.Equal(t, color.RGBA{10, 20, 30, 255}, big.RGBAAt(x, y))
		}
	}
	_, err := Resize(2, 2).Apply(Array[float32]{}, nil)
	assert.EqualError(t, err, "Resize: unsupported input data.Array[float32] (want an image.Image)")
	assert.Panics(t, func() { Resize(0, 1) })
}

func TestCompose(t *testing.T) {
	tf := Compose(RandomHorizontalFlip(1), ToTensor(), Normalize([]float32{0}, []float32{1. / 255}))
	got := apply(t, tf, grayImage(2, 1), 0).(Array[float32])
	assert.Equal(t, []int64{1, 1, 2}, got.Shape)
	assert.InDeltaSlice(t, []float32{1, 0}, got.Data, 1e-4)
	_, err := Compose(ToTensor(), Resize(2, 2)).Apply(grayImage(1, 1), nil)
	assert.ErrorContains(t, err, "Resize: unsupported input")
}

func TestCanonicalTranslucentImages(t *testing.T) {
	// A translucent RGBA image (premultiplied) comes out with its colors,
	// opaque.
	m := image.NewRGBA(image.Rect(0, 0, 1, 1))
	m.SetRGBA(0, 0, color.RGBA{50, 25, 0, 128})
	c := canonical(m).(*image.RGBA)
	assert.True(t, c.Opaque())
	got := c.RGBAAt(0, 0)
	assert.InDelta(t, 99, float64(got.R), 1)
	assert.InDelta(t, 49, float64(got.G), 1)
	// A paletted image goes through the generic path.
	p := image.NewPaletted(image.Rect(0, 0, 2, 1), color.Palette{color.RGBA{1, 2, 3, 255}, color.NRGBA{200, 0, 0, 0}})
	p.Pix = []uint8{0, 1}
	c = canonical(p).(*image.RGBA)
	assert.Equal(t, color.RGBA{1, 2, 3, 255}, c.RGBAAt(0, 0))
	assert.True(t, c.Opaque())
	// Gray16 becomes Gray.
	g := image.NewGray16(image.Rect(0, 0, 1, 1))
	g.SetGray16(0, 0, color.Gray16{0x8080})
	assert.Equal(t, uint8(0x80), canonical(g).(*image.Gray).Pix[0])
}
