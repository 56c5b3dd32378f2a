package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gotorch/gotorch/classfile"
	"github.com/gotorch/gotorch/data"
	"github.com/gotorch/gotorch/examples/fashion_mnist/cnn"
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// Fashion-MNIST's normalisation, the one the model was trained with
// (examples/fashion_mnist, examples/fashion_mnist_go).
const (
	pixelMean = 0.2860
	pixelStd  = 0.3530
)

// NumClasses is the number of Fashion-MNIST classes.
const NumClasses = 10

// Probs are one image's class probabilities.
type Probs [NumClasses]float32

// Model is what the server runs: a batch of images in, their class
// probabilities out.
type Model interface {
	Classify(images []*Pixels) ([]Probs, error)
}

// torchModel runs a forward function from logits to probabilities on the
// batch worker's goroutine.
type torchModel struct {
	name    string
	forward func(torch.Tensor) torch.Tensor
}

// Classify normalises the batch into one [n, 1, 28, 28] tensor, runs the
// model without autograd and returns softmax probabilities. Every tensor
// it makes, inside the model too, is freed before it returns
// (torch.Scoped), so memory stays flat however many batches run.
func (m *torchModel) Classify(images []*Pixels) (probs []Probs, err error) {
	n := len(images)
	x := make([]float32, 0, n*Side*Side)
	for _, img := range images {
		for _, v := range img {
			x = append(x, (v-pixelMean)/pixelStd)
		}
	}
	defer func() {
		if p := recover(); p != nil {
			e, ok := p.(error)
			if !ok {
				panic(p)
			}
			probs, err = nil, fmt.Errorf("%s: %w", m.name, e)
		}
	}()
	var flat []float32
	torch.NoGrad(func() {
		flat = torch.Scoped(func() []float32 {
			in := torch.FromSlice(x, int64(n), 1, Side, Side)
			logits := m.forward(in)
			if s := logits.Shape(); len(s) != 2 || s[0] != int64(n) || s[1] != NumClasses {
				panic(fmt.Errorf("the model returned shape %v for %d images, want [%d %d]", s, n, n, NumClasses))
			}
			return F.Softmax(logits, 1).Float32s()
		})
	})
	probs = make([]Probs, n)
	for i := range probs {
		copy(probs[i][:], flat[i*NumClasses:])
	}
	return probs, nil
}

// newCNN builds the main job's CNN (package cnn, written in XGo) in eval
// mode, with GoTorch's initial weights.
func newCNN() *cnn.Net {
	net := classfile.Build(new(cnn.Net))
	net.Eval()
	return net
}

// loadModel loads a model from a weights file. format is "safetensors"
// (GoTorch's checkpoint: what `make train` and examples/fashion_mnist_go
// save) or "auto" to go by the file name.
func loadModel(path, format string) (Model, error) {
	if format == "auto" {
		format = formatOf(path)
	}
	switch format {
	case "safetensors":
		net := newCNN()
		if err := nn.Load(net, path, true); err != nil {
			return nil, fmt.Errorf("loading GoTorch checkpoint: %w", err)
		}
		net.Eval()
		return &torchModel{name: "cnn from " + filepath.Base(path), forward: net.Forward}, nil
	case "":
		return nil, fmt.Errorf("%s: cannot tell the weights' format from the name; say -format safetensors", path)
	}
	return nil, fmt.Errorf("unknown -format %q (want auto or safetensors)", format)
}

func formatOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".safetensors":
		return "safetensors"
	}
	return ""
}

// checkWeightsFile gives a clear error for a missing weights file.
func checkWeightsFile(path string) error {
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("weights file %s does not exist: train with `make train` (writes fashion_mnist.safetensors) or name one with -weights", path)
	} else if err != nil {
		return err
	}
	return nil
}

// label is a class's name.
func label(class int) string { return data.FashionMNISTClasses[class] }
