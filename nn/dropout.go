package nn

import (
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

func dropoutP(layer string, opts []Option) float64 {
	a := layerArgs{p: 0.5}
	a.parse(layer, opts, "p")
	if a.p < 0 || a.p > 1 {
		layerPanic(layer, "dropout probability has to be between 0 and 1, but got %s", pyFloat(a.p))
	}
	return a.p
}

func dropoutRepr(p float64) string { return "p=" + pyFloat(p) + ", inplace=False" }

// DropoutModule zeroes elements with probability P in training and scales
// the others by 1/(1-P); in evaluation it returns its input
// (torch.nn.Dropout).
type DropoutModule struct {
	Module
	P float64
}

// Dropout returns a DropoutModule.
//
// Options: WithP (0.5).
func Dropout(opts ...Option) *DropoutModule {
	m := &DropoutModule{P: dropoutP("Dropout", opts)}
	m.Init(m)
	return m
}

// Forward applies dropout to x in training.
func (m *DropoutModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *DropoutModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryDropout(x, F.WithP(m.P), F.WithTraining(m.IsTraining()))
}

// ExtraRepr is "p=0.5, inplace=False".
func (m *DropoutModule) ExtraRepr() string { return dropoutRepr(m.P) }

// Dropout1dModule zeroes whole channels of (N, C, L) or (C, L) input
// (torch.nn.Dropout1d).
type Dropout1dModule struct {
	Module
	P float64
}

// Dropout1d returns a Dropout1dModule.
//
// Options: WithP (0.5).
func Dropout1d(opts ...Option) *Dropout1dModule {
	m := &Dropout1dModule{P: dropoutP("Dropout1d", opts)}
	m.Init(m)
	return m
}

// Forward applies channel dropout to x in training.
func (m *Dropout1dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *Dropout1dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryDropout1d(x, F.WithP(m.P), F.WithTraining(m.IsTraining()))
}

// ExtraRepr is "p=0.5, inplace=False".
func (m *Dropout1dModule) ExtraRepr() string { return dropoutRepr(m.P) }

// Dropout2dModule zeroes whole channels of (N, C, H, W) input
// (torch.nn.Dropout2d).
type Dropout2dModule struct {
	Module
	P float64
}

// Dropout2d returns a Dropout2dModule.
//
// Options: WithP (0.5).
func Dropout2d(opts ...Option) *Dropout2dModule {
	m := &Dropout2dModule{P: dropoutP("Dropout2d", opts)}
	m.Init(m)
	return m
}

// Forward applies channel dropout to x in training.
func (m *Dropout2dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *Dropout2dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryDropout2d(x, F.WithP(m.P), F.WithTraining(m.IsTraining()))
}

// ExtraRepr is "p=0.5, inplace=False".
func (m *Dropout2dModule) ExtraRepr() string { return dropoutRepr(m.P) }

// Dropout3dModule zeroes whole channels of (N, C, D, H, W) or (C, D, H, W)
// input (torch.nn.Dropout3d).
type Dropout3dModule struct {
	Module
	P float64
}

// Dropout3d returns a Dropout3dModule.
//
// Options: WithP (0.5).
func Dropout3d(opts ...Option) *Dropout3dModule {
	m := &Dropout3dModule{P: dropoutP("Dropout3d", opts)}
	m.Init(m)
	return m
}

// Forward applies channel dropout to x in training.
func (m *Dropout3dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *Dropout3dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryDropout3d(x, F.WithP(m.P), F.WithTraining(m.IsTraining()))
}

// ExtraRepr is "p=0.5, inplace=False".
func (m *Dropout3dModule) ExtraRepr() string { return dropoutRepr(m.P) }

// AlphaDropoutModule is dropout that keeps the mean and variance of SELU
// activations (torch.nn.AlphaDropout).
type AlphaDropoutModule struct {
	Module
	P float64
}

// AlphaDropout returns an AlphaDropoutModule.
//
// Options: WithP (0.5).
func AlphaDropout(opts ...Option) *AlphaDropoutModule {
	m := &AlphaDropoutModule{P: dropoutP("AlphaDropout", opts)}
	m.Init(m)
	return m
}

// Forward applies alpha dropout to x in training.
func (m *AlphaDropoutModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *AlphaDropoutModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryAlphaDropout(x, F.WithP(m.P), F.WithTraining(m.IsTraining()))
}

// ExtraRepr is "p=0.5, inplace=False".
func (m *AlphaDropoutModule) ExtraRepr() string { return dropoutRepr(m.P) }
