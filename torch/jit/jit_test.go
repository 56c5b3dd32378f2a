package jit_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/jit"
)

// expected is testdata/expected.json, written by testdata/make.py.
type expected struct {
	X            []float64 `json:"x"`
	XShape       []int64   `json:"x_shape"`
	Forward      []float64 `json:"forward"`
	ForwardShape []int64   `json:"forward_shape"`
	Pair         struct {
		T []float64
		K int64
	} `json:"pair"`
	StatsIn  [][]float64          `json:"stats_in"`
	Stats    map[string][]float64 `json:"stats"`
	NestedIn struct {
		T0 []float64            `json:"t0"`
		TL [][]float64          `json:"tl"`
		D  map[string][]float64 `json:"d"`
	} `json:"nested_in"`
	Nested      [][2]json.RawMessage `json:"nested"`
	IntKeys     map[string]float64   `json:"int_keys"`
	Params      map[string][]float64 `json:"params"`
	ParamNames  []string             `json:"param_names"`
	BufferNames []string             `json:"buffer_names"`
	SGD         struct {
		Target []float64            `json:"target"`
		Loss   float64              `json:"loss"`
		After  []float64            `json:"after"`
		Params map[string][]float64 `json:"params"`
	} `json:"sgd"`
}

const netPath = "testdata/net.pt"

func readExpected(t *testing.T) *expected {
	t.Helper()
	b, err := os.ReadFile("testdata/expected.json")
	require.NoError(t, err)
	var e expected
	require.NoError(t, json.Unmarshal(b, &e))
	return &e
}

func vec(v []float64, shape ...int64) torch.Tensor {
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	if len(shape) == 0 {
		shape = []int64{int64(len(v))}
	}
	return torch.FromSlice(f, shape...)
}

func load(t *testing.T) *jit.Module {
	t.Helper()
	m, err := jit.Load(netPath)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

func TestForward(t *testing.T) {
	e := readExpected(t)
	m := load(t)
	x := vec(e.X, e.XShape...)

	y, err := m.ForwardTensor(x)
	require.NoError(t, err)
	assert.Equal(t, e.ForwardShape, y.Shape())
	golden.TensorClose(t, e.Forward, y, "forward")
	assert.False(t, y.RequiresGrad(), "an inference module's results carry no graph")

	out, err := m.Forward(x)
	require.NoError(t, err)
	golden.TensorClose(t, e.Forward, out.(torch.Tensor), "Forward")
}

func TestMethods(t *testing.T) {
	e := readExpected(t)
	m := load(t)
	x := vec(e.X, e.XShape...)

	t.Run("tuple", func(t *testing.T) {
		out, err := m.Method("pair", x, 3) // a Go int for TorchScript's int
		require.NoError(t, err)
		tup, ok := out.([]any)
		require.True(t, ok, "a tuple comes back as []any, got %T", out)
		require.Len(t, tup, 2)
		golden.TensorClose(t, e.Pair.T, tup[0].(torch.Tensor), "pair[0]")
		assert.Equal(t, e.Pair.K, tup[1])
	})

	t.Run("tensor list in, dict out", func(t *testing.T) {
		var xs []torch.Tensor
		for _, v := range e.StatsIn {
			xs = append(xs, vec(v))
		}
		out, err := m.Method("stats", xs)
		require.NoError(t, err)
		d, ok := out.(map[string]torch.Tensor)
		require.True(t, ok, "Dict[str, Tensor] comes back as map[string]torch.Tensor, got %T", out)
		require.Len(t, d, len(e.Stats))
		for k, want := range e.Stats {
			golden.TensorClose(t, want, d[k], "stats[%s]", k)
		}
		// []any holding tensors works too: the schema makes it a List[Tensor].
		var anyXs []any
		for _, t := range xs {
			anyXs = append(anyXs, t)
		}
		out, err = m.Method("stats", anyXs)
		require.NoError(t, err)
		golden.TensorClose(t, e.Stats["sum"], out.(map[string]torch.Tensor)["sum"], "stats from []any")
	})

	t.Run("scalars, strings, optionals, typed lists and dicts", func(t *testing.T) {
		out, err := m.Method("echo", int64(41), 1.25, true, "hi", nil,
			[]int64{1, 2}, []float64{3, 5}, []bool{true, false}, []string{"a"},
			map[string]int{"x": 2, "y": 5})
		require.NoError(t, err)
		assert.Equal(t, []any{
			int64(42), 2.5, false, "hi!", nil,
			[]int64{1, 2, 7}, []float64{1.5, 2.5}, []bool{false, true}, []string{"a", "end"},
			map[string]int64{"x!": 4, "y!": 10},
		}, out)

		out, err = m.Method("echo", 1, 2, false, "", 9, []int{}, []float64{}, []bool{}, []string{}, map[string]int64{})
		require.NoError(t, err, "a Go int for a float argument, empty lists and dicts")
		tup := out.([]any)
		assert.Equal(t, 4.0, tup[1])
		assert.Equal(t, int64(9), tup[4])
		assert.Equal(t, []int64{7}, tup[5])
		assert.Equal(t, map[string]int64{}, tup[9])
	})

	t.Run("nested tuple, list and dict", func(t *testing.T) {
		in := e.NestedIn
		dict := map[string]torch.Tensor{}
		for k, v := range in.D {
			dict[k] = vec(v)
		}
		out, err := m.Method("nested", []any{vec(in.T0), []torch.Tensor{vec(in.TL[0]), vec(in.TL[1])}}, dict)
		require.NoError(t, err)
		list, ok := out.([]any)
		require.True(t, ok, "List[Tuple[str, Tensor]] comes back as []any, got %T", out)
		require.Len(t, list, len(e.Nested))
		for i, want := range e.Nested {
			var name string
			var vals []float64
			require.NoError(t, json.Unmarshal(want[0], &name))
			require.NoError(t, json.Unmarshal(want[1], &vals))
			pair := list[i].([]any)
			assert.Equal(t, name, pair[0])
			golden.TensorClose(t, vals, pair[1].(torch.Tensor), "nested[%d]", i)
		}
	})

	t.Run("int keys", func(t *testing.T) {
		out, err := m.Method("int_keys", 3)
		require.NoError(t, err)
		want := map[int64]float64{}
		for k, v := range e.IntKeys {
			i, _ := strconv.ParseInt(k, 10, 64)
			want[i] = v
		}
		assert.Equal(t, want, out)
	})

	t.Run("None and device", func(t *testing.T) {
		out, err := m.Method("nothing")
		require.NoError(t, err)
		assert.Nil(t, out)
		out, err = m.Method("device_of", x)
		require.NoError(t, err)
		assert.Equal(t, torch.CPUDevice, out.(torch.Device).Type)
	})

	t.Run("keyword arguments", func(t *testing.T) {
		out, err := m.Method("pair", x, jit.Kwargs{"k": 2})
		require.NoError(t, err)
		assert.Equal(t, int64(3), out.([]any)[1])
	})

	t.Run("method names", func(t *testing.T) {
		names, err := m.MethodNames()
		require.NoError(t, err)
		for _, n := range []string{"forward", "pair", "stats", "echo", "nested", "int_keys", "boxed"} {
			assert.Contains(t, names, n)
		}
	})
}

func TestErrors(t *testing.T) {
	e := readExpected(t)
	m := load(t)
	x := vec(e.X, e.XShape...)

	cases := []struct {
		name string
		call func() (any, error)
		msg  string
	}{
		{"unsupported result", func() (any, error) { return m.Method("boxed") }, "cannot convert IValue of type Object"},
		{"missing method", func() (any, error) { return m.Method("nope", x) }, "no method 'nope'"},
		{"wrong type", func() (any, error) { return m.Forward("a string") }, "Expected a value of type 'Tensor'"},
		{"too many arguments", func() (any, error) { return m.Forward(x, x) }, "argument"},
		{"too few arguments", func() (any, error) { return m.Method("pair", x) }, "k"},
		{"unknown keyword", func() (any, error) { return m.Method("pair", x, jit.Kwargs{"k": 1, "kk": 1}) }, "kk"},
		{"undefined tensor", func() (any, error) { return m.Forward(torch.Tensor{}) }, "undefined"},
		{"unsupported Go value", func() (any, error) { return m.Forward(struct{}{}) }, "cannot convert a Go value of type struct {}"},
		{"huge uint", func() (any, error) { return m.Method("pair", x, uint64(1)<<63) }, "does not fit"},
		{"freed tensor", func() (any, error) {
			y := torch.Ones([]int64{2})
			y.Free()
			return m.Forward(y)
		}, "after Free"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.call()
			require.Error(t, err)
			assert.Nil(t, out)
			var te *torch.Error
			require.ErrorAs(t, err, &te)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}

	_, err := m.ForwardTensor()
	require.Error(t, err)

	// forward's result is checked by ForwardTensor: pair's is a tuple.
	out, err := m.Method("pair", x, 1)
	require.NoError(t, err)
	require.IsType(t, []any{}, out)
}

func TestNamedTensors(t *testing.T) {
	e := readExpected(t)
	m := load(t)
	params, err := m.NamedParameters()
	require.NoError(t, err)
	var names []string
	for _, p := range params {
		names = append(names, p.Name)
		golden.TensorClose(t, e.Params[p.Name], p.Tensor, "%s", p.Name)
	}
	assert.Equal(t, e.ParamNames, names)

	bufs, err := m.NamedBuffers()
	require.NoError(t, err)
	names = nil
	for _, b := range bufs {
		names = append(names, b.Name)
	}
	assert.Equal(t, e.BufferNames, names)
	assert.Equal(t, []float64{1, 2, 3}, bufs[0].Tensor.Float64s())

	// The tensors are the module's own: a change in place shows in forward.
	x := vec(e.X, e.XShape...)
	torch.NoGrad(func() { bufs[0].Tensor.MulScalar_(torch.S(0)) })
	y, err := m.ForwardTensor(x)
	require.NoError(t, err)
	// With scale 0, head sees relu(0) = 0 and returns its bias, row after row.
	var headBias []float64
	for _, p := range params {
		if p.Name == "head.1.bias" {
			headBias = p.Tensor.Float64s()
		}
	}
	require.Len(t, headBias, 2)
	got := y.Float64s()
	for i := range got {
		assert.InDelta(t, headBias[i%2], got[i], 1e-6)
	}
}

func TestTrainEval(t *testing.T) {
	m := load(t)
	for _, train := range []bool{false, true, false} {
		if train {
			require.NoError(t, m.Train())
		} else {
			require.NoError(t, m.Eval())
		}
		on, err := m.IsTraining()
		require.NoError(t, err)
		assert.Equal(t, train, on)
		out, err := m.Method("is_training")
		require.NoError(t, err)
		assert.Equal(t, train, out, "the scripted code sees self.training")
	}
}

func TestTo(t *testing.T) {
	e := readExpected(t)
	m := load(t)
	params, err := m.Parameters()
	require.NoError(t, err)
	require.NoError(t, m.To(torch.CPU))
	y, err := m.ForwardTensor(vec(e.X, e.XShape...))
	require.NoError(t, err)
	golden.TensorClose(t, e.Forward, y, "forward after To(cpu)")
	assert.Equal(t, torch.CPUDevice, params[0].Device().Type)
	if !torch.CUDAIsAvailable() {
		err := m.To(torch.CUDA(0))
		require.Error(t, err, "To(cuda) without CUDA")
		return
	}
	require.NoError(t, m.To(torch.CUDA(0)))
	assert.Equal(t, torch.CUDADevice, params[0].Device().Type, "parameters taken before follow the module")
	y, err = m.ForwardTensor(vec(e.X, e.XShape...).To(torch.CUDA(0)))
	require.NoError(t, err)
	golden.TensorClose(t, e.Forward, y.To(torch.CPU), "forward on CUDA")
}

func TestSaveRoundTrip(t *testing.T) {
	e := readExpected(t)
	m := load(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "copy.pt")
	require.NoError(t, m.Save(path))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")

	m2, err := jit.Load(path)
	require.NoError(t, err)
	defer m2.Close()
	y, err := m2.ForwardTensor(vec(e.X, e.XShape...))
	require.NoError(t, err)
	golden.TensorClose(t, e.Forward, y, "forward of the saved copy")

	var buf bytes.Buffer
	require.NoError(t, m.SaveTo(&buf))
	m3, err := jit.LoadReader(&buf)
	require.NoError(t, err)
	defer m3.Close()
	names, err := m3.MethodNames()
	require.NoError(t, err)
	assert.Contains(t, names, "stats")

	require.Error(t, m.Save(filepath.Join(dir, "no", "such", "dir", "x.pt")))
}

func TestClose(t *testing.T) {
	m, err := jit.Load(netPath)
	require.NoError(t, err)
	params, err := m.Parameters()
	require.NoError(t, err)
	require.NoError(t, m.Close())
	require.NoError(t, m.Close(), "Close is idempotent")

	_, err = m.Forward(torch.Ones([]int64{5, 4}))
	assert.ErrorIs(t, err, jit.ErrClosed)
	_, err = m.NamedParameters()
	assert.ErrorIs(t, err, jit.ErrClosed)
	assert.ErrorIs(t, m.Train(), jit.ErrClosed)
	assert.ErrorIs(t, m.To(torch.CPU), jit.ErrClosed)
	assert.ErrorIs(t, m.SaveTo(&bytes.Buffer{}), jit.ErrClosed)
	_, err = m.IsTraining()
	assert.ErrorIs(t, err, jit.ErrClosed)
	_, err = m.MethodNames()
	assert.ErrorIs(t, err, jit.ErrClosed)
	var nilModule *jit.Module
	_, err = nilModule.Forward()
	assert.Error(t, err)

	// Tensors taken from the module outlive it.
	assert.Equal(t, []int64{3, 4}, params[0].Shape())
	assert.Len(t, params[0].Float64s(), 12)
}

func TestLoadErrors(t *testing.T) {
	_, err := jit.Load("testdata/no-such-file.pt")
	require.Error(t, err)
	assert.ErrorIs(t, err, os.ErrNotExist)

	_, err = jit.LoadBytes(nil)
	require.ErrorContains(t, err, "not a TorchScript file")

	data, err := os.ReadFile(netPath)
	require.NoError(t, err)
	_, err = jit.LoadBytes(data[:len(data)/2])
	require.ErrorContains(t, err, "not a TorchScript file", "truncated")

	flipped := bytes.Clone(data)
	flipped[len(flipped)/3] ^= 0x40
	_, err = jit.LoadBytes(flipped)
	require.Error(t, err, "a flipped bit")

	// A file that is a zip, but not TorchScript.
	dir := t.TempDir()
	path := filepath.Join(dir, "x.pt")
	require.NoError(t, os.WriteFile(path, data[:100], 0o644))
	_, err = jit.Load(path)
	var te *torch.Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "jit.load", te.Op)
	assert.Contains(t, err.Error(), path)

	// A device that does not exist.
	if !torch.CUDAIsAvailable() {
		_, err = jit.Load(netPath, jit.WithDevice(torch.CUDA(0)))
		require.Error(t, err)
	}
}

// TestConcurrentForward runs forward from 8 goroutines at once on one
// module, each checking its results.
func TestConcurrentForward(t *testing.T) {
	e := readExpected(t)
	m := load(t)
	x := vec(e.X, e.XShape...)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				y, err := m.ForwardTensor(x)
				if err != nil {
					errs <- err
					return
				}
				want := e.Forward
				got := y.Float64s()
				for i := range want {
					if !golden.Close(want[i], got[i], torch.Float32) {
						errs <- errors.New("forward from a goroutine differs from PyTorch's")
						return
					}
				}
				y.Free()
				if _, err := m.Method("pair", x, 2); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	// Mutations wait for the calls in flight.
	for range 5 {
		require.NoError(t, m.Eval())
		_, err := m.NamedParameters()
		require.NoError(t, err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestTrainableSGD fine-tunes the scripted module from Go: one SGD step
// must change its output as the same step in PyTorch did.
func TestTrainableSGD(t *testing.T) {
	e := readExpected(t)
	m, err := jit.LoadTrainable(netPath)
	require.NoError(t, err)
	defer m.Close()
	params, err := m.Parameters()
	require.NoError(t, err)
	require.Len(t, params, 4)
	for _, p := range params {
		assert.True(t, p.RequiresGrad())
	}
	opt := optim.SGD(params, optim.WithLR(0.1))

	x := vec(e.X, e.XShape...)
	target := vec(e.SGD.Target, 5, 2)
	y, err := m.ForwardTensor(x)
	require.NoError(t, err)
	require.True(t, y.RequiresGrad(), "a Trainable's results carry the graph")
	d := y.Sub(target)
	loss := d.Mul(d).Mean()
	assert.InDelta(t, e.SGD.Loss, loss.Item(), 1e-5)
	loss.Backward()
	opt.Step()

	after, err := m.ForwardTensor(x)
	require.NoError(t, err)
	golden.TensorClose(t, e.SGD.After, after, "forward after one SGD step")
	named, err := m.NamedParameters()
	require.NoError(t, err)
	keys := make([]string, 0, len(named))
	for _, p := range named {
		keys = append(keys, p.Name)
		golden.TensorClose(t, e.SGD.Params[p.Name], p.Tensor, "%s after the step", p.Name)
	}
	sort.Strings(keys)
	assert.Len(t, keys, len(e.SGD.Params))
}
