// Package aoti runs AOTInductor packages: the .pt2 files that PyTorch 2.x
// writes with torch._inductor.aoti_compile_and_package from a
// torch.export'ed program, model and weights compiled ahead of time into a
// shared library. It needs libtorch 2.6 or newer; with an older one Load
// returns an error wrapping torch.ErrUnsupported.
//
//	m, err := aoti.Load("model.pt2")
//	defer m.Close()
//	outs, err := m.Run(x, y) // the exported program's tensors, flattened
//
// The package runs on the device it was compiled for (CPU, or CUDA when
// libtorch has it). Inputs must have the dtypes, devices and shapes the
// program was exported with (dynamic dimensions excepted): Run checks
// their number, but the compiled code checks shapes only when it was
// compiled with torch._inductor.config.aot_inductor.debug_compile, so a
// tensor of the wrong shape is read out of bounds. Load only packages you
// trust; a package is native code.
//
// Run is safe from many goroutines at once; libtorch's runner serves
// them one at a time.
package aoti

/*
#cgo CFLAGS: -I${SRCDIR}/../../cgotorch
#include <stdlib.h>
#include "aoti/aoti.h"
*/
import "C"

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"sync"
	"unsafe"

	"runtime"

	// The C++ behind aoti.h.
	_ "github.com/gotorch/gotorch/cgotorch/aoti"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/internal/native"
)

// ErrClosed is the cause when a Model is used after Close.
var ErrClosed = errors.New("AOTInductor model used after Close")

// Model is a loaded AOTInductor package.
type Model struct {
	mu      sync.RWMutex
	h       C.gt_aoti_model // nil once closed
	inputs  int
	outputs int
}

// Option configures Load.
type Option func(*options)

type options struct{ name string }

// WithModelName picks a model of a package that holds several (the
// default is "model", the one aoti_compile_and_package writes).
func WithModelName(name string) Option { return func(o *options) { o.name = name } }

// Load loads the AOTInductor package at path.
func Load(path string, opts ...Option) (*Model, error) {
	const op = "aoti.load"
	var o options
	for _, f := range opts {
		f(&o)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, &torch.Error{Op: op, Msg: err.Error(), Err: err}
	}
	cpath, cname := C.CString(path), C.CString(o.name)
	defer C.free(unsafe.Pointer(cpath))
	defer C.free(unsafe.Pointer(cname))
	r := C.gt_aoti_load(cpath, cname)
	if r.err != nil {
		err := native.Error(op, unsafe.Pointer(r.err))
		if te, ok := err.(*torch.Error); ok && !errors.Is(err, torch.ErrUnsupported) {
			te.Msg = path + ": " + te.Msg
		}
		return nil, err
	}
	m := &Model{h: r.m}
	c := C.gt_aoti_counts_of(r.m)
	if c.err != nil {
		C.gt_aoti_free(r.m)
		return nil, native.Error(op, unsafe.Pointer(c.err))
	}
	m.inputs, m.outputs = int(c.inputs), int(c.outputs)
	runtime.SetFinalizer(m, (*Model).Close)
	return m, nil
}

// NumInputs and NumOutputs are the numbers of tensors the compiled
// program takes and returns (its inputs and outputs flattened).
func (m *Model) NumInputs() int  { return m.inputs }
func (m *Model) NumOutputs() int { return m.outputs }

// Close frees the model; results taken from it stay valid. It is
// idempotent.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.h != nil {
		C.gt_aoti_free(m.h)
		m.h = nil
		runtime.SetFinalizer(m, nil)
	}
	return nil
}

func (m *Model) rlock(op string) error {
	if m == nil {
		return &torch.Error{Op: op, Msg: "nil *aoti.Model"}
	}
	m.mu.RLock()
	if m.h == nil {
		m.mu.RUnlock()
		return &torch.Error{Op: op, Msg: ErrClosed.Error(), Err: ErrClosed}
	}
	return nil
}

// Run runs the compiled program on inputs and returns its outputs.
func (m *Model) Run(inputs ...torch.Tensor) ([]torch.Tensor, error) {
	const op = "aoti.run"
	if err := m.rlock(op); err != nil {
		return nil, err
	}
	defer m.mu.RUnlock()
	if len(inputs) != m.inputs {
		return nil, &torch.Error{Op: op, Msg: fmt.Sprintf("the model takes %d input tensor(s), got %d", m.inputs, len(inputs))}
	}
	hs := make([]C.gt_tensor, len(inputs))
	for i, t := range inputs {
		p, err := native.Borrow(t, op, fmt.Sprintf("inputs[%d]", i))
		if err != nil {
			for _, u := range inputs[:i] {
				native.Release(u)
			}
			return nil, err
		}
		hs[i] = C.gt_tensor(p)
	}
	var ph *C.gt_tensor
	if len(hs) > 0 {
		ph = &hs[0]
	}
	r := C.gt_aoti_run(m.h, ph, C.int64_t(len(hs)))
	for _, t := range inputs {
		native.Release(t)
	}
	if r.err != nil {
		return nil, native.Error(op, unsafe.Pointer(r.err))
	}
	defer C.gt_aoti_tensors_free(&r)
	out := make([]torch.Tensor, int(r.n))
	if r.n > 0 {
		for i, h := range unsafe.Slice(r.ts, int(r.n)) {
			out[i] = native.Adopt(unsafe.Pointer(h)).(torch.Tensor)
		}
	}
	return out, nil
}

// Metadata returns the package's metadata, such as "AOTI_DEVICE_KEY"
// (the device it was compiled for).
func (m *Model) Metadata() (map[string]string, error) {
	const op = "aoti.metadata"
	if err := m.rlock(op); err != nil {
		return nil, err
	}
	r := C.gt_aoti_metadata(m.h)
	m.mu.RUnlock()
	if r.err != nil {
		return nil, native.Error(op, unsafe.Pointer(r.err))
	}
	defer C.gt_aoti_bytes_free(&r)
	parts := bytes.Split(C.GoBytes(unsafe.Pointer(r.p), C.int(r.n)), []byte{0})
	md := map[string]string{}
	for i := 0; i+1 < len(parts); i += 2 {
		md[string(parts[i])] = string(parts[i+1])
	}
	return md, nil
}
