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
	a := layerArgs{padding: []int64{0}, dilation: []int64{1}}
	a.parse(layer, opts, "stride", "padding", "dilation", "ceil_mode")
	if a.paddingString != "" {
		layerPanic(layer, "padding must be a number or a tuple, got '%s'", a.paddingString)
	}
	s := MaxPoolSettings{KernelSize: kernel, Stride: kernel, Padding: a.padding, Dilation: a.dilation, CeilMode: a.ceilMode, dims: n}
	if a.has("stride") {
		s.Stride = a.stride
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
	DivisorOverride int64 // 0 for none
	dims            int
}

func newAvgPool(layer string, n int, kernel []int64, opts []Option) AvgPoolSettings {
	a := layerArgs{padding: []int64{0}, countIncludePad: true}
	allowed := []string{"stride", "padding", "ceil_mode", "count_include_pad"}
	if n > 1 {
		allowed = append(allowed, "divisor_override")
	}
	a.parse(layer, opts, allowed...)
	if a.paddingString != "" {
		layerPanic(layer, "padding must be a number or a tuple, got '%s'", a.paddingString)
	}
	s := AvgPoolSettings{KernelSize: kernel, Stride: kernel, Padding: a.padding, CeilMode: a.ceilMode,
		CountIncludePad: a.countIncludePad, DivisorOverride: a.divisorOverride, dims: n}
	if a.has("stride") {
		s.Stride = a.stride
	}
	if a.has("divisor_override") && a.divisorOverride == 0 {
		layerPanic(layer, "divisor must be not zero")
	}
	return s
}

func (s *AvgPoolSettings) forward(x torch.Tensor) (torch.Tensor, error) {
	opts := []F.Option{F.WithStride(s.Stride...), F.WithPadding(s.Padding...), F.WithCeilMode(s.CeilMode),
		F.WithCountIncludePad(s.CountIncludePad)}
	if s.DivisorOverride != 0 {
		opts = append(opts, F.WithDivisorOverride(s.DivisorOverride))
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

// MaxPool1dModule takes the maximum over windows of (N, C, L) or (C, L) input
// (torch.nn.MaxPool1d).
type MaxPool1dModule struct {
	Module
	MaxPoolSettings
}

// MaxPool1d returns a MaxPool1dModule with windows of kernelSize.
//
// Options: WithStride (kernelSize), WithPadding (0), WithDilation (1),
// WithCeilMode (false).
func MaxPool1d[K IntOrTuple](kernelSize K, opts ...Option) *MaxPool1dModule {
	m := &MaxPool1dModule{MaxPoolSettings: newMaxPool("MaxPool1d", 1, F.Ints(kernelSize), opts)}
	m.Init(m)
	return m
}

// Forward pools x.
func (m *MaxPool1dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *MaxPool1dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return m.forward(x)
}

// ForwardWithIndices pools x and returns the indices of the maxima too
// (PyTorch's return_indices=True).
func (m *MaxPool1dModule) ForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor) {
	out, indices, err := m.TryForwardWithIndices(x)
	if err != nil {
		panic(err)
	}
	return out, indices
}

// TryForwardWithIndices is ForwardWithIndices that returns its error.
func (m *MaxPool1dModule) TryForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor, err error) {
	if m == nil {
		err = nilLayer(m)
		return
	}
	return m.forwardWithIndices(x)
}

// AvgPool1dModule averages over windows of (N, C, L) or (C, L) input
// (torch.nn.AvgPool1d).
type AvgPool1dModule struct {
	Module
	AvgPoolSettings
}

// AvgPool1d returns an AvgPool1dModule with windows of kernelSize.
//
// Options: WithStride (kernelSize), WithPadding (0), WithCeilMode (false),
// WithCountIncludePad (true).
func AvgPool1d[K IntOrTuple](kernelSize K, opts ...Option) *AvgPool1dModule {
	m := &AvgPool1dModule{AvgPoolSettings: newAvgPool("AvgPool1d", 1, F.Ints(kernelSize), opts)}
	m.Init(m)
	return m
}

// Forward pools x.
func (m *AvgPool1dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *AvgPool1dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return m.forward(x)
}

// AdaptiveAvgPool1dModule averages (N, C, L) or (C, L) input over windows chosen to
// give OutputSize (torch.nn.AdaptiveAvgPool1d).
type AdaptiveAvgPool1dModule struct {
	Module
	OutputSize []int64 // as given: one number stands for every dimension
}

// AdaptiveAvgPool1d returns an AdaptiveAvgPool1dModule.
func AdaptiveAvgPool1d[K IntOrTuple](outputSize K) *AdaptiveAvgPool1dModule {
	m := &AdaptiveAvgPool1dModule{OutputSize: F.Ints(outputSize)}
	m.Init(m)
	return m
}

// Forward pools x.
func (m *AdaptiveAvgPool1dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *AdaptiveAvgPool1dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryAdaptiveAvgPool1d(x, m.OutputSize)
}

// ExtraRepr is "output_size=1".
func (m *AdaptiveAvgPool1dModule) ExtraRepr() string {
	return "output_size=" + pyIntOrTuple(m.OutputSize)
}

// AdaptiveMaxPool1dModule takes the maximum of (N, C, L) or (C, L) input over
// windows chosen to give OutputSize (torch.nn.AdaptiveMaxPool1d).
type AdaptiveMaxPool1dModule struct {
	Module
	OutputSize []int64 // as given: one number stands for every dimension
}

// AdaptiveMaxPool1d returns an AdaptiveMaxPool1dModule.
func AdaptiveMaxPool1d[K IntOrTuple](outputSize K) *AdaptiveMaxPool1dModule {
	m := &AdaptiveMaxPool1dModule{OutputSize: F.Ints(outputSize)}
	m.Init(m)
	return m
}

// Forward pools x.
func (m *AdaptiveMaxPool1dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *AdaptiveMaxPool1dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryAdaptiveMaxPool1d(x, m.OutputSize)
}

// ForwardWithIndices pools x and returns the indices of the maxima too
// (PyTorch's return_indices=True).
func (m *AdaptiveMaxPool1dModule) ForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor) {
	out, indices, err := m.TryForwardWithIndices(x)
	if err != nil {
		panic(err)
	}
	return out, indices
}

// TryForwardWithIndices is ForwardWithIndices that returns its error.
func (m *AdaptiveMaxPool1dModule) TryForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor, err error) {
	if m == nil {
		err = nilLayer(m)
		return
	}
	return F.TryAdaptiveMaxPool1dWithIndices(x, m.OutputSize)
}

// ExtraRepr is "output_size=1".
func (m *AdaptiveMaxPool1dModule) ExtraRepr() string {
	return "output_size=" + pyIntOrTuple(m.OutputSize)
}

// MaxPool2dModule takes the maximum over windows of (N, C, H, W) or (C, H, W) input
// (torch.nn.MaxPool2d).
type MaxPool2dModule struct {
	Module
	MaxPoolSettings
}

// MaxPool2d returns a MaxPool2dModule with windows of kernelSize.
//
// Options: WithStride (kernelSize), WithPadding (0), WithDilation (1),
// WithCeilMode (false).
func MaxPool2d[K IntOrTuple](kernelSize K, opts ...Option) *MaxPool2dModule {
	m := &MaxPool2dModule{MaxPoolSettings: newMaxPool("MaxPool2d", 2, F.Ints(kernelSize), opts)}
	m.Init(m)
	return m
}

// Forward pools x.
func (m *MaxPool2dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *MaxPool2dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return m.forward(x)
}

// ForwardWithIndices pools x and returns the indices of the maxima too
// (PyTorch's return_indices=True).
func (m *MaxPool2dModule) ForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor) {
	out, indices, err := m.TryForwardWithIndices(x)
	if err != nil {
		panic(err)
	}
	return out, indices
}

// TryForwardWithIndices is ForwardWithIndices that returns its error.
func (m *MaxPool2dModule) TryForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor, err error) {
	if m == nil {
		err = nilLayer(m)
		return
	}
	return m.forwardWithIndices(x)
}

// AvgPool2dModule averages over windows of (N, C, H, W) or (C, H, W) input
// (torch.nn.AvgPool2d).
type AvgPool2dModule struct {
	Module
	AvgPoolSettings
}

// AvgPool2d returns an AvgPool2dModule with windows of kernelSize.
//
// Options: WithStride (kernelSize), WithPadding (0), WithCeilMode (false),
// WithCountIncludePad (true), WithDivisorOverride (None).
func AvgPool2d[K IntOrTuple](kernelSize K, opts ...Option) *AvgPool2dModule {
	m := &AvgPool2dModule{AvgPoolSettings: newAvgPool("AvgPool2d", 2, F.Ints(kernelSize), opts)}
	m.Init(m)
	return m
}

// Forward pools x.
func (m *AvgPool2dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *AvgPool2dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return m.forward(x)
}

// AdaptiveAvgPool2dModule averages (N, C, H, W) or (C, H, W) input over windows chosen to
// give OutputSize (torch.nn.AdaptiveAvgPool2d).
type AdaptiveAvgPool2dModule struct {
	Module
	OutputSize []int64 // as given: one number stands for every dimension
}

// AdaptiveAvgPool2d returns an AdaptiveAvgPool2dModule.
func AdaptiveAvgPool2d[K IntOrTuple](outputSize K) *AdaptiveAvgPool2dModule {
	m := &AdaptiveAvgPool2dModule{OutputSize: F.Ints(outputSize)}
	m.Init(m)
	return m
}

// Forward pools x.
func (m *AdaptiveAvgPool2dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *AdaptiveAvgPool2dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryAdaptiveAvgPool2d(x, m.OutputSize)
}

// ExtraRepr is "output_size=1".
func (m *AdaptiveAvgPool2dModule) ExtraRepr() string {
	return "output_size=" + pyIntOrTuple(m.OutputSize)
}

// AdaptiveMaxPool2dModule takes the maximum of (N, C, H, W) or (C, H, W) input over
// windows chosen to give OutputSize (torch.nn.AdaptiveMaxPool2d).
type AdaptiveMaxPool2dModule struct {
	Module
	OutputSize []int64 // as given: one number stands for every dimension
}

// AdaptiveMaxPool2d returns an AdaptiveMaxPool2dModule.
func AdaptiveMaxPool2d[K IntOrTuple](outputSize K) *AdaptiveMaxPool2dModule {
	m := &AdaptiveMaxPool2dModule{OutputSize: F.Ints(outputSize)}
	m.Init(m)
	return m
}

// Forward pools x.
func (m *AdaptiveMaxPool2dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *AdaptiveMaxPool2dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryAdaptiveMaxPool2d(x, m.OutputSize)
}

// ForwardWithIndices pools x and returns the indices of the maxima too
// (PyTorch's return_indices=True).
func (m *AdaptiveMaxPool2dModule) ForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor) {
	out, indices, err := m.TryForwardWithIndices(x)
	if err != nil {
		panic(err)
	}
	return out, indices
}

// TryForwardWithIndices is ForwardWithIndices that returns its error.
func (m *AdaptiveMaxPool2dModule) TryForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor, err error) {
	if m == nil {
		err = nilLayer(m)
		return
	}
	return F.TryAdaptiveMaxPool2dWithIndices(x, m.OutputSize)
}

// ExtraRepr is "output_size=1".
func (m *AdaptiveMaxPool2dModule) ExtraRepr() string {
	return "output_size=" + pyIntOrTuple(m.OutputSize)
}

// MaxPool3dModule takes the maximum over windows of (N, C, D, H, W) or (C, D, H, W) input
// (torch.nn.MaxPool3d).
type MaxPool3dModule struct {
	Module
	MaxPoolSettings
}

// MaxPool3d returns a MaxPool3dModule with windows of kernelSize.
//
// Options: WithStride (kernelSize), WithPadding (0), WithDilation (1),
// WithCeilMode (false).
func MaxPool3d[K IntOrTuple](kernelSize K, opts ...Option) *MaxPool3dModule {
	m := &MaxPool3dModule{MaxPoolSettings: newMaxPool("MaxPool3d", 3, F.Ints(kernelSize), opts)}
	m.Init(m)
	return m
}

// Forward pools x.
func (m *MaxPool3dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *MaxPool3dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return m.forward(x)
}

// ForwardWithIndices pools x and returns the indices of the maxima too
// (PyTorch's return_indices=True).
func (m *MaxPool3dModule) ForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor) {
	out, indices, err := m.TryForwardWithIndices(x)
	if err != nil {
		panic(err)
	}
	return out, indices
}

// TryForwardWithIndices is ForwardWithIndices that returns its error.
func (m *MaxPool3dModule) TryForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor, err error) {
	if m == nil {
		err = nilLayer(m)
		return
	}
	return m.forwardWithIndices(x)
}

// AvgPool3dModule averages over windows of (N, C, D, H, W) or (C, D, H, W) input
// (torch.nn.AvgPool3d).
type AvgPool3dModule struct {
	Module
	AvgPoolSettings
}

// AvgPool3d returns an AvgPool3dModule with windows of kernelSize.
//
// Options: WithStride (kernelSize), WithPadding (0), WithCeilMode (false),
// WithCountIncludePad (true), WithDivisorOverride (None).
func AvgPool3d[K IntOrTuple](kernelSize K, opts ...Option) *AvgPool3dModule {
	m := &AvgPool3dModule{AvgPoolSettings: newAvgPool("AvgPool3d", 3, F.Ints(kernelSize), opts)}
	m.Init(m)
	return m
}

// Forward pools x.
func (m *AvgPool3dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *AvgPool3dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return m.forward(x)
}

// AdaptiveAvgPool3dModule averages (N, C, D, H, W) or (C, D, H, W) input over windows chosen to
// give OutputSize (torch.nn.AdaptiveAvgPool3d).
type AdaptiveAvgPool3dModule struct {
	Module
	OutputSize []int64 // as given: one number stands for every dimension
}

// AdaptiveAvgPool3d returns an AdaptiveAvgPool3dModule.
func AdaptiveAvgPool3d[K IntOrTuple](outputSize K) *AdaptiveAvgPool3dModule {
	m := &AdaptiveAvgPool3dModule{OutputSize: F.Ints(outputSize)}
	m.Init(m)
	return m
}

// Forward pools x.
func (m *AdaptiveAvgPool3dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *AdaptiveAvgPool3dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryAdaptiveAvgPool3d(x, m.OutputSize)
}

// ExtraRepr is "output_size=1".
func (m *AdaptiveAvgPool3dModule) ExtraRepr() string {
	return "output_size=" + pyIntOrTuple(m.OutputSize)
}

// AdaptiveMaxPool3dModule takes the maximum of (N, C, D, H, W) or (C, D, H, W) input over
// windows chosen to give OutputSize (torch.nn.AdaptiveMaxPool3d).
type AdaptiveMaxPool3dModule struct {
	Module
	OutputSize []int64 // as given: one number stands for every dimension
}

// AdaptiveMaxPool3d returns an AdaptiveMaxPool3dModule.
func AdaptiveMaxPool3d[K IntOrTuple](outputSize K) *AdaptiveMaxPool3dModule {
	m := &AdaptiveMaxPool3dModule{OutputSize: F.Ints(outputSize)}
	m.Init(m)
	return m
}

// Forward pools x.
func (m *AdaptiveMaxPool3dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *AdaptiveMaxPool3dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryAdaptiveMaxPool3d(x, m.OutputSize)
}

// ForwardWithIndices pools x and returns the indices of the maxima too
// (PyTorch's return_indices=True).
func (m *AdaptiveMaxPool3dModule) ForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor) {
	out, indices, err := m.TryForwardWithIndices(x)
	if err != nil {
		panic(err)
	}
	return out, indices
}

// TryForwardWithIndices is ForwardWithIndices that returns its error.
func (m *AdaptiveMaxPool3dModule) TryForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor, err error) {
	if m == nil {
		err = nilLayer(m)
		return
	}
	return F.TryAdaptiveMaxPool3dWithIndices(x, m.OutputSize)
}

// ExtraRepr is "output_size=1".
func (m *AdaptiveMaxPool3dModule) ExtraRepr() string {
	return "output_size=" + pyIntOrTuple(m.OutputSize)
}
