package vision

import (
	"fmt"

	"github.com/gotorch/gotorch/nn"
	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/torch"
)

// ResNet is torchvision's ResNet (torchvision.models.resnet.ResNet): a
// stem (conv1, bn1, relu, maxpool), four stages of residual blocks
// (layer1 to layer4, each a Sequential of *BasicBlock or *Bottleneck),
// global average pooling and fc. Its state-dict keys are torchvision's:
// conv1.weight, layer1.0.conv1.weight, layer2.0.downsample.0.weight, fc.bias.
//
// To fine-tune, replace the head: net.Fc = nn.Linear(net.Fc.InFeatures, 10).
type ResNet struct {
	nn.Module
	Conv1   *nn.Conv2dModule
	Bn1     *nn.BatchNorm2dModule
	Relu    *nn.ReLUModule
	Maxpool *nn.MaxPool2dModule
	Layer1  *nn.SequentialModule
	Layer2  *nn.SequentialModule
	Layer3  *nn.SequentialModule
	Layer4  *nn.SequentialModule
	Avgpool *nn.AdaptiveAvgPool2dModule
	Fc      *nn.LinearModule
}

// Block is the residual block of a ResNet: Basic (BasicBlock, two 3×3
// convolutions; resnet18 and resnet34) or Bottleneck (1×1, 3×3, 1×1 with 4×
// expansion; resnet50 and up).
type Block int

const (
	Basic Block = iota
	Bottleneck
)

func (b Block) expansion() int64 {
	if b == Bottleneck {
		return 4
	}
	return 1
}

func (b Block) String() string {
	if b == Bottleneck {
		return "Bottleneck"
	}
	return "BasicBlock"
}

var resnetOptions = []string{"num_classes", "zero_init_residual", "groups", "width_per_group", "replace_stride_with_dilation"}

// ResNet18 is torchvision.models.resnet18: BasicBlock, [2, 2, 2, 2]
// (11,689,512 parameters with 1000 classes). Options: WithNumClasses,
// WithZeroInitResidual. It panics on a bad option.
func ResNet18(opts ...Option) *ResNet {
	return must(newResNet("ResNet18", Basic, [4]int{2, 2, 2, 2}, opts))
}

// ResNet34 is torchvision.models.resnet34: BasicBlock, [3, 4, 6, 3].
func ResNet34(opts ...Option) *ResNet {
	return must(newResNet("ResNet34", Basic, [4]int{3, 4, 6, 3}, opts))
}

// ResNet50 is torchvision.models.resnet50: Bottleneck, [3, 4, 6, 3]
// (25,557,032 parameters with 1000 classes). Options: those of NewResNet.
func ResNet50(opts ...Option) *ResNet {
	return must(newResNet("ResNet50", Bottleneck, [4]int{3, 4, 6, 3}, opts))
}

// NewResNet is torchvision's ResNet(block, layers, ...): layers[i] blocks
// in stage i+1. Options: WithNumClasses, WithZeroInitResidual, WithGroups
// and WithWidthPerGroup (Bottleneck only, as in torchvision),
// WithReplaceStrideWithDilation. It returns an error on a bad argument.
func NewResNet(block Block, layers [4]int, opts ...Option) (*ResNet, error) {
	return newResNet("NewResNet", block, layers, opts)
}

func newResNet(name string, block Block, layers [4]int, opts []Option) (*ResNet, error) {
	c := config{numClasses: 1000, groups: 1, widthPerGroup: 64}
	if err := c.apply(name, opts, resnetOptions...); err != nil {
		return nil, err
	}
	if block != Basic && block != Bottleneck {
		return nil, fmt.Errorf("vision.%s: unknown block %d", name, int(block))
	}
	for i, n := range layers {
		if n < 1 {
			return nil, fmt.Errorf("vision.%s: layer%d needs at least one block, got %d", name, i+1, n)
		}
	}
	if block == Basic && (c.groups != 1 || c.widthPerGroup != 64) {
		return nil, fmt.Errorf("vision.%s: BasicBlock only supports groups=1 and width_per_group=64", name)
	}
	if block == Basic && (c.replaceStrideWithDilation != [3]bool{}) {
		return nil, fmt.Errorf("vision.%s: dilation > 1 not supported in BasicBlock", name)
	}
	b := resnetBuilder{block: block, inplanes: 64, dilation: 1, groups: c.groups, baseWidth: c.widthPerGroup}
	r := &ResNet{
		Conv1:   nn.Conv2d(3, 64, 7, nn.WithStride(2), nn.WithPadding(3), nn.WithBias(false)),
		Bn1:     nn.BatchNorm2d(64),
		Relu:    nn.ReLU(),
		Maxpool: nn.MaxPool2d(3, nn.WithStride(2), nn.WithPadding(1)),
		Layer1:  b.layer(64, layers[0], 1, false),
		Layer2:  b.layer(128, layers[1], 2, c.replaceStrideWithDilation[0]),
		Layer3:  b.layer(256, layers[2], 2, c.replaceStrideWithDilation[1]),
		Layer4:  b.layer(512, layers[3], 2, c.replaceStrideWithDilation[2]),
		Avgpool: nn.AdaptiveAvgPool2d(1),
		Fc:      nn.Linear(512*block.expansion(), c.numClasses),
	}
	r.Init(r)
	r.resetParameters(c.zeroInitResidual)
	return r, nil
}

// resetParameters initializes as torchvision does: convolutions
// kaiming_normal_(mode="fan_out", nonlinearity="relu"), batch norms 1 and
// 0, and with zero_init_residual each block's last batch norm weight 0.
// fc keeps nn.Linear's initialization.
func (r *ResNet) resetParameters(zeroInitResidual bool) {
	for _, nm := range r.NamedModules() {
		switch m := nm.Module.(type) {
		case *nn.Conv2dModule:
			nninit.KaimingNormal_(m.Weight, nninit.WithMode("fan_out"), nninit.WithNonlinearity("relu"))
		case *nn.BatchNorm2dModule:
			nninit.Ones_(m.Weight)
			nninit.Zeros_(m.Bias)
		}
	}
	if !zeroInitResidual {
		return
	}
	for _, nm := range r.NamedModules() {
		switch m := nm.Module.(type) {
		case *BottleneckBlock:
			nninit.Zeros_(m.Bn3.Weight)
		case *BasicBlock:
			nninit.Zeros_(m.Bn2.Weight)
		}
	}
}

// resnetBuilder is the state of torchvision's ResNet constructor while it
// makes the stages (_make_layer).
type resnetBuilder struct {
	block                                 Block
	inplanes, dilation, groups, baseWidth int64
}

func (b *resnetBuilder) layer(planes int64, blocks int, stride int64, dilate bool) *nn.SequentialModule {
	previousDilation := b.dilation
	if dilate {
		b.dilation *= stride
		stride = 1
	}
	exp := b.block.expansion()
	var downsample *nn.SequentialModule
	if stride != 1 || b.inplanes != planes*exp {
		downsample = nn.Sequential(
			nn.Conv2d(b.inplanes, planes*exp, 1, nn.WithStride(stride), nn.WithBias(false)),
			nn.BatchNorm2d(planes*exp))
	}
	mods := []nn.Moduler{b.make(b.inplanes, planes, stride, downsample, previousDilation)}
	b.inplanes = planes * exp
	for i := 1; i < blocks; i++ {
		mods = append(mods, b.make(b.inplanes, planes, 1, nil, b.dilation))
	}
	return nn.Sequential(mods...)
}

func (b *resnetBuilder) make(inplanes, planes, stride int64, downsample *nn.SequentialModule, dilation int64) nn.Moduler {
	if b.block == Bottleneck {
		return newBottleneck(inplanes, planes, stride, downsample, b.groups, b.baseWidth, dilation)
	}
	return newBasicBlock(inplanes, planes, stride, downsample)
}

// conv3x3 is torchvision's conv3x3: padding dilation, no bias.
func conv3x3(in, out, stride, groups, dilation int64) *nn.Conv2dModule {
	return nn.Conv2d(in, out, 3, nn.WithStride(stride), nn.WithPadding(dilation),
		nn.WithGroups(groups), nn.WithBias(false), nn.WithDilation(dilation))
}

// conv1x1 is torchvision's conv1x1: no bias.
func conv1x1(in, out, stride int64) *nn.Conv2dModule {
	return nn.Conv2d(in, out, 1, nn.WithStride(stride), nn.WithBias(false))
}

// Forward maps images (N, 3, H, W) to class scores (N, num_classes). It
// panics on bad input; TryForward returns the error.
func (r *ResNet) Forward(x torch.Tensor) torch.Tensor { return must(r.TryForward(x)) }

// TryForward is Forward that returns its error.
func (r *ResNet) TryForward(x torch.Tensor) (y torch.Tensor, err error) {
	if err := checkImages("ResNet", r, x, 3, 0); err != nil {
		return torch.Tensor{}, err
	}
	err = catch("ResNet", func() {
		h := convBn(r.Conv1, r.Bn1, x).Relu_() // torchvision's ReLU(inplace=True)
		h = consumed(r.Maxpool.Forward(h), h)
		// Each stage's result is freed once the next has consumed it,
		// when both are made of this package's blocks (runStage).
		fresh := true
		for _, stage := range []*nn.SequentialModule{r.Layer1, r.Layer2, r.Layer3, r.Layer4} {
			out, own := runStage(stage, h)
			if fresh && own { // a module of the user's may keep its input
				out = consumed(out, h)
			}
			h, fresh = out, own
		}
		p := r.Avgpool.Forward(h)
		if fresh {
			h.Free()
		}
		f := p.FlattenFrom(1)
		y = r.Fc.Forward(f)
		f.Free()
		p.Free()
	})
	return y, err
}
