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
// libtorch has it).
//
// Inputs are checked. The compiled code trusts its inputs (unless it was
// compiled with aot_inductor.debug_compile): a tensor of the wrong shape
// or dtype is read out of bounds. Run therefore checks every input against
// an InputSpec before libtorch sees it: the number of inputs, each one's
// dtype, device type and rank, each static size, and each dynamic size
// (mul*symbol + add) against its symbol's range and against the other
// inputs that share the symbol; a non-contiguous input is made contiguous
// where the package wants one, and one with other strides is refused. A
// wrong input is an error that names its index, what it is and what was
// expected. PyTorch 2.6's packages do not record their inputs' shapes, so
// the spec comes from
//
//   - the package's metadata, key "gotorch_inputs" (MetadataKey), where
//     gotorch_aoti.py (beside this file) puts it when it compiles the
//     package from the exported program (ParseInputSpec reads it);
//   - or the caller, WithInputSpec;
//   - or nowhere, WithUncheckedInputs, which checks only the number of
//     inputs and their device type (for a package compiled with
//     debug_compile, which checks its inputs itself, or one you trust
//     your callers with).
//
// Without any of them Load fails with ErrNoInputSpec. Load only packages
// you trust; a package is native code.
//
// Spec, input checks and the file map: aoti.go (Load, Run), spec.go
// (InputSpec, ParseInputSpec, the checks), gotorch_aoti.py (the Python
// side).
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

// ErrBadInput is the cause when an input to Run does not fit the
// package's input spec.
var ErrBadInput = errors.New("input does not fit the AOTInductor package")

// ErrNoInputSpec is the cause when Load finds no input spec in the
// package and was given none (WithInputSpec) nor WithUncheckedInputs.
var ErrNoInputSpec = errors.New("the package records no input spec (compile it with gotorch_aoti.py, " +
	"or pass aoti.WithInputSpec, or aoti.WithUncheckedInputs to run it unchecked)")

// Model is a loaded AOTInductor package.
type Model struct {
	mu      sync.RWMutex
	h       C.gt_aoti_model // nil once closed
	inputs  int
	outputs int
	spec    *InputSpec // nil: unchecked
	device  torch.DeviceType
	layout  []int64 // for gt_aoti_run, from spec
}

// Option is an optional argument of Load, named With plus what it sets,
// as the options of packages torch and nn are. When one is repeated, the
// last one wins; the zero Option is an error.
type Option struct {
	name string
	spec *InputSpec
	s    string
}

type options struct {
	name      string
	spec      *InputSpec
	unchecked bool
}

// WithInputSpec gives the spec to check inputs against, for a package
// that records none (or in place of the one it records).
func WithInputSpec(spec *InputSpec) Option { return Option{name: "input_spec", spec: spec} }

// WithUncheckedInputs loads a package that records no input spec and
// runs it with only the number of inputs and their device type checked.
// A wrong shape or dtype is then read out of bounds, unless the package
// was compiled with torch._inductor.config.aot_inductor.debug_compile,
// whose code checks its inputs itself.
func WithUncheckedInputs() Option { return Option{name: "unchecked_inputs"} }

// WithModelName picks a model of a package that holds several (the
// default is "model", the one aoti_compile_and_package writes).
func WithModelName(name string) Option { return Option{name: "model_name", s: name} }

// apply sets o from opts.
func (o *options) apply(op string, opts []Option) error {
	for i, opt := range opts {
		switch opt.name {
		case "input_spec":
			o.spec = opt.spec
		case "unchecked_inputs":
			o.unchecked = true
		case "model_name":
			o.name = opt.s
		default:
			return &torch.Error{Op: op, Msg: fmt.Sprintf("option %d is the zero Option (use the With functions)", i+1)}
		}
	}
	return nil
}

// Load loads the AOTInductor package at path.
func Load(path string, opts ...Option) (*Model, error) {
	const op = "aoti.load"
	var o options
	if err := o.apply(op, opts); err != nil {
		return nil, err
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
	if err := m.setSpec(path, &o); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// setSpec picks the input spec and checks that it fits the package.
func (m *Model) setSpec(path string, o *options) error {
	const op = "aoti.load"
	md, err := m.Metadata()
	if err != nil {
		return err
	}
	dev, err := torch.TryParseDevice(md["AOTI_DEVICE_KEY"])
	if err != nil {
		return &torch.Error{Op: op, Msg: fmt.Sprintf("%s: AOTI_DEVICE_KEY: %v", path, err), Err: ErrBadSpec}
	}
	m.device = dev.Type
	spec := o.spec
	if spec != nil {
		if err := spec.validate(); err != nil {
			return &torch.Error{Op: op, Msg: "WithInputSpec: " + err.Error(), Err: err}
		}
	} else if s, ok := md[MetadataKey]; ok {
		if spec, err = ParseInputSpec(s); err != nil {
			return &torch.Error{Op: op, Msg: fmt.Sprintf("%s: metadata %s: %v", path, MetadataKey, err), Err: err}
		}
	} else if !o.unchecked {
		return &torch.Error{Op: op, Msg: path + ": " + ErrNoInputSpec.Error(), Err: ErrNoInputSpec}
	}
	if spec == nil {
		return nil
	}
	if len(spec.Inputs) != m.inputs {
		err := specErr("%d inputs, but the package takes %d", len(spec.Inputs), m.inputs)
		return &torch.Error{Op: op, Msg: path + ": " + err.Error(), Err: err}
	}
	for i, in := range spec.Inputs {
		if in.Device != m.device {
			err := specErr("input %d on %s, but the package runs on %s", i, in.Device, m.device)
			return &torch.Error{Op: op, Msg: path + ": " + err.Error(), Err: err}
		}
		switch {
		case in.Contiguous:
			m.layout = append(m.layout, 1)
		default:
			m.layout = append(m.layout, 2, int64(len(in.Strides)))
			m.layout = append(m.layout, in.Strides...)
		}
	}
	m.spec = spec
	return nil
}

// InputSpec returns the spec Run checks inputs against, nil when they go
// unchecked (WithUncheckedInputs). The caller must not change it.
func (m *Model) InputSpec() *InputSpec { return m.spec }

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
	defer func() {
		for _, t := range inputs {
			native.Release(t)
		}
	}()
	if m.spec != nil {
		if err := m.spec.check(inputs); err != nil {
			return nil, &torch.Error{Op: op, Msg: err.Error(), Err: ErrBadInput}
		}
	} else {
		for i, t := range inputs {
			if dev := t.Device(); dev.Type != m.device {
				return nil, &torch.Error{Op: op, Msg: fmt.Sprintf("input %d is on %s, want %s", i, dev, m.device), Err: ErrBadInput}
			}
		}
	}
	var ph *C.gt_tensor
	if len(hs) > 0 {
		ph = &hs[0]
	}
	var pl *C.int64_t
	if len(m.layout) > 0 {
		pl = (*C.int64_t)(unsafe.Pointer(&m.layout[0]))
	}
	r := C.gt_aoti_run(m.h, ph, C.int64_t(len(hs)), pl, C.int64_t(len(m.layout)))
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
