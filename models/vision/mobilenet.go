package vision

import (
	"fmt"
	"math"

	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/torch"
)

// MobileNetV2Model is torchvision's MobileNetV2: features, a Sequential of
// a stem (features.0, a Conv2dNormActivation), *InvertedResidual blocks
// and a last 1×1 Conv2dNormActivation, then global average pooling and
// classifier (Dropout, Linear: classifier.1). Its state-dict keys are
// torchvision's: features.0.0.weight, features.1.conv.0.0.weight,
// classifier.1.bias.
type MobileNetV2Model struct {
	nn.Module
	Features    *nn.SequentialModule
	Classifier  *nn.SequentialModule
	LastChannel int64 // the classifier's input features
}

// MobileNetV2 is torchvision.models.mobilenet_v2 (3,504,872 parameters with
// 1000 classes). Options: WithNumClasses, WithWidthMult,
// WithInvertedResidualSetting, WithRoundNearest, WithDropout (0.2). It
// panics on a bad option.
func MobileNetV2(opts ...Option) *MobileNetV2Model { return must(newMobileNetV2(opts)) }

// mobileNetV2Setting is the paper's: expansion t, channels c, repeats n,
// stride s.
var mobileNetV2Setting = [][4]int64{
	{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1},
}

func newMobileNetV2(opts []Option) (*MobileNetV2Model, error) {
	c := config{numClasses: 1000, widthMult: 1, invertedResidualSetting: mobileNetV2Setting, roundNearest: 8, dropout: 0.2}
	if err := c.apply("MobileNetV2", opts, "num_classes", "width_mult", "inverted_residual_setting", "round_nearest", "dropout"); err != nil {
		return nil, err
	}
	for i, r := range c.invertedResidualSetting {
		if r[3] != 1 && r[3] != 2 {
			return nil, fmt.Errorf("vision.MobileNetV2: inverted_residual_setting row %d: stride should be 1 or 2, got %d", i, r[3])
		}
	}
	input := makeDivisible(32*c.widthMult, c.roundNearest)
	last := makeDivisible(1280*math.Max(1, c.widthMult), c.roundNearest)
	features := []nn.Moduler{conv2dNormActivation(3, input, 3, 2, 1)}
	for _, r := range c.invertedResidualSetting {
		t, ch, n, s := r[0], r[1], r[2], r[3]
		out := makeDivisible(float64(ch)*c.widthMult, c.roundNearest)
		for i := int64(0); i < n; i++ {
			stride := int64(1)
			if i == 0 {
				stride = s
			}
			features = append(features, newInvertedResidual(input, out, stride, t))
			input = out
		}
	}
	features = append(features, conv2dNormActivation(input, last, 1, 1, 1))
	m := &MobileNetV2Model{
		Features:    nn.Sequential(features...),
		Classifier:  nn.Sequential(nn.Dropout(nn.WithP(c.dropout)), nn.Linear(last, c.numClasses)),
		LastChannel: last,
	}
	m.Init(m)
	for _, nm := range m.NamedModules() {
		switch l := nm.Module.(type) {
		case *nn.Conv2dModule:
			nninit.KaimingNormal_(l.Weight, nninit.WithMode("fan_out"))
			if l.Bias.Defined() {
				nninit.Zeros_(l.Bias)
			}
		case *nn.BatchNorm2dModule:
			nninit.Ones_(l.Weight)
			nninit.Zeros_(l.Bias)
		case *nn.LinearModule:
			nninit.Normal_(l.Weight, nninit.WithStd(0.01))
			nninit.Zeros_(l.Bias)
		}
	}
	return m, nil
}

// makeDivisible is torchvision's _make_divisible: v rounded to a multiple
// of divisor, at least divisor, and not more than 10% below v.
func makeDivisible(v float64, divisor int64) int64 {
	n := max(divisor, int64(v+float64(divisor)/2)/divisor*divisor)
	if float64(n) < 0.9*v {
		n += divisor
	}
	return n
}

// conv2dNormActivation is torchvision's Conv2dNormActivation with
// BatchNorm2d and ReLU6: a Sequential of a convolution without bias
// (padding (k-1)/2), a batch norm and ReLU6, keyed 0, 1, 2.
func conv2dNormActivation(in, out, kernel, stride, groups int64) *nn.SequentialModule {
	return nn.Sequential(
		nn.Conv2d(in, out, kernel, nn.WithStride(stride), nn.WithPadding((kernel-1)/2),
			nn.WithGroups(groups), nn.WithBias(false)),
		nn.BatchNorm2d(out), nn.ReLU6())
}

// InvertedResidual is torchvision's InvertedResidual block of MobileNetV2:
// conv, a Sequential of an expanding 1×1 Conv2dNormActivation (when the
// expansion is not 1), a depthwise 3×3 one, a 1×1 projection and a batch
// norm; the input is added when the stride is 1 and the channels stay.
type InvertedResidual struct {
	nn.Module
	Conv          *nn.SequentialModule
	Stride        int64
	OutChannels   int64
	UseResConnect bool
}

func newInvertedResidual(inp, oup, stride, expandRatio int64) *InvertedResidual {
	hidden := inp * expandRatio
	var layers []nn.Moduler
	if expandRatio != 1 {
		layers = append(layers, conv2dNormActivation(inp, hidden, 1, 1, 1))
	}
	layers = append(layers,
		conv2dNormActivation(hidden, hidden, 3, stride, hidden),
		nn.Conv2d(hidden, oup, 1, nn.WithBias(false)),
		nn.BatchNorm2d(oup))
	b := &InvertedResidual{Conv: nn.Sequential(layers...), Stride: stride, OutChannels: oup,
		UseResConnect: stride == 1 && inp == oup}
	b.Init(b)
	return b
}

// Forward runs the block on x, (N, C, H, W).
func (b *InvertedResidual) Forward(x torch.Tensor) torch.Tensor {
	if b.UseResConnect {
		return b.Conv.Forward(x).Add_(x)
	}
	return b.Conv.Forward(x)
}

// Forward maps images (N, 3, H, W) to class scores (N, num_classes). It
// panics on bad input; TryForward returns the error.
func (m *MobileNetV2Model) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *MobileNetV2Model) TryForward(x torch.Tensor) (y torch.Tensor, err error) {
	if err := checkImages("MobileNetV2", m, x, 3, 0); err != nil {
		return torch.Tensor{}, err
	}
	err = catch("MobileNetV2", func() {
		f := m.Features.Forward(x)
		y = m.Classifier.Forward(F.AdaptiveAvgPool2d(f, 1).FlattenFrom(1))
	})
	return y, err
}
