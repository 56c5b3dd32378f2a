// Package nn holds neural-network modules, in the style of PyTorch's
// torch.nn: a module is a Go struct that embeds nn.Module, keeps its
// parameters in torch.Tensor fields and its sub-modules in module fields,
// and has a Forward method of any signature.
//
//	type Net struct {
//		nn.Module
//		FC1, FC2 *nn.LinearModule
//		Scale    torch.Tensor `gotorch:"buffer"`
//	}
//
//	func NewNet() *Net {
//		n := &Net{FC1: nn.Linear(784, 128), FC2: nn.Linear(128, 10)}
//		n.Init(n)
//		return n
//	}
//
//	func (n *Net) Forward(x torch.Tensor) torch.Tensor {
//		return n.FC2.Forward(n.FC1.Forward(x).Relu())
//	}
//
// Registration is by reflection over exported fields, as the struct tags
// say:
//   - a torch.Tensor field is a parameter, or a buffer when tagged
//     gotorch:"buffer"; an undefined (zero) tensor is skipped, like a None
//     bias;
//   - a field holding a module (a pointer to a struct that embeds
//     nn.Module), or a slice, array or string-keyed map of modules, holds
//     sub-modules;
//   - a []nn.Named field holds tensors under their own names, in order
//     (LSTM's weight_ih_l0, weight_hh_l0, …);
//   - gotorch:"-" hides a field; gotorch:"name=foo" renames it, and
//     gotorch:"name=" inlines a slice or map of modules (Sequential's
//     layers are 0, 1, …) or a []nn.Named.
//
// Names follow PyTorch's state-dict keys: Go field names become snake_case
// (RunningMean is running_mean), and elements of slices and maps add their
// index or key (features.0.weight).
//
// A layer that PyTorch has in 1, 2 and 3 dimensions is one generic type,
// a family, whose members keep PyTorch's names as aliases: nn.MaxPool2d(2)
// returns a *MaxPool2dModule, which is a *MaxPoolModule[D2], and prints and
// names its errors as MaxPool2d. The families are Conv, ConvTranspose,
// BatchNorm, InstanceNorm, MaxPool, AvgPool, AdaptiveAvgPool,
// AdaptiveMaxPool and ConstantPad; ReflectionPad and ReplicationPad are
// one family with a mode, PadModule[Reflect, D] and PadModule[Replicate,
// D]. The activations without settings or with only dim or alpha
// (Softmax, ELU), PixelShuffle, PixelUnshuffle and ChannelShuffle, the
// dropout layers and the losses are written from a table by
// internal/genlayers (go generate ./nn); each loss computes with its
// nn/functional form (MSELoss with F.MseLoss).
//
// The layers mirror torch.nn's classes, one file each: nn.Linear(784, 128)
// returns a *LinearModule, initialized, named and printed as PyTorch's
// Linear is. What PyTorch requires is a parameter; what has a default is an
// Option named With plus PyTorch's keyword, as in packages torch and
// nn/functional (see Option):
//
//	nn.Conv2d(1, 32, 3, nn.WithStride(2), nn.WithPadding(1))
//	nn.BatchNorm2d(32, nn.WithMomentum(0.01))
//
// Every layer has Forward, which panics on error, and TryForward, which
// returns the error, a *torch.Error.
//
// The lazy layers, LazyLinear, LazyConv1d to 3d, LazyConvTranspose1d to
// 3d, LazyBatchNorm1d to 3d and LazyInstanceNorm1d to 3d, are the regular
// layers (a *LinearModule, a *Conv2dModule) with the input size left out:
// their first forward infers it from its input and initializes the
// parameters as the regular layer does, in place, so that an optimizer
// made before it updates them (lazy.go).
package nn

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"github.com/gotorch/gotorch/torch"
)

// Module is the base of every module. Embed it and call Init with the
// outer struct.
type Module struct {
	self     reflect.Value // pointer to the outer struct
	training bool
	inited   bool
}

// Moduler is implemented by every module: any pointer to a struct that
// embeds Module.
type Moduler interface {
	base() *Module
}

func (m *Module) base() *Module { return m }

// ErrUninitialized is the cause of errors about modules whose Init was not
// called, and of nil modules.
var ErrUninitialized = errors.New("nn: module not initialized (call Init from its constructor) or nil")

// Init registers outer, the struct that embeds m, and puts the module in
// training mode. Constructors call it last: n.Init(n).
func (m *Module) Init(outer Moduler) {
	v := reflect.ValueOf(outer)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Errorf("nn: Init needs a non-nil pointer to a struct, got %T", outer))
	}
	if outer.base() != m {
		panic(fmt.Errorf("nn: Init(%T) called on another module's base", outer))
	}
	m.self = v
	m.training = true
	m.inited = true
}

// module returns the base of mod, or an error naming the problem.
func module(mod Moduler) (*Module, error) {
	if mod == nil {
		return nil, fmt.Errorf("nil module: %w", ErrUninitialized)
	}
	v := reflect.ValueOf(mod)
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, fmt.Errorf("nil %T: %w", mod, ErrUninitialized)
	}
	m := mod.base()
	if !m.inited {
		return nil, fmt.Errorf("%T: %w", mod, ErrUninitialized)
	}
	return m, nil
}

func mustModule(mod Moduler) *Module {
	m, err := module(mod)
	if err != nil {
		panic(err)
	}
	return m
}

// Named is a tensor with its dotted name.
type Named struct {
	Name   string
	Tensor torch.Tensor
}

// NamedModule is a module with its dotted name.
type NamedModule struct {
	Name   string
	Module Moduler
}

type fieldInfo struct {
	name   string
	buffer bool
	skip   bool
}

func parseField(f reflect.StructField) fieldInfo {
	info := fieldInfo{name: snake(f.Name)}
	tag, ok := f.Tag.Lookup("gotorch")
	if !ok {
		return info
	}
	for _, part := range strings.Split(tag, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "-":
			info.skip = true
		case part == "buffer":
			info.buffer = true
		case strings.HasPrefix(part, "name="):
			info.name = strings.TrimPrefix(part, "name=")
		}
	}
	return info
}

// snake turns a Go field name into PyTorch's attribute style:
// RunningMean → running_mean, FC1 → fc1, Conv2d → conv2d.
func snake(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) {
			prevLower := i > 0 && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]))
			nextLower := i > 0 && i+1 < len(r) && unicode.IsLower(r[i+1]) && unicode.IsUpper(r[i-1])
			if prevLower || nextLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(c))
		} else {
			b.WriteRune(c)
		}
	}
	return b.String()
}

var (
	tensorType  = reflect.TypeOf(torch.Tensor{})
	modulerType = reflect.TypeOf((*Moduler)(nil)).Elem()
	moduleType  = reflect.TypeOf(Module{})
	namedsType  = reflect.TypeOf([]Named(nil))
)

// visitor receives the members of one module, in field order.
type visitor struct {
	tensor func(name string, t torch.Tensor, buffer bool)
	child  func(name string, c Moduler)
}

// members walks the direct members of m.
func (m *Module) members(v visitor) {
	s := m.self.Elem()
	t := s.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Type == moduleType {
			continue
		}
		info := parseField(f)
		if info.skip {
			continue
		}
		walkValue(s.Field(i), info.name, info.buffer, v)
	}
}

func walkValue(fv reflect.Value, name string, buffer bool, v visitor) {
	switch {
	case fv.Type() == tensorType:
		t := fv.Interface().(torch.Tensor)
		if t.Defined() && v.tensor != nil {
			v.tensor(name, t, buffer)
		}
	case fv.Type() == namedsType:
		for j := 0; j < fv.Len(); j++ {
			n := fv.Index(j).Interface().(Named)
			walkValue(reflect.ValueOf(n.Tensor), join(name, n.Name), buffer, v)
		}
	case fv.Type().Implements(modulerType):
		if fv.Kind() == reflect.Interface || fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				return
			}
		}
		if v.child != nil {
			v.child(name, fv.Interface().(Moduler))
		}
	case fv.Kind() == reflect.Slice || fv.Kind() == reflect.Array:
		for j := 0; j < fv.Len(); j++ {
			walkValue(fv.Index(j), join(name, fmt.Sprint(j)), buffer, v)
		}
	case fv.Kind() == reflect.Map && fv.Type().Key().Kind() == reflect.String:
		keys := fv.MapKeys()
		sort.Slice(keys, func(a, b int) bool { return keys[a].String() < keys[b].String() })
		for _, k := range keys {
			walkValue(fv.MapIndex(k), join(name, k.String()), buffer, v)
		}
	}
}

// join appends an element name; a field named "" (gotorch:"name=") is
// inlined, so that Sequential's layers are named 0, 1, … as in PyTorch.
func join(field, elem string) string {
	if field == "" {
		return elem
	}
	return field + "." + elem
}

// walk visits every tensor of m and its descendants with dotted names.
// A tensor reachable twice (a shared module or a tied weight) is visited
// once, under its first name, as in PyTorch.
func (m *Module) walk(prefix string, seenT map[torch.Tensor]bool, seenM map[*Module]bool, f func(name string, t torch.Tensor, buffer bool)) {
	if seenM[m] {
		return
	}
	seenM[m] = true
	m.members(visitor{
		tensor: func(name string, t torch.Tensor, buffer bool) {
			if seenT[t] {
				return
			}
			seenT[t] = true
			f(prefix+name, t, buffer)
		},
		child: func(name string, c Moduler) {
			cm, err := module(c)
			if err != nil {
				panic(fmt.Errorf("nn: sub-module %s%s: %w", prefix, name, err))
			}
			cm.walk(prefix+name+".", seenT, seenM, f)
		},
	})
}

func (m *Module) tensors(wantBuffers bool) []Named {
	mustModule(m.outer())
	var out []Named
	m.walk("", map[torch.Tensor]bool{}, map[*Module]bool{}, func(name string, t torch.Tensor, buffer bool) {
		if buffer == wantBuffers {
			out = append(out, Named{name, t})
		}
	})
	return out
}

// outer returns the registered outer module (or m itself, whose checks then
// report it uninitialized).
func (m *Module) outer() Moduler {
	if m == nil || !m.inited {
		return m
	}
	return m.self.Interface().(Moduler)
}

// NamedParameters returns the parameters of the module and its
// descendants with their dotted names, in field order.
func (m *Module) NamedParameters() []Named { return m.tensors(false) }

// Parameters returns the parameters of the module and its descendants.
func (m *Module) Parameters() []torch.Tensor { return justTensors(m.NamedParameters()) }

// NamedBuffers returns the buffers of the module and its descendants.
func (m *Module) NamedBuffers() []Named { return m.tensors(true) }

// Buffers returns the buffers of the module and its descendants.
func (m *Module) Buffers() []torch.Tensor { return justTensors(m.NamedBuffers()) }

func justTensors(ns []Named) []torch.Tensor {
	out := make([]torch.Tensor, len(ns))
	for i, n := range ns {
		out[i] = n.Tensor
	}
	return out
}

// NamedChildren returns the direct sub-modules.
func (m *Module) NamedChildren() []NamedModule {
	mustModule(m.outer())
	var out []NamedModule
	m.members(visitor{child: func(name string, c Moduler) { out = append(out, NamedModule{name, c}) }})
	return out
}

// NamedModules returns the module itself (named "") and all its
// descendants, each once, in pre-order.
func (m *Module) NamedModules() []NamedModule {
	mustModule(m.outer())
	var out []NamedModule
	seen := map[*Module]bool{}
	var rec func(prefix string, mod Moduler)
	rec = func(prefix string, mod Moduler) {
		b := mustModule(mod)
		if seen[b] {
			return
		}
		seen[b] = true
		out = append(out, NamedModule{strings.TrimSuffix(prefix, "."), mod})
		b.members(visitor{child: func(name string, c Moduler) { rec(prefix+name+".", c) }})
	}
	rec("", m.outer())
	return out
}

// Apply calls f on every sub-module and then on the module itself, like
// PyTorch's apply, and returns the module.
func (m *Module) Apply(f func(Moduler)) {
	mods := m.NamedModules()
	for i := len(mods) - 1; i >= 0; i-- {
		f(mods[i].Module)
	}
}

// Train sets training mode (on by default) on the module and all its
// descendants.
func (m *Module) Train(on ...bool) {
	mode := len(on) == 0 || on[0]
	for _, nm := range m.NamedModules() {
		nm.Module.base().training = mode
	}
}

// Eval is Train(false).
func (m *Module) Eval() { m.Train(false) }

// IsTraining reports whether the module is in training mode.
func (m *Module) IsTraining() bool { return m.training }

// ZeroGrad drops the gradients of all parameters (set_to_none, PyTorch's
// default since 2.0).
func (m *Module) ZeroGrad() {
	for _, p := range m.Parameters() {
		p.ZeroGrad()
	}
}

// To converts every parameter and buffer to a dtype and/or moves it to a
// device, in place: the tensors stay the same tensors, so an optimizer that
// holds them keeps working. Only floating-point tensors change dtype, as in
// PyTorch.
func (m *Module) To(targets ...torch.Target) error {
	var errs []error
	convert := func(n Named) {
		ts := targets
		if !n.Tensor.DType().IsFloatingPoint() && !n.Tensor.DType().IsComplex() {
			ts = nil
			for _, t := range targets {
				if _, isDType := t.(torch.DType); !isDType {
					ts = append(ts, t)
				}
			}
		}
		if len(ts) == 0 {
			return
		}
		var moved torch.Tensor
		var err error
		torch.NoGrad(func() { moved, err = n.Tensor.TryTo(ts...) })
		if err == nil {
			err = n.Tensor.TrySetData(moved)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", n.Name, err))
		}
	}
	for _, n := range m.NamedParameters() {
		convert(n)
	}
	for _, n := range m.NamedBuffers() {
		convert(n)
	}
	return errors.Join(errs...)
}

// StateDict returns the parameters and buffers by their dotted names, as
// PyTorch's state_dict does. The tensors are the module's own, not copies.
func (m *Module) StateDict() map[string]torch.Tensor {
	sd := map[string]torch.Tensor{}
	for _, n := range m.NamedParameters() {
		sd[n.Name] = n.Tensor
	}
	for _, n := range m.NamedBuffers() {
		sd[n.Name] = n.Tensor
	}
	return sd
}

// StateDictError lists what a strict LoadStateDict found wrong.
type StateDictError struct {
	Missing    []string // keys the module has and the state dict lacks
	Unexpected []string // keys the state dict has and the module lacks
	Mismatched []string // "key: shape [a b] in state dict, [c d] in module"
}

func (e *StateDictError) Error() string {
	var parts []string
	if len(e.Missing) > 0 {
		parts = append(parts, "missing keys: "+strings.Join(e.Missing, ", "))
	}
	if len(e.Unexpected) > 0 {
		parts = append(parts, "unexpected keys: "+strings.Join(e.Unexpected, ", "))
	}
	if len(e.Mismatched) > 0 {
		parts = append(parts, "size mismatch: "+strings.Join(e.Mismatched, "; "))
	}
	return "nn: load state dict: " + strings.Join(parts, "; ")
}

// LoadStateDict copies sd's tensors into the module's parameters and
// buffers, converting dtype and device as needed. Shape mismatches are
// always errors; with strict, missing and unexpected keys are too. Nothing
// is copied unless every check passes. A lazy layer (LazyLinear, …) takes
// the shapes of the tensors sd has for it.
func (m *Module) LoadStateDict(sd map[string]torch.Tensor, strict bool) error {
	if _, err := module(m.outer()); err != nil {
		return err
	}
	own := m.StateDict()
	// Lazy layers take the shapes of what sd has for them (lazy.go).
	lazy := planLazyLoad(m.NamedModules(), sd)
	e := &StateDictError{Mismatched: lazy.problems}
	for k, t := range own {
		src, ok := sd[k]
		if !ok {
			e.Missing = append(e.Missing, k)
			continue
		}
		if !src.Defined() {
			e.Mismatched = append(e.Mismatched, k+": undefined tensor in state dict")
			continue
		}
		want, planned := lazy.shapes[k]
		if !planned {
			want = t.Shape()
		}
		if !lazy.skip[k] && !equalShape(src.Shape(), want) {
			e.Mismatched = append(e.Mismatched, fmt.Sprintf("%s: shape %v in state dict, %v in module", k, src.Shape(), want))
		}
	}
	for k := range sd {
		if _, ok := own[k]; !ok {
			e.Unexpected = append(e.Unexpected, k)
		}
	}
	sort.Strings(e.Missing)
	sort.Strings(e.Unexpected)
	sort.Strings(e.Mismatched)
	if len(e.Mismatched) > 0 || strict && (len(e.Missing) > 0 || len(e.Unexpected) > 0) {
		return e
	}
	// Every source is first converted to its destination's dtype and
	// device: that is where a load can fail (a meta tensor, a device that
	// is gone), and it happens before any parameter is touched. The copies
	// that follow are between tensors of one shape, dtype and device.
	keys := make([]string, 0, len(own))
	for k := range own {
		if _, ok := sd[k]; ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	srcs := make([]torch.Tensor, len(keys))
	defer func() {
		for _, t := range srcs {
			if t.Defined() {
				t.Free() // a handle of its own, even when To changed nothing
			}
		}
	}()
	var err error
	torch.NoGrad(func() {
		for i, k := range keys {
			dst := own[k]
			if srcs[i], err = sd[k].TryTo(dst.DType(), dst.Device()); err != nil {
				err = fmt.Errorf("nn: load state dict: %s: %w (nothing was loaded)", k, err)
				return
			}
		}
		if err = lazy.materialize(); err != nil {
			err = fmt.Errorf("nn: load state dict: materializing a lazy layer: %w", err)
			return
		}
		for i, k := range keys {
			if _, err = own[k].TryCopy_(srcs[i]); err != nil {
				err = fmt.Errorf("nn: load state dict: %s: %w", k, err)
				return
			}
		}
	})
	return err
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ExtraReprer is implemented by modules that print their settings, as
// PyTorch's extra_repr does: Linear prints "in_features=4, out_features=2,
// bias=True".
type ExtraReprer interface {
	ExtraRepr() string
}

// String prints the module tree the way PyTorch does.
func (m *Module) String() string {
	if _, err := module(m.outer()); err != nil {
		return "<" + err.Error() + ">"
	}
	return repr(m.outer(), map[*Module]bool{})
}

func typeName(mod Moduler) string {
	if n, ok := mod.(interface{ reprName() string }); ok {
		return n.reprName() // a stand-in printing as PyTorch's class
	}
	t := reflect.TypeOf(mod)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return strings.TrimSuffix(t.Name(), "Module")
}

func repr(mod Moduler, seen map[*Module]bool) string {
	b := mod.base()
	extra := ""
	if e, ok := mod.(ExtraReprer); ok {
		extra = e.ExtraRepr()
	}
	var lines []string
	if extra != "" {
		lines = strings.Split(extra, "\n")
	}
	b.members(visitor{child: func(name string, c Moduler) {
		s := ""
		if _, err := module(c); err != nil {
			s = "<" + err.Error() + ">"
		} else {
			s = repr(c, seen)
		}
		s = strings.ReplaceAll(s, "\n", "\n  ")
		lines = append(lines, "("+name+"): "+s)
	}})
	name := typeName(mod)
	switch {
	case len(lines) == 0:
		return name + "()"
	case len(lines) == 1 && extra != "" && !strings.Contains(extra, "\n") && len(b.NamedChildren()) == 0:
		return name + "(" + extra + ")"
	}
	return name + "(\n  " + strings.Join(lines, "\n  ") + "\n)"
}
