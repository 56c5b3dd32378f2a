package nn

import (
	"fmt"
	"math"
	"strings"

	F "github.com/gotorch/gotorch/nn/functional"
	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// ConvSettings are the settings of Conv1d, Conv2d and Conv3d, which embed
// them; the sizes have one element per spatial dimension.
type ConvSettings struct {
	InChannels, OutChannels int64
	KernelSize              []int64
	Stride                  []int64
	Padding                 []int64 // the padding of each side
	PaddingString           string  // "same" or "valid" when the padding was given so
	Dilation                []int64
	Groups                  int64
	PaddingMode             string // "zeros", "reflect", "replicate" or "circular"
	dims                    int
}

// newConvSettings checks and normalizes a convolution's arguments, as
// PyTorch's _ConvNd does.
func newConvSettings(layer string, n int, in, out int64, kernel []int64, a *layerArgs) ConvSettings {
	s := ConvSettings{InChannels: in, OutChannels: out, KernelSize: dims(kernel, n), Stride: dims(a.ints("stride", one), n),
		Padding: dims(a.ints("padding", zero), n), PaddingString: a.paddingString(), Dilation: dims(a.ints("dilation", one), n),
		Groups: a.int("groups", 1), PaddingMode: a.str("padding_mode", "zeros"), dims: n}
	switch {
	case s.Groups <= 0:
		layerPanic(layer, "groups must be a positive integer")
	case in%s.Groups != 0:
		layerPanic(layer, "in_channels must be divisible by groups")
	case out%s.Groups != 0:
		layerPanic(layer, "out_channels must be divisible by groups")
	}
	for _, v := range [][]int64{s.KernelSize, s.Stride, s.Dilation} {
		if len(v) != n {
			layerPanic(layer, "expected %d sizes per argument, got kernel_size=%v, stride=%v, dilation=%v", n, kernel, a.ints("stride", one), a.ints("dilation", one))
		}
	}
	if s.PaddingString != "" {
		if s.PaddingString != "same" && s.PaddingString != "valid" {
			layerPanic(layer, "Invalid padding string '%s', should be one of {'valid', 'same'}", s.PaddingString)
		}
		for _, st := range s.Stride {
			if s.PaddingString == "same" && st != 1 {
				layerPanic(layer, "padding='same' is not supported for strided convolutions")
			}
		}
		s.Padding = nil
	} else if len(s.Padding) != n {
		layerPanic(layer, "expected %d sizes per argument, got padding=%v", n, a.ints("padding", zero))
	}
	switch s.PaddingMode {
	case "zeros", "reflect", "replicate", "circular":
	default:
		layerPanic(layer, "padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got padding_mode='%s'", s.PaddingMode)
	}
	return s
}

func convArgs(layer string, opts []Option) *layerArgs {
	a := &layerArgs{}
	a.parse(layer, opts, "stride", "padding", "dilation", "groups", "bias", "padding_mode", "dtype", "device")
	return a
}

// convParams makes and initializes a convolution's weight and bias as
// PyTorch's _ConvNd.reset_parameters does.
func convParams(a *layerArgs, weightShape []int64, out int64) (w, b torch.Tensor) {
	w = a.param(weightShape...)
	if a.bool("bias", true) {
		b = a.param(out)
	}
	resetConv(w, b)
	return w, b
}

func resetConv(w, b torch.Tensor) {
	nninit.KaimingUniform_(w, nninit.WithA(math.Sqrt(5)))
	if b.Defined() {
		fanIn, _ := nninit.CalculateFanInAndFanOut(w)
		if fanIn != 0 {
			bound := 1 / math.Sqrt(float64(fanIn))
			nninit.Uniform_(b, nninit.WithA(-bound), nninit.WithB(bound))
		}
	}
}

// reversedPadding is PyTorch's _reversed_padding_repeated_twice: F.pad's
// list for the padding (or the "same" padding) of each dimension.
func (s *ConvSettings) reversedPadding() []int64 {
	n := len(s.KernelSize)
	out := make([]int64, 2*n)
	for i := 0; i < n; i++ {
		d := n - 1 - i // F.pad lists the last dimension first
		switch s.PaddingString {
		case "same":
			total := s.Dilation[d] * (s.KernelSize[d] - 1)
			out[2*i], out[2*i+1] = total/2, total-total/2
		case "valid":
		default:
			out[2*i], out[2*i+1] = s.Padding[d], s.Padding[d]
		}
	}
	return out
}

func (s *ConvSettings) forward(x, w, b torch.Tensor) (torch.Tensor, error) {
	opts := []F.Option{F.WithBias(b), F.WithStride(s.Stride...), F.WithDilation(s.Dilation...), F.WithGroups(s.Groups)}
	if s.PaddingMode != "zeros" {
		padded, err := F.TryPad(x, s.reversedPadding(), F.WithMode(s.PaddingMode))
		if err != nil {
			return torch.Tensor{}, err
		}
		y, err := s.conv(padded, w, append(opts, F.WithPadding(0)))
		temps.Free(padded, x, y)
		return y, err
	}
	if s.PaddingString != "" {
		opts = append(opts, F.WithPaddingString(s.PaddingString))
	} else {
		opts = append(opts, F.WithPadding(s.Padding...))
	}
	return s.conv(x, w, opts)
}

func (s *ConvSettings) conv(x, w torch.Tensor, opts []F.Option) (torch.Tensor, error) {
	switch s.dims {
	case 1:
		return F.TryConv1d(x, w, opts...)
	case 2:
		return F.TryConv2d(x, w, opts...)
	}
	return F.TryConv3d(x, w, opts...)
}

func allEqual(v []int64, x int64) bool {
	for _, e := range v {
		if e != x {
			return false
		}
	}
	return true
}

func convRepr(in, out int64, kernel, stride, padding []int64, paddingString string, dilation, outputPadding []int64,
	groups int64, bias bool, paddingMode string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d, %d, kernel_size=%s, stride=%s", in, out, pyTuple(kernel), pyTuple(stride))
	switch {
	case paddingString != "":
		b.WriteString(", padding=" + paddingString)
	case !allEqual(padding, 0):
		b.WriteString(", padding=" + pyTuple(padding))
	}
	if !allEqual(dilation, 1) {
		b.WriteString(", dilation=" + pyTuple(dilation))
	}
	if !allEqual(outputPadding, 0) {
		b.WriteString(", output_padding=" + pyTuple(outputPadding))
	}
	if groups != 1 {
		fmt.Fprintf(&b, ", groups=%d", groups)
	}
	if !bias {
		b.WriteString(", bias=False")
	}
	if paddingMode != "zeros" && paddingMode != "" {
		b.WriteString(", padding_mode=" + paddingMode)
	}
	return b.String()
}

func (s *ConvSettings) repr(bias bool) string {
	return convRepr(s.InChannels, s.OutChannels, s.KernelSize, s.Stride, s.Padding, s.PaddingString, s.Dilation, nil,
		s.Groups, bias, s.PaddingMode)
}

func newConv(layer string, n int, in, out int64, kernel []int64, opts []Option) (ConvSettings, torch.Tensor, torch.Tensor) {
	a := convArgs(layer, opts)
	s := newConvSettings(layer, n, in, out, kernel, a)
	w, b := convParams(a, append([]int64{out, in / s.Groups}, s.KernelSize...), out)
	return s, w, b
}

// ConvModule is a convolution over D spatial dimensions, of (N, C_in,
// ...) or (C_in, ...) input (torch.nn.Conv1d, 2d and 3d).
type ConvModule[D Dim] struct {
	Module
	Weight torch.Tensor // (out_channels, in_channels/groups, kernel...)
	Bias   torch.Tensor // (out_channels); undefined with WithBias(false)
	ConvSettings
	*lazyInit // LazyConv's state; nil from Conv
}

type (
	Conv1dModule = ConvModule[D1] // (N, C_in, L) or (C_in, L)
	Conv2dModule = ConvModule[D2] // (N, C_in, H, W) or (C_in, H, W)
	Conv3dModule = ConvModule[D3] // (N, C_in, D, H, W) or (C_in, D, H, W)
)

func newConvModule[D Dim](in, out int64, kernel []int64, opts []Option) *ConvModule[D] {
	m := &ConvModule[D]{}
	m.ConvSettings, m.Weight, m.Bias = newConv(familyName[D]("Conv"), rankOf[D](), in, out, kernel, opts)
	m.Init(m)
	return m
}

// Conv1d returns a 1-D convolution, initialized as PyTorch does: the weight
// from kaiming_uniform_ with a=√5, the bias from U(-1/√fan_in, 1/√fan_in).
//
// Options: WithStride (1), WithPadding (0) or WithPaddingString ("same",
// "valid"), WithDilation (1), WithGroups (1), WithBias (true),
// WithPaddingMode ("zeros"), WithDtype, WithDevice.
func Conv1d[K IntOrTuple](inChannels, outChannels int64, kernelSize K, opts ...Option) *Conv1dModule {
	return newConvModule[D1](inChannels, outChannels, F.Ints(kernelSize), opts)
}

// Conv2d returns a 2-D convolution, initialized and taking options as
// Conv1d does:
//
//	nn.Conv2d(1, 32, 3, nn.WithStride(2), nn.WithPadding(1))
//	nn.Conv2d(1, 32, []int64{3, 5}, nn.WithPaddingString("same"))
func Conv2d[K IntOrTuple](inChannels, outChannels int64, kernelSize K, opts ...Option) *Conv2dModule {
	return newConvModule[D2](inChannels, outChannels, F.Ints(kernelSize), opts)
}

// Conv3d returns a 3-D convolution; see Conv1d.
func Conv3d[K IntOrTuple](inChannels, outChannels int64, kernelSize K, opts ...Option) *Conv3dModule {
	return newConvModule[D3](inChannels, outChannels, F.Ints(kernelSize), opts)
}

func (m *ConvModule[D]) reprName() string {
	if m == nil {
		return familyName[D]("Conv")
	}
	return lazyName(m.lazyInit, familyName[D]("Conv"))
}

// ResetParameters draws the weight and bias again.
func (m *ConvModule[D]) ResetParameters() { resetConv(m.Weight, m.Bias) }

// Forward applies the convolution to x.
func (m *ConvModule[D]) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *ConvModule[D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	if err := m.lazyInit.run(func() error { return m.infer(x) }); err != nil {
		return torch.Tensor{}, err
	}
	return m.forward(x, m.Weight, m.Bias)
}

// ExtraRepr is "1, 8, kernel_size=(3,), stride=(1,)" and the settings
// that are not PyTorch's defaults.
func (m *ConvModule[D]) ExtraRepr() string { return m.repr(m.Bias.Defined()) }
