package jit

/*
#cgo CFLAGS: -I${SRCDIR}/../../cgotorch
#include <stdlib.h>
#include "jit/jit.h"
*/
import "C"

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unsafe"

	// The C++ behind jit.h.
	_ "github.com/gotorch/gotorch/cgotorch/jit"
	"github.com/gotorch/gotorch/internal/atomicfile"
	"github.com/gotorch/gotorch/internal/zipcheck"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/internal/native"
)

// ErrClosed is the cause when a Module is used after Close.
var ErrClosed = errors.New("module used after Close")

// Module is a TorchScript module loaded from a file that torch.jit.save
// wrote.
//
// Forward, Method, NamedParameters, NamedBuffers, IsTraining, Save and
// SaveTo may be called from many goroutines at once. To, Train, Eval and
// Close wait for the calls in flight and exclude new ones.
type Module struct {
	mu   sync.RWMutex
	h    C.gt_jit_module // nil once closed
	grad bool            // calls record autograd (Trainable)
}

// Option is an optional (keyword) argument of Load, LoadReader and
// LoadBytes, named With plus torch.jit.load's keyword, as the options of
// packages torch and nn are. The zero Option is an error.
type Option struct {
	name   string
	device torch.Device
}

// WithDevice loads the module's tensors onto d, as torch.jit.load's
// map_location does. Without it they go where they were saved from.
func WithDevice(d torch.Device) Option { return Option{name: "map_location", device: d} }

type options struct {
	device    torch.Device
	hasDevice bool
}

func (o *options) dev() (C.int32_t, C.int32_t) {
	if !o.hasDevice {
		return -1, -1
	}
	return C.int32_t(o.device.Type), C.int32_t(o.device.Index)
}

// newOptions applies opts; when one is repeated, the last one wins.
func newOptions(opts []Option) (*options, error) {
	o := &options{}
	for i, opt := range opts {
		switch opt.name {
		case "map_location":
			o.device, o.hasDevice = opt.device, true
		default:
			return nil, &torch.Error{Op: "jit.load", Msg: fmt.Sprintf("option %d is the zero Option (use the With functions)", i+1)}
		}
	}
	return o, nil
}

// Load reads a TorchScript module from the file at path.
func Load(path string, opts ...Option) (*Module, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &torch.Error{Op: "jit.load", Msg: err.Error(), Err: err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &torch.Error{Op: "jit.load", Msg: err.Error(), Err: err}
	}
	if err := checkArchive(f, st.Size()); err != nil {
		return nil, &torch.Error{Op: "jit.load", Msg: path + ": " + err.Error()}
	}
	// A TorchScript model's convolutions run inside libtorch, past the
	// generated ops that run the convolution check first.
	torch.ConvCheck()
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	dt, di := o.dev()
	r := C.gt_jit_load(cpath, dt, di)
	return newModule(r, path)
}

// LoadReader reads a TorchScript module from r, to its end.
func LoadReader(r io.Reader, opts ...Option) (*Module, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &torch.Error{Op: "jit.load", Msg: err.Error(), Err: err}
	}
	return LoadBytes(data, opts...)
}

// LoadBytes reads a TorchScript module from the contents of a file that
// torch.jit.save wrote.
func LoadBytes(data []byte, opts ...Option) (*Module, error) {
	if err := checkArchive(bytes.NewReader(data), int64(len(data))); err != nil {
		return nil, &torch.Error{Op: "jit.load", Msg: err.Error()}
	}
	torch.ConvCheck()
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	dt, di := o.dev()
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	r := C.gt_jit_load_bytes(p, C.int64_t(len(data)), dt, di)
	runtime.KeepAlive(data)
	return newModule(r, "")
}

// checkArchive reads the whole zip archive that a TorchScript file is and
// checks every member's CRC-32, so that a truncated or corrupted file is
// refused with a clear error before libtorch parses any of it. It also
// checks the zip directory against what libtorch's reader (miniz) would
// make of it (internal/zipcheck: entries marked as folders, names equal
// but for case, ...), since a CRC covers a member's data, not its entry,
// and source in code/ nested past what libtorch's recursive parser and
// compiler survive (codecheck.go). The pickles and the tensor records are
// checked in C++ (cgotorch/jit's check_archive) before torch::jit::load.
func checkArchive(r io.ReaderAt, size int64) error {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return fmt.Errorf("not a TorchScript file (a zip archive written by torch.jit.save): %w", err)
	}
	if len(z.File) == 0 {
		return errors.New("not a TorchScript file: the archive is empty")
	}
	top, err := zipcheck.Entries(z)
	if err != nil {
		return fmt.Errorf("corrupt TorchScript file: %w", err)
	}
	hasData := false
	for _, f := range z.File {
		if f.Name == top+"/data.pkl" {
			hasData = true
		}
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("corrupt TorchScript file: %s: %w", f.Name, err)
		}
		var w io.Writer = io.Discard
		if code, ok := strings.CutPrefix(f.Name, top+"/code/"); ok && strings.HasSuffix(code, ".py") {
			w = newCodeScanner(code)
		}
		_, err = io.Copy(w, rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("corrupt TorchScript file: %s: %w", f.Name, err)
		}
	}
	if !hasData {
		return fmt.Errorf("not a TorchScript file: the archive has no %s/data.pkl", top)
	}
	return nil
}

func newModule(r C.gt_jit_module_result, path string) (*Module, error) {
	if r.err != nil {
		err := native.Error("jit.load", unsafe.Pointer(r.err))
		if path != "" {
			if te, ok := err.(*torch.Error); ok {
				te.Msg = path + ": " + te.Msg
			}
		}
		return nil, err
	}
	m := &Module{h: r.m}
	runtime.SetFinalizer(m, (*Module).Close)
	return m, nil
}

// Close frees the module. Tensors taken from it (parameters, results)
// stay valid. Close is idempotent; any other use after it is an error
// wrapping ErrClosed.
func (m *Module) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.h != nil {
		C.gt_jit_free(m.h)
		m.h = nil
		runtime.SetFinalizer(m, nil)
	}
	return nil
}

func closedError(op string) error {
	return &torch.Error{Op: op, Msg: ErrClosed.Error(), Err: ErrClosed}
}

// rlock takes the read lock of an open module; the caller unlocks.
func (m *Module) rlock(op string) error {
	if m == nil {
		return &torch.Error{Op: op, Msg: "nil *jit.Module"}
	}
	m.mu.RLock()
	if m.h == nil {
		m.mu.RUnlock()
		return closedError(op)
	}
	return nil
}

func (m *Module) lock(op string) error {
	if m == nil {
		return &torch.Error{Op: op, Msg: "nil *jit.Module"}
	}
	m.mu.Lock()
	if m.h == nil {
		m.mu.Unlock()
		return closedError(op)
	}
	return nil
}

// Forward calls the module's forward method. Arguments and the result are
// Go values for TorchScript's (IValues): torch.Tensor; int64 (any Go
// integer going in); float64; bool; string; nil for None; torch.Device;
// complex128; []any for a tuple or a list of mixed values, and []int64,
// []float64, []bool, []string and []torch.Tensor for typed lists; maps
// such as map[string]torch.Tensor for dicts (keys str, int, float or bool;
// a result's map is typed when the dict's value type is one of those
// above, map[K]any otherwise). A Go slice becomes a tuple or a list as the
// method's signature asks. A final Kwargs argument passes keyword
// arguments.
//
// Unless the module is Trainable, the call runs without autograd (as under
// torch.no_grad()).
func (m *Module) Forward(args ...any) (any, error) { return m.call("forward", args) }

// Method calls the module's method name (one exported with
// @torch.jit.export, or forward) as Forward does.
func (m *Module) Method(name string, args ...any) (any, error) { return m.call(name, args) }

// ForwardTensor calls forward with tensors and returns its tensor result.
func (m *Module) ForwardTensor(args ...torch.Tensor) (torch.Tensor, error) {
	a := make([]any, len(args))
	for i, t := range args {
		a[i] = t
	}
	out, err := m.call("forward", a)
	if err != nil {
		return torch.Tensor{}, err
	}
	t, ok := out.(torch.Tensor)
	if !ok {
		return torch.Tensor{}, &torch.Error{Op: "jit.forward", Msg: fmt.Sprintf("forward returned %s, not a Tensor", goType(out))}
	}
	return t, nil
}

func goType(v any) string {
	if v == nil {
		return "None"
	}
	return fmt.Sprintf("%T", v)
}

func (m *Module) call(name string, args []any) (any, error) {
	op := "jit." + name
	var kw Kwargs
	if n := len(args); n > 0 {
		if k, ok := args[n-1].(Kwargs); ok {
			kw, args = k, args[:n-1]
		}
	}
	e := &encoder{op: op}
	defer e.release()
	for _, a := range args {
		if err := e.encode(a); err != nil {
			return nil, err
		}
	}
	var kwNames []byte
	kwKeys := make([]string, 0, len(kw))
	for k := range kw {
		kwKeys = append(kwKeys, k)
	}
	sort.Strings(kwKeys)
	for _, k := range kwKeys {
		if strings.IndexByte(k, 0) >= 0 {
			return nil, &torch.Error{Op: op, Msg: fmt.Sprintf("jit: keyword %q holds a NUL byte", k)}
		}
		kwNames = append(append(kwNames, k...), 0)
		if err := e.encode(kw[k]); err != nil {
			return nil, err
		}
	}
	if err := m.rlock(op); err != nil {
		return nil, err
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var nodes *C.gt_jit_value
	if len(e.nodes) > 0 {
		nodes = &e.nodes[0]
	}
	var strs, kwp *C.char
	if len(e.strs) > 0 {
		strs = (*C.char)(unsafe.Pointer(&e.strs[0]))
	}
	if len(kwNames) > 0 {
		kwp = (*C.char)(unsafe.Pointer(&kwNames[0]))
	}
	grad := C.int(0)
	if m.grad {
		grad = 1
	}
	r := C.gt_jit_call(m.h, cname, nodes, C.int64_t(len(e.nodes)), C.int64_t(len(args)+len(kw)),
		strs, C.int64_t(len(e.strs)), kwp, C.int64_t(len(kw)), grad)
	m.mu.RUnlock()
	runtime.KeepAlive(e)
	runtime.KeepAlive(kwNames)
	if r.err != nil {
		return nil, native.Error(op, unsafe.Pointer(r.err))
	}
	defer C.gt_jit_values_free(&r)
	d := newDecoder(&r)
	if len(d.nodes) == 0 {
		return nil, &torch.Error{Op: op, Msg: "jit: empty result from C"}
	}
	return d.decode(), nil
}

// MethodNames lists the module's methods (forward and those exported
// with @torch.jit.export), without its submodules'.
func (m *Module) MethodNames() ([]string, error) {
	const op = "jit.method_names"
	if err := m.rlock(op); err != nil {
		return nil, err
	}
	r := C.gt_jit_method_names(m.h)
	m.mu.RUnlock()
	if r.err != nil {
		return nil, native.Error(op, unsafe.Pointer(r.err))
	}
	defer C.gt_jit_bytes_free(&r)
	return splitNUL(C.GoBytes(unsafe.Pointer(r.p), C.int(r.n))), nil
}

func splitNUL(b []byte) []string {
	var s []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			i = len(b)
		}
		s = append(s, string(b[:i]))
		b = b[min(i+1, len(b)):]
	}
	return s
}

// Named is a tensor of a module with its PyTorch name ("lin.weight").
type Named struct {
	Name   string
	Tensor torch.Tensor
}

// NamedParameters returns the module's parameters and its submodules',
// in PyTorch's order and with its dotted names. The tensors are the
// module's own (they share its storage): changing them in place changes
// the module.
func (m *Module) NamedParameters() ([]Named, error) { return m.named("jit.named_parameters", 0) }

// NamedBuffers returns the module's buffers (such as a batch norm's
// running_mean), as NamedParameters does parameters.
func (m *Module) NamedBuffers() ([]Named, error) { return m.named("jit.named_buffers", 1) }

// Parameters returns the tensors of NamedParameters.
func (m *Module) Parameters() ([]torch.Tensor, error) {
	named, err := m.NamedParameters()
	if err != nil {
		return nil, err
	}
	ts := make([]torch.Tensor, len(named))
	for i, n := range named {
		ts[i] = n.Tensor
	}
	return ts, nil
}

func (m *Module) named(op string, buffers C.int) ([]Named, error) {
	if err := m.rlock(op); err != nil {
		return nil, err
	}
	r := C.gt_jit_named_tensors(m.h, buffers)
	m.mu.RUnlock()
	if r.err != nil {
		return nil, native.Error(op, unsafe.Pointer(r.err))
	}
	defer C.gt_jit_named_free(&r)
	names := splitNUL(C.GoBytes(unsafe.Pointer(r.names), C.int(r.nnames)))
	var hs []C.gt_tensor
	if r.n > 0 {
		hs = unsafe.Slice(r.ts, int(r.n))
	}
	out := make([]Named, len(hs))
	for i, h := range hs {
		out[i] = Named{Tensor: native.Adopt(unsafe.Pointer(h)).(torch.Tensor)}
		if i < len(names) {
			out[i].Name = names[i]
		}
	}
	if len(names) != len(hs) {
		return nil, &torch.Error{Op: op, Msg: fmt.Sprintf("jit: %d names for %d tensors", len(names), len(hs))}
	}
	return out, nil
}

// To moves the module's parameters and buffers to d, in place: tensors
// taken from NamedParameters before follow them.
func (m *Module) To(d torch.Device) error {
	const op = "jit.to"
	if err := m.lock(op); err != nil {
		return err
	}
	defer m.mu.Unlock()
	return native.Error(op, unsafe.Pointer(C.gt_jit_to(m.h, C.int32_t(d.Type), C.int32_t(d.Index))))
}

// Train sets the module and its submodules to training mode (dropout on,
// batch norm updating its statistics).
func (m *Module) Train() error { return m.setTrain(true) }

// Eval sets the module and its submodules to evaluation mode, as serving
// wants. A module loaded from a file is in the mode it was saved in.
func (m *Module) Eval() error { return m.setTrain(false) }

func (m *Module) setTrain(on bool) error {
	const op = "jit.train"
	if err := m.lock(op); err != nil {
		return err
	}
	defer m.mu.Unlock()
	c := C.int(0)
	if on {
		c = 1
	}
	return native.Error(op, unsafe.Pointer(C.gt_jit_train(m.h, c)))
}

// IsTraining reports whether the module is in training mode.
func (m *Module) IsTraining() (bool, error) {
	if err := m.rlock("jit.is_training"); err != nil {
		return false, err
	}
	defer m.mu.RUnlock()
	return C.gt_jit_is_training(m.h) != 0, nil
}

// SaveTo writes the module in torch.jit.save's format to w.
func (m *Module) SaveTo(w io.Writer) error {
	const op = "jit.save"
	if err := m.rlock(op); err != nil {
		return err
	}
	r := C.gt_jit_save(m.h)
	m.mu.RUnlock()
	if r.err != nil {
		return native.Error(op, unsafe.Pointer(r.err))
	}
	defer C.gt_jit_bytes_free(&r)
	if _, err := w.Write(unsafe.Slice((*byte)(unsafe.Pointer(r.p)), int(r.n))); err != nil {
		return &torch.Error{Op: op, Msg: err.Error(), Err: err}
	}
	return nil
}

// Save writes the module to the file at path, atomically: a reader never
// sees a partial file.
func (m *Module) Save(path string) error {
	return atomicfile.Write(path, 0o644, m.SaveTo)
}
