package nn

import (
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// MaxUnpoolModule is the inverse of max pooling, one family for
// MaxUnpool1d, 2d and 3d (torch.nn.MaxUnpool1d, …): each value of its
// input goes to the place that a MaxPool's indices say; the others are
// zero. The settings are kept per dimension, as PyTorch keeps them.
type MaxUnpoolModule[D Dim] struct {
	Module
	KernelSize []int64
	Stride     []int64
	Padding    []int64
}

type (
	MaxUnpool1dModule = MaxUnpoolModule[D1] // (N, C, L) or (C, L)
	MaxUnpool2dModule = MaxUnpoolModule[D2] // (N, C, H, W) or (C, H, W)
	MaxUnpool3dModule = MaxUnpoolModule[D3] // (N, C, D, H, W) or (C, D, H, W)
)

// MaxUnpool1d returns a MaxUnpool1dModule.
//
// Options: WithStride (the kernel size), WithPadding (0).
func MaxUnpool1d[K IntOrTuple](kernelSize K, opts ...Option) *MaxUnpool1dModule {
	return newMaxUnpool[D1](F.Ints(kernelSize), opts)
}

// MaxUnpool2d returns a MaxUnpool2dModule; see MaxUnpool1d.
func MaxUnpool2d[K IntOrTuple](kernelSize K, opts ...Option) *MaxUnpool2dModule {
	return newMaxUnpool[D2](F.Ints(kernelSize), opts)
}

// MaxUnpool3d returns a MaxUnpool3dModule; see MaxUnpool1d.
func MaxUnpool3d[K IntOrTuple](kernelSize K, opts ...Option) *MaxUnpool3dModule {
	return newMaxUnpool[D3](F.Ints(kernelSize), opts)
}

func newMaxUnpool[D Dim](kernel []int64, opts []Option) *MaxUnpoolModule[D] {
	var a layerArgs
	a.parse(familyName[D]("MaxUnpool"), opts, "stride", "padding")
	n := rankOf[D]()
	m := &MaxUnpoolModule[D]{KernelSize: dims(kernel, n), Stride: dims(a.ints("stride", kernel), n), Padding: dims(a.ints("padding", zero), n)}
	m.Init(m)
	return m
}

func (m *MaxUnpoolModule[D]) reprName() string { return familyName[D]("MaxUnpool") }

// Forward unpools input by indices, to outputSize if given (the spatial
// sizes, or with N and C before them).
func (m *MaxUnpoolModule[D]) Forward(input, indices torch.Tensor, outputSize ...int64) torch.Tensor {
	return must(m.TryForward(input, indices, outputSize...))
}

// TryForward is Forward that returns its error.
func (m *MaxUnpoolModule[D]) TryForward(input, indices torch.Tensor, outputSize ...int64) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	opts := []F.Option{F.WithStride(m.Stride...), F.WithPadding(m.Padding...)}
	if outputSize != nil {
		opts = append(opts, F.WithOutputSize(outputSize...))
	}
	switch rankOf[D]() {
	case 1:
		return F.TryMaxUnpool1d(input, indices, m.KernelSize, opts...)
	case 2:
		return F.TryMaxUnpool2d(input, indices, m.KernelSize, opts...)
	}
	return F.TryMaxUnpool3d(input, indices, m.KernelSize, opts...)
}

// ExtraRepr is "kernel_size=(2, 2), stride=(2, 2), padding=(0, 0)".
func (m *MaxUnpoolModule[D]) ExtraRepr() string {
	return "kernel_size=" + pyTuple(m.KernelSize) + ", stride=" + pyTuple(m.Stride) + ", padding=" + pyTuple(m.Padding)
}
