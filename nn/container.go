package nn

import (
	"fmt"
	"reflect"

	"github.com/gotorch/gotorch/torch"
)

// SequentialModule runs its layers in order, each one's outputs being the
// next one's inputs (torch.nn.Sequential). Layers may have Forward methods
// of any signature; they are called through reflection, except in Forward
// when every layer's Forward takes and returns one tensor.
//
// Forward and ForwardAny free the intermediate tensors they pass between
// layers as soon as the layer that consumes one returns, instead of leaving
// them to the collector (docs/memory.md). A layer's result is freed, once
// the next layer has returned, only when
//   - it is a single tensor, made by a module of this package, and passed
//     on unchanged (as Identity does) only by modules of this package,
//   - the layer that consumed it is a module of this package too,
//   - and it is neither one of Forward's own arguments nor part of the
//     consuming layer's results.
//
// A module of yours may keep its input or output, say to log activations,
// so nothing that it makes or sees is freed. A nested SequentialModule
// counts as a module of this package only if all its layers do.
//
// Nothing is freed when a layer panics, and Forward's arguments and its
// results are never freed. Freeing only drops GoTorch's reference: autograd
// keeps what it saved for the backward pass.
type SequentialModule struct {
	Module
	Layers []Moduler `gotorch:"name="`
}

// Sequential returns a SequentialModule of layers.
func Sequential(layers ...Moduler) *SequentialModule {
	for i, l := range layers {
		if _, err := module(l); err != nil {
			panic(fmt.Errorf("nn.Sequential: layer %d: %w", i, err))
		}
	}
	s := &SequentialModule{Layers: layers}
	s.Init(s)
	return s
}

// Forward runs x through the layers; every layer must take and return one
// tensor. ForwardAny handles other signatures.
func (s *SequentialModule) Forward(x torch.Tensor) torch.Tensor {
	if y, ok := s.forwardTensors(x); ok {
		return y
	}
	out := s.ForwardAny(x)
	if len(out) != 1 {
		panic(fmt.Errorf("nn.Sequential: last layer returned %d values, Forward wants 1 tensor", len(out)))
	}
	t, ok := out[0].(torch.Tensor)
	if !ok {
		panic(fmt.Errorf("nn.Sequential: last layer returned %T, Forward wants a tensor", out[0]))
	}
	return t
}

// tensorLayer is a layer whose Forward takes and returns one tensor.
type tensorLayer interface {
	Forward(torch.Tensor) torch.Tensor
}

// forwardTensors is Forward without reflection, when every layer is a
// tensorLayer: ForwardAny's calls through reflect cost about 600 ns and 4
// allocations a layer. It frees what ForwardAny would free, and reports
// false, having called nothing, when a layer is not a tensorLayer.
func (s *SequentialModule) forwardTensors(x torch.Tensor) (torch.Tensor, bool) {
	mustModule(s)
	for _, l := range s.Layers {
		if _, ok := l.(tensorLayer); !ok {
			return torch.Tensor{}, false
		}
	}
	y, fresh := x, false
	for _, l := range s.Layers {
		out := l.(tensorLayer).Forward(y)
		// As ForwardAny, for one tensor in and out: out is fresh if a
		// layer of this package made it, or passed on a fresh input;
		// a fresh input is freed once consumed unless it is passed on
		// or is x itself.
		own := ownsTemps(l, nil)
		if fresh && own && out != y && y != x {
			y.Free()
		}
		fresh = own && (fresh || out != y)
		y = out
	}
	return y, true
}

// ForwardAny runs the layers on args: each layer's Forward gets the
// previous layer's results as its arguments. It frees intermediate tensors
// as SequentialModule's documentation says.
func (s *SequentialModule) ForwardAny(args ...any) []any {
	mustModule(s)
	vals := make([]reflect.Value, len(args))
	for i, a := range args {
		vals[i] = reflect.ValueOf(a)
	}
	argVals := vals
	// fresh: vals is one tensor that a layer of this package made and that
	// only layers of this package have seen since.
	fresh := false
	for i, l := range s.Layers {
		in, inFresh := vals, fresh
		var err error
		if vals, err = callForward(l, in); err != nil {
			panic(fmt.Errorf("nn.Sequential: layer %d (%s): %w", i, typeName(l), err))
		}
		// Only here, once l has returned: a panic above frees nothing.
		own := ownsTemps(l, nil)
		fresh = false
		if t, ok := oneTensor(vals); ok && own {
			if inFresh {
				u, _ := oneTensor(in)
				fresh = t == u // passed on, as Identity does
			}
			fresh = fresh || !holdsTensor(in, t) // made by l
		}
		if inFresh && own {
			t, _ := oneTensor(in)
			if !holdsTensor(vals, t) && !holdsTensor(argVals, t) {
				t.Free()
			}
		}
	}
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v.Interface()
	}
	return out
}

// oneTensor returns the tensor that vs holds, if it is one tensor.
func oneTensor(vs []reflect.Value) (torch.Tensor, bool) {
	if len(vs) != 1 || !vs[0].IsValid() || vs[0].Type() != tensorType {
		return torch.Tensor{}, false
	}
	return vs[0].Interface().(torch.Tensor), true
}

// holdsTensor reports whether any of vs is t (the same handle) or holds
// it, through pointers, interfaces, structs, slices, arrays and maps.
func holdsTensor(vs []reflect.Value, t torch.Tensor) bool {
	for _, v := range vs {
		if holds(v, t, 0) {
			return true
		}
	}
	return false
}

// holds is holdsTensor for one value. Past a depth of 8 it answers yes,
// which only means that t is not freed.
func holds(v reflect.Value, t torch.Tensor, depth int) bool {
	if !v.IsValid() {
		return false
	}
	if depth > 8 {
		return true
	}
	if v.Type() == tensorType {
		return v.Interface().(torch.Tensor) == t
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && holds(v.Elem(), t, depth+1)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if holds(v.Field(i), t, depth+1) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if holds(v.Index(i), t, depth+1) {
				return true
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if holds(it.Key(), t, depth+1) || holds(it.Value(), t, depth+1) {
				return true
			}
		}
	}
	return false
}

// nnPkg is this package's import path.
var nnPkg = reflect.TypeFor[SequentialModule]().PkgPath()

// ownsTemps reports whether Sequential may free the tensors that l makes,
// passes on or consumes: whether l is a module defined in this package.
// Those return new tensors or their own inputs, and keep neither their
// inputs nor their results; every Forward of this package must go on
// obeying that rule. A module of another package, a user's own, may keep
// what it sees (to log activations, say), or return a tensor it keeps, and
// so may a type of yours that embeds one of this package's modules. A
// nested SequentialModule counts when all its layers do.
// TransformerEncoderLayer counts even with an ActivationFn, which is user
// code: that sees neither the layer's input nor its result.
func ownsTemps(l Moduler, seen map[*SequentialModule]bool) bool {
	t := reflect.TypeOf(l)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().PkgPath() != nnPkg {
		return false
	}
	s, ok := l.(*SequentialModule)
	if !ok {
		return true
	}
	if s == nil || seen[s] {
		return false
	}
	if seen == nil {
		seen = map[*SequentialModule]bool{}
	}
	seen[s] = true // a Sequential inside itself would recurse forever
	defer delete(seen, s)
	for _, sub := range s.Layers {
		if !ownsTemps(sub, seen) {
			return false
		}
	}
	return true
}

// Append adds layers at the end.
func (s *SequentialModule) Append(layers ...Moduler) *SequentialModule {
	s.Layers = append(s.Layers, layers...)
	return s
}

// Len is the number of layers.
func (s *SequentialModule) Len() int { return len(s.Layers) }

// callForward calls m.Forward with args, checking the signature first so
// that a mismatch is an error rather than a reflect panic.
func callForward(m Moduler, args []reflect.Value) ([]reflect.Value, error) {
	f := reflect.ValueOf(m).MethodByName("Forward")
	if !f.IsValid() {
		return nil, fmt.Errorf("%T has no Forward method", m)
	}
	ft := f.Type()
	if ft.IsVariadic() {
		if len(args) < ft.NumIn()-1 {
			return nil, fmt.Errorf("Forward takes at least %d arguments, got %d", ft.NumIn()-1, len(args))
		}
	} else if len(args) != ft.NumIn() {
		return nil, fmt.Errorf("Forward takes %d arguments, got %d", ft.NumIn(), len(args))
	}
	for i, a := range args {
		want := ft.In(min(i, ft.NumIn()-1))
		if ft.IsVariadic() && i >= ft.NumIn()-1 {
			want = want.Elem()
		}
		if !a.IsValid() {
			return nil, fmt.Errorf("argument %d is nil", i)
		}
		if !a.Type().AssignableTo(want) {
			return nil, fmt.Errorf("argument %d is %s, Forward wants %s", i, a.Type(), want)
		}
	}
	return f.Call(args), nil
}

// ModuleListModule holds sub-modules in a list (torch.nn.ModuleList).
type ModuleListModule struct {
	Module
	Items []Moduler `gotorch:"name="`
}

// ModuleList returns a ModuleListModule holding mods.
func ModuleList(mods ...Moduler) *ModuleListModule {
	l := &ModuleListModule{Items: mods}
	l.Init(l)
	return l
}

// ModuleDictModule holds sub-modules by name (torch.nn.ModuleDict).
type ModuleDictModule struct {
	Module
	Items map[string]Moduler `gotorch:"name="`
}

// ModuleDict returns a ModuleDictModule holding mods.
func ModuleDict(mods map[string]Moduler) *ModuleDictModule {
	if mods == nil {
		mods = map[string]Moduler{}
	}
	d := &ModuleDictModule{Items: mods}
	d.Init(d)
	return d
}
