package torch_test

import (
	"encoding/json"
	"errors"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// graph returns golden.json's autograd case name.
func graph(t *testing.T, name string) map[string]json.RawMessage {
	t.Helper()
	g, ok := loadGolden(t).Autograd[name]
	require.True(t, ok, "golden.json has no autograd case %q", name)
	return g
}

func gv(t *testing.T, g map[string]json.RawMessage, key string) goldenValues {
	t.Helper()
	raw, ok := g[key]
	require.True(t, ok, "golden autograd case has no %q", key)
	var v goldenValues
	require.NoError(t, json.Unmarshal(raw, &v))
	return v
}

func gstr(t *testing.T, g map[string]json.RawMessage, key string) string {
	t.Helper()
	var s string
	require.NoError(t, json.Unmarshal(g[key], &s), key)
	return s
}

// goldenLeaf builds a float32 tensor from golden values, requiring grad.
func goldenLeaf(v goldenValues, requiresGrad bool) torch.Tensor {
	f := make([]float32, len(v.Values))
	for i, x := range v.Values {
		f[i] = float32(x)
	}
	return torch.FromSlice(f, v.Shape...).SetRequiresGrad(requiresGrad)
}

// assertValues checks x's shape and values exactly: the golden graphs use
// values with so few significant bits that float32 results are exact.
func assertValues(t *testing.T, want goldenValues, x torch.Tensor, what string) {
	t.Helper()
	require.True(t, x.Defined(), "%s is undefined", what)
	assert.Equal(t, want.Shape, x.Shape(), "%s shape", what)
	assert.Equal(t, want.Values, torch.ToSlice[float64](x), "%s values", what)
}

func TestAutogradGoldenMMChain(t *testing.T) {
	g := graph(t, "graph1")
	a := goldenLeaf(gv(t, g, "a"), true)
	b := goldenLeaf(gv(t, g, "b"), true)
	c := goldenLeaf(gv(t, g, "c"), true)
	ab := torch.Mm(a, b)
	assert.Equal(t, "MmBackward0", ab.GradFn())
	assert.False(t, ab.IsLeaf())
	y := torch.Add(torch.Mm(ab, c), a)
	assertValues(t, gv(t, g, "y"), y, "y")
	assert.Equal(t, gstr(t, g, "grad_fn"), y.GradFn())
	assert.True(t, y.RequiresGrad())

	// y.sum().backward() in Python: a ones gradient for the 2x2 output.
	y.Backward(torch.WithGradient(torch.Ones(y.Shape())))
	assertValues(t, gv(t, g, "a_grad"), a.Grad(), "a.grad")
	assertValues(t, gv(t, g, "b_grad"), b.Grad(), "b.grad")
	assertValues(t, gv(t, g, "c_grad"), c.Grad(), "c.grad")
	assert.Equal(t, torch.Float32, a.Grad().DType())
	assert.True(t, a.IsLeaf())
	assert.False(t, a.Grad().RequiresGrad())
}

func TestAutogradGoldenBroadcastAndReuse(t *testing.T) {
	g := graph(t, "graph2")
	x := goldenLeaf(gv(t, g, "x"), true)
	bias := goldenLeaf(gv(t, g, "bias"), true)
	z := torch.Add(torch.Add(x, bias), x)
	assertValues(t, gv(t, g, "z"), z, "z")

	grad := goldenLeaf(gv(t, g, "grad"), false)
	require.NoError(t, z.TryBackward(torch.WithGradient(grad)))
	assertValues(t, gv(t, g, "x_grad"), x.Grad(), "x.grad")
	assertValues(t, gv(t, g, "bias_grad"), bias.Grad(), "bias.grad")
}

func TestAutogradGoldenAccumulate(t *testing.T) {
	g := graph(t, "graph3")
	p := goldenLeaf(gv(t, g, "p"), true)
	q := goldenLeaf(gv(t, g, "q"), false)
	r := torch.Mm(p, q)
	assertValues(t, gv(t, g, "r"), r, "r")
	assert.Equal(t, gstr(t, g, "r_grad_fn"), r.GradFn())

	ones := torch.Ones(r.Shape())
	r.Backward(torch.WithGradient(ones), torch.WithRetainGraph(true))
	once := gv(t, g, "p_grad_once")
	assertValues(t, once, p.Grad(), "p.grad after one backward")
	assert.False(t, q.Grad().Defined(), "q does not require grad")

	r.Backward(torch.WithGradient(ones))
	assertValues(t, gv(t, g, "p_grad_twice"), p.Grad(), "p.grad after two")

	// The graph is freed now: a third pass fails, and says why.
	err := r.TryBackward(torch.WithGradient(ones))
	te := requireTorchErr(t, "backward", err)
	assert.Contains(t, te.Msg, "second time")
	ok(t)

	// ZeroGrad drops the gradient; a fresh graph accumulates from nothing.
	p.ZeroGrad()
	assert.False(t, p.Grad().Defined())
	torch.Mm(p, q).Backward(torch.WithGradient(ones))
	assertValues(t, once, p.Grad(), "p.grad after ZeroGrad and one backward")
}

func TestAutogradScalarBackward(t *testing.T) {
	s := torch.Full(nil, torch.S(3.0), torch.WithRequiresGrad(true))
	y := torch.Add(s, s) // 0-dim: no gradient needed
	require.Equal(t, int64(0), y.Dim())
	y.Backward()
	assert.Equal(t, 2.0, s.Grad().Item())
	assert.Equal(t, int64(0), s.Grad().Dim())
}

func TestAutogradLeafAndGradFn(t *testing.T) {
	a := leaf(1, 2)
	assert.True(t, a.IsLeaf())
	assert.True(t, a.RequiresGrad())
	assert.Equal(t, "", a.GradFn())
	assert.False(t, a.Grad().Defined(), "no gradient before backward")

	b := f32(3, 4)
	assert.True(t, b.IsLeaf())
	assert.False(t, b.RequiresGrad())
	c := torch.Add(a, b)
	assert.False(t, c.IsLeaf())
	assert.Equal(t, "AddBackward0", c.GradFn())
	// An op on tensors that need no grad records nothing.
	d := torch.Add(b, b)
	assert.True(t, d.IsLeaf())
	assert.False(t, d.RequiresGrad())
	assert.Equal(t, "", d.GradFn())

	// SetRequiresGrad returns the same tensor and toggles a leaf.
	assert.Equal(t, b, b.SetRequiresGrad(true))
	assert.True(t, b.RequiresGrad())
	b.SetRequiresGrad(false)
	assert.False(t, b.RequiresGrad())
}

func TestAutogradErrors(t *testing.T) {
	a := leaf(1, 2)
	y := torch.Add(a, f32(1, 1))

	cases := []struct {
		name    string
		try     func() error
		panicky func()
		op      string
		msg     string
		is      error
	}{
		{
			name:    "non-scalar without grad",
			try:     func() error { return y.TryBackward() },
			panicky: func() { y.Backward() },
			op:      "backward",
			msg:     "only for scalar outputs",
		},
		{
			name:    "no grad_fn",
			try:     func() error { return f32(1).TryBackward() },
			panicky: func() { f32(1).Backward() },
			op:      "backward",
			msg:     "does not require grad",
		},
		{
			name: "grad of wrong shape",
			try: func() error {
				return y.TryBackward(torch.WithGradient(f32(1, 1, 1)), torch.WithRetainGraph(true))
			},
			panicky: func() { y.Backward(torch.WithGradient(f32(1, 1, 1)), torch.WithRetainGraph(true)) },
			op:      "backward",
			msg:     "shape",
		},
		{
			name: "freed grad",
			try: func() error {
				g := f32(1, 1)
				g.Free()
				return y.TryBackward(torch.WithGradient(g))
			},
			panicky: func() {
				g := f32(1, 1)
				g.Free()
				y.Backward(torch.WithGradient(g))
			},
			op:  "backward",
			msg: "argument grad",
			is:  torch.ErrFreed,
		},
		{
			name: "requires_grad on an integer tensor",
			try: func() error {
				_, err := torch.FromSlice([]int64{1}).TrySetRequiresGrad(true)
				return err
			},
			panicky: func() { torch.FromSlice([]int64{1}).SetRequiresGrad(true) },
			op:      "requires_grad_",
			msg:     "floating point",
		},
		{
			// PyTorch: y.requires_grad_(False) on a non-leaf raises.
			name: "requires_grad off on a non-leaf",
			try: func() error {
				_, err := y.TrySetRequiresGrad(false)
				return err
			},
			panicky: func() { y.SetRequiresGrad(false) },
			op:      "requires_grad_",
			msg:     "leaf variables",
		},
		{
			name: "undefined tensor",
			try:  func() error { return torch.Tensor{}.TryBackward() },
			panicky: func() {
				torch.Tensor{}.Backward()
			},
			op:  "backward",
			msg: "argument self",
			is:  torch.ErrUndefined,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.try()
			te := requireTorchErr(t, tc.op, err)
			assert.Contains(t, te.Msg, tc.msg)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			pe := mustPanicErr(t, tc.op, tc.panicky)
			assert.Equal(t, te.Msg, pe.Msg)
			assert.Equal(t, te.Err, pe.Err)
			ok(t)
		})
	}
	// The failed calls left y and its graph usable.
	assert.True(t, y.RequiresGrad())
	assert.Equal(t, "AddBackward0", y.GradFn())
	y.Backward(torch.WithGradient(f32(1, 1)))
	assert.Equal(t, []float32{1, 1}, a.Grad().Float32s())
}

func TestNoGrad(t *testing.T) {
	runtime.LockOSThread() // grad mode is per OS thread
	defer runtime.UnlockOSThread()

	a := leaf(1, 2)
	require.True(t, torch.IsGradEnabled())
	var inside torch.Tensor
	torch.NoGrad(func() {
		assert.False(t, torch.IsGradEnabled())
		inside = torch.Add(a, a)
		// Nested NoGrad keeps it off, and leaves it off when it returns.
		torch.NoGrad(func() { assert.False(t, torch.IsGradEnabled()) })
		assert.False(t, torch.IsGradEnabled())
		// requires_grad= on a factory still makes a leaf that requires
		// grad, as in PyTorch.
		assert.True(t, torch.Zeros(i64s(1), torch.WithRequiresGrad(true)).RequiresGrad())
	})
	assert.True(t, torch.IsGradEnabled())
	assert.False(t, inside.RequiresGrad())
	assert.Equal(t, "", inside.GradFn())
	assert.Equal(t, []float32{2, 4}, inside.Float32s())

	outside := torch.Add(a, a)
	assert.True(t, outside.RequiresGrad())
	assert.Equal(t, "AddBackward0", outside.GradFn())
}

func TestNoGradRestoresAfterPanic(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	r := catch(func() {
		torch.NoGrad(func() {
			torch.Mm(f32(1, 2), f32(1, 2)) // not matrices: panics
		})
	})
	require.NotNil(t, r)
	var te *torch.Error
	require.True(t, errors.As(r.(error), &te))
	assert.Equal(t, "mm", te.Op)
	assert.True(t, torch.IsGradEnabled(), "NoGrad must restore grad mode when f panics")
	assert.Equal(t, "AddBackward0", torch.Add(leaf(1), f32(1)).GradFn())
}

// Grad mode belongs to the OS thread: a NoGrad in one goroutine does not
// turn recording off in another.
func TestNoGradIsPerThread(t *testing.T) {
	a := leaf(1, 2)
	entered, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		torch.NoGrad(func() {
			close(entered)
			<-release // holds its locked OS thread while blocked here
		})
	}()
	<-entered
	var fn string
	var enabled bool
	other := make(chan struct{})
	go func() {
		defer close(other)
		enabled = torch.IsGradEnabled()
		fn = torch.Add(a, a).GradFn()
	}()
	<-other
	close(release)
	<-done
	assert.True(t, enabled)
	assert.Equal(t, "AddBackward0", fn)
}

// ZeroGrad and Grad on one goroutine while another runs a backward pass
// into the same gradients: they wait for the pass instead of freeing the
// gradient it writes (which corrupted the heap). The generated _backward
// runs the same engine and waits the same way.
func TestZeroGradDuringBackward(t *testing.T) {
	for _, tc := range []struct {
		name     string
		backward func(y, w torch.Tensor)
	}{
		{"Backward", func(y, _ torch.Tensor) { y.Backward() }},
		{"InternalBackward", func(y, w torch.Tensor) { y.InternalBackward([]torch.Tensor{w}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := torch.Rand(i64s(64, 64)).SetRequiresGrad(true)
			x := torch.Rand(i64s(32, 64))
			const n = 200
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				for range n {
					y := x.Mm(w).Tanh().Mm(w).SumAll()
					tc.backward(y, w)
					y.Free()
				}
			}()
			go func() {
				defer wg.Done()
				for range n {
					if g := w.Grad(); g.Defined() {
						_ = g.Float32s()[0]
					}
					w.ZeroGrad()
				}
			}()
			wg.Wait()
			w.ZeroGrad()
			tc.backward(x.Mm(w).SumAll(), w)
			assert.Equal(t, []int64{64, 64}, w.Grad().Shape(), "autograd works afterwards")
		})
	}
}
