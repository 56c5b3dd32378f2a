package nn

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gotorch/gotorch/torch"
)

// ParameterListModule holds parameters in a list (torch.nn.ParameterList):
// they are registered under their indexes, so a module that keeps one in a
// field Weights has the state-dict keys weights.0, weights.1, … as in
// PyTorch.
//
// Like PyTorch's, the list makes each tensor that it is given a parameter:
// a leaf that requires grad is held as it is; any other tensor is held as
// p.Detach().SetRequiresGrad(true), a new tensor on the same data (PyTorch's
// nn.Parameter(p)). To freeze one, call SetRequiresGrad(false) on what Get
// returns. The zero Tensor{} is PyTorch's None: it takes its index but is
// not registered.
type ParameterListModule struct {
	Module
	Items []torch.Tensor `gotorch:"name="`
}

// ParameterList returns a ParameterListModule holding params.
func ParameterList(params ...torch.Tensor) *ParameterListModule {
	l := &ParameterListModule{}
	l.Init(l)
	return l.Extend(params...)
}

// Append adds p at the end and returns the list.
func (l *ParameterListModule) Append(p torch.Tensor) *ParameterListModule {
	mustModule(l)
	l.Items = append(l.Items, asParameter("ParameterList", fmt.Sprint(len(l.Items)), p))
	return l
}

// Extend adds params at the end and returns the list.
func (l *ParameterListModule) Extend(params ...torch.Tensor) *ParameterListModule {
	for _, p := range params {
		l.Append(p)
	}
	return l
}

// Len is the number of entries.
func (l *ParameterListModule) Len() int {
	mustModule(l)
	return len(l.Items)
}

// Get returns entry i; a negative i counts from the end, as in Python. It
// panics with a *torch.Error when i is out of range.
func (l *ParameterListModule) Get(i int) torch.Tensor {
	return l.Items[l.index(i)]
}

// Set replaces entry i, which must exist; a negative i counts from the
// end.
func (l *ParameterListModule) Set(i int, p torch.Tensor) {
	j := l.index(i)
	l.Items[j] = asParameter("ParameterList", fmt.Sprint(j), p)
}

// index is PyTorch's _get_abs_string_index.
func (l *ParameterListModule) index(i int) int {
	n := l.Len()
	if i < -n || i >= n {
		layerPanic("ParameterList", "index %d is out of range (length %d)", i, n)
	}
	if i < 0 {
		i += n
	}
	return i
}

// ExtraRepr lists the entries, one a line, as PyTorch prints them:
// "  (0): Parameter containing: [torch.float32 of size 3x4]".
func (l *ParameterListModule) ExtraRepr() string {
	lines := make([]string, len(l.Items))
	for i, p := range l.Items {
		lines[i] = "  (" + itoa(int64(i)) + "): " + paramRepr(p, p.DType().String())
	}
	return strings.Join(lines, "\n")
}

// ParameterDictModule holds parameters by name (torch.nn.ParameterDict),
// in insertion order: they are registered under their keys, so a module
// that keeps one in a field Params has the state-dict keys params.<key>.
// It makes parameters of the tensors it is given as ParameterList does.
type ParameterDictModule struct {
	Module
	Items []Named `gotorch:"name="` // in insertion order
}

// ParameterDict returns a ParameterDictModule holding params, in the
// order of their sorted keys, as PyTorch orders a plain dict it is given.
// Update adds entries in the order given.
func ParameterDict(params map[string]torch.Tensor) *ParameterDictModule {
	d := &ParameterDictModule{}
	d.Init(d)
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		d.Set(k, params[k])
	}
	return d
}

// Set adds p under key, or replaces the entry of key in its place. A key
// must be a non-empty name without dots, as PyTorch's parameter names.
func (d *ParameterDictModule) Set(key string, p torch.Tensor) {
	mustModule(d)
	switch {
	case key == "":
		layerPanic("ParameterDict", `parameter name can't be empty string ""`)
	case strings.Contains(key, "."):
		layerPanic("ParameterDict", "parameter name can't contain \".\" (key %q)", key)
	}
	p = asParameter("ParameterDict", key, p)
	if i := d.find(key); i >= 0 {
		d.Items[i].Tensor = p
		return
	}
	d.Items = append(d.Items, Named{Name: key, Tensor: p})
}

// Update sets each of params in order.
func (d *ParameterDictModule) Update(params ...Named) {
	for _, n := range params {
		d.Set(n.Name, n.Tensor)
	}
}

// Get returns the parameter of key, or the zero Tensor{} (PyTorch's None)
// when there is none.
func (d *ParameterDictModule) Get(key string) torch.Tensor {
	if i := d.find(key); i >= 0 {
		return d.Items[i].Tensor
	}
	return torch.Tensor{}
}

// Contains reports whether key has an entry (Python's key in d).
func (d *ParameterDictModule) Contains(key string) bool { return d.find(key) >= 0 }

// Pop removes the entry of key and returns its parameter. It panics with a
// *torch.Error when there is none.
func (d *ParameterDictModule) Pop(key string) torch.Tensor {
	i := d.find(key)
	if i < 0 {
		layerPanic("ParameterDict", "no key %q (keys: %s)", key, strings.Join(d.Keys(), ", "))
	}
	p := d.Items[i].Tensor
	d.Items = append(d.Items[:i:i], d.Items[i+1:]...)
	return p
}

// Clear removes every entry.
func (d *ParameterDictModule) Clear() {
	mustModule(d)
	d.Items = nil
}

// Len is the number of entries.
func (d *ParameterDictModule) Len() int {
	mustModule(d)
	return len(d.Items)
}

// Keys returns the keys in order.
func (d *ParameterDictModule) Keys() []string {
	mustModule(d)
	keys := make([]string, len(d.Items))
	for i, n := range d.Items {
		keys[i] = n.Name
	}
	return keys
}

// Values returns the parameters in order.
func (d *ParameterDictModule) Values() []torch.Tensor {
	mustModule(d)
	return justTensors(d.Items)
}

func (d *ParameterDictModule) find(key string) int {
	mustModule(d)
	for i, n := range d.Items {
		if n.Name == key {
			return i
		}
	}
	return -1
}

// ExtraRepr lists the entries as PyTorch prints them, with the legacy type
// name: "  (a): Parameter containing: [torch.FloatTensor of size 3x4]".
func (d *ParameterDictModule) ExtraRepr() string {
	lines := make([]string, len(d.Items))
	for i, n := range d.Items {
		lines[i] = "  (" + n.Name + "): " + paramRepr(n.Tensor, legacyTypeName(n.Tensor))
	}
	return strings.Join(lines, "\n")
}

// asParameter is PyTorch's nn.Parameter(p) as the containers apply it: a
// leaf that requires grad is kept, any other tensor is detached and made
// to require grad; the zero Tensor{} stays None. It panics with a
// *torch.Error naming the entry when p cannot require grad (an integer
// tensor).
func asParameter(layer, key string, p torch.Tensor) torch.Tensor {
	if !p.Defined() || p.IsLeaf() && p.RequiresGrad() {
		return p
	}
	out, err := p.TryDetach()
	if err == nil {
		_, err = out.TrySetRequiresGrad(true)
	}
	if err != nil {
		msg := err.Error()
		var te *torch.Error
		if errors.As(err, &te) {
			msg = te.Msg
		}
		panic(&torch.Error{Op: "nn." + layer, Msg: fmt.Sprintf("entry %s: %s", key, msg), Err: err})
	}
	return out
}

// paramRepr is how the containers print an entry: "Parameter containing:
// [torch.float32 of size 3x4]", " (GPU 0)" added for a CUDA tensor, and
// "Object of type: NoneType" for None.
func paramRepr(p torch.Tensor, typ string) string {
	if !p.Defined() {
		return "Object of type: NoneType"
	}
	sizes := make([]string, 0, p.Dim())
	for _, s := range p.Shape() {
		sizes = append(sizes, itoa(s))
	}
	dev := ""
	if d := p.Device(); d.Type == torch.CUDADevice {
		dev = " (GPU " + itoa(int64(max(d.Index, 0))) + ")"
	}
	return "Parameter containing: [" + typ + " of size " + strings.Join(sizes, "x") + dev + "]"
}

// legacyTypeName is torch.typename(p): torch.FloatTensor, and
// torch.cuda.FloatTensor on a GPU.
func legacyTypeName(p torch.Tensor) string {
	dt := strings.TrimPrefix(p.DType().String(), "torch.")
	name, ok := map[string]string{
		"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
		"complex64": "ComplexFloat", "complex128": "ComplexDouble", "int64": "Long", "int32": "Int",
		"int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
	}[dt]
	if !ok {
		return p.DType().String()
	}
	if p.Device().Type == torch.CUDADevice {
		return "torch.cuda." + name + "Tensor"
	}
	return "torch." + name + "Tensor"
}
