package data

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"

	"github.com/gotorch/gotorch/torch"
)

// The geometric transforms work on images and give images in one of two
// forms: *image.Gray for grayscale images and an opaque *image.RGBA for
// all others (the RGB images of torchvision, alpha dropped). They also
// take CHW arrays (Array[float32], Array[uint8]), as ToTensor makes them.

// canonical returns img as a *image.Gray or an opaque *image.RGBA, img
// itself when it already is one.
func canonical(img image.Image) image.Image {
	switch m := img.(type) {
	case *image.Gray:
		return m
	case *image.RGBA:
		if m.Opaque() {
			return m
		}
	}
	b := img.Bounds()
	r := image.Rect(0, 0, b.Dx(), b.Dy())
	if cm := img.ColorModel(); cm == color.GrayModel || cm == color.Gray16Model {
		g := image.NewGray(r)
		draw.Draw(g, r, img, b.Min, draw.Src)
		return g
	}
	out := image.NewRGBA(r)
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		draw.Draw(out, r, img, b.Min, draw.Src)
		return out
	}
	// Translucent pixels: keep the colors and drop the alpha, as PIL's
	// convert("RGB") does, rather than darkening them by premultiplying.
	if n, ok := img.(*image.NRGBA); ok {
		for y := 0; y < b.Dy(); y++ {
			src := n.Pix[y*n.Stride : y*n.Stride+4*b.Dx()]
			dst := out.Pix[y*out.Stride : y*out.Stride+4*b.Dx()]
			copy(dst, src)
			for x := 3; x < len(dst); x += 4 {
				dst[x] = 0xff
			}
		}
		return out
	}
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
			out.SetRGBA(x, y, color.RGBA{c.R, c.G, c.B, 0xff})
		}
	}
	return out
}

// pixels gives access to the bytes of a canonical image: bpp bytes per
// pixel, rows of stride bytes.
func pixels(img image.Image) (pix []byte, stride, bpp int) {
	switch m := img.(type) {
	case *image.Gray:
		return m.Pix, m.Stride, 1
	case *image.RGBA:
		return m.Pix, m.Stride, 4
	}
	panic("data: not a canonical image")
}

// newLike returns a new w×h image of the same kind as the canonical img.
// An RGBA image starts opaque black.
func newLike(img image.Image, w, h int) (image.Image, []byte, int) {
	r := image.Rect(0, 0, w, h)
	if _, ok := img.(*image.Gray); ok {
		g := image.NewGray(r)
		return g, g.Pix, g.Stride
	}
	m := image.NewRGBA(r)
	for i := 3; i < len(m.Pix); i += 4 {
		m.Pix[i] = 0xff
	}
	return m, m.Pix, m.Stride
}

// chw checks that a is a CHW array and returns its sizes.
func chw[T torch.Element](name string, a Array[T]) (c, h, w int, err error) {
	if err := a.check(); err != nil {
		return 0, 0, 0, fmt.Errorf("%s: %w", name, err)
	}
	if len(a.Shape) != 3 {
		return 0, 0, 0, fmt.Errorf("%s: want a CHW array, got shape %v", name, a.Shape)
	}
	return int(a.Shape[0]), int(a.Shape[1]), int(a.Shape[2]), nil
}

// RandomCrop pads an image with padding black pixels on every side, then
// crops a size×size square at a random place (torchvision's
// RandomCrop(size, padding)). It takes images and CHW arrays (padded with
// zeros), and fails on one too small for the crop.
//
// It panics if size is not positive or padding is negative.
func RandomCrop(size, padding int) Transform {
	if size <= 0 || padding < 0 {
		panic(fmt.Errorf("data.RandomCrop: want size > 0 and padding >= 0, got %d and %d", size, padding))
	}
	// origin draws the crop's top left corner, in the unpadded image's
	// coordinates.
	origin := func(h, w int, rng *rand.Rand) (top, left int, err error) {
		if h+2*padding < size || w+2*padding < size {
			return 0, 0, fmt.Errorf("RandomCrop: a %d×%d input padded by %d is smaller than the crop size %d", h, w, padding, size)
		}
		top = rng.IntN(h+2*padding-size+1) - padding
		left = rng.IntN(w+2*padding-size+1) - padding
		return top, left, nil
	}
	return TransformFunc(func(x any, rng *rand.Rand) (any, error) {
		switch v := x.(type) {
		case image.Image:
			b := v.Bounds()
			top, left, err := origin(b.Dy(), b.Dx(), rng)
			if err != nil {
				return nil, err
			}
			src := canonical(v)
			sp, ss, bpp := pixels(src)
			out, dp, ds := newLike(src, size, size)
			// Rows and columns of the output that fall inside the source.
			y0, y1 := max(0, -top), min(size, b.Dy()-top)
			x0, x1 := max(0, -left), min(size, b.Dx()-left)
			for y := y0; y < y1; y++ {
				s := (y+top)*ss + (x0+left)*bpp
				copy(dp[y*ds+x0*bpp:y*ds+x1*bpp], sp[s:s+(x1-x0)*bpp])
			}
			return out, nil
		case Array[float32]:
			return cropArray("RandomCrop", v, size, origin, rng)
		case Array[uint8]:
			return cropArray("RandomCrop", v, size, origin, rng)
		}
		return nil, unsupported("RandomCrop", x, "an image.Image or a CHW data.Array")
	})
}

func cropArray[T torch.Element](name string, a Array[T], size int, origin func(h, w int, rng *rand.Rand) (int, int, error), rng *rand.Rand) (any, error) {
	c, h, w, err := chw(name, a)
	if err != nil {
		return nil, err
	}
	top, left, err := origin(h, w, rng)
	if err != nil {
		return nil, err
	}
	out := NewArray[T](int64(c), int64(size), int64(size))
	y0, y1 := max(0, -top), min(size, h-top)
	x0, x1 := max(0, -left), min(size, w-left)
	for ch := 0; ch < c; ch++ {
		for y := y0; y < y1; y++ {
			s := ch*h*w + (y+top)*w + left
			d := ch*size*size + y*size
			copy(out.Data[d+x0:d+x1], a.Data[s+x0:s+x1])
		}
	}
	return out, nil
}

// RandomHorizontalFlip mirrors an image left to right with probability p
// (torchvision's RandomHorizontalFlip). It takes images, CHW arrays and
// tensors (flipping their last dimension), and returns the input itself
// when it does not flip.
//
// It panics if p is not in [0, 1].
func RandomHorizontalFlip(p float64) Transform {
	if !(p >= 0 && p <= 1) {
		panic(fmt.Errorf("data.RandomHorizontalFlip: p must be in [0, 1], got %v", p))
	}
	return TransformFunc(func(x any, rng *rand.Rand) (any, error) {
		flip := rng.Float64() < p
		switch v := x.(type) {
		case image.Image:
			if !flip {
				return v, nil
			}
			src := canonical(v)
			b := src.Bounds()
			w, h := b.Dx(), b.Dy()
			sp, ss, bpp := pixels(src)
			out, dp, ds := newLike(src, w, h)
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					copy(dp[y*ds+x*bpp:y*ds+(x+1)*bpp], sp[y*ss+(w-1-x)*bpp:y*ss+(w-x)*bpp])
				}
			}
			return out, nil
		case Array[float32]:
			return flipArray(v, flip)
		case Array[uint8]:
			return flipArray(v, flip)
		case torch.Tensor:
			if !flip {
				return v, nil
			}
			return v.TryFlip([]int64{-1})
		}
		return nil, unsupported("RandomHorizontalFlip", x, "an image.Image, a data.Array or a torch.Tensor")
	})
}

func flipArray[T torch.Element](a Array[T], flip bool) (any, error) {
	if err := a.check(); err != nil {
		return nil, fmt.Errorf("RandomHorizontalFlip: %w", err)
	}
	if len(a.Shape) == 0 {
		return nil, fmt.Errorf("RandomHorizontalFlip: cannot flip a 0-dimensional array")
	}
	if !flip {
		return a, nil
	}
	w := int(a.Shape[len(a.Shape)-1])
	out := Array[T]{Shape: a.Shape, Data: make([]T, len(a.Data))}
	for r := 0; r+w <= len(a.Data) && w > 0; r += w {
		for x := 0; x < w; x++ {
			out.Data[r+x] = a.Data[r+w-1-x]
		}
	}
	return out, nil
}

// Resize scales an image to height×width pixels by bilinear interpolation
// (torchvision's Resize([height, width]) without antialiasing; pixel
// centers aligned as with align_corners=False).
//
// It panics if height or width is not positive.
func Resize(height, width int) Transform {
	if height <= 0 || width <= 0 {
		panic(fmt.Errorf("data.Resize: want a positive size, got %d×%d", height, width))
	}
	return TransformFunc(func(x any, _ *rand.Rand) (any, error) {
		img, ok := x.(image.Image)
		if !ok {
			return nil, unsupported("Resize", x, "an image.Image")
		}
		b := img.Bounds()
		if b.Empty() {
			return nil, fmt.Errorf("Resize: empty image")
		}
		src := canonical(img)
		sp, ss, bpp := pixels(src)
		out, dp, ds := newLike(src, width, height)
		ys := bilinearTaps(b.Dy(), height)
		xs := bilinearTaps(b.Dx(), width)
		for y, ty := range ys {
			r0, r1 := sp[ty.i0*ss:], sp[ty.i1*ss:]
			for x, tx := range xs {
				for c := 0; c < bpp; c++ {
					top := float64(r0[tx.i0*bpp+c])*(1-tx.w) + float64(r0[tx.i1*bpp+c])*tx.w
					bot := float64(r1[tx.i0*bpp+c])*(1-tx.w) + float64(r1[tx.i1*bpp+c])*tx.w
					v := top*(1-ty.w) + bot*ty.w
					dp[y*ds+x*bpp+c] = uint8(math.Min(255, math.Max(0, math.Round(v))))
				}
			}
		}
		return out, nil
	})
}

// tap is where an output row or column samples its input: between i0 and
// i1, with weight w on i1.
type tap struct {
	i0, i1 int
	w      float64
}

func bilinearTaps(in, out int) []tap {
	taps := make([]tap, out)
	scale := float64(in) / float64(out)
	for i := range taps {
		s := (float64(i)+0.5)*scale - 0.5
		s = math.Max(0, s)
		i0 := min(int(s), in-1)
		i1 := min(i0+1, in-1)
		taps[i] = tap{i0: i0, i1: i1, w: s - float64(i0)}
	}
	return taps
}
