package vision

import (
	"fmt"

	"github.com/gotorch/gotorch/nn"
	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/torch"
)

// VGGModel is torchvision's VGG: features (a Sequential of 3×3
// convolutions, batch norms when asked, ReLUs and 2×2 max pools), an
// adaptive average pool to 7×7 and classifier (Linear 25088→4096, ReLU,
// Dropout, Linear 4096→4096, ReLU, Dropout, Linear 4096→num_classes, keyed
// classifier.0, .3 and .6).
type VGGModel struct {
	nn.Module
	Features   *nn.SequentialModule
	Avgpool    *nn.AdaptiveAvgPool2dModule
	Classifier *nn.SequentialModule
}

// M in a VGG configuration is a 2×2 max pool; any other entry is the
// output channels of a 3×3 convolution.
const M = -1

// VGG configurations of torchvision (cfgs): A is vgg11, B vgg13, D vgg16, E
// vgg19.
var (
	VGGConfigA = []int64{64, M, 128, M, 256, 256, M, 512, 512, M, 512, 512, M}
	VGGConfigB = []int64{64, 64, M, 128, 128, M, 256, 256, M, 512, 512, M, 512, 512, M}
	VGGConfigD = []int64{64, 64, M, 128, 128, M, 256, 256, 256, M, 512, 512, 512, M, 512, 512, 512, M}
	VGGConfigE = []int64{64, 64, M, 128, 128, M, 256, 256, 256, 256, M, 512, 512, 512, 512, M, 512, 512, 512, 512, M}
)

// VGG11BN is torchvision.models.vgg11_bn (132,868,840 parameters with 1000
// classes). Options: WithNumClasses, WithDropout (0.5), WithInitWeights.
// It panics on a bad option.
func VGG11BN(opts ...Option) *VGGModel { return must(NewVGG(MakeVGGLayers(VGGConfigA, true), opts...)) }

// VGG11 is torchvision.models.vgg11, without batch norms.
func VGG11(opts ...Option) *VGGModel { return must(NewVGG(MakeVGGLayers(VGGConfigA, false), opts...)) }

// MakeVGGLayers is torchvision's make_layers(cfg, batch_norm): the features
// Sequential of a configuration. It panics on an entry that is neither M
// nor positive.
func MakeVGGLayers(cfg []int64, batchNorm bool) *nn.SequentialModule {
	var layers []nn.Moduler
	in := int64(3)
	for i, v := range cfg {
		switch {
		case v == M:
			layers = append(layers, nn.MaxPool2d(2, nn.WithStride(2)))
		case v > 0:
			layers = append(layers, nn.Conv2d(in, v, 3, nn.WithPadding(1)))
			if batchNorm {
				layers = append(layers, nn.BatchNorm2d(v))
			}
			layers = append(layers, nn.ReLU())
			in = v
		default:
			panic(fmt.Errorf("vision.MakeVGGLayers: entry %d is %d, want M or a positive number of channels", i, v))
		}
	}
	return nn.Sequential(layers...)
}

// NewVGG is torchvision's VGG(features, num_classes, init_weights,
// dropout): features must end in 512 channels, as the classifier's first
// Linear takes 512×7×7. Options: WithNumClasses, WithDropout (0.5),
// WithInitWeights (true).
func NewVGG(features *nn.SequentialModule, opts ...Option) (*VGGModel, error) {
	c := config{numClasses: 1000, dropout: 0.5, initWeights: true}
	if err := c.apply("VGG", opts, "num_classes", "dropout", "init_weights"); err != nil {
		return nil, err
	}
	if features == nil {
		return nil, fmt.Errorf("vision.VGG: nil features")
	}
	m := &VGGModel{
		Features: features,
		Avgpool:  nn.AdaptiveAvgPool2d(7),
		Classifier: nn.Sequential(
			nn.Linear(512*7*7, 4096), nn.ReLU(), nn.Dropout(nn.WithP(c.dropout)),
			nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(nn.WithP(c.dropout)),
			nn.Linear(4096, c.numClasses)),
	}
	m.Init(m)
	if c.initWeights {
		for _, nm := range m.NamedModules() {
			switch l := nm.Module.(type) {
			case *nn.Conv2dModule:
				nninit.KaimingNormal_(l.Weight, nninit.WithMode("fan_out"), nninit.WithNonlinearity("relu"))
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
	}
	return m, nil
}

// Forward maps images (N, 3, H, W) to class scores (N, num_classes). It
// panics on bad input; TryForward returns the error.
func (m *VGGModel) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *VGGModel) TryForward(x torch.Tensor) (y torch.Tensor, err error) {
	if err := checkImages("VGG", m, x, 3, 0); err != nil {
		return torch.Tensor{}, err
	}
	err = catch("VGG", func() {
		y = m.Classifier.Forward(m.Avgpool.Forward(m.Features.Forward(x)).FlattenFrom(1))
	})
	return y, err
}
