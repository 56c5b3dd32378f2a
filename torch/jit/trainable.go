package jit

/*
#include "jit/jit.h"
*/
import "C"

import (
	"io"
	"unsafe"

	"github.com/gotorch/gotorch/torch/internal/native"
)

// Trainable is a TorchScript module to fine-tune from Go, as tch-rs's
// TrainableCModule: its calls record autograd, and its floating-point
// parameters require grad, so that a loss computed from Forward's result
// back-propagates into them and an nn/optim optimizer given Parameters
// updates the module in place.
//
//	m, _ := jit.LoadTrainable("model.pt")
//	params, _ := m.Parameters()
//	opt := optim.SGD(params, optim.WithLR(0.1))
//	y, _ := m.ForwardTensor(x)
//	loss := ...; loss.Backward(); opt.Step(); opt.ZeroGrad()
type Trainable struct {
	*Module
}

// LoadTrainable loads a module as Load does and makes it Trainable. The
// module stays in the mode it was saved in; call Train for dropout and
// batch norm's training behaviour.
func LoadTrainable(path string, opts ...Option) (*Trainable, error) {
	m, err := Load(path, opts...)
	if err != nil {
		return nil, err
	}
	return m.trainable()
}

// LoadTrainableReader is LoadTrainable from a reader.
func LoadTrainableReader(r io.Reader, opts ...Option) (*Trainable, error) {
	m, err := LoadReader(r, opts...)
	if err != nil {
		return nil, err
	}
	return m.trainable()
}

func (m *Module) trainable() (*Trainable, error) {
	const op = "jit.trainable"
	if err := m.lock(op); err != nil {
		return nil, err
	}
	defer m.mu.Unlock()
	if err := native.Error(op, unsafe.Pointer(C.gt_jit_set_requires_grad(m.h, 1))); err != nil {
		return nil, err
	}
	m.grad = true
	return &Trainable{m}, nil
}
