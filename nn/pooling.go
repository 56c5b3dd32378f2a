package nn

import (
	"fmt"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// MaxPoolSettings are the settings of MaxPool1d, 2d and 3d, which embed
// them. Sizes are kept as given: one number stands for every dimension.
type MaxPoolSettings struct {
	KernelSize []int64
	Stride     []int64 // the kernel size unless given
	Padding    []int64
	Dilation   []int64
	CeilMode   bool
	dims       int
}

func newMaxPool(layer string, n int, kernel []int64, opts []Option) MaxPoolSettings {
	var a layerArgs
	a.parse(layer, opts, "stride", "padding", "dilation", "ceil_mode")
	if s := a.paddingString(); s != "" {
		layerPanic(layer, "padding must be a number or a tuple, got '%s'", s)
	}
	s := MaxPoolSettings{KernelSize: kernel, Stride: kernel, Padding: a.ints("padding", zero), Dilation: a.ints("dilation", one),
		CeilMode: a.bool("ceil_mode", false), dims: n}
	if a.has("stride") {
		s.Stride = a.ints("stride", nil)
	}
	return s
}

func (s *MaxPoolSettings) options() []F.Option {
	return []F.Option{F.WithStride(s.Stride...), F.WithPadding(s.Padding...), F.WithDilation(s.Dilation...), F.WithCeilMode(s.CeilMode)}
}

func (s *MaxPoolSettings) forward(x torch.Tensor) (torch.Tensor, error) {
	switch s.dims {
	case 1:
		return F.TryMaxPool1d(x, s.KernelSize, s.options()...)
	case 2:
		return F.TryMaxPool2d(x, s.KernelSize, s.options()...)
	}
	return F.TryMaxPool3d(x, s.KernelSize, s.options()...)
}

func (s *MaxPoolSettings) forwardWithIndices(x torch.Tensor) (torch.Tensor, torch.Tensor, error) {
	switch s.dims {
	case 1:
		return F.TryMaxPool1dWithIndices(x, s.KernelSize, s.options()...)
	case 2:
		return F.TryMaxPool2dWithIndices(x, s.KernelSize, s.options()...)
	}
	return F.TryMaxPool3dWithIndices(x, s.KernelSize, s.options()...)
}

// ExtraRepr is "kernel_size=2, stride=2, padding=0, dilation=1,
// ceil_mode=False".
func (s *MaxPoolSettings) ExtraRepr() string {
	return fmt.Sprintf("kernel_size=%s, stride=%s, padding=%s, dilation=%s, ceil_mode=%s", pyIntOrTuple(s.KernelSize),
		pyIntOrTuple(s.Stride), pyIntOrTuple(s.Padding), pyIntOrTuple(s.Dilation), pyBool(s.CeilMode))
}

// AvgPoolSettings are the settings of AvgPool1d, 2d and 3d, which embed
// them. Sizes are kept as given, except AvgPool1d's, which PyTorch keeps as
// tuples.
type AvgPoolSettings struct {
	KernelSize      []int64
	Stride          []int64 // the kernel size unless given
	Padding         []int64
	CeilMode        bool
	CountIncludePad bool
	DivisorOverride *int64 // the divisor instead of the window's size; nil: None
	dims            int
}

func newAvgPool(layer string, n int, kernel []int64, opts []Option) AvgPoolSettings {
	var a layerArgs
	allowed := []string{"stride", "padding", "ceil_mode", "count_include_pad"}
	if n > 1 {
		allowed = append(allowed, "divisor_override")
	}
	a.parse(layer, opts, allowed...)
	if s := a.paddingString(); s != "" {
		layerPanic(layer, "padding must be a number or a tuple, got '%s'", s)
	}
	s := AvgPoolSettings{KernelSize: kernel, Stride: kernel, Padding: a.ints("padding", zero), CeilMode: a.bool("ceil_mode", false),
		CountIncludePad: a.bool("count_include_pad", true), dims: n}
	if a.has("stride") {
		s.Stride = a.ints("stride", nil)
	}
	if a.has("divisor_override") {
		d := a.int("divisor_override", 0)
		if d == 0 {
			layerPanic(layer, "divisor must be not zero")
		}
		s.DivisorOverride = &d
	}
	return s
}

func (s *AvgPoolSettings) forward(x torch.Tensor) (torch.Tensor, error) {
	opts := []F.Option{F.WithStride(s.Stride...), F.WithPadding(s.Padding...), F.WithCeilMode(s.CeilMode),
		F.WithCountIncludePad(s.CountIncludePad)}
	if s.DivisorOverride != nil {
		opts = append(opts, F.WithDivisorOverride(*s.DivisorOverride))
	}
	switch s.dims {
	case 1:
		return F.TryAvgPool1d(x, s.KernelSize, opts...)
	case 2:
		return F.TryAvgPool2d(x, s.KernelSize, opts...)
	}
	return F.TryAvgPool3d(x, s.KernelSize, opts...)
}

// ExtraRepr is "kernel_size=2, stride=2, padding=0".
func (s *AvgPoolSettings) ExtraRepr() string {
	f := pyIntOrTuple
	if s.dims == 1 {
		f = pyTuple
	}
	return fmt.Sprintf("kernel_size=%s, stride=%s, padding=%s", f(s.KernelSize), f(s.Stride), f(s.Padding))
}

// pick is the one of f1, f2 and f3 for D's dimension.
func pick[D Dim, T any](f1, f2, f3 T) T {
	switch rankOf[D]() {
	case 1:
		return f1
	case 2:
		return f2
	}
	return f3
}

// MaxPoolModule takes the maximum over windows of its D spatial
// dimensions (torch.nn.MaxPool1d, 2d and 3d).
type MaxPoolModule[D Dim] struct {
	Module
	MaxPoolSettings
}

type (
	MaxPool1dModule = MaxPoolModule[D1] // (N, C, L) or (C, L)
	MaxPool2dModule = MaxPoolModule[D2] // (N, C, H, W) or (C, H, W)
	MaxPool3dModule = MaxPoolModule[D3] // (N, C, D, H, W) or (C, D, H, W)
)

func newMaxPoolModule[D Dim](kernelSize []int64, opts []Option) *MaxPoolModule[D] {
	m := &MaxPoolModule[D]{MaxPoolSettings: newMaxPool(familyName[D]("MaxPool"), rankOf[D](), kernelSize, opts)}
	m.Init(m)
	return m
}

// MaxPool1d returns a MaxPool1dModule with windows of kernelSize.
//
// Options: WithStride (kernelSize), WithPadding (0), WithDilation (1),
// WithCeilMode (false).
func MaxPool1d[K IntOrTuple](kernelSize K, opts ...Option) *MaxPool1dModule {
	return newMaxPoolModule[D1](F.Ints(kernelSize), opts)
}

// MaxPool2d returns a MaxPool2dModule; see MaxPool1d.
func MaxPool2d[K IntOrTuple](kernelSize K, opts ...Option) *MaxPool2dModule {
	return newMaxPoolModule[D2](F.Ints(kernelSize), opts)
}

// MaxPool3d returns a MaxPool3dModule; see MaxPool1d.
func MaxPool3d[K IntOrTuple](kernelSize K, opts ...Option) *MaxPool3dModule {
	return newMaxPoolModule[D3](F.Ints(kernelSize), opts)
}

func (m *MaxPoolModule[D]) reprName() string { return familyName[D]("MaxPool") }

// Forward pools x.
func (m *MaxPoolModule[D]) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *MaxPoolModule[D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return m.forward(x)
}

// ForwardWithIndices pools x and returns the indices of the maxima too
// (PyTorch's return_indices=True).
func (m *MaxPoolModule[D]) ForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor) {
	out, indices, err := m.TryForwardWithIndices(x)
	if err != nil {
		panic(err)
	}
	return out, indices
}

// TryForwardWithIndices is ForwardWithIndices that returns its error.
func (m *MaxPoolModule[D]) TryForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor, err error) {
	if m == nil {
		err = nilLayer(m)
		return
	}
	return m.forwardWithIndices(x)
}

// AvgPoolModule averages over windows of its D spatial dimensions
// (torch.nn.AvgPool1d, 2d and 3d).
type AvgPoolModule[D Dim] struct {
	Module
	AvgPoolSettings
}

type (
	AvgPool1dModule = AvgPoolModule[D1] // (N, C, L) or (C, L)
	AvgPool2dModule = AvgPoolModule[D2] // (N, C, H, W) or (C, H, W)
	AvgPool3dModule = AvgPoolModule[D3] // (N, C, D, H, W) or (C, D, H, W)
)

func newAvgPoolModule[D Dim](kernelSize []int64, opts []Option) *AvgPoolModule[D] {
	m := &AvgPoolModule[D]{AvgPoolSettings: newAvgPool(familyName[D]("AvgPool"), rankOf[D](), kernelSize, opts)}
	m.Init(m)
	return m
}

// AvgPool1d returns an AvgPool1dModule with windows of kernelSize.
//
// Options: WithStride (kernelSize), WithPadding (0), WithCeilMode (false),
// WithCountIncludePad (true).
func AvgPool1d[K IntOrTuple](kernelSize K, opts ...Option) *AvgPool1dModule {
	return newAvgPoolModule[D1](F.Ints(kernelSize), opts)
}

// AvgPool2d returns an AvgPool2dModule with windows of kernelSize.
//
// Options: WithStride (kernelSize), WithPadding (0), WithCeilMode (false),
// WithCountIncludePad (true), WithDivisorOverride (None).
func AvgPool2d[K IntOrTuple](kernelSize K, opts ...Option) *AvgPool2dModule {
	return newAvgPoolModule[D2](F.Ints(kernelSize), opts)
}

// AvgPool3d returns an AvgPool3dModule; see AvgPool2d.
func AvgPool3d[K IntOrTuple](kernelSize K, opts ...Option) *AvgPool3dModule {
	return newAvgPoolModule[D3](F.Ints(kernelSize), opts)
}

func (m *AvgPoolModule[D]) reprName() string { return familyName[D]("AvgPool") }

// Forward pools x.
func (m *AvgPoolModule[D]) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *AvgPoolModule[D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return m.forward(x)
}

// AdaptiveAvgPoolModule averages its D spatial dimensions over windows
// chosen to give OutputSize (torch.nn.AdaptiveAvgPool1d, 2d and 3d).
type AdaptiveAvgPoolModule[D Dim] struct {
	Module
	OutputSize []int64 // as given: one number stands for every dimension
}

type (
	AdaptiveAvgPool1dModule = AdaptiveAvgPoolModule[D1] // (N, C, L) or (C, L)
	AdaptiveAvgPool2dModule = AdaptiveAvgPoolModule[D2] // (N, C, H, W) or (C, H, W)
	AdaptiveAvgPool3dModule = AdaptiveAvgPoolModule[D3] // (N, C, D, H, W) or (C, D, H, W)
)

func newAdaptiveAvgPool[D Dim](outputSize []int64) *AdaptiveAvgPoolModule[D] {
	m := &AdaptiveAvgPoolModule[D]{OutputSize: outputSize}
	m.Init(m)
	return m
}

// AdaptiveAvgPool1d returns an AdaptiveAvgPool1dModule.
func AdaptiveAvgPool1d[K IntOrTuple](outputSize K) *AdaptiveAvgPool1dModule {
	return newAdaptiveAvgPool[D1](F.Ints(outputSize))
}

// AdaptiveAvgPool2d returns an AdaptiveAvgPool2dModule.
func AdaptiveAvgPool2d[K IntOrTuple](outputSize K) *AdaptiveAvgPool2dModule {
	return newAdaptiveAvgPool[D2](F.Ints(outputSize))
}

// AdaptiveAvgPool3d returns an AdaptiveAvgPool3dModule.
func AdaptiveAvgPool3d[K IntOrTuple](outputSize K) *AdaptiveAvgPool3dModule {
	return newAdaptiveAvgPool[D3](F.Ints(outputSize))
}

func (m *AdaptiveAvgPoolModule[D]) reprName() string { return familyName[D]("AdaptiveAvgPool") }

// Forward pools x.
func (m *AdaptiveAvgPoolModule[D]) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *AdaptiveAvgPoolModule[D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	f := pick[D](F.TryAdaptiveAvgPool1d[[]int64], F.TryAdaptiveAvgPool2d[[]int64], F.TryAdaptiveAvgPool3d[[]int64])
	return f(x, m.OutputSize)
}

// ExtraRepr is "output_size=1".
func (m *AdaptiveAvgPoolModule[D]) ExtraRepr() string {
	return "output_size=" + pyIntOrTuple(m.OutputSize)
}

// AdaptiveMaxPoolModule takes the maximum of its D spatial dimensions
// over windows chosen to give OutputSize (torch.nn.AdaptiveMaxPool1d, 2d
// and 3d).
type AdaptiveMaxPoolModule[D Dim] struct {
	Module
	OutputSize []int64 // as given: one number stands for every dimension
}

type (
	AdaptiveMaxPool1dModule = AdaptiveMaxPoolModule[D1] // (N, C, L) or (C, L)
	AdaptiveMaxPool2dModule = AdaptiveMaxPoolModule[D2] // (N, C, H, W) or (C, H, W)
	AdaptiveMaxPool3dModule = AdaptiveMaxPoolModule[D3] // (N, C, D, H, W) or (C, D, H, W)
)

func newAdaptiveMaxPool[D Dim](outputSize []int64) *AdaptiveMaxPoolModule[D] {
	m := &AdaptiveMaxPoolModule[D]{OutputSize: outputSize}
	m.Init(m)
	return m
}

// AdaptiveMaxPool1d returns an AdaptiveMaxPool1dModule.
func AdaptiveMaxPool1d[K IntOrTuple](outputSize K) *AdaptiveMaxPool1dModule {
	return newAdaptiveMaxPool[D1](F.Ints(outputSize))
}

// AdaptiveMaxPool2d returns an AdaptiveMaxPool2dModule.
func AdaptiveMaxPool2d[K IntOrTuple](outputSize K) *AdaptiveMaxPool2dModule {
	return newAdaptiveMaxPool[D2](F.Ints(outputSize))
}

// AdaptiveMaxPool3d returns an AdaptiveMaxPool3dModule.
func AdaptiveMaxPool3d[K IntOrTuple](outputSize K) *AdaptiveMaxPool3dModule {
	return newAdaptiveMaxPool[D3](F.Ints(outputSize))
}

func (m *AdaptiveMaxPoolModule[D]) reprName() string { return familyName[D]("AdaptiveMaxPool") }

// Forward pools x.
func (m *AdaptiveMaxPoolModule[D]) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *AdaptiveMaxPoolModule[D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	f := pick[D](F.TryAdaptiveMaxPool1d[[]int64], F.TryAdaptiveMaxPool2d[[]int64], F.TryAdaptiveMaxPool3d[[]int64])
	return f(x, m.OutputSize)
}

// ForwardWithIndices pools x and returns the indices of the maxima too
// (PyTorch's return_indices=True).
func (m *AdaptiveMaxPoolModule[D]) ForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor) {
	out, indices, err := m.TryForwardWithIndices(x)
	if err != nil {
		panic(err)
	}
	return out, indices
}

// TryForwardWithIndices is ForwardWithIndices that returns its error.
func (m *AdaptiveMaxPoolModule[D]) TryForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor, err error) {
	if m == nil {
		err = nilLayer(m)
		return
	}
	f := pick[D](F.TryAdaptiveMaxPool1dWithIndices[[]int64], F.TryAdaptiveMaxPool2dWithIndices[[]int64],
		F.TryAdaptiveMaxPool3dWithIndices[[]int64])
	return f(x, m.OutputSize)
}

// ExtraRepr is "output_size=1".
func (m *AdaptiveMaxPoolModule[D]) ExtraRepr() string {
	return "output_size=" + pyIntOrTuple(m.OutputSize)
}
