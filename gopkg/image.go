package gopkg

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"

	"github.com/gotorch/gotorch/torch"
)

// Image grids, torchvision.utils' make_grid and save_image: for looking
// at a batch of images, a GAN's samples for one.

// gridPadding is make_grid's default padding between and around the
// images, in pixels; the padding is black (0).
const gridPadding = 2

// MakeGrid__0 is torchvision.utils.make_grid(x): the images of a batch
// [N, C, H, W] tiled 8 to a row, with 2 pixels of black padding between
// and around them, as one image [C, H', W'] of the same dtype (Float32
// for integer inputs). A batch of one image gives that image [C, H, W],
// and an image [C, H, W] or [H, W] is returned as [C, H, W]. Unlike
// torchvision, one channel stays one channel.
func MakeGrid__0(x torch.Tensor) torch.Tensor { return MakeGrid__1(x, 8) }

// MakeGrid__1 is torchvision.utils.make_grid(x, nrow): nrow images to a
// row.
func MakeGrid__1(x torch.Tensor, nrow int) torch.Tensor {
	g, err := makeGrid(x, nrow)
	if err != nil {
		panic(fmt.Errorf("makeGrid: %w", err))
	}
	return g
}

func makeGrid(x torch.Tensor, nrow int) (torch.Tensor, error) {
	if !x.Defined() {
		return torch.Tensor{}, fmt.Errorf("undefined tensor")
	}
	if nrow < 1 {
		return torch.Tensor{}, fmt.Errorf("nrow must be at least 1, got %d", nrow)
	}
	shape := x.Shape()
	switch len(shape) {
	case 2:
		return x.Unsqueeze(0), nil
	case 3:
		return x, nil
	case 4:
	default:
		return torch.Tensor{}, fmt.Errorf("want images [N, C, H, W], [C, H, W] or [H, W], got shape %v", shape)
	}
	n, c, h, w := int(shape[0]), int(shape[1]), int(shape[2]), int(shape[3])
	if n == 1 {
		return x.SqueezeDim(0), nil
	}
	dtype := x.DType()
	if !dtype.IsFloatingPoint() {
		dtype = torch.Float32
	}
	src := torch.ToSlice[float32](x.Detach())
	cols := min(nrow, n)
	rows := (n + cols - 1) / cols
	cellH, cellW := h+gridPadding, w+gridPadding
	gh, gw := rows*cellH+gridPadding, cols*cellW+gridPadding
	grid := make([]float32, c*gh*gw)
	for i := 0; i < n; i++ {
		y0 := (i/cols)*cellH + gridPadding
		x0 := (i%cols)*cellW + gridPadding
		for ch := 0; ch < c; ch++ {
			for y := 0; y < h; y++ {
				from := ((i*c+ch)*h + y) * w
				to := (ch*gh+y0+y)*gw + x0
				copy(grid[to:to+w], src[from:from+w])
			}
		}
	}
	g, err := torch.TryFromSlice(grid, int64(c), int64(gh), int64(gw))
	if err != nil {
		return torch.Tensor{}, err
	}
	if g.DType() != dtype || x.Device() != g.Device() {
		return g.TryTo(dtype, x.Device())
	}
	return g, nil
}

// SaveImage__0 is torchvision.utils.save_image(x, path): it writes x, a
// batch [N, C, H, W] (tiled as MakeGrid does), an image [C, H, W] or
// [H, W], as a PNG file. C is 1 (grey) or 3 (RGB); values in [0, 1] map
// to 0–255 and values outside are clipped, so scale a tanh output with
// x*0.5 + 0.5 first.
func SaveImage__0(x torch.Tensor, path string) { SaveImage__1(x, path, 8) }

// SaveImage__1 is torchvision.utils.save_image(x, path, nrow): nrow images
// to a row.
func SaveImage__1(x torch.Tensor, path string, nrow int) {
	if err := saveImage(x, path, nrow); err != nil {
		panic(fmt.Errorf("saveImage(%s): %w", path, err))
	}
}

func saveImage(x torch.Tensor, path string, nrow int) error {
	g, err := makeGrid(x, nrow)
	if err != nil {
		return err
	}
	img, err := toImage(g)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// toImage converts an image tensor [C, H, W] with values in [0, 1] to a
// Go image, rounding as torchvision does: x*255 + 0.5, clipped, then
// truncated.
func toImage(g torch.Tensor) (image.Image, error) {
	shape := g.Shape()
	c, h, w := int(shape[0]), int(shape[1]), int(shape[2])
	if c != 1 && c != 3 {
		return nil, fmt.Errorf("want 1 or 3 channels, got %d (shape %v)", c, shape)
	}
	px := torch.ToSlice[float32](g.Detach())
	level := func(v float32) uint8 {
		f := float64(v)*255 + 0.5
		switch {
		case f != f || f < 0: // NaN too
			return 0
		case f > 255:
			return 255
		}
		return uint8(f)
	}
	rect := image.Rect(0, 0, w, h)
	if c == 1 {
		img := image.NewGray(rect)
		for i, v := range px {
			img.Pix[i] = level(v)
		}
		return img, nil
	}
	img := image.NewNRGBA(rect)
	plane := h * w
	for i := 0; i < plane; i++ {
		img.SetNRGBA(i%w, i/w, color.NRGBA{R: level(px[i]), G: level(px[plane+i]), B: level(px[2*plane+i]), A: 255})
	}
	return img, nil
}
