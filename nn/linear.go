package nn

import (
	"fmt"
	"math"

	F "github.com/gotorch/gotorch/nn/functional"
	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/torch"
)

// LinearModule applies y = x·Wᵀ + b (torch.nn.Linear).
type LinearModule struct {
	Module
	Weight                  torch.Tensor // (out_features, in_features)
	Bias                    torch.Tensor // (out_features); undefined with WithBias(false)
	InFeatures, OutFeatures int64
	*lazyInit               // LazyLinear's state; nil from Linear
}

// Linear returns a linear layer from inFeatures to outFeatures, initialized
// as PyTorch does: the weight from kaiming_uniform_ with a=√5, that is
// U(-1/√inFeatures, 1/√inFeatures), and the bias from the same range.
//
// Options: WithBias (true), WithDtype, WithDevice.
func Linear(inFeatures, outFeatures int64, opts ...Option) *LinearModule {
	var a layerArgs
	a.parse("Linear", opts, "bias", "dtype", "device")
	if inFeatures < 0 || outFeatures < 0 {
		layerPanic("Linear", "in_features and out_features must be non-negative, got %d and %d", inFeatures, outFeatures)
	}
	l := &LinearModule{InFeatures: inFeatures, OutFeatures: outFeatures, Weight: a.param(outFeatures, inFeatures)}
	if a.bool("bias", true) {
		l.Bias = a.param(outFeatures)
	}
	l.ResetParameters()
	l.Init(l)
	return l
}

// ResetParameters draws the weight and bias again, as Linear does.
func (l *LinearModule) ResetParameters() {
	nninit.KaimingUniform_(l.Weight, nninit.WithA(math.Sqrt(5)))
	if l.Bias.Defined() {
		fanIn, _ := nninit.CalculateFanInAndFanOut(l.Weight)
		bound := 0.0
		if fanIn > 0 {
			bound = 1 / math.Sqrt(float64(fanIn))
		}
		nninit.Uniform_(l.Bias, nninit.WithA(-bound), nninit.WithB(bound))
	}
}

// Forward applies the layer to x (*, in_features).
func (l *LinearModule) Forward(x torch.Tensor) torch.Tensor { return must(l.TryForward(x)) }

// TryForward is Forward that returns its error.
func (l *LinearModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if l == nil {
		return torch.Tensor{}, nilLayer(l)
	}
	if err := l.lazyInit.run(func() error { return l.infer(x) }); err != nil {
		return torch.Tensor{}, err
	}
	return F.TryLinear(x, l.Weight, F.WithBias(l.Bias))
}

// ExtraRepr is "in_features=4, out_features=2, bias=True".
func (l *LinearModule) ExtraRepr() string {
	return fmt.Sprintf("in_features=%d, out_features=%d, bias=%s", l.InFeatures, l.OutFeatures, pyBool(l.Bias.Defined()))
}

// BilinearModule applies y = x1ᵀ·W·x2 + b (torch.nn.Bilinear).
type BilinearModule struct {
	Module
	Weight                                torch.Tensor // (out_features, in1_features, in2_features)
	Bias                                  torch.Tensor // (out_features); undefined with WithBias(false)
	In1Features, In2Features, OutFeatures int64
}

// Bilinear returns a bilinear layer, its weight and bias drawn from
// U(-1/√in1Features, 1/√in1Features) as PyTorch does.
//
// Options: WithBias (true), WithDtype, WithDevice.
func Bilinear(in1Features, in2Features, outFeatures int64, opts ...Option) *BilinearModule {
	var a layerArgs
	a.parse("Bilinear", opts, "bias", "dtype", "device")
	l := &BilinearModule{In1Features: in1Features, In2Features: in2Features, OutFeatures: outFeatures,
		Weight: a.param(outFeatures, in1Features, in2Features)}
	if a.bool("bias", true) {
		l.Bias = a.param(outFeatures)
	}
	l.ResetParameters()
	l.Init(l)
	return l
}

// ResetParameters draws the weight and bias again, as Bilinear does.
func (l *BilinearModule) ResetParameters() {
	bound := 1 / math.Sqrt(float64(l.Weight.Size(1)))
	nninit.Uniform_(l.Weight, nninit.WithA(-bound), nninit.WithB(bound))
	if l.Bias.Defined() {
		nninit.Uniform_(l.Bias, nninit.WithA(-bound), nninit.WithB(bound))
	}
}

// Forward applies the layer to x1 (*, in1_features) and x2 (*,
// in2_features).
func (l *BilinearModule) Forward(x1, x2 torch.Tensor) torch.Tensor {
	return must(l.TryForward(x1, x2))
}

// TryForward is Forward that returns its error.
func (l *BilinearModule) TryForward(x1, x2 torch.Tensor) (torch.Tensor, error) {
	if l == nil {
		return torch.Tensor{}, nilLayer(l)
	}
	return F.TryBilinear(x1, x2, l.Weight, F.WithBias(l.Bias))
}

// ExtraRepr is "in1_features=2, in2_features=3, out_features=4, bias=True".
func (l *BilinearModule) ExtraRepr() string {
	return fmt.Sprintf("in1_features=%d, in2_features=%d, out_features=%d, bias=%s",
		l.In1Features, l.In2Features, l.OutFeatures, pyBool(l.Bias.Defined()))
}

// IdentityModule returns its input (torch.nn.Identity).
type IdentityModule struct {
	Module
}

// Identity returns an IdentityModule.
func Identity() *IdentityModule {
	m := &IdentityModule{}
	m.Init(m)
	return m
}

// Forward returns x.
func (m *IdentityModule) Forward(x torch.Tensor) torch.Tensor { return x }

// TryForward returns x.
func (m *IdentityModule) TryForward(x torch.Tensor) (torch.Tensor, error) { return x, nil }
