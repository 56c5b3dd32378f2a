package vision

import (
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// BasicBlock is torchvision's BasicBlock: conv1 (3×3, stride), bn1, relu,
// conv2 (3×3), bn2, plus the input (through downsample when the shape
// changes), then relu.
type BasicBlock struct {
	nn.Module
	Conv1      *nn.Conv2dModule
	Bn1        *nn.BatchNorm2dModule
	Relu       *nn.ReLUModule
	Conv2      *nn.Conv2dModule
	Bn2        *nn.BatchNorm2dModule
	Downsample *nn.SequentialModule // nil when the input passes unchanged
}

func newBasicBlock(inplanes, planes, stride int64, downsample *nn.SequentialModule) *BasicBlock {
	b := &BasicBlock{
		Conv1: conv3x3(inplanes, planes, stride, 1, 1), Bn1: nn.BatchNorm2d(planes), Relu: nn.ReLU(),
		Conv2: conv3x3(planes, planes, 1, 1, 1), Bn2: nn.BatchNorm2d(planes), Downsample: downsample,
	}
	b.Init(b)
	return b
}

// Forward runs the block on x, (N, C, H, W). Its ReLUs work in place, as
// torchvision's (ReLU(inplace=True)), and it frees each intermediate tensor
// once the next layer has consumed it (see freeing.go); x is the caller's.
func (b *BasicBlock) Forward(x torch.Tensor) torch.Tensor {
	out := convBn(b.Conv1, b.Bn1, x).Relu_()
	out = consumed(convBn(b.Conv2, b.Bn2, out), out)
	identity, own := shortcut(b.Downsample, x)
	return addShortcut(out, identity, own)
}

// BottleneckBlock is torchvision's Bottleneck: conv1 (1×1), bn1, conv2
// (3×3, stride, groups, dilation), bn2, conv3 (1×1, 4× the planes), bn3,
// each but the last followed by relu, plus the input (through downsample
// when the shape changes), then relu.
type BottleneckBlock struct {
	nn.Module
	Conv1      *nn.Conv2dModule
	Bn1        *nn.BatchNorm2dModule
	Conv2      *nn.Conv2dModule
	Bn2        *nn.BatchNorm2dModule
	Conv3      *nn.Conv2dModule
	Bn3        *nn.BatchNorm2dModule
	Relu       *nn.ReLUModule
	Downsample *nn.SequentialModule // nil when the input passes unchanged
}

func newBottleneck(inplanes, planes, stride int64, downsample *nn.SequentialModule, groups, baseWidth, dilation int64) *BottleneckBlock {
	width := int64(float64(planes)*(float64(baseWidth)/64)) * groups
	b := &BottleneckBlock{
		Conv1: conv1x1(inplanes, width, 1), Bn1: nn.BatchNorm2d(width),
		Conv2: conv3x3(width, width, stride, groups, dilation), Bn2: nn.BatchNorm2d(width),
		Conv3: conv1x1(width, planes*4, 1), Bn3: nn.BatchNorm2d(planes * 4),
		Relu: nn.ReLU(), Downsample: downsample,
	}
	b.Init(b)
	return b
}

// Forward runs the block on x, (N, C, H, W), with in-place ReLUs and
// intermediates freed as BasicBlock's.
func (b *BottleneckBlock) Forward(x torch.Tensor) torch.Tensor {
	out := convBn(b.Conv1, b.Bn1, x).Relu_()
	out = consumed(convBn(b.Conv2, b.Bn2, out).Relu_(), out)
	out = consumed(convBn(b.Conv3, b.Bn3, out), out)
	identity, own := shortcut(b.Downsample, x)
	return addShortcut(out, identity, own)
}
