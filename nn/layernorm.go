package nn

import (
	"fmt"

	F "github.com/gotorch/gotorch/nn/functional"
	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/torch"
)

// LayerNormModule normalizes the last dimensions, NormalizedShape, of its
// input (torch.nn.LayerNorm).
type LayerNormModule struct {
	Module
	Weight            torch.Tensor // NormalizedShape, ones; undefined with WithElementwiseAffine(false)
	Bias              torch.Tensor // NormalizedShape, zeros; undefined with WithElementwiseAffine(false)
	NormalizedShape   []int64
	Eps               float64
	ElementwiseAffine bool
}

// LayerNorm returns a LayerNormModule over the last dimensions
// normalizedShape: nn.LayerNorm(512) or nn.LayerNorm([]int64{8, 8}).
//
// Options: WithEps (1e-5), WithElementwiseAffine (true), WithDtype,
// WithDevice.
func LayerNorm[K IntOrTuple](normalizedShape K, opts ...Option) *LayerNormModule {
	var a layerArgs
	a.parse("LayerNorm", opts, "eps", "elementwise_affine", "dtype", "device")
	m := &LayerNormModule{NormalizedShape: F.Ints(normalizedShape), Eps: a.float("eps", 1e-5), ElementwiseAffine: a.bool("elementwise_affine", true)}
	for _, n := range m.NormalizedShape {
		if n < 0 {
			layerPanic("LayerNorm", "normalized_shape must be non-negative, got %v", m.NormalizedShape)
		}
	}
	if m.ElementwiseAffine {
		m.Weight, m.Bias = a.param(m.NormalizedShape...), a.param(m.NormalizedShape...)
	}
	m.ResetParameters()
	m.Init(m)
	return m
}

// ResetParameters sets the weight to ones and the bias to zeros.
func (m *LayerNormModule) ResetParameters() {
	if m.ElementwiseAffine {
		nninit.Ones_(m.Weight)
		nninit.Zeros_(m.Bias)
	}
}

// Forward normalizes x.
func (m *LayerNormModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *LayerNormModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryLayerNorm(x, m.NormalizedShape, F.WithWeight(m.Weight), F.WithBias(m.Bias), F.WithEps(m.Eps))
}

// ExtraRepr is "(4,), eps=1e-05, elementwise_affine=True".
func (m *LayerNormModule) ExtraRepr() string {
	return fmt.Sprintf("%s, eps=%s, elementwise_affine=%s", pyTuple(m.NormalizedShape), pyFloat(m.Eps), pyBool(m.ElementwiseAffine))
}
