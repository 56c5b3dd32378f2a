package pt

import (
	"encoding/json"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/classfile"
	"github.com/gotorch/gotorch/examples/fashion_mnist/cnn"
	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// The golden files and expected.json come from testdata/make.py, run
// with PyTorch 1.13.1 (testdata) and with PyTorch 2.6 (testdata/torch2.6).
var goldenDirs = []string{"testdata", "testdata/torch2.6"}

// forDirs runs f on each folder of golden files.
func forDirs(t *testing.T, f func(t *testing.T, dir string)) {
	for _, dir := range goldenDirs {
		t.Run(filepath.Base(dir), func(t *testing.T) { f(t, dir) })
	}
}

type tensorWant struct {
	DType        string `json:"dtype"`
	Shape        []int64
	Values       []json.RawMessage
	RequiresGrad bool `json:"requires_grad"`
}

func expected(t *testing.T) map[string]json.RawMessage { return expectedIn(t, "testdata") }

func expectedIn(t *testing.T, dir string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func expectedTensors(t *testing.T, dir, name string) map[string]tensorWant {
	var out map[string]tensorWant
	require.NoError(t, json.Unmarshal(expectedIn(t, dir)[name], &out))
	require.NotEmpty(t, out, name)
	return out
}

// jsonFloat reads make.py's numbers, with "nan", "inf" and "-inf" as
// strings.
func jsonFloat(t *testing.T, raw json.RawMessage) float64 {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		f, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err, s)
		return f
	}
	var f float64
	require.NoError(t, json.Unmarshal(raw, &f))
	return f
}

// checkTensor compares a tensor with make.py's description exactly: the
// dtype, the shape, and every element's bits (converted to float64,
// complex128 or int64, which is exact from every dtype).
func checkTensor(t *testing.T, want tensorWant, got torch.Tensor, what string) {
	t.Helper()
	require.True(t, got.Defined(), what)
	assert.Equal(t, "torch."+want.DType, got.DType().String(), "%s: dtype", what)
	assert.Equal(t, want.Shape, got.Shape(), "%s: shape", what)
	assert.Equal(t, want.RequiresGrad, got.RequiresGrad(), "%s: requires_grad", what)
	require.Equal(t, int64(len(want.Values)), got.Numel(), "%s: numel", what)
	flat := got.Detach().Reshape([]int64{-1})
	dt := got.DType()
	switch {
	case dt.IsComplex():
		vals := torch.ToSlice[complex128](flat.To(torch.Complex128))
		for i, raw := range want.Values {
			var pair [2]json.RawMessage
			require.NoError(t, json.Unmarshal(raw, &pair))
			w := complex(jsonFloat(t, pair[0]), jsonFloat(t, pair[1]))
			assert.Equal(t, w, vals[i], "%s[%d]", what, i)
		}
	case dt.IsFloatingPoint():
		vals := flat.To(torch.Float64).Float64s()
		for i, raw := range want.Values {
			w := jsonFloat(t, raw)
			if math.IsNaN(w) {
				assert.True(t, math.IsNaN(vals[i]), "%s[%d]: %v, want NaN", what, i, vals[i])
				continue
			}
			assert.Equal(t, w, vals[i], "%s[%d]", what, i)
			assert.Equal(t, math.Signbit(w), math.Signbit(vals[i]), "%s[%d]: sign", what, i)
		}
	default:
		vals := flat.To(torch.Int64).Int64s()
		for i, raw := range want.Values {
			var w int64
			require.NoError(t, json.Unmarshal(raw, &w))
			assert.Equal(t, w, vals[i], "%s[%d]", what, i)
		}
	}
}

func loadDict(t *testing.T, path string, opts ...Option) *Dict {
	t.Helper()
	v, err := Load(path, opts...)
	require.NoError(t, err)
	d, ok := v.(*Dict)
	require.True(t, ok, "%s: %T, want *Dict", path, v)
	return d
}

func checkAll(t *testing.T, dir, file, golden string) {
	want := expectedTensors(t, dir, golden)
	d := loadDict(t, filepath.Join(dir, file))
	require.Equal(t, len(want), d.Len(), file)
	for name, w := range want {
		v, ok := d.Get(name)
		require.True(t, ok, "%s: no key %q", file, name)
		tt, ok := v.(torch.Tensor)
		require.True(t, ok, "%s[%q] is %T", file, name, v)
		checkTensor(t, w, tt, file+": "+name)
	}
}

func TestEveryDType(t *testing.T) {
	forDirs(t, func(t *testing.T, dir string) {
		for _, file := range []string{"dtypes.pt", "dtypes_legacy.pt"} {
			t.Run(file, func(t *testing.T) { checkAll(t, dir, file, "dtypes") })
		}
	})
}

func TestViewsShareTheirStorage(t *testing.T) {
	forDirs(t, testViews)
}

func testViews(t *testing.T, dir string) {
	for _, file := range []string{"views.pt", "views_legacy.pt"} {
		t.Run(file, func(t *testing.T) {
			checkAll(t, dir, file, "views")
			// The views are views of one tensor per storage, as in PyTorch:
			// writing through the base changes them.
			d := loadDict(t, filepath.Join(dir, file))
			get := func(k string) torch.Tensor { v, _ := d.Get(k); return v.(torch.Tensor) }
			base, row, col, tr := get("base"), get("row"), get("col"), get("t")
			assert.Equal(t, int64(6), torch.Stride(col, 0))
			assert.Equal(t, int64(1), torch.Stride(tr, 0))
			assert.Equal(t, int64(0), torch.Stride(get("expanded"), 1))
			base.AddScalar_(torch.S(100.0))
			assert.Equal(t, []float32{106, 107, 108, 109, 110, 111}, row.Float32s())
			assert.Equal(t, []float32{102, 108, 114, 120}, col.Float32s())
			// The expanded view has a storage of its own: unchanged.
			assert.Equal(t, []float32{0, 0, 0, 0}, get("expanded").Select(0, 0).Float32s())
		})
	}
}

func TestOneKeyDict(t *testing.T) {
	// Debian 12's libtorch pickle fails on these ("Unknown opcode 0x73",
	// SETITEM): a one-key dict has no MARK ... SETITEMS.
	forDirs(t, func(t *testing.T, dir string) {
		for _, file := range []string{"one_key.pt", "one_key_legacy.pt"} {
			sd, err := LoadStateDict(filepath.Join(dir, file))
			require.NoError(t, err, file)
			require.Len(t, sd, 1)
			assert.Equal(t, []float32{1.5, -2}, sd["weight"].Float32s(), file)
		}
	})
}

func TestTiedWeightsStayOneTensor(t *testing.T) {
	forDirs(t, func(t *testing.T, dir string) {
		for _, file := range []string{"tied.pt", "tied_legacy.pt"} {
			checkAll(t, dir, file, "tied")
			sd, err := LoadStateDict(filepath.Join(dir, file))
			require.NoError(t, err)
			assert.Equal(t, sd["embed.weight"], sd["head.weight"], "%s: one Python object, one Go value", file)
		}
	})
}

func TestParameter(t *testing.T) {
	forDirs(t, func(t *testing.T, dir string) {
		v, err := Load(filepath.Join(dir, "parameter.pt"))
		require.NoError(t, err)
		var want tensorWant
		require.NoError(t, json.Unmarshal(expectedIn(t, dir)["parameter"], &want))
		checkTensor(t, want, v.(torch.Tensor), "parameter")
	})
}

func TestCheckpoint(t *testing.T) {
	forDirs(t, testCheckpoint)
}

func testCheckpoint(t *testing.T, dir string) {
	for _, file := range []string{"checkpoint.pt", "checkpoint_legacy.pt"} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join(dir, file)
			d := loadDict(t, path)
			get := func(k any) any {
				v, ok := d.Get(k)
				require.True(t, ok, "no key %v", k)
				return v
			}
			assert.Equal(t, int64(3), get("epoch"))
			assert.Equal(t, 0.25, get("loss"))
			assert.Equal(t, "run-1", get("name"))
			assert.Equal(t, []any{"a", "b"}, get("tags"))
			assert.Equal(t, new(big.Int).Lsh(big.NewInt(1), 70), get("big"))
			assert.Equal(t, int64(-70000), get("negative"))
			assert.Equal(t, true, get("flag"))
			assert.Nil(t, get("nothing"))
			assert.Equal(t, Tuple{int64(1), 2.5, "x"}, get("pair"))
			assert.Equal(t, []byte("\x00\xffok"), get("raw"))
			assert.Equal(t, torch.Float16, get("dtype"))
			assert.Equal(t, torch.CPU, get("device"))
			assert.Equal(t, Tuple{int64(2), int64(3)}, get("size"))
			assert.ElementsMatch(t, Set{int64(1), int64(3)}, get("ids"))
			assert.Equal(t, complex(1, 2), get("z"))
			assert.Equal(t, "int key", get(int64(7)))
			nested := get("nested").(*Dict)
			a, _ := nested.Get("a")
			b, _ := a.(*Dict).Get("b")
			c, _ := b.(*Dict).Get("c")
			assert.Equal(t, []any{int64(1), []any{int64(2), []any{int64(3)}}}, c)

			model := get("model").(*Dict)
			assert.True(t, model.Ordered)
			require.NotNil(t, model.Attrs, "the state dict's _metadata")
			_, ok := model.Attrs.Get("_metadata")
			assert.True(t, ok)
			want := expectedTensors(t, dir, "checkpoint_model")
			for name, w := range want {
				v, ok := model.Get(name)
				require.True(t, ok, name)
				checkTensor(t, w, v.(torch.Tensor), name)
			}
			// The optimizer's state is keyed by ints.
			opt := get("optimizer").(*Dict)
			state, _ := opt.Get("state")
			for k, w := range expectedTensors(t, dir, "checkpoint_momentum") {
				i, _ := strconv.Atoi(k)
				s, ok := state.(*Dict).Get(int64(i))
				require.True(t, ok, "state %d", i)
				buf, _ := s.(*Dict).Get("momentum_buffer")
				checkTensor(t, w, buf.(torch.Tensor), "momentum "+k)
			}
			groups, _ := opt.Get("param_groups")
			lr, _ := groups.([]any)[0].(*Dict).Get("lr")
			assert.Equal(t, 0.1, lr)

			// WithKey takes one part, and LoadStateDict gives its tensors.
			sd, err := LoadStateDict(path, WithKey("model"))
			require.NoError(t, err)
			assert.Len(t, sd, len(want))
			_, err = LoadStateDict(path, WithKey("nested", "a"))
			assert.ErrorContains(t, err, `entry "nested.a.b" is dict, not a tensor`)
			_, err = LoadStateDict(path, WithKey("modle"))
			assert.ErrorIs(t, err, ErrInvalid)
			assert.ErrorContains(t, err, `has no key "modle"`)
			_, err = LoadStateDict(path)
			assert.ErrorContains(t, err, "not a tensor")
		})
	}
}

func TestRefusesWhatIsNotAllowed(t *testing.T) {
	forDirs(t, func(t *testing.T, dir string) {
		_, err := Load(filepath.Join(dir, "not_allowed.pt"))
		require.ErrorIs(t, err, ErrNotAllowed)
		assert.ErrorContains(t, err, `"argparse.Namespace"`)
		assert.ErrorContains(t, err, "not_allowed.pt")

		_, err = Load(filepath.Join(dir, "torchscript.pt"))
		require.ErrorIs(t, err, ErrUnsupported)
		require.ErrorIs(t, err, ErrTorchScript)
		assert.ErrorContains(t, err, "TorchScript archive")
	})
}

// smallCNN is examples/fashion_mnist's CNN with fewer channels: make.py's
// SmallCNN.
type smallCNN struct {
	nn.Module
	Features   *nn.SequentialModule
	Classifier *nn.SequentialModule
}

func newSmallCNN() *smallCNN {
	n := &smallCNN{
		Features: nn.Sequential(
			nn.Conv2d(1, 4, 3, nn.WithPadding(1)), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
			nn.Conv2d(4, 8, 3, nn.WithPadding(1)), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
		),
		Classifier: nn.Sequential(
			nn.Flatten(), nn.Dropout(nn.WithP(0.25)),
			nn.Linear(8*7*7, 16), nn.ReLU(), nn.Dropout(nn.WithP(0.5)),
			nn.Linear(16, 10),
		),
	}
	n.Init(n)
	return n
}

func (n *smallCNN) Forward(x torch.Tensor) torch.Tensor {
	return n.Classifier.Forward(n.Features.Forward(x))
}

// ioPair reads make.py's input and PyTorch's output for it.
func ioPair(t *testing.T, path string) (x, y torch.Tensor) {
	sd, err := LoadStateDict(path)
	require.NoError(t, err)
	return sd["input"], sd["output"]
}

func TestModuleMatchesPyTorch(t *testing.T) {
	forDirs(t, testModuleMatchesPyTorch)
}

func testModuleMatchesPyTorch(t *testing.T, dir string) {
	x, want := ioPair(t, filepath.Join(dir, "cnn_io.pt"))
	for _, file := range []string{"cnn.pt", "cnn_legacy.pt"} {
		net := newSmallCNN()
		require.NoError(t, LoadModule(net, filepath.Join(dir, file), true), file)
		net.Eval()
		var got torch.Tensor
		torch.NoGrad(func() { got = net.Forward(x) })
		// Outputs of a few hundred float32 multiply-adds each.
		golden.For(torch.Float32).Times(8).AllClose(t, want.To(torch.Float64).Float64s(), got.To(torch.Float64).Float64s(), "%s: forward", file)
		assert.Equal(t, []int64{5}, net.StateDict()["features.1.num_batches_tracked"].Int64s()[:1:1])
	}

	// An MLP with BatchNorm1d, from the "model" entry of a checkpoint.
	mx, my := ioPair(t, filepath.Join(dir, "mlp_io.pt"))
	for _, file := range []string{"checkpoint.pt", "checkpoint_legacy.pt"} {
		mlp := nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))
		err := LoadModule(mlp, filepath.Join(dir, file), true, WithKey("optimizer"))
		assert.ErrorContains(t, err, "not a tensor")
		require.NoError(t, LoadModule(mlp, filepath.Join(dir, file), true, WithKey("model")))
		mlp.Eval()
		var got torch.Tensor
		torch.NoGrad(func() { got = mlp.Forward(mx) })
		golden.For(torch.Float32).Times(8).AllClose(t, my.To(torch.Float64).Float64s(), got.To(torch.Float64).Float64s(), "%s: forward", file)
	}

	// Strictness and shapes are nn's.
	err := LoadModule(newSmallCNN(), filepath.Join(dir, "checkpoint.pt"), true, WithKey("model"))
	var sde *nn.StateDictError
	require.ErrorAs(t, err, &sde)
	assert.Contains(t, sde.Missing, "features.0.weight")
}

func TestStripPrefix(t *testing.T) {
	dir := t.TempDir()
	sd, err := LoadStateDict("testdata/cnn.pt")
	require.NoError(t, err)
	prefixed := map[string]torch.Tensor{}
	for k, v := range sd {
		prefixed["module."+k] = v
	}
	path := filepath.Join(dir, "ddp.pt")
	require.NoError(t, Save(path, prefixed))
	require.Error(t, LoadModule(newSmallCNN(), path, true))
	require.NoError(t, LoadModule(newSmallCNN(), path, true, WithStripPrefix("module.")))
}

// TestFashionMNISTNames checks that the main job's CNN (examples/
// fashion_mnist/cnn, in XGo) has the state-dict names and shapes of its
// PyTorch twin, so that LoadModule loads a .pt of it (its weights, 1.6 MB,
// are not committed; SmallCNN above is the same model with fewer channels).
func TestFashionMNISTNames(t *testing.T) {
	var want map[string][]int64
	require.NoError(t, json.Unmarshal(expected(t)["fashion_mnist_shapes"], &want))
	got := map[string][]int64{}
	for k, v := range classfile.Build(new(cnn.Net)).StateDict() {
		got[k] = v.Shape()
	}
	assert.Equal(t, want, got)
}

// TestNewDTypes reads PyTorch 2.6's dtypes that 1.13.1 lacks or has no
// storage class for (unsigned integers, float8, complex32), saved with
// _rebuild_tensor_v3 over an untyped storage, in both formats: bit for bit
// where the linked libtorch has them (2.3 and newer), and
// torch.ErrUnsupported naming the dtype where it does not.
func TestNewDTypes(t *testing.T) {
	const dir = "testdata/torch2.6"
	want := expectedTensors(t, dir, "dtypes_new")
	require.Len(t, want, 8)
	_, err := torch.TryZeros([]int64{1}, torch.WithDtype(torch.Uint16))
	has := err == nil
	for _, file := range []string{"dtypes_new.pt", "dtypes_new_legacy.pt"} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join(dir, file)
			if !has {
				_, err := Load(path)
				require.ErrorIs(t, err, torch.ErrUnsupported)
				assert.ErrorContains(t, err, "UntypedStorage")
				assert.ErrorContains(t, err, "is not in this libtorch")
				return
			}
			checkAll(t, dir, file, "dtypes_new")
		})
	}
}
