package nn

import (
	"fmt"
	"reflect"

	"github.com/gotorch/gotorch/torch"
)

// SequentialModule runs its layers in order, each one's outputs being the
// next one's inputs (torch.nn.Sequential). Layers may have Forward methods
// of any signature; they are called through reflection.
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

// ForwardAny runs the layers on args: each layer's Forward gets the
// previous layer's results as its arguments.
func (s *SequentialModule) ForwardAny(args ...any) []any {
	mustModule(s)
	vals := make([]reflect.Value, len(args))
	for i, a := range args {
		vals[i] = reflect.ValueOf(a)
	}
	for i, l := range s.Layers {
		var err error
		if vals, err = callForward(l, vals); err != nil {
			panic(fmt.Errorf("nn.Sequential: layer %d (%s): %w", i, typeName(l), err))
		}
	}
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = v.Interface()
	}
	return out
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
