package main

import (
	"flag"
	"fmt"
	"path/filepath"

	"github.com/gotorch/gotorch/models/vision"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/pt"
)

// archFlag picks the model: the Fashion-MNIST CNN of package cnn, or one of
// torchvision's architectures from models/vision.
var archFlag = flag.String("arch", "cnn", "the model: cnn (package cnn, Fashion-MNIST's), or a torchvision architecture "+
	"of models/vision with 10 classes (resnet18, resnet34, resnet50, mobilenet_v2, vgg11_bn, vit_b_16), whose -weights are "+
	"its state dict saved from PyTorch: torch.save(model.state_dict(), \"model.pt\")")

// loadServedModel loads the model that -arch names from weights.
func loadServedModel(weights, format string) (Model, error) {
	if *archFlag == "" || *archFlag == "cnn" {
		return loadModel(weights, format)
	}
	return loadVisionModel(*archFlag, weights, format)
}

// loadVisionModel builds the torchvision architecture arch with
// Fashion-MNIST's 10 classes (as torchvision.models.<arch>(num_classes=10)
// does) and loads a state dict saved from it, strictly. The server's 28×28
// grey images, normalized as for the CNN, are repeated to three channels,
// and resized to the ViT's image_size. A model trained on them (say by
// examples/finetune_resnet) answers sensibly; ImageNet weights do not know
// these classes.
func loadVisionModel(arch, path, format string) (Model, error) {
	if format == "auto" {
		format = formatOf(path)
	}
	if format != formatPT {
		return nil, fmt.Errorf("-arch %s: the weights must be a PyTorch state dict (.pt, .pth, -format pt), not %q", arch, format)
	}
	m, err := vision.New(arch, vision.WithNumClasses(NumClasses))
	if err != nil {
		return nil, err
	}
	if err := pt.LoadModule(m, path, true); err != nil {
		return nil, fmt.Errorf("loading %s into %s: %w", path, arch, err)
	}
	m.Eval()
	var size int64
	if v, ok := m.(*vision.VisionTransformerModel); ok && v.ImageSize != Side {
		size = v.ImageSize
	}
	forward := func(x torch.Tensor) torch.Tensor {
		x = x.Expand([]int64{-1, 3, -1, -1})
		if size > 0 {
			x = F.Interpolate(x, F.WithSize(size, size), F.WithMode("bilinear"))
		}
		return m.Forward(x)
	}
	return &torchModel{name: arch + " from " + filepath.Base(path), forward: moduleForward(forward)}, nil
}
