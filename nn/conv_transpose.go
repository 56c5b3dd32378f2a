package nn

import (
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// ConvTransposeSettings are the settings of ConvTranspose1d, 2d and 3d,
// which embed them; the sizes have one element per spatial dimension.
type ConvTransposeSettings struct {
	InChannels, OutChannels int64
	KernelSize              []int64
	Stride                  []int64
	Padding                 []int64
	OutputPadding           []int64
	Groups                  int64
	Dilation                []int64
	dims                    int
}

func newConvTranspose(layer string, n int, in, out int64, kernel []int64, opts []Option) (ConvTransposeSettings, torch.Tensor, torch.Tensor) {
	s, a := newConvTransposeSettings(layer, n, in, out, kernel, opts)
	w, b := convParams(a, append([]int64{in, out / s.Groups}, s.KernelSize...), out)
	return s, w, b
}

// newConvTransposeSettings checks and normalizes a transposed
// convolution's arguments, and returns them with its options.
func newConvTransposeSettings(layer string, n int, in, out int64, kernel []int64, opts []Option) (ConvTransposeSettings, *layerArgs) {
	a := &layerArgs{}
	a.parse(layer, opts, "stride", "padding", "output_padding", "groups", "bias", "dilation", "padding_mode", "dtype", "device")
	if a.str("padding_mode", "zeros") != "zeros" {
		layerPanic(layer, "Only \"zeros\" padding mode is supported for %s", layer)
	}
	if s := a.paddingString(); s != "" {
		layerPanic(layer, "padding must be a number or a tuple for %s, got '%s'", layer, s)
	}
	s := ConvTransposeSettings{InChannels: in, OutChannels: out, KernelSize: dims(kernel, n), Stride: dims(a.ints("stride", one), n),
		Padding: dims(a.ints("padding", zero), n), OutputPadding: dims(a.ints("output_padding", zero), n), Groups: a.int("groups", 1),
		Dilation: dims(a.ints("dilation", one), n), dims: n}
	switch {
	case s.Groups <= 0:
		layerPanic(layer, "groups must be a positive integer")
	case in%s.Groups != 0:
		layerPanic(layer, "in_channels must be divisible by groups")
	case out%s.Groups != 0:
		layerPanic(layer, "out_channels must be divisible by groups")
	}
	for _, v := range [][]int64{s.KernelSize, s.Stride, s.Padding, s.OutputPadding, s.Dilation} {
		if len(v) != n {
			layerPanic(layer, "expected %d sizes per argument", n)
		}
	}
	return s, a
}

// outputPadding is PyTorch's _output_padding: the output padding that
// makes the output outputSize (nil: the configured OutputPadding).
func (s *ConvTransposeSettings) outputPadding(layer string, x torch.Tensor, outputSize []int64) ([]int64, error) {
	if outputSize == nil {
		return s.OutputPadding, nil
	}
	xs, err := tensorShape(x)
	if err != nil {
		return nil, err
	}
	n := s.dims
	nonSpatial := 1
	if len(xs) == n+2 {
		nonSpatial = 2
	}
	if len(outputSize) == nonSpatial+n {
		outputSize = outputSize[nonSpatial:]
	}
	if len(outputSize) != n {
		return nil, layerError(layer, "ConvTranspose%dD: for %dD input, output_size must have %d or %d elements (got %d)",
			n, len(xs), n, nonSpatial+n, len(outputSize))
	}
	if len(xs) < nonSpatial+n {
		return nil, layerError(layer, "expected a %dD or %dD input, got %dD", n+1, n+2, len(xs))
	}
	minSizes := make([]int64, n)
	maxSizes := make([]int64, n)
	for d := 0; d < n; d++ {
		minSizes[d] = (xs[d+nonSpatial]-1)*s.Stride[d] - 2*s.Padding[d] + s.Dilation[d]*(s.KernelSize[d]-1) + 1
		maxSizes[d] = minSizes[d] + s.Stride[d] - 1
	}
	res := make([]int64, n)
	for i, size := range outputSize {
		if size < minSizes[i] || size > maxSizes[i] {
			return nil, layerError(layer, "requested an output size of %v, but valid sizes range from %v to %v (for an input of %v)",
				outputSize, minSizes, maxSizes, xs[nonSpatial:])
		}
		res[i] = size - minSizes[i]
	}
	return res, nil
}

func (s *ConvTransposeSettings) forward(layer string, x, w, b torch.Tensor, outputSize []int64) (torch.Tensor, error) {
	op, err := s.outputPadding(layer, x, outputSize)
	if err != nil {
		return torch.Tensor{}, err
	}
	opts := []F.Option{F.WithBias(b), F.WithStride(s.Stride...), F.WithPadding(s.Padding...),
		F.WithOutputPadding(op...), F.WithGroups(s.Groups), F.WithDilation(s.Dilation...)}
	switch s.dims {
	case 1:
		return F.TryConvTranspose1d(x, w, opts...)
	case 2:
		return F.TryConvTranspose2d(x, w, opts...)
	}
	return F.TryConvTranspose3d(x, w, opts...)
}

func (s *ConvTransposeSettings) repr(bias bool) string {
	return convRepr(s.InChannels, s.OutChannels, s.KernelSize, s.Stride, s.Padding, "", s.Dilation, s.OutputPadding,
		s.Groups, bias, "zeros")
}

// ConvTransposeModule is a transposed convolution over D spatial
// dimensions (torch.nn.ConvTranspose1d, 2d and 3d).
type ConvTransposeModule[D Dim] struct {
	Module
	Weight torch.Tensor // (in_channels, out_channels/groups, kernel...)
	Bias   torch.Tensor // (out_channels); undefined with WithBias(false)
	ConvTransposeSettings
	*lazyInit // LazyConvTranspose's state; nil from ConvTranspose
}

type (
	ConvTranspose1dModule = ConvTransposeModule[D1] // (N, C_in, L) or (C_in, L)
	ConvTranspose2dModule = ConvTransposeModule[D2] // (N, C_in, H, W) or (C_in, H, W)
	ConvTranspose3dModule = ConvTransposeModule[D3] // (N, C_in, D, H, W) or (C_in, D, H, W)
)

func newConvTransposeModule[D Dim](in, out int64, kernel []int64, opts []Option) *ConvTransposeModule[D] {
	m := &ConvTransposeModule[D]{}
	m.ConvTransposeSettings, m.Weight, m.Bias = newConvTranspose(familyName[D]("ConvTranspose"), rankOf[D](), in, out, kernel, opts)
	m.Init(m)
	return m
}

// ConvTranspose1d returns a 1-D transposed convolution, initialized as
// PyTorch does (as Conv1d, with the fan in of the transposed weight).
//
// Options: WithStride (1), WithPadding (0), WithOutputPadding (0),
// WithGroups (1), WithBias (true), WithDilation (1), WithPaddingMode
// ("zeros", the only one supported), WithDtype, WithDevice.
func ConvTranspose1d[K IntOrTuple](inChannels, outChannels int64, kernelSize K, opts ...Option) *ConvTranspose1dModule {
	return newConvTransposeModule[D1](inChannels, outChannels, F.Ints(kernelSize), opts)
}

// ConvTranspose2d returns a 2-D transposed convolution; see
// ConvTranspose1d.
func ConvTranspose2d[K IntOrTuple](inChannels, outChannels int64, kernelSize K, opts ...Option) *ConvTranspose2dModule {
	return newConvTransposeModule[D2](inChannels, outChannels, F.Ints(kernelSize), opts)
}

// ConvTranspose3d returns a 3-D transposed convolution; see
// ConvTranspose1d.
func ConvTranspose3d[K IntOrTuple](inChannels, outChannels int64, kernelSize K, opts ...Option) *ConvTranspose3dModule {
	return newConvTransposeModule[D3](inChannels, outChannels, F.Ints(kernelSize), opts)
}

func (m *ConvTransposeModule[D]) reprName() string {
	if m == nil {
		return familyName[D]("ConvTranspose")
	}
	return lazyName(m.lazyInit, familyName[D]("ConvTranspose"))
}

// ResetParameters draws the weight and bias again.
func (m *ConvTransposeModule[D]) ResetParameters() { resetConv(m.Weight, m.Bias) }

// Forward applies the transposed convolution to x.
func (m *ConvTransposeModule[D]) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *ConvTransposeModule[D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	return m.TryForwardWithOutputSize(x, nil)
}

// ForwardWithOutputSize is Forward with PyTorch's output_size argument: the
// output padding is chosen to give that size.
func (m *ConvTransposeModule[D]) ForwardWithOutputSize(x torch.Tensor, outputSize []int64) torch.Tensor {
	return must(m.TryForwardWithOutputSize(x, outputSize))
}

// TryForwardWithOutputSize is ForwardWithOutputSize that returns its error.
func (m *ConvTransposeModule[D]) TryForwardWithOutputSize(x torch.Tensor, outputSize []int64) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	if err := m.lazyInit.run(func() error { return m.infer(x) }); err != nil {
		return torch.Tensor{}, err
	}
	return m.forward(m.reprName(), x, m.Weight, m.Bias, outputSize)
}

// ExtraRepr is as Conv1d's.
func (m *ConvTransposeModule[D]) ExtraRepr() string { return m.repr(m.Bias.Defined()) }
