package nn

// The activations without settings (ReLU, Tanh, ...), those along a
// dimension (Softmax, LogSoftmax, Softmin) and those with one float
// setting (ELU, CELU, LeakyReLU) are in activation_gen.go, written from
// tables by internal/genlayers.

//go:generate go run ./internal/genlayers

import (
	"fmt"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// GELUModule applies the Gaussian error linear unit, exact or with the
// tanh approximation (torch.nn.GELU).
type GELUModule struct {
	Module
	Approximate string // "none" or "tanh"
}

// GELU returns a GELUModule.
//
// Options: WithApproximate ("none"; or "tanh").
func GELU(opts ...Option) *GELUModule {
	var a layerArgs
	a.parse("GELU", opts, "approximate")
	m := &GELUModule{Approximate: a.str("approximate", "none")}
	m.Init(m)
	return m
}

// Forward applies the activation to x.
func (m *GELUModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *GELUModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryGelu(x, F.WithApproximate(m.Approximate))
}

// ExtraRepr is "approximate='none'".
func (m *GELUModule) ExtraRepr() string { return "approximate='" + m.Approximate + "'" }

// HardtanhModule clamps x to [MinVal, MaxVal] (torch.nn.Hardtanh).
type HardtanhModule struct {
	Module
	MinVal, MaxVal float64
}

// Hardtanh returns a HardtanhModule.
//
// Options: WithMinVal (-1), WithMaxVal (1).
func Hardtanh(opts ...Option) *HardtanhModule {
	var a layerArgs
	a.parse("Hardtanh", opts, "min_val", "max_val")
	minVal, maxVal := a.float("min_val", -1), a.float("max_val", 1)
	if maxVal <= minVal {
		layerPanic("Hardtanh", "max_val must be greater than min_val")
	}
	m := &HardtanhModule{MinVal: minVal, MaxVal: maxVal}
	m.Init(m)
	return m
}

// Forward applies the activation to x.
func (m *HardtanhModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *HardtanhModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryHardtanh(x, F.WithMinVal(m.MinVal), F.WithMaxVal(m.MaxVal))
}

// ExtraRepr is "min_val=-1.0, max_val=1.0".
func (m *HardtanhModule) ExtraRepr() string {
	return "min_val=" + pyFloat(m.MinVal) + ", max_val=" + pyFloat(m.MaxVal)
}

// SoftplusModule applies log(1+exp(Beta·x))/Beta, linear above Threshold
// (torch.nn.Softplus).
type SoftplusModule struct {
	Module
	Beta, Threshold float64
}

// Softplus returns a SoftplusModule.
//
// Options: WithBeta (1), WithThreshold (20).
func Softplus(opts ...Option) *SoftplusModule {
	var a layerArgs
	a.parse("Softplus", opts, "beta", "threshold")
	m := &SoftplusModule{Beta: a.float("beta", 1), Threshold: a.float("threshold", 20)}
	m.Init(m)
	return m
}

// Forward applies the activation to x.
func (m *SoftplusModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *SoftplusModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TrySoftplus(x, F.WithBeta(m.Beta), F.WithThreshold(m.Threshold))
}

// ExtraRepr is "beta=1, threshold=20" (PyTorch's defaults are ints, so
// whole numbers print as ints).
func (m *SoftplusModule) ExtraRepr() string {
	return "beta=" + pyNumber(m.Beta) + ", threshold=" + pyNumber(m.Threshold)
}

// pyNumber prints whole numbers as ints and others as floats.
func pyNumber(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprint(int64(v))
	}
	return pyFloat(v)
}

// ThresholdModule replaces the elements not above Threshold by Value
// (torch.nn.Threshold).
type ThresholdModule struct {
	Module
	Threshold, Value float64
}

// Threshold returns a ThresholdModule.
func Threshold(threshold, value float64) *ThresholdModule {
	m := &ThresholdModule{Threshold: threshold, Value: value}
	m.Init(m)
	return m
}

// Forward applies the activation to x.
func (m *ThresholdModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *ThresholdModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryThreshold(x, m.Threshold, m.Value)
}

// ExtraRepr is "threshold=0.1, value=20.0".
func (m *ThresholdModule) ExtraRepr() string {
	return "threshold=" + pyFloat(m.Threshold) + ", value=" + pyFloat(m.Value)
}

// GLUModule is the gated linear unit a·sigmoid(b) of the halves of the
// input along Dim (torch.nn.GLU).
type GLUModule struct {
	Module
	Dim int64
}

// GLU returns a GLUModule.
//
// Options: WithDim (-1).
func GLU(opts ...Option) *GLUModule {
	var a layerArgs
	a.parse("GLU", opts, "dim")
	m := &GLUModule{Dim: a.int("dim", -1)}
	m.Init(m)
	return m
}

// Forward applies the activation to x.
func (m *GLUModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *GLUModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryGlu(x, F.WithDim(m.Dim))
}

// ExtraRepr is "dim=-1".
func (m *GLUModule) ExtraRepr() string { return fmt.Sprintf("dim=%d", m.Dim) }

// PReLUModule applies max(0, x) + Weight·min(0, x) with a learned slope,
// one for all channels or one per channel (torch.nn.PReLU).
type PReLUModule struct {
	Module
	Weight        torch.Tensor // (num_parameters), filled with init
	NumParameters int64
}

// PReLU returns a PReLUModule.
//
// Options: WithNumParameters (1), WithInit (0.25), WithDtype, WithDevice.
func PReLU(opts ...Option) *PReLUModule {
	var a layerArgs
	a.parse("PReLU", opts, "num_parameters", "init", "dtype", "device")
	n := a.int("num_parameters", 1)
	m := &PReLUModule{NumParameters: n, Weight: a.param(n)}
	torch.NoGrad(func() { m.Weight.FillScalar_(torch.S(a.float("init", 0.25))) })
	m.Init(m)
	return m
}

// Forward applies the activation to x.
func (m *PReLUModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *PReLUModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryPrelu(x, m.Weight)
}

// ExtraRepr is "num_parameters=1".
func (m *PReLUModule) ExtraRepr() string { return fmt.Sprintf("num_parameters=%d", m.NumParameters) }
