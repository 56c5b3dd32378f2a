package nn

// PixelShuffle, PixelUnshuffle and ChannelShuffle are in vision_gen.go,
// written from a table by internal/genlayers.

import (
	"fmt"
	"strings"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// UpsampleModule resizes (N, C, W), (N, C, H, W) or (N, C, D, H, W) input
// to Size or by ScaleFactor (torch.nn.Upsample).
type UpsampleModule struct {
	Module
	Size                 []int64   // nil for PyTorch's None; one number stands for every dimension
	ScaleFactor          []float64 // nil for None
	Mode                 string    // "nearest", "linear", "bilinear", "bicubic", "trilinear", "area" or "nearest-exact"
	AlignCorners         bool      // only for the interpolating modes
	RecomputeScaleFactor bool
	class                string // PyTorch's class if not Upsample: UpsamplingNearest2d, UpsamplingBilinear2d
}

// Upsample returns an UpsampleModule. Exactly one of WithSize and
// WithScaleFactor must be given before Forward.
//
// Options: WithSize (None), WithScaleFactor (None), WithMode ("nearest";
// also "linear", "bilinear", "bicubic", "trilinear", "area" and
// "nearest-exact"), WithAlignCorners (None: false; only with the
// interpolating modes), WithRecomputeScaleFactor (None: false).
func Upsample(opts ...Option) *UpsampleModule {
	var a layerArgs
	a.parse("Upsample", opts, "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor")
	m := &UpsampleModule{Size: a.ints("size", nil), ScaleFactor: a.floats("scale_factor", nil),
		Mode: a.str("mode", "nearest"), AlignCorners: a.bool("align_corners", false),
		RecomputeScaleFactor: a.bool("recompute_scale_factor", false)}
	switch m.Mode {
	case "nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact":
	default:
		layerPanic("Upsample", "unsupported mode %q (nearest, linear, bilinear, bicubic, trilinear, area or nearest-exact)", m.Mode)
	}
	if a.has("align_corners") && !m.interpolating() {
		layerPanic("Upsample", "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear")
	}
	m.Init(m)
	return m
}

// Forward resizes x.
func (m *UpsampleModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *UpsampleModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	opts := []F.Option{F.WithMode(m.Mode), F.WithRecomputeScaleFactor(m.RecomputeScaleFactor)}
	if m.Size != nil {
		opts = append(opts, F.WithSize(m.Size...))
	}
	if m.ScaleFactor != nil {
		opts = append(opts, F.WithScaleFactor(m.ScaleFactor...))
	}
	if m.interpolating() {
		opts = append(opts, F.WithAlignCorners(m.AlignCorners))
	}
	return F.TryInterpolate(x, opts...)
}

// interpolating reports whether Mode interpolates, and so takes
// align_corners: "nearest", "nearest-exact" and "area" do not.
func (m *UpsampleModule) interpolating() bool {
	switch m.Mode {
	case "linear", "bilinear", "bicubic", "trilinear":
		return true
	}
	return false
}

// ExtraRepr is "scale_factor=2.0, mode=nearest" or "size=(3, 4),
// mode=bilinear".
func (m *UpsampleModule) ExtraRepr() string {
	var info string
	switch {
	case m.ScaleFactor != nil:
		f := make([]string, len(m.ScaleFactor))
		for i, v := range m.ScaleFactor {
			f[i] = pyFloat(v)
		}
		info = "scale_factor=" + f[0]
		if len(f) > 1 {
			info = "scale_factor=(" + strings.Join(f, ", ") + ")"
		}
	case m.Size != nil:
		info = "size=" + pyIntOrTuple(m.Size)
	default:
		info = "size=None"
	}
	return info + ", mode=" + m.Mode
}

// BlockSettings are the settings of Fold and Unfold, kept as given: one
// number stands for both dimensions.
type BlockSettings struct {
	KernelSize []int64
	Dilation   []int64
	Padding    []int64
	Stride     []int64
}

func newBlockSettings(layer string, kernel []int64, opts []Option) BlockSettings {
	var a layerArgs
	a.parse(layer, opts, "dilation", "padding", "stride")
	if s := a.paddingString(); s != "" {
		layerPanic(layer, "padding must be a number or a tuple, got '%s'", s)
	}
	return BlockSettings{KernelSize: kernel, Dilation: a.ints("dilation", one), Padding: a.ints("padding", zero),
		Stride: a.ints("stride", one)}
}

func (s *BlockSettings) pairs() (k, d, p, st []int64) {
	return dims(s.KernelSize, 2), dims(s.Dilation, 2), dims(s.Padding, 2), dims(s.Stride, 2)
}

func (s *BlockSettings) extraRepr() string {
	return fmt.Sprintf("kernel_size=%s, dilation=%s, padding=%s, stride=%s", pyIntOrTuple(s.KernelSize),
		pyIntOrTuple(s.Dilation), pyIntOrTuple(s.Padding), pyIntOrTuple(s.Stride))
}

// FoldModule sums sliding blocks (N, C·∏kernel, L) or (C·∏kernel, L) into
// an image of OutputSize, (N, C, H, W) or (C, H, W) (torch.nn.Fold).
type FoldModule struct {
	Module
	OutputSize []int64
	BlockSettings
}

// Fold returns a FoldModule.
//
// Options: WithDilation (1), WithPadding (0), WithStride (1).
func Fold[O, K IntOrTuple](outputSize O, kernelSize K, opts ...Option) *FoldModule {
	m := &FoldModule{OutputSize: F.Ints(outputSize), BlockSettings: newBlockSettings("Fold", F.Ints(kernelSize), opts)}
	m.Init(m)
	return m
}

// Forward folds x.
func (m *FoldModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *FoldModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	k, d, p, s := m.pairs()
	return torch.TryCol2im(x, dims(m.OutputSize, 2), k, d, p, s)
}

// ExtraRepr is "output_size=(4, 5), kernel_size=2, dilation=1, padding=0,
// stride=1".
func (m *FoldModule) ExtraRepr() string {
	return "output_size=" + pyIntOrTuple(m.OutputSize) + ", " + m.extraRepr()
}

// UnfoldModule extracts sliding blocks of (N, C, H, W) input as (N,
// C·∏kernel, L) (torch.nn.Unfold).
type UnfoldModule struct {
	Module
	BlockSettings
}

// Unfold returns an UnfoldModule.
//
// Options: WithDilation (1), WithPadding (0), WithStride (1).
func Unfold[K IntOrTuple](kernelSize K, opts ...Option) *UnfoldModule {
	m := &UnfoldModule{BlockSettings: newBlockSettings("Unfold", F.Ints(kernelSize), opts)}
	m.Init(m)
	return m
}

// Forward unfolds x.
func (m *UnfoldModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *UnfoldModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	k, d, p, s := m.pairs()
	return torch.TryIm2col(x, k, d, p, s)
}

// ExtraRepr is "kernel_size=2, dilation=1, padding=0, stride=1".
func (m *UnfoldModule) ExtraRepr() string { return m.extraRepr() }
