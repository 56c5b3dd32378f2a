package nn

import (
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// LPPoolModule is the power-average pool, one family for LPPool1d and
// LPPool2d (torch.nn.LPPool1d, LPPool2d): the NormType-norm of each window
// of KernelSize, moved by Stride.
type LPPoolModule[D Dim] struct {
	Module
	NormType   float64
	KernelSize []int64 // as given: one number stands for every dimension
	Stride     []int64 // nil for PyTorch's None: the kernel size
	CeilMode   bool
}

type (
	LPPool1dModule = LPPoolModule[D1] // (N, C, L) or (C, L)
	LPPool2dModule = LPPoolModule[D2] // (N, C, H, W) or (C, H, W)
)

// LPPool1d returns an LPPool1dModule.
//
// Options: WithStride (None: the kernel size), WithCeilMode (false).
func LPPool1d[K IntOrTuple](normType float64, kernelSize K, opts ...Option) *LPPool1dModule {
	return newLPPool[D1](normType, F.Ints(kernelSize), opts)
}

// LPPool2d returns an LPPool2dModule; see LPPool1d.
func LPPool2d[K IntOrTuple](normType float64, kernelSize K, opts ...Option) *LPPool2dModule {
	return newLPPool[D2](normType, F.Ints(kernelSize), opts)
}

func newLPPool[D Dim](normType float64, kernel []int64, opts []Option) *LPPoolModule[D] {
	var a layerArgs
	a.parse(familyName[D]("LPPool"), opts, "stride", "ceil_mode")
	m := &LPPoolModule[D]{NormType: normType, KernelSize: kernel, Stride: a.ints("stride", nil), CeilMode: a.bool("ceil_mode", false)}
	m.Init(m)
	return m
}

func (m *LPPoolModule[D]) reprName() string { return familyName[D]("LPPool") }

// Forward pools x.
func (m *LPPoolModule[D]) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *LPPoolModule[D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	opts := []F.Option{F.WithCeilMode(m.CeilMode)}
	if m.Stride != nil {
		opts = append(opts, F.WithStride(m.Stride...))
	}
	if rankOf[D]() == 1 {
		return F.TryLpPool1d(x, m.NormType, m.KernelSize, opts...)
	}
	return F.TryLpPool2d(x, m.NormType, m.KernelSize, opts...)
}

// ExtraRepr is "norm_type=2.0, kernel_size=2, stride=None,
// ceil_mode=False".
func (m *LPPoolModule[D]) ExtraRepr() string {
	stride := "None"
	if m.Stride != nil {
		stride = pyIntOrTuple(m.Stride)
	}
	return "norm_type=" + pyFloat(m.NormType) + ", kernel_size=" + pyIntOrTuple(m.KernelSize) + ", stride=" + stride +
		", ceil_mode=" + pyBool(m.CeilMode)
}
