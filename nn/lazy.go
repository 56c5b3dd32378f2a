package nn

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gotorch/gotorch/torch"
)

// Lazy layers (torch.nn.LazyLinear, LazyConv1d, …, LazyInstanceNorm3d)
// take every argument of their regular layer but the input size, which the
// first forward infers from its input: in_features from x's last
// dimension, in_channels and num_features from its channel dimension.
//
//	fc := nn.LazyLinear(10)      // a *LinearModule, printed LazyLinear(in_features=0, …)
//	opt := optim.SGD(fc.Parameters(), optim.WithLR(0.1))
//	y := fc.Forward(x)           // x is (N, 784): fc is now Linear(in_features=784, …)
//
// A lazy layer is its regular layer (LazyConv2d returns a *Conv2dModule)
// in a lazy state. Until the first forward its parameters and buffers are
// placeholders, PyTorch's UninitializedParameter and UninitializedBuffer:
// empty (0,) tensors of the layer's dtype and device, the parameters
// requiring grad, listed by Parameters and StateDict under their names.
// The first forward gives them their shapes in place (SetData), so that
// the tensors stay the same tensors and an optimizer made before it
// updates them (Adagrad, which makes its state when it is built, makes it
// again at its first step; PyTorch refuses to build it), and initializes
// them as the regular layer does, with the same draws from the generator:
// a seeded run matches PyTorch's. The layer then prints and behaves as the
// regular one; HasUninitializedParams reports which state it is in.
// parallel.ConvertSyncBatchNorm refuses a LazyBatchNorm until then.
//
// LoadStateDict materializes a lazy layer with the shapes of the loaded
// tensors (in_features from the weight's), as PyTorch's load hook does.
// Unlike PyTorch, which keeps in_features 0 until a forward that then
// skips inference, the layer records the inferred size at once; tensors
// the state dict lacks (a non-strict load) are initialized as the regular
// layer does.
//
// Bad input at the first forward (a 0-D tensor to LazyLinear, a 2-D one to
// LazyConv2d) is an error, and the layer stays lazy. A lazy layer's first
// forward is safe to call from several goroutines: one infers, the others
// wait for it.

// lazyInit is the state of a layer made by a Lazy constructor; it is nil
// in a layer made by the regular one. The families embed it, which gives
// them HasUninitializedParams.
type lazyInit struct {
	mu   sync.Mutex
	done atomic.Bool
}

// HasUninitializedParams reports whether the layer was made by a Lazy
// constructor and has not yet seen the input that gives its parameters
// their shapes (PyTorch's has_uninitialized_params).
func (z *lazyInit) HasUninitializedParams() bool { return z != nil && !z.done.Load() }

// run calls infer once, for the first forward of a lazy layer; a failed
// infer leaves the layer lazy.
func (z *lazyInit) run(infer func() error) error {
	if !z.HasUninitializedParams() {
		return nil
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.done.Load() {
		return nil
	}
	if err := infer(); err != nil {
		return err
	}
	z.done.Store(true)
	return nil
}

// lazyName is a layer's PyTorch class: "Lazy" plus its regular name while
// it is lazy. z may belong to a nil layer (nilLayer names it).
func lazyName(z *lazyInit, name string) string {
	if z.HasUninitializedParams() {
		return "Lazy" + name
	}
	return name
}

// newLazy is the state of a new lazy layer.
func newLazy() *lazyInit { return &lazyInit{} }

// placeholder is an uninitialized parameter (or buffer): an empty (0,)
// tensor of the layer's dtype and device, as PyTorch's is.
func (a *layerArgs) placeholder(requiresGrad bool) torch.Tensor {
	t := torch.Empty([]int64{0}, a.factory()...)
	if requiresGrad {
		t = t.SetRequiresGrad(true)
	}
	return t
}

// materialize gives the placeholder t its shape, in place, keeping its
// dtype and device (UninitializedParameter.materialize); its values are
// uninitialized until the layer resets them.
func materialize(t torch.Tensor, shape ...int64) error {
	var data torch.Tensor
	var err error
	torch.NoGrad(func() { data, err = torch.TryEmpty(shape, torch.WithDtype(t.DType()), torch.WithDevice(t.Device())) })
	if err != nil {
		return err
	}
	err = t.TrySetData(data)
	data.Free() // t now holds the storage; this handle is ours
	return err
}

// lazyTensorMap maps names to the tensors among name, tensor pairs that
// are defined (a layer without bias has no lazy bias).
func lazyTensorMap(pairs ...any) map[string]torch.Tensor {
	out := map[string]torch.Tensor{}
	for i := 0; i+1 < len(pairs); i += 2 {
		if t := pairs[i+1].(torch.Tensor); t.Defined() {
			out[pairs[i].(string)] = t
		}
	}
	return out
}

// materializeWeightBias gives a lazy layer's weight and bias (when it has
// one) their shapes.
func materializeWeightBias(w, b torch.Tensor, shapes map[string][]int64) error {
	if err := materialize(w, shapes["weight"]...); err != nil {
		return err
	}
	if b.Defined() {
		return materialize(b, shapes["bias"]...)
	}
	return nil
}

// matchShape reports whether s is want, -1 in want matching any
// non-negative size.
func matchShape(s, want []int64) bool {
	if len(s) != len(want) {
		return false
	}
	for i := range s {
		if want[i] == -1 && s[i] >= 0 || s[i] == want[i] {
			continue
		}
		return false
	}
	return true
}

// lazyChannels is the channel count of x, a layer's (N, C, ...) or
// (C, ...) input with n spatial dimensions, or the error PyTorch's lazy
// convolutions give for another number of dimensions.
func lazyChannels(layer string, x torch.Tensor, n int) (int64, error) {
	shape, err := tensorShape(x)
	if err != nil {
		return 0, err
	}
	switch len(shape) {
	case n + 1:
		return shape[0], nil
	case n + 2:
		return shape[1], nil
	}
	return 0, layerError(layer, "Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %v",
		n+1, n+2, layer, shape)
}

// lazyLayer is a family whose layer can be lazy: it lists its lazy tensors
// and materializes them, for LoadStateDict.
type lazyLayer interface {
	HasUninitializedParams() bool
	// lazyTensors are the layer's placeholders by local name ("weight").
	lazyTensors() map[string]torch.Tensor
	// lazySize infers the layer's input size from the loaded shapes of
	// some of its lazy tensors, or returns an error naming what disagrees
	// with the layer's settings; ok is false when shapes has nothing to
	// infer it from.
	lazySize(shapes map[string][]int64) (size int64, ok bool, err error)
	// lazyShapes are the shapes the lazy tensors take at size.
	lazyShapes(size int64) map[string][]int64
	// materializeAt gives the lazy tensors their shapes at size and, with
	// reset, initializes them as the regular layer does.
	materializeAt(size int64, reset bool) error
}

// lazyLoad is LoadStateDict's plan for the lazy layers of a module: the
// shapes their tensors will have, by state-dict key, and the layers to
// materialize once every check has passed.
type lazyLoad struct {
	shapes   map[string][]int64
	skip     map[string]bool // keys of layers whose size could not be inferred (reported once)
	problems []string
	steps    []func() error
}

// planLazyLoad infers the size of every lazy layer under mods from the
// tensors that sd has for it.
func planLazyLoad(mods []NamedModule, sd map[string]torch.Tensor) *lazyLoad {
	p := &lazyLoad{shapes: map[string][]int64{}, skip: map[string]bool{}}
	for _, nm := range mods {
		l, ok := nm.Module.(lazyLayer)
		if !ok || !l.HasUninitializedParams() {
			continue
		}
		prefix := ""
		if nm.Name != "" {
			prefix = nm.Name + "."
		}
		lazy := l.lazyTensors()
		given := map[string][]int64{}
		missing := false
		for name := range lazy {
			src, ok := sd[prefix+name]
			if !ok || !src.Defined() {
				missing = true
				continue
			}
			given[name] = src.Shape()
		}
		if len(given) == 0 {
			continue // stays lazy; a strict load reports the keys missing
		}
		size, ok, err := l.lazySize(given)
		if err == nil && !ok {
			names := make([]string, 0, len(given))
			for name := range given {
				names = append(names, prefix+name)
			}
			sort.Strings(names)
			err = fmt.Errorf("the state dict's %s do not give the input size", strings.Join(names, ", "))
		}
		if err != nil {
			p.problems = append(p.problems, fmt.Sprintf("%s: %s: %v", strings.TrimSuffix(prefix, "."), typeName(nm.Module), err))
			for name := range lazy {
				p.skip[prefix+name] = true
			}
			continue
		}
		for name, s := range l.lazyShapes(size) {
			p.shapes[prefix+name] = s
		}
		reset := missing
		p.steps = append(p.steps, func() error { return l.materializeAt(size, reset) })
	}
	return p
}

// materialize gives the planned layers their shapes.
func (p *lazyLoad) materialize() error {
	for _, step := range p.steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}
