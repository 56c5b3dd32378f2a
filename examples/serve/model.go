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
	"github.com/gotorch/gotorch/torch/jit"
	"github.com/gotorch/gotorch/torch/pt"
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

// torchModel runs a forward function (images to logits) on the batch
// worker's goroutine and turns its logits into probabilities.
type torchModel struct {
	name    string
	forward func(torch.Tensor) (torch.Tensor, error)
}

// moduleForward adapts a GoTorch module's Forward, which panics with a
// *torch.Error, to an error return.
func moduleForward(forward func(torch.Tensor) torch.Tensor) func(torch.Tensor) (torch.Tensor, error) {
	return func(x torch.Tensor) (y torch.Tensor, err error) {
		defer func() {
			if p := recover(); p != nil {
				e, ok := p.(error)
				if !ok {
					panic(p)
				}
				err = e
			}
		}()
		return forward(x), nil
	}
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
	type result struct {
		probs []float32
		err   error
	}
	var r result
	torch.NoGrad(func() {
		r = torch.Scoped(func() result {
			in := torch.FromSlice(x, int64(n), 1, Side, Side)
			logits, err := m.forward(in)
			if err != nil {
				return result{err: err}
			}
			if s := logits.Shape(); len(s) != 2 || s[0] != int64(n) || s[1] != NumClasses {
				return result{err: fmt.Errorf("the model returned shape %v for %d images, want [%d %d]", s, n, n, NumClasses)}
			}
			p, err := F.TrySoftmax(logits, 1)
			if err != nil {
				return result{err: err}
			}
			flat, err := torch.TryToSlice[float32](p)
			return result{flat, err}
		})
	})
	flat, err := r.probs, r.err
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.name, err)
	}
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

// Weight formats, for -format.
const (
	formatSafetensors = "safetensors" // GoTorch's checkpoint: what `make train` and examples/fashion_mnist_go save
	formatPT          = "pt"          // torch.save(model.state_dict()) from PyTorch (export.py's OUT.pt)
	formatTorchScript = "torchscript" // torch.jit.script(model).save from PyTorch (export.py's OUT.torchscript.pt)
)

// loadModel loads the model from a weights file in one of the formats
// above, or "auto": .safetensors is GoTorch's checkpoint, *.torchscript.pt
// is TorchScript, and another .pt or .pth is a state dict, or TorchScript
// when torch/pt finds a TorchScript archive in it.
func loadModel(path, format string) (Model, error) {
	base := filepath.Base(path)
	if format == "auto" {
		format = formatOf(path)
		if format == "" {
			return nil, fmt.Errorf("%s: cannot tell the weights' format from the name; say -format safetensors, pt or torchscript", path)
		}
	}
	switch format {
	case formatSafetensors, formatPT:
		net := newCNN()
		var err error
		if format == formatSafetensors {
			err = nn.Load(net, path, true)
		} else if err = pt.LoadModule(net, path, true); errors.Is(err, pt.ErrTorchScript) {
			return loadModel(path, formatTorchScript)
		}
		if err != nil {
			return nil, fmt.Errorf("loading %s as %s: %w", path, format, err)
		}
		net.Eval()
		return &torchModel{name: "cnn from " + base, forward: moduleForward(net.Forward)}, nil
	case formatTorchScript:
		m, err := jit.Load(path)
		if err != nil {
			return nil, fmt.Errorf("loading %s as TorchScript: %w", path, err)
		}
		if err := m.Eval(); err != nil {
			return nil, err
		}
		return &torchModel{name: "TorchScript " + base, forward: func(x torch.Tensor) (torch.Tensor, error) {
			return m.ForwardTensor(x)
		}}, nil
	}
	return nil, fmt.Errorf("unknown -format %q (want auto, safetensors, pt or torchscript)", format)
}

func formatOf(path string) string {
	name := strings.ToLower(filepath.Base(path))
	switch {
	case strings.HasSuffix(name, ".safetensors"):
		return formatSafetensors
	case strings.HasSuffix(name, ".torchscript.pt"):
		return formatTorchScript
	case strings.HasSuffix(name, ".pt"), strings.HasSuffix(name, ".pth"):
		return formatPT
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
