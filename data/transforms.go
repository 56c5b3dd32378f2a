package data

import (
	"fmt"
	"image"
	"math/rand/v2"

	"github.com/gotorch/gotorch/torch"
)

// Transform turns a value of an example into another (torchvision's
// transforms). Apply must not modify x, and must take its randomness from
// rng alone, so that a seed reproduces it; it may be called from several
// goroutines at once, each with its own rng.
//
// The loader applies transforms in its workers (Options.Transform); to
// apply one by hand, pass any generator, for example
// rand.New(rand.NewPCG(1, 2)).
type Transform interface {
	Apply(x any, rng *rand.Rand) (any, error)
}

// TransformFunc makes a function a Transform.
type TransformFunc func(x any, rng *rand.Rand) (any, error)

// Apply calls f.
func (f TransformFunc) Apply(x any, rng *rand.Rand) (any, error) { return f(x, rng) }

type compose []Transform

// Compose chains transforms: each is applied to the result of the one
// before it.
func Compose(ts ...Transform) Transform { return compose(ts) }

func (c compose) Apply(x any, rng *rand.Rand) (any, error) {
	var err error
	for _, t := range c {
		if x, err = t.Apply(x, rng); err != nil {
			return nil, err
		}
	}
	return x, nil
}

func unsupported(name string, x any, want string) error {
	return fmt.Errorf("%s: unsupported input %T (want %s)", name, x, want)
}

// ToTensor converts an image (image.Image, HWC) into an Array[float32] in
// CHW layout with values in [0, 1], as torchvision's ToTensor does. A
// grayscale image (*image.Gray, *image.Gray16) gives one channel, any other
// three (RGB; alpha is dropped). An Array[uint8] (CHW) is divided by 255;
// an Array[float32] passes unchanged.
func ToTensor() Transform {
	return TransformFunc(func(x any, _ *rand.Rand) (any, error) {
		switch v := x.(type) {
		case image.Image:
			return imageToArray(v), nil
		case Array[uint8]:
			if err := v.check(); err != nil {
				return nil, fmt.Errorf("ToTensor: %w", err)
			}
			out := Array[float32]{Shape: v.Shape, Data: make([]float32, len(v.Data))}
			for i, b := range v.Data {
				out.Data[i] = float32(b) / 255
			}
			return out, nil
		case Array[float32]:
			return v, nil
		}
		return nil, unsupported("ToTensor", x, "an image.Image or a data.Array[uint8]")
	})
}

// imageToArray converts img to CHW floats in [0, 1].
func imageToArray(img image.Image) Array[float32] {
	b := img.Bounds()
	h, w := b.Dy(), b.Dx()
	switch m := canonical(img).(type) {
	case *image.Gray:
		out := NewArray[float32](1, int64(h), int64(w))
		for y := 0; y < h; y++ {
			row := m.Pix[y*m.Stride : y*m.Stride+w]
			for x, p := range row {
				out.Data[y*w+x] = float32(p) / 255
			}
		}
		return out
	case *image.RGBA:
		out := NewArray[float32](3, int64(h), int64(w))
		plane := h * w
		for y := 0; y < h; y++ {
			row := m.Pix[y*m.Stride : y*m.Stride+4*w]
			for x := 0; x < w; x++ {
				o := y*w + x
				out.Data[o] = float32(row[4*x]) / 255
				out.Data[plane+o] = float32(row[4*x+1]) / 255
				out.Data[2*plane+o] = float32(row[4*x+2]) / 255
			}
		}
		return out
	}
	panic("unreachable")
}

// Normalize subtracts a mean and divides by a standard deviation, channel
// by channel (torchvision's Normalize): out[c] = (x[c] - mean[c]) / std[c].
// It takes a CHW Array[float32] or a float tensor whose first dimension is
// the channels. One mean and std apply to all channels.
//
// It panics if mean and std differ in length or are empty, or if a std is
// not positive.
func Normalize(mean, std []float32) Transform {
	if len(mean) == 0 || len(mean) != len(std) {
		panic(fmt.Errorf("data.Normalize: mean and std must have the same, positive, length (got %d and %d)", len(mean), len(std)))
	}
	for _, s := range std {
		if !(s > 0) {
			panic(fmt.Errorf("data.Normalize: std must be positive, got %v", std))
		}
	}
	mean, std = append([]float32(nil), mean...), append([]float32(nil), std...)
	return TransformFunc(func(x any, _ *rand.Rand) (any, error) {
		channels := func(shape []int64) (int, error) {
			if len(shape) < 1 {
				return 0, fmt.Errorf("Normalize: want channels first, got shape %v", shape)
			}
			c := int(shape[0])
			if len(mean) != 1 && c != len(mean) {
				return 0, fmt.Errorf("Normalize: %d channels, but %d means and stds", c, len(mean))
			}
			return c, nil
		}
		switch v := x.(type) {
		case Array[float32]:
			if err := v.check(); err != nil {
				return nil, fmt.Errorf("Normalize: %w", err)
			}
			c, err := channels(v.Shape)
			if err != nil {
				return nil, err
			}
			out := Array[float32]{Shape: v.Shape, Data: make([]float32, len(v.Data))}
			if c == 0 {
				return out, nil
			}
			plane := len(v.Data) / c
			for ch := 0; ch < c; ch++ {
				m, s := mean[0], std[0]
				if len(mean) > 1 {
					m, s = mean[ch], std[ch]
				}
				src, dst := v.Data[ch*plane:(ch+1)*plane], out.Data[ch*plane:(ch+1)*plane]
				for i, p := range src {
					dst[i] = (p - m) / s
				}
			}
			return out, nil
		case torch.Tensor:
			if !v.Defined() {
				return nil, fmt.Errorf("Normalize: undefined tensor")
			}
			if !v.DType().IsFloatingPoint() {
				return nil, fmt.Errorf("Normalize: want a floating-point tensor, got %v", v.DType())
			}
			shape := v.Shape()
			if _, err := channels(shape); err != nil {
				return nil, err
			}
			bshape := make([]int64, len(shape))
			for i := range bshape {
				bshape[i] = 1
			}
			bshape[0] = int64(len(mean))
			mt, err := torch.TryFromSlice(mean, bshape...)
			if err != nil {
				return nil, err
			}
			st, err := torch.TryFromSlice(std, bshape...)
			if err != nil {
				return nil, err
			}
			d, err := v.TrySub(mt.To(v.DType()))
			if err != nil {
				return nil, err
			}
			return d.TryDiv(st.To(v.DType()))
		}
		return nil, unsupported("Normalize", x, "a data.Array[float32] or a torch.Tensor")
	})
}
