package nn

import (
	"fmt"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// FractionalMaxPoolModule is fractional max pooling, one family for
// FractionalMaxPool2d and FractionalMaxPool3d (torch.nn.FractionalMaxPool2d,
// FractionalMaxPool3d): max pooling over pseudo-random windows of
// KernelSize whose output has OutputSize, or OutputRatio of the input's
// size. RandomSamples, the buffer _random_samples, places the windows;
// when it is undefined (PyTorch's None) each call draws it from torch's
// default generator.
type FractionalMaxPoolModule[D Dim] struct {
	Module
	KernelSize    []int64      // as given: one number stands for every dimension
	OutputSize    []int64      // nil when OutputRatio is given
	OutputRatio   []float64    // nil when OutputSize is given
	RandomSamples torch.Tensor `gotorch:"buffer,name=_random_samples"` // (N, C, n) in [0, 1), or undefined
}

type (
	FractionalMaxPool2dModule = FractionalMaxPoolModule[D2] // (N, C, H, W) or (C, H, W)
	FractionalMaxPool3dModule = FractionalMaxPoolModule[D3] // (N, C, D, H, W) or (C, D, H, W)
)

// WithOutputRatio is the fractional pools' output_ratio: the output size
// as a fraction, in (0, 1), of the input's; one value for every dimension
// or one each.
func WithOutputRatio(v ...float64) Option { return Option{name: "output_ratio", fs: v} }

// WithOutputSize is the fractional pools' output_size: one number for
// every dimension or one each.
func WithOutputSize(v ...int64) Option { return Option{name: "output_size", ints: v} }

// WithRandomSamples is the fractional pools' _random_samples, kept as a
// buffer: the (N, C, n) values in [0, 1) that place the windows.
func WithRandomSamples(t torch.Tensor) Option { return Option{name: "_random_samples", t: t} }

// FractionalMaxPool2d returns a FractionalMaxPool2dModule. It panics
// unless exactly one of WithOutputSize and WithOutputRatio is given, or
// when a ratio is not between 0 and 1, as PyTorch's __init__ raises.
//
// Options: WithOutputSize, WithOutputRatio, WithRandomSamples (None).
func FractionalMaxPool2d[K IntOrTuple](kernelSize K, opts ...Option) *FractionalMaxPool2dModule {
	return newFractionalMaxPool[D2](F.Ints(kernelSize), opts)
}

// FractionalMaxPool3d returns a FractionalMaxPool3dModule; see
// FractionalMaxPool2d.
func FractionalMaxPool3d[K IntOrTuple](kernelSize K, opts ...Option) *FractionalMaxPool3dModule {
	return newFractionalMaxPool[D3](F.Ints(kernelSize), opts)
}

func newFractionalMaxPool[D Dim](kernel []int64, opts []Option) *FractionalMaxPoolModule[D] {
	layer := familyName[D]("FractionalMaxPool")
	var a layerArgs
	a.parse(layer, opts, "output_size", "output_ratio", "_random_samples")
	m := &FractionalMaxPoolModule[D]{KernelSize: kernel, OutputSize: a.ints("output_size", nil),
		OutputRatio: a.floats("output_ratio", nil), RandomSamples: a.tensor("_random_samples")}
	switch {
	case m.OutputSize == nil && m.OutputRatio == nil:
		layerPanic(layer, "%s requires specifying either an output size, or a pooling ratio", layer)
	case m.OutputSize != nil && m.OutputRatio != nil:
		layerPanic(layer, "only one of output_size and output_ratio may be specified")
	}
	for _, r := range m.OutputRatio {
		if !(r > 0 && r < 1) {
			layerPanic(layer, "output_ratio must be between 0 and 1 (got %s)", fmt.Sprint(r))
		}
	}
	m.Init(m)
	return m
}

func (m *FractionalMaxPoolModule[D]) reprName() string { return familyName[D]("FractionalMaxPool") }

// Forward pools x.
func (m *FractionalMaxPoolModule[D]) Forward(x torch.Tensor) torch.Tensor {
	return must(m.TryForward(x))
}

// TryForward is Forward that returns its error.
func (m *FractionalMaxPoolModule[D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	out, idx, err := m.TryForwardWithIndices(x)
	idx.Free()
	return out, err
}

// ForwardWithIndices pools x and returns the indices of the maxima too
// (PyTorch's return_indices=True).
func (m *FractionalMaxPoolModule[D]) ForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor) {
	out, indices, err := m.TryForwardWithIndices(x)
	if err != nil {
		panic(err)
	}
	return out, indices
}

// TryForwardWithIndices is ForwardWithIndices that returns its error.
func (m *FractionalMaxPoolModule[D]) TryForwardWithIndices(x torch.Tensor) (out, indices torch.Tensor, err error) {
	if m == nil {
		return torch.Tensor{}, torch.Tensor{}, nilLayer(m)
	}
	var opts []F.Option
	if m.OutputSize != nil {
		opts = append(opts, F.WithOutputSize(m.OutputSize...))
	} else {
		opts = append(opts, F.WithOutputRatio(m.OutputRatio...))
	}
	if m.RandomSamples.Defined() {
		opts = append(opts, F.WithRandomSamples(m.RandomSamples))
	}
	if rankOf[D]() == 2 {
		return F.TryFractionalMaxPool2dWithIndices(x, m.KernelSize, opts...)
	}
	return F.TryFractionalMaxPool3dWithIndices(x, m.KernelSize, opts...)
}
