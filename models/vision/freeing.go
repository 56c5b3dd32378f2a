package vision

import (
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// Freeing intermediates. A model's forward makes many large temporaries
// (a ResNet-18 forward at batch 32 makes about 1 GB of activations). Left
// to the collector they all stay alive until the next torch.GC(), the
// forward's peak memory is the sum of them, and each is faulted in fresh.
// As nn.Sequential does, the forwards of this package free each
// intermediate as soon as the layer that consumes it has returned, so that
// the next one reuses its memory, warm, from GoTorch's allocator. Only
// tensors made by the model's own nn layers are freed: never the caller's
// input, never what a user-supplied module (a replaced downsample or
// block) returns. Free drops only GoTorch's reference: autograd keeps what
// it saved for the backward pass.

// convBn is bn(conv(x)), the conv's result freed once bn has consumed it.
func convBn(conv *nn.Conv2dModule, bn *nn.BatchNorm2dModule, x torch.Tensor) torch.Tensor {
	c := conv.Forward(x)
	return consumed(bn.Forward(c), c)
}

// shortcut is a residual block's identity branch on x: x itself when
// downsample is nil, else downsample(x). own reports that the result is a
// fresh tensor of this package's layers, to be freed once added: true for
// a downsample of the shape this package builds (a Conv2d then a
// BatchNorm2d), which it runs itself as convBn; a downsample of any other
// shape (the user's) runs through its Forward and is never freed.
func shortcut(downsample *nn.SequentialModule, x torch.Tensor) (id torch.Tensor, own bool) {
	if downsample == nil {
		return x, false
	}
	if l := downsample.Layers; len(l) == 2 {
		conv, okConv := l[0].(*nn.Conv2dModule)
		bn, okBn := l[1].(*nn.BatchNorm2dModule)
		if okConv && okBn && conv != nil && bn != nil {
			return convBn(conv, bn, x), true
		}
	}
	return downsample.Forward(x), false
}

// addShortcut is relu(out + identity) in place in out, identity freed when
// own (see shortcut).
func addShortcut(out, identity torch.Tensor, own bool) torch.Tensor {
	out = out.Add_(identity).Relu_()
	if own {
		identity.Free()
	}
	return out
}

// consumed frees in, an intermediate that made out, and returns out. It
// keeps in when out is in itself (a layer that passed it on).
func consumed(out, in torch.Tensor) torch.Tensor {
	if out != in {
		in.Free()
	}
	return out
}

// runStage runs a ResNet stage (layer1 to layer4) on x. When every layer of
// the stage is one of this package's blocks, it runs them itself and frees
// each block's result once the next block has consumed it, and reports
// own: the result is the last block's own, fresh tensor. Otherwise (a stage
// that holds a module of the user's) it runs stage.Forward and frees
// nothing.
func runStage(stage *nn.SequentialModule, x torch.Tensor) (out torch.Tensor, own bool) {
	for _, l := range stage.Layers {
		switch l.(type) {
		case *BasicBlock, *BottleneckBlock:
		default:
			return stage.Forward(x), false
		}
	}
	h := x
	for i, l := range stage.Layers {
		var next torch.Tensor
		switch b := l.(type) {
		case *BasicBlock:
			next = b.Forward(h)
		case *BottleneckBlock:
			next = b.Forward(h)
		}
		if i > 0 {
			next = consumed(next, h)
		}
		h = next
	}
	return h, len(stage.Layers) > 0
}
