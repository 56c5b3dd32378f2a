package functional

import (
	"math"

	"github.com/gotorch/gotorch/torch"
)

// Pad is F.pad: pad lists the padding of the last dimensions, last first:
// (left, right) for the last dimension, then (top, bottom) for the one
// before, and so on.
//
// Options: WithMode ("constant"; or "reflect", "replicate", "circular"),
// WithValue (0, for "constant").
func Pad(input torch.Tensor, pad []int64, opts ...Option) torch.Tensor {
	return must(TryPad(input, pad, opts...))
}

// TryPad is Pad that returns its error.
func TryPad(input torch.Tensor, pad []int64, opts ...Option) (torch.Tensor, error) {
	a := args{mode: "constant"}
	if err := a.parse("pad", opts, "mode", "value"); err != nil {
		return torch.Tensor{}, err
	}
	o := []torch.Option{torch.WithModeString(a.mode)}
	if a.has("value") {
		o = append(o, torch.WithValue(a.value))
	}
	return torch.TryPad(input, pad, o...)
}

// Interpolate is F.interpolate: it resizes input (N, C, spatial...) to
// WithSize or by WithScaleFactor (exactly one must be given).
//
// Options: WithSize, WithScaleFactor, WithMode ("nearest"; or "linear",
// "bilinear", "bicubic", "trilinear", "area", "nearest-exact"),
// WithAlignCorners (None, which is false for the interpolating modes and
// an error to give for the others), WithRecomputeScaleFactor (None),
// WithAntialias (false).
func Interpolate(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryInterpolate(input, opts...))
}

// TryInterpolate is Interpolate that returns its error.
func TryInterpolate(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "interpolate"
	a := args{mode: "nearest"}
	if err := a.parse(op, opts, "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor", "antialias"); err != nil {
		return torch.Tensor{}, err
	}
	mode := a.mode
	switch mode {
	case "nearest", "area", "nearest-exact":
		if a.has("align_corners") {
			return torch.Tensor{}, errorf(op, "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear")
		}
	}
	s, err := shape(input)
	if err != nil {
		return torch.Tensor{}, err
	}
	dim := len(s) - 2
	var outputSize []int64
	var scaleFactors []float64
	switch {
	case a.has("size") && a.has("scale_factor"):
		return torch.Tensor{}, errorf(op, "only one of size or scale_factor should be defined")
	case a.has("size"):
		outputSize = a.size
		if len(outputSize) == 1 && dim > 1 {
			outputSize = expand(outputSize, dim)
		}
		if len(outputSize) != dim {
			return torch.Tensor{}, errorf(op, "Input and output must have the same number of spatial dimensions, but got "+
				"input with spatial dimensions of %s and output size of %s. "+
				"Please provide input tensor in (N, C, d1, d2, ...,dK) format and "+
				"output size in (o1, o2, ...,oK) format.", pyList(s[min(2, len(s)):]), pyList(a.size))
		}
	case a.has("scale_factor"):
		scaleFactors = a.scaleFactor
		if len(scaleFactors) == 1 && dim > 1 {
			f := scaleFactors[0]
			scaleFactors = make([]float64, dim)
			for i := range scaleFactors {
				scaleFactors[i] = f
			}
		}
		if len(scaleFactors) != dim {
			return torch.Tensor{}, errorf(op, "Input and scale_factor must have the same number of spatial dimensions, but "+
				"got input with spatial dimensions of %s and scale_factor of shape %s. "+
				"Please provide input tensor in (N, C, d1, d2, ...,dK) format and "+
				"scale_factor in (s1, s2, ...,sK) format.", pyList(s[min(2, len(s)):]), pyFloats(a.scaleFactor))
		}
	default:
		return torch.Tensor{}, errorf(op, "either size or scale_factor should be defined")
	}
	recompute := a.has("recompute_scale_factor") && a.recomputeScaleFactor
	if recompute && a.has("size") {
		return torch.Tensor{}, errorf(op, "recompute_scale_factor is not meaningful with an explicit size.")
	}
	if mode == "area" && outputSize == nil {
		recompute = true
	}
	if recompute {
		outputSize = make([]int64, dim)
		for i := range outputSize {
			outputSize[i] = int64(math.Floor(float64(s[i+2]) * scaleFactors[i]))
		}
		scaleFactors = nil
	}
	if a.antialias && !((mode == "bilinear" || mode == "bicubic") && len(s) == 4) {
		return torch.Tensor{}, errorf(op, "Anti-alias option is only supported for bilinear and bicubic modes")
	}
	ac := a.alignCorners
	switch {
	case len(s) == 3 && mode == "nearest":
		return torch.TryUpsampleNearest1dVec(input, outputSize, scaleFactors)
	case len(s) == 4 && mode == "nearest":
		return torch.TryUpsampleNearest2dVec(input, outputSize, scaleFactors)
	case len(s) == 5 && mode == "nearest":
		return torch.TryUpsampleNearest3dVec(input, outputSize, scaleFactors)
	case len(s) == 3 && mode == "nearest-exact":
		return torch.TryInternalUpsampleNearestExact1dVec(input, outputSize, scaleFactors)
	case len(s) == 4 && mode == "nearest-exact":
		return torch.TryInternalUpsampleNearestExact2dVec(input, outputSize, scaleFactors)
	case len(s) == 5 && mode == "nearest-exact":
		return torch.TryInternalUpsampleNearestExact3dVec(input, outputSize, scaleFactors)
	case len(s) == 3 && mode == "area":
		return torch.TryAdaptiveAvgPool1d(input, outputSize)
	case len(s) == 4 && mode == "area":
		return torch.TryAdaptiveAvgPool2d(input, outputSize)
	case len(s) == 5 && mode == "area":
		return torch.TryAdaptiveAvgPool3d(input, outputSize)
	case len(s) == 3 && mode == "linear":
		return torch.TryUpsampleLinear1dVec(input, outputSize, ac, scaleFactors)
	case len(s) == 4 && mode == "bilinear":
		if a.antialias {
			return torch.TryInternalUpsampleBilinear2dAaVec(input, outputSize, ac, scaleFactors)
		}
		return torch.TryUpsampleBilinear2dVec(input, outputSize, ac, scaleFactors)
	case len(s) == 5 && mode == "trilinear":
		return torch.TryUpsampleTrilinear3dVec(input, outputSize, ac, scaleFactors)
	case len(s) == 4 && mode == "bicubic":
		if a.antialias {
			return torch.TryInternalUpsampleBicubic2dAaVec(input, outputSize, ac, scaleFactors)
		}
		return torch.TryUpsampleBicubic2dVec(input, outputSize, ac, scaleFactors)
	}
	need := map[string]int{"linear": 3, "bilinear": 4, "trilinear": 5}
	if n, ok := need[mode]; ok && len(s) >= 3 && len(s) <= 5 {
		return torch.Tensor{}, errorf(op, "Got %dD input, but %s mode needs %dD input", len(s), mode, n)
	}
	return torch.Tensor{}, errorf(op, "Input Error: Only 3D, 4D and 5D input Tensors supported"+
		" (got %dD) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact"+
		" (got %s)", len(s), mode)
}

func pyFloats(v []float64) string {
	s := "["
	for i, f := range v {
		if i > 0 {
			s += ", "
		}
		s += pyFloat(f)
	}
	return s + "]"
}

// PixelShuffle is F.pixel_shuffle: (*, C·r², H, W) to (*, C, H·r, W·r).
func PixelShuffle(input torch.Tensor, upscaleFactor int64) torch.Tensor {
	return must(TryPixelShuffle(input, upscaleFactor))
}

// TryPixelShuffle is PixelShuffle that returns its error.
func TryPixelShuffle(input torch.Tensor, upscaleFactor int64) (torch.Tensor, error) {
	return torch.TryPixelShuffle(input, upscaleFactor)
}

// PixelUnshuffle is F.pixel_unshuffle, the inverse of PixelShuffle.
func PixelUnshuffle(input torch.Tensor, downscaleFactor int64) torch.Tensor {
	return must(TryPixelUnshuffle(input, downscaleFactor))
}

// TryPixelUnshuffle is PixelUnshuffle that returns its error.
func TryPixelUnshuffle(input torch.Tensor, downscaleFactor int64) (torch.Tensor, error) {
	return torch.TryPixelUnshuffle(input, downscaleFactor)
}
