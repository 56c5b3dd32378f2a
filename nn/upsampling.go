package nn

// UpsamplingNearest2d and UpsamplingBilinear2d, which PyTorch keeps as
// subclasses of Upsample with a fixed mode (and deprecates there for
// Upsample): here they are Upsample modules that print as PyTorch's.

// UpsamplingNearest2dModule is an UpsampleModule of mode "nearest"
// (torch.nn.UpsamplingNearest2d).
type UpsamplingNearest2dModule = UpsampleModule

// UpsamplingBilinear2dModule is an UpsampleModule of mode "bilinear" with
// align_corners true (torch.nn.UpsamplingBilinear2d).
type UpsamplingBilinear2dModule = UpsampleModule

// UpsamplingNearest2d returns an UpsampleModule of mode "nearest" that
// prints as UpsamplingNearest2d. Exactly one of WithSize and
// WithScaleFactor must be given before Forward.
//
// Options: WithSize (None), WithScaleFactor (None).
func UpsamplingNearest2d(opts ...Option) *UpsamplingNearest2dModule {
	return upsampling("UpsamplingNearest2d", "nearest", opts)
}

// UpsamplingBilinear2d returns an UpsampleModule of mode "bilinear", with
// align_corners true, that prints as UpsamplingBilinear2d; see
// UpsamplingNearest2d.
func UpsamplingBilinear2d(opts ...Option) *UpsamplingBilinear2dModule {
	m := upsampling("UpsamplingBilinear2d", "bilinear", opts)
	m.AlignCorners = true
	return m
}

func upsampling(class, mode string, opts []Option) *UpsampleModule {
	var a layerArgs
	a.parse(class, opts, "size", "scale_factor")
	m := &UpsampleModule{Size: a.ints("size", nil), ScaleFactor: a.floats("scale_factor", nil), Mode: mode, class: class}
	m.Init(m)
	return m
}

// reprName is the class that m prints as: Upsample, or the subclass that
// made it.
func (m *UpsampleModule) reprName() string {
	if m != nil && m.class != "" {
		return m.class
	}
	return "Upsample"
}
