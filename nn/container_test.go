package nn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/livetest"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// tensorForward is the Forward of the layers that take and return one tensor.
type tensorForward interface {
	Forward(torch.Tensor) torch.Tensor
}

// chain runs x through the layers one by one, as a Sequential would but
// without freeing anything.
func chain(layers []nn.Moduler, x torch.Tensor) torch.Tensor {
	for _, l := range layers {
		x = l.(tensorForward).Forward(x)
	}
	return x
}

// keeper is a user's module that keeps its input and its output, as a
// module logging activations would.
type keeper struct {
	nn.Module
	In, Out torch.Tensor `gotorch:"-"`
}

func newKeeper() *keeper {
	k := &keeper{}
	k.Init(k)
	return k
}

func (k *keeper) Forward(x torch.Tensor) torch.Tensor {
	k.In, k.Out = x, x.MulScalar(torch.S(2))
	return k.Out
}

// constant is a user's module that returns a tensor it keeps.
type constant struct {
	nn.Module
	C torch.Tensor `gotorch:"-"`
}

func newConstant(c torch.Tensor) *constant {
	m := &constant{C: c}
	m.Init(m)
	return m
}

func (c *constant) Forward(torch.Tensor) torch.Tensor { return c.C }

// Built-in layers leave exactly the Sequential's result alive, with or
// without autograd, and compute what the layers compute one by one.
func TestSequentialFreesIntermediates(t *testing.T) {
	cases := []struct {
		name  string
		build func() *nn.SequentialModule
		in    []int64
		eval  bool
	}{
		{"mlp", func() *nn.SequentialModule {
			return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
		}, []int64{2, 4}, false},
		{"cnn", func() *nn.SequentialModule {
			return nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8, 2))
		}, []int64{3, 1, 6, 6}, false},
		{"pass-through layers", func() *nn.SequentialModule {
			return nn.Sequential(nn.Identity(), nn.Linear(4, 8), nn.Identity(), nn.Tanh(), nn.Identity(), nn.Linear(8, 3))
		}, []int64{2, 4}, false},
		{"eval dropout", func() *nn.SequentialModule {
			return nn.Sequential(nn.Linear(4, 8), nn.Dropout(), nn.ReLU(), nn.Dropout(), nn.Linear(8, 3))
		}, []int64{2, 4}, true},
		{"nested", func() *nn.SequentialModule {
			return nn.Sequential(nn.Linear(4, 8), nn.Sequential(nn.ReLU(), nn.Linear(8, 8), nn.Sequential()), nn.Tanh(), nn.Linear(8, 3))
		}, []int64{2, 4}, false},
	}
	// Forward runs tensor layers without reflection; ForwardAny through it.
	// Both must free the same tensors.
	forwards := map[string]func(s *nn.SequentialModule, x torch.Tensor) torch.Tensor{
		"Forward":    (*nn.SequentialModule).Forward,
		"ForwardAny": func(s *nn.SequentialModule, x torch.Tensor) torch.Tensor { return s.ForwardAny(x)[0].(torch.Tensor) },
	}
	for _, c := range cases {
		for _, grad := range []bool{false, true} {
			for fname, forward := range forwards {
				name := c.name + "/nograd/" + fname
				if grad {
					name = c.name + "/grad/" + fname
				}
				t.Run(name, func(t *testing.T) {
					s := c.build()
					if c.eval {
						s.Eval()
					}
					x := torch.Randn(c.in)
					var want, y torch.Tensor
					var n int64
					run := func() {
						want = chain(s.Layers, x)
						n = livetest.New(func() { y = forward(s, x) })
					}
					if grad {
						run()
					} else {
						torch.NoGrad(run)
					}
					assert.Equal(t, int64(1), n, "tensors left alive besides the result")
					assert.Equal(t, grad, y.RequiresGrad())
					assert.True(t, x.Defined(), "the input was freed")
					assert.True(t, y.Allclose(want), "got %v, want %v", y, want)
				})
			}
		}
	}
}

// Gradients through a Sequential that frees its intermediates are those of
// the same layers run one by one.
func TestSequentialGradientsUnchanged(t *testing.T) {
	s := nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.LayerNorm([]int64{8}), nn.GELU(), nn.Softsign(), nn.Linear(8, 3))
	x := torch.Randn([]int64{5, 4}).SetRequiresGrad(true)
	grads := func(y torch.Tensor) []torch.Tensor {
		y.Square().Sum().Backward()
		g := []torch.Tensor{x.Grad().Clone()}
		for _, p := range s.Parameters() {
			g = append(g, p.Grad().Clone())
		}
		s.ZeroGrad()
		x.Grad().Zero_()
		return g
	}
	want := grads(chain(s.Layers, x))
	got := grads(s.Forward(x))
	require.Len(t, got, len(want))
	for i := range want {
		assert.True(t, got[i].Allclose(want[i]), "gradient %d: got %v, want %v", i, got[i], want[i])
	}
}

// Nothing that a user's module has seen or made is freed, while the
// intermediates between built-in layers still are.
func TestSequentialKeepsUserModulesTensors(t *testing.T) {
	k := newKeeper()
	s := nn.Sequential(nn.Linear(4, 8), nn.ReLU(), k, nn.Tanh(), nn.Linear(8, 3))
	x := torch.Randn([]int64{2, 4})
	var y torch.Tensor
	n := livetest.New(func() { y = s.Forward(x) })
	require.True(t, k.In.Defined(), "the user's module's input was freed")
	require.True(t, k.Out.Defined(), "the user's module's output was freed")
	assert.True(t, k.Out.Allclose(k.In.MulScalar(torch.S(2))))
	assert.Equal(t, int64(3), n, "alive: the kept input and output, and the result")
	assert.True(t, y.Allclose(chain(s.Layers, x)))

	for _, c := range []struct {
		name   string
		layers func(k *keeper) []nn.Moduler
	}{
		// Identity hands on the user's output; ReLU consumes it.
		{"relayed by Identity", func(k *keeper) []nn.Moduler { return []nn.Moduler{k, nn.Identity(), nn.ReLU()} }},
		{"inside a nested Sequential", func(k *keeper) []nn.Moduler {
			return []nn.Moduler{nn.Linear(4, 4), nn.Sequential(nn.ReLU(), k), nn.ReLU(), nn.Linear(4, 2)}
		}},
		{"first and last", func(k *keeper) []nn.Moduler { return []nn.Moduler{k, nn.Linear(4, 4), k} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := newKeeper()
			s := nn.Sequential(c.layers(k)...)
			x := torch.Randn([]int64{2, 4})
			s.Forward(x)
			require.True(t, k.In.Defined(), "the user's module's input was freed")
			require.True(t, k.Out.Defined(), "the user's module's output was freed")
			assert.True(t, k.Out.Allclose(k.In.MulScalar(torch.S(2))))
			assert.True(t, x.Defined())
		})
	}

	// A tensor that a user's module returns and keeps.
	c := newConstant(torch.Ones([]int64{2, 4}))
	s = nn.Sequential(nn.Linear(4, 4), c, nn.ReLU(), nn.Linear(4, 2))
	s.Forward(torch.Randn([]int64{2, 4}))
	require.True(t, c.C.Defined(), "the user's module's own tensor was freed")
	assert.Equal(t, float32(8), c.C.Sum().Float32s()[0])
}

// Layers that return their input, Identity and Dropout in evaluation, do
// not make the Sequential free the caller's tensor or its own result.
func TestSequentialPassThroughKeepsCallersTensors(t *testing.T) {
	for _, c := range []struct {
		name   string
		layers func() []nn.Moduler
	}{
		{"identity only", func() []nn.Moduler { return []nn.Moduler{nn.Identity(), nn.Identity()} }},
		{"identity first", func() []nn.Moduler { return []nn.Moduler{nn.Identity(), nn.ReLU(), nn.Identity()} }},
		{"identity last", func() []nn.Moduler { return []nn.Moduler{nn.Linear(4, 4), nn.Identity()} }},
		{"identity after a layer", func() []nn.Moduler { return []nn.Moduler{nn.Linear(4, 4), nn.Identity(), nn.Identity(), nn.ReLU()} }},
		{"eval dropout", func() []nn.Moduler { return []nn.Moduler{nn.Dropout(), nn.Identity(), nn.Dropout(), nn.Tanh()} }},
		{"empty nested", func() []nn.Moduler { return []nn.Moduler{nn.Sequential(), nn.ReLU(), nn.Sequential(nn.Identity())} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := nn.Sequential(c.layers()...)
			s.Eval()
			x := torch.Randn([]int64{2, 4})
			xs := x.Clone()
			y := s.Forward(x)
			require.True(t, x.Defined(), "the caller's tensor was freed")
			require.True(t, y.Defined(), "the result was freed")
			assert.True(t, x.Equal(xs))
			assert.True(t, y.Allclose(chain(s.Layers, x)))
		})
	}
}

// A layer that panics makes the Sequential free nothing more: the caller's
// tensor and the failing layer's input stay alive.
func TestSequentialPanicFreesNothing(t *testing.T) {
	k := newKeeper()
	for _, c := range []struct {
		name string
		s    *nn.SequentialModule
		live int64 // besides those before the panic
	}{
		// Linear(4, 8)'s result is freed once ReLU returns; ReLU's, the
		// failing layer's input, is not.
		{"built-in", nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(5, 2)), 1},
		{"after a user's module", nn.Sequential(k, nn.Linear(5, 2)), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := torch.Randn([]int64{2, 4})
			n := livetest.New(func() {
				assert.Panics(t, func() { c.s.Forward(x) })
			})
			assert.Equal(t, c.live, n)
			assert.True(t, x.Defined(), "the caller's tensor was freed")
		})
	}
	assert.True(t, k.In.Defined())
	assert.True(t, k.Out.Defined())
}
