package nn

// RReLU and Softmax2d: the activations that differ from genlayers' tables
// (RReLU has two settings and follows training; Softmax2d checks its
// input's rank).

import (
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// RReLUModule is the randomized leaky ReLU (torch.nn.RReLU): in training
// each negative element is scaled by a slope drawn uniformly from [Lower,
// Upper]; in evaluation by (Lower+Upper)/2.
type RReLUModule struct {
	Module
	Lower, Upper float64
}

// RReLU returns an RReLUModule.
//
// Options: WithLower (1/8), WithUpper (1/3).
func RReLU(opts ...Option) *RReLUModule {
	var a layerArgs
	a.parse("RReLU", opts, "lower", "upper")
	m := &RReLUModule{Lower: a.float("lower", 1.0/8), Upper: a.float("upper", 1.0/3)}
	m.Init(m)
	return m
}

// Forward applies the activation to x.
func (m *RReLUModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *RReLUModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryRrelu(x, F.WithLower(m.Lower), F.WithUpper(m.Upper), F.WithTraining(m.IsTraining()))
}

// ExtraRepr is "lower=0.125, upper=0.3333333333333333".
func (m *RReLUModule) ExtraRepr() string {
	return "lower=" + pyFloat(m.Lower) + ", upper=" + pyFloat(m.Upper)
}

// Softmax2dModule applies softmax over the channels of (N, C, H, W) or
// (C, H, W) input, at each location (torch.nn.Softmax2d).
type Softmax2dModule struct{ Module }

// Softmax2d returns a Softmax2dModule.
func Softmax2d() *Softmax2dModule {
	m := &Softmax2dModule{}
	m.Init(m)
	return m
}

// Forward applies softmax over x's channels.
func (m *Softmax2dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *Softmax2dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	shape, err := tensorShape(x)
	if err != nil {
		return torch.Tensor{}, err
	}
	if d := len(shape); d != 3 && d != 4 {
		return torch.Tensor{}, layerError("Softmax2d", "expected input to be 3D or 4D, got %dD instead", d)
	}
	return F.TrySoftmax(x, -3)
}
