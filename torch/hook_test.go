package torch_test

import (
	"encoding/json"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/torch"
)

// hookGolden is testdata/hooks.json, written by hooks.py.
type hookGolden struct {
	W, X  [][]float64
	Plain struct {
		WGrad [][]float64 `json:"w_grad"`
	}
	LeafDoubled struct {
		WGrad [][]float64 `json:"w_grad"`
	} `json:"leaf_doubled"`
	NonleafTripled struct {
		WGrad [][]float64 `json:"w_grad"`
		Seen  [][]float64
		HGrad [][]float64 `json:"h_grad"`
	} `json:"nonleaf_tripled"`
	Removed struct {
		WGrad [][]float64 `json:"w_grad"`
	}
}

func loadHookGolden(t *testing.T) (hookGolden, torch.Tensor, torch.Tensor) {
	t.Helper()
	b, err := os.ReadFile("testdata/hooks.json")
	require.NoError(t, err)
	var g hookGolden
	require.NoError(t, json.Unmarshal(b, &g))
	require.NotEmpty(t, g.W)
	w := torch.FromNested(g.W).SetRequiresGrad(true)
	x := torch.FromNested(g.X)
	return g, w, x
}

func flat(rows [][]float64) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// squareSum is (w*x)², summed, and w*x.
func squareSum(w, x torch.Tensor) (loss, h torch.Tensor) {
	h = w.Mul(x)
	return h.Mul(h).SumAll(), h
}

func times(k float64) func(torch.Tensor) torch.Tensor {
	return func(g torch.Tensor) torch.Tensor { return g.MulScalar(torch.S(k)) }
}

func TestRegisterHookMatchesPyTorch(t *testing.T) {
	t.Run("plain", func(t *testing.T) {
		g, w, x := loadHookGolden(t)
		loss, _ := squareSum(w, x)
		loss.Backward()
		golden.RequireAllClose(t, flat(g.Plain.WGrad), w.Grad().Float64s(), torch.Float64, "w.grad")
	})
	t.Run("leaf doubled", func(t *testing.T) {
		g, w, x := loadHookGolden(t)
		w.RegisterHook(times(2))
		loss, _ := squareSum(w, x)
		loss.Backward()
		golden.RequireAllClose(t, flat(g.LeafDoubled.WGrad), w.Grad().Float64s(), torch.Float64, "w.grad")
	})
	t.Run("non-leaf tripled", func(t *testing.T) {
		g, w, x := loadHookGolden(t)
		h := w.Mul(x)
		var seen torch.Tensor
		h.RegisterHook(func(g torch.Tensor) torch.Tensor { seen = g.Clone(); return torch.Tensor{} })
		h.RegisterHook(times(3))
		h.RetainGrad()
		assert.True(t, h.RetainsGrad())
		h.Mul(h).SumAll().Backward()
		golden.RequireAllClose(t, flat(g.NonleafTripled.WGrad), w.Grad().Float64s(), torch.Float64, "w.grad")
		require.True(t, seen.Defined(), "the observing hook ran")
		golden.RequireAllClose(t, flat(g.NonleafTripled.Seen), seen.Float64s(), torch.Float64, "the gradient the first hook saw")
		golden.RequireAllClose(t, flat(g.NonleafTripled.HGrad), h.Grad().Float64s(), torch.Float64, "h.grad (retain_grad)")
	})
	t.Run("removed", func(t *testing.T) {
		g, w, x := loadHookGolden(t)
		calls := 0
		handle := w.RegisterHook(func(g torch.Tensor) torch.Tensor { calls++; return g.MulScalar(torch.S(2.0)) })
		handle.Remove()
		handle.Remove() // twice does nothing
		loss, _ := squareSum(w, x)
		loss.Backward()
		assert.Zero(t, calls, "a removed hook does not run")
		golden.RequireAllClose(t, flat(g.Removed.WGrad), w.Grad().Float64s(), torch.Float64, "w.grad")
	})
}

func TestRegisterHookPanicIsBackwardError(t *testing.T) {
	_, w, x := loadHookGolden(t)
	w.RegisterHook(func(torch.Tensor) torch.Tensor { panic("boom") })
	loss, _ := squareSum(w, x)
	err := loss.TryBackward()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "register_hook: the hook panicked: boom")
	var te *torch.Error
	assert.ErrorAs(t, err, &te)
	assert.False(t, w.Grad().Defined(), "no gradient accumulated")

	// A hook's panic with a torch error keeps its message; Backward panics
	// with the error.
	_, w2, x2 := loadHookGolden(t)
	w2.RegisterHook(func(g torch.Tensor) torch.Tensor { return g.Mul(torch.FromNested([]float64{1, 2})) })
	loss2, _ := squareSum(w2, x2)
	func() {
		defer func() {
			r := recover()
			require.NotNil(t, r, "Backward panics")
			e, ok := r.(error)
			require.True(t, ok, "%v", r)
			assert.Contains(t, e.Error(), "the hook panicked")
			assert.Contains(t, e.Error(), "must match the size of tensor b")
		}()
		loss2.Backward()
	}()
}

func TestRegisterHookBadInput(t *testing.T) {
	_, w, x := loadHookGolden(t)
	_, err := x.TryRegisterHook(times(2))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot register a hook on a tensor that doesn't require gradient")

	_, err = w.TryRegisterHook(nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "register_hook: the hook is a nil function")

	_, err = torch.Tensor{}.TryRegisterHook(times(2))
	assert.ErrorIs(t, err, torch.ErrUndefined)

	f := torch.FromNested([]float64{1, 2}).SetRequiresGrad(true)
	f.Free()
	_, err = f.TryRegisterHook(times(2))
	assert.ErrorIs(t, err, torch.ErrFreed)

	// A replacement of another shape is libtorch's error, from Backward.
	w.RegisterHook(func(g torch.Tensor) torch.Tensor { return g.SumAll() })
	loss, _ := squareSum(w, x)
	err = loss.TryBackward()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "hook")

	// A hook may not register hooks: Backward would wait for itself.
	_, w3, x3 := loadHookGolden(t)
	var inner error
	w3.RegisterHook(func(g torch.Tensor) torch.Tensor {
		_, inner = w3.TryRegisterHook(times(2))
		return torch.Tensor{}
	})
	loss3, _ := squareSum(w3, x3)
	require.NoError(t, loss3.TryBackward())
	require.Error(t, inner)
	assert.Contains(t, inner.Error(), "register_hook: called from a backward hook")
	// That hook holds its own tensor: only Free breaks the cycle.
	w3.Free()
}

// waitHooks collects until LiveHooks is want, or fails.
func waitHooks(t *testing.T, want int64, what string) {
	t.Helper()
	for i := 0; i < 50 && torch.LiveHooks() != want; i++ {
		runtime.GC()
		torch.FinishGC()
		time.Sleep(time.Millisecond)
	}
	require.Equal(t, want, torch.LiveHooks(), what)
}

func TestRegisterHookReleasesItsFunction(t *testing.T) {
	// The hooks of the tests before, on tensors now unreachable, go first.
	waitHooks(t, 0, "the hooks of earlier tests are given back")
	base := torch.LiveHooks()
	_, w, x := loadHookGolden(t)
	h := w.RegisterHook(times(2))
	require.Equal(t, base+1, torch.LiveHooks())
	h.Remove()
	require.Equal(t, base, torch.LiveHooks(), "Remove gives the function back at once when no backward runs")

	// A hook removed from inside a hook waits for the backward to end.
	var self *torch.RemovableHandle
	calls := 0
	self = w.RegisterHook(func(g torch.Tensor) torch.Tensor { calls++; self.Remove(); return torch.Tensor{} })
	loss, _ := squareSum(w, x)
	loss.Backward()
	loss, _ = squareSum(w, x)
	loss.Backward()
	assert.Equal(t, 1, calls, "the hook ran once, then was off")
	w.RegisterHook(times(1)).Remove() // detaches the waiting one too
	require.Equal(t, base, torch.LiveHooks(), "the removed hooks are given back")

	// A freed tensor gives its hooks back, removed or not.
	func() {
		v := torch.FromNested([]float64{1, 2, 3}).SetRequiresGrad(true)
		for range 5 {
			v.RegisterHook(times(2))
		}
		v.MulScalar(torch.S(2.0)).SumAll().Backward()
		require.Equal(t, base+5, torch.LiveHooks())
		v.Free()
	}()
	waitHooks(t, base, "the hooks of a freed tensor are given back")

	// A handle dropped without Remove leaves its hook on the tensor.
	_, w4, x4 := loadHookGolden(t)
	g, _, _ := loadHookGolden(t)
	w4.RegisterHook(times(2))
	runtime.GC()
	runtime.GC()
	loss4, _ := squareSum(w4, x4)
	loss4.Backward()
	golden.RequireAllClose(t, flat(g.LeafDoubled.WGrad), w4.Grad().Float64s(), torch.Float64, "w.grad after the handle is collected")
}

// Hooks on many goroutines at once, for -race.
func TestRegisterHookConcurrent(t *testing.T) {
	g, _, _ := loadHookGolden(t)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				_, w, x := loadHookGolden(t)
				h := w.RegisterHook(times(2))
				loss, _ := squareSum(w, x)
				if err := loss.TryBackward(); err != nil {
					t.Errorf("goroutine %d, step %d: %v", i, j, err)
					return
				}
				if !golden.AllClose(t, flat(g.LeafDoubled.WGrad), w.Grad().Float64s(), torch.Float64, "goroutine %d step %d", i, j) {
					return
				}
				h.Remove()
			}
		}()
	}
	wg.Wait()
}

func TestPinnedMemoryWithoutCUDA(t *testing.T) {
	x := torch.FromNested([]float32{1, 2, 3})
	assert.False(t, x.IsPinned(), "a CPU tensor is not pinned")
	if torch.CUDAIsAvailable() {
		p := x.PinMemory()
		assert.True(t, p.IsPinned())
		assert.Equal(t, x.Float64s(), p.Float64s())
		return
	}
	_, err := x.TryPinMemory()
	require.Error(t, err, "pinning needs CUDA")
	var te *torch.Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "pin_memory", te.Op)
	assert.NotContains(t, err.Error(), "kernels for .", "an empty list of backends is not a sentence")
	t.Logf("pin_memory without CUDA: %v", err)
}

func TestRetainGrad(t *testing.T) {
	x := torch.FromNested([]float64{1, 2}).SetRequiresGrad(true)
	y := x.MulScalar(torch.S(3.0))
	assert.False(t, y.RetainsGrad())
	y.RetainGrad()
	assert.True(t, y.RetainsGrad())
	y.Mul(y).SumAll().Backward()
	assert.Equal(t, []float64{6, 12}, y.Grad().Float64s(), "dy = 2y")
	err := torch.FromNested([]float64{1}).TryRetainGrad()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "can't retain_grad on Tensor that has requires_grad=False")
}

// A hook that reads or drops gradients runs under its Backward's lock
// instead of waiting for that Backward, which would never end.
func TestRegisterHookMayUseGradients(t *testing.T) {
	_, w, x := loadHookGolden(t)
	_, other, _ := loadHookGolden(t)
	done := make(chan struct{})
	var seen torch.Tensor
	w.RegisterHook(func(g torch.Tensor) torch.Tensor {
		seen = w.Grad() // none yet: the hook runs before accumulation
		other.ZeroGrad()
		return torch.Tensor{}
	})
	go func() {
		defer close(done)
		loss, _ := squareSum(w, x)
		loss.Backward()
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("Backward with a hook that calls Grad did not return")
	}
	assert.False(t, seen.Defined(), "a leaf's gradient is accumulated after its hooks")
	assert.True(t, w.Grad().Defined())
}
