package pt

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// saveFixture is a checkpoint of everything Save writes: every dtype, a
// non-contiguous view, one tensor under two keys, a tensor that requires
// grad, a state dict, and the plain values.
func saveFixture(t *testing.T) *Dict {
	dtypes := loadDict(t, "testdata/dtypes.pt")
	views := loadDict(t, "testdata/views.pt")
	col, _ := views.Get("col")
	tr, _ := views.Get("t")
	tied := torch.FromSlice([]float32{1, 2, 3})
	param := torch.FromSlice([]float32{0.5, -1}).SetRequiresGrad(true)
	d := &Dict{}
	for _, kv := range [][2]any{
		{"dtypes", dtypes}, {"col", col}, {"t", tr}, {"tied_a", tied}, {"tied_b", tied}, {"param", param},
		{"sd", map[string]torch.Tensor{"b.weight": torch.FromSlice([]float64{1, 2}), "a.bias": torch.FromSlice([]int64{-3})}},
		{"epoch", int64(3)}, {"lr", 0.5}, {"name", "run ü"}, {"tags", []any{"a", int64(1), 2.0}},
		{"pair", Tuple{int64(1), "x", nil}}, {"raw", []byte{0, 0xff, 'k'}},
		{"big", new(big.Int).Lsh(big.NewInt(-1), 70)}, {"neg", int64(-1 << 40)}, {"z", complex(1, -2)},
		{"dtype", torch.BFloat16}, {"device", torch.CPU}, {"none", nil}, {"flag", true}, {int64(7), "int key"},
		{"ratio", float32(0.25)}, {"count", 12},
	} {
		d.Set(kv[0], kv[1])
	}
	return d
}

func TestSaveRoundTrip(t *testing.T) {
	obj := saveFixture(t)
	path := filepath.Join(t.TempDir(), "out.pt")
	require.NoError(t, Save(path, obj))
	v, err := Load(path)
	require.NoError(t, err)
	got := v.(*Dict)
	require.Equal(t, obj.Len(), got.Len())
	for i, k := range obj.Keys {
		assert.Equal(t, k, got.Keys[i])
		want := obj.Values[i]
		switch k {
		case "ratio":
			want = 0.25 // float32 becomes a Python float
		case "count":
			want = int64(12)
		}
		equalValue(t, want, got.Values[i], k)
	}
	a, _ := got.Get("tied_a")
	b, _ := got.Get("tied_b")
	assert.Equal(t, a, b, "one tensor saved twice loads as one")

	// col and t are views of one storage (views.pt's): saved as such, they
	// share memory again, at their offsets and strides.
	cv, _ := got.Get("col")
	tv, _ := got.Get("t")
	col, tr := cv.(torch.Tensor), tv.(torch.Tensor)
	info, err := storageInfoOf(col)
	require.NoError(t, err)
	assert.Equal(t, int64(2), info.offset)
	assert.Equal(t, []int64{6, 1}, []int64{torch.Stride(col, 0), torch.Stride(tr, 0)})
	assert.Equal(t, int64(24*4), col.NBytes(), "the whole storage")
	col.AddScalar_(torch.S(100.0))
	assert.Equal(t, []float32{102, 108, 114, 120}, tr.Select(0, 2).Float32s())
}

// TestSaveViews: Save writes each storage once, whole, as torch.save
// does, and each tensor as a view at its offset and strides; tensors of
// other storages of the same size stay apart.
func TestSaveViews(t *testing.T) {
	base := torch.Arange(torch.S(10.0), torch.WithDtype(torch.Float32))
	other := torch.Arange(torch.S(10.0), torch.WithDtype(torch.Float32))
	mid := base.Narrow(0, 3, 4)
	grid := base.Reshape([]int64{2, 5}).T()
	var buf bytes.Buffer
	d := &Dict{}
	d.Set("mid", mid)
	d.Set("grid", grid)
	d.Set("other", other)
	d.Set("base", base)
	require.NoError(t, Encode(&buf, d))

	a, err := open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), defaultLimits)
	require.NoError(t, err)
	assert.Len(t, a.storages, 2, "base's storage and other's")

	v, err := decodeBytes(buf.Bytes())
	require.NoError(t, err)
	got := v.(*Dict)
	get := func(k string) torch.Tensor { x, _ := got.Get(k); return x.(torch.Tensor) }
	for _, k := range []string{"mid", "grid", "other", "base"} {
		w, _ := d.Get(k)
		equalValue(t, w, get(k), k)
	}
	info, err := storageInfoOf(get("mid"))
	require.NoError(t, err)
	assert.Equal(t, int64(3), info.offset)
	assert.Equal(t, []int64{1, 5}, []int64{torch.Stride(get("grid"), 0), torch.Stride(get("grid"), 1)})
	get("base").AddScalar_(torch.S(1.0))
	assert.Equal(t, []float32{4, 5, 6, 7}, get("mid").Float32s())
	assert.Equal(t, []float32{1, 6}, get("grid").Select(0, 0).Float32s())
	assert.Equal(t, float32(0), get("other").Float32s()[0])
}

// equalValue compares a saved value with the loaded one: tensors by
// dtype, shape, requires_grad and bits.
func equalValue(t *testing.T, want, got any, what any) {
	t.Helper()
	switch w := want.(type) {
	case torch.Tensor:
		g, ok := got.(torch.Tensor)
		require.True(t, ok, "%v: %T", what, got)
		assert.Equal(t, w.DType(), g.DType(), "%v", what)
		assert.Equal(t, w.Shape(), g.Shape(), "%v", what)
		assert.Equal(t, w.RequiresGrad(), g.RequiresGrad(), "%v", what)
		wb, err := tensorBytes(w)
		require.NoError(t, err)
		gb, err := tensorBytes(g)
		require.NoError(t, err)
		assert.Equal(t, wb, gb, "%v", what)
	case *Dict:
		g, ok := got.(*Dict)
		require.True(t, ok, "%v: %T", what, got)
		require.Equal(t, w.Len(), g.Len(), "%v", what)
		for i := range w.Keys {
			equalValue(t, w.Keys[i], g.Keys[i], what)
			equalValue(t, w.Values[i], g.Values[i], w.Keys[i])
		}
	case map[string]torch.Tensor:
		g, ok := got.(*Dict)
		require.True(t, ok, "%v: %T", what, got)
		assert.True(t, g.Ordered)
		require.Equal(t, len(w), g.Len())
		for k, wt := range w {
			gt, ok := g.Get(k)
			require.True(t, ok, k)
			equalValue(t, wt, gt, k)
		}
	default:
		assert.Equal(t, want, got, "%v", what)
	}
}

// TestPythonReadsSave checks that torch.load reads what Save writes
// (testdata/read.py prints what it read). It is skipped where
// /usr/bin/python3 with PyTorch is missing.
func TestPythonReadsSave(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import torch").Run(); err != nil {
		t.Skipf("no /usr/bin/python3 with PyTorch: %v", err)
	}
	obj := saveFixture(t)
	path := filepath.Join(t.TempDir(), "out.pt")
	require.NoError(t, Save(path, obj))
	var stderr bytes.Buffer
	cmd := exec.Command("/usr/bin/python3", "testdata/read.py", path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())

	want := plain(t, obj).(map[string]any)
	want["dict"] = append(want["dict"].([]any), []any{"tied_is_one_tensor", true}, []any{"views_share_memory", true})
	wantJSON, err := json.Marshal(want)
	require.NoError(t, err)
	assert.Equal(t, normJSON(t, wantJSON), normJSON(t, out))
}

// plain is read.py's plain(): the JSON that Python prints for a value.
func plain(t *testing.T, v any) any {
	switch v := v.(type) {
	case torch.Tensor:
		return map[string]any{"tensor": describeTensor(t, v)}
	case *Dict:
		items := []any{}
		for i := range v.Keys {
			items = append(items, []any{plain(t, v.Keys[i]), plain(t, v.Values[i])})
		}
		return map[string]any{"dict": items, "ordered": v.Ordered}
	case map[string]torch.Tensor:
		items := []any{}
		for _, k := range sortedKeys(v) {
			items = append(items, []any{k, plain(t, v[k])})
		}
		return map[string]any{"dict": items, "ordered": true}
	case Tuple:
		out := []any{}
		for _, x := range v {
			out = append(out, plain(t, x))
		}
		return map[string]any{"tuple": out}
	case []any:
		out := []any{}
		for _, x := range v {
			out = append(out, plain(t, x))
		}
		return out
	case []byte:
		out := []any{}
		for _, c := range v {
			out = append(out, int(c))
		}
		return map[string]any{"bytes": out}
	case complex128:
		return map[string]any{"complex": []any{real(v), imag(v)}}
	case *big.Int:
		return map[string]any{"int": v.String()}
	case torch.DType, torch.Device:
		return v.(interface{ String() string }).String()
	case float32:
		return float64(v)
	case float64:
		return jsonNum(v)
	}
	return v
}

func jsonNum(f float64) any {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return f
}

func describeTensor(t *testing.T, x torch.Tensor) map[string]any {
	flat := x.Detach().Reshape([]int64{-1})
	var vals []any
	switch dt := x.DType(); {
	case dt.IsComplex():
		for _, z := range torch.ToSlice[complex128](flat.To(torch.Complex128)) {
			vals = append(vals, []any{jsonNum(real(z)), jsonNum(imag(z))})
		}
	case dt.IsFloatingPoint():
		for _, f := range flat.To(torch.Float64).Float64s() {
			vals = append(vals, jsonNum(f))
		}
	default:
		for _, i := range flat.To(torch.Int64).Int64s() {
			vals = append(vals, i)
		}
	}
	if vals == nil {
		vals = []any{}
	}
	return map[string]any{"dtype": strings.TrimPrefix(x.DType().String(), "torch."), "shape": x.Shape(),
		"values": vals, "requires_grad": x.RequiresGrad()}
}

// normJSON decodes JSON with numbers that compare across Go's and
// Python's spellings (3 and 3.0): integers exactly, others as float64.
func normJSON(t *testing.T, b []byte) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	require.NoError(t, dec.Decode(&v))
	var norm func(any) any
	norm = func(v any) any {
		switch v := v.(type) {
		case json.Number:
			if i, err := strconv.ParseInt(string(v), 10, 64); err == nil && (i > 1<<53 || i < -(1<<53)) {
				return i
			}
			f, err := strconv.ParseFloat(string(v), 64)
			require.NoError(t, err)
			return f
		case []any:
			for i := range v {
				v[i] = norm(v[i])
			}
		case map[string]any:
			for k := range v {
				v[k] = norm(v[k])
			}
		}
		return v
	}
	return norm(v)
}

func TestSaveRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.pt")
	err := Save(path, map[string]any{"f": func() {}})
	assert.ErrorContains(t, err, "cannot save a func()")
	err = Save(path, "\xff")
	assert.ErrorContains(t, err, "not valid UTF-8")
	freed := torch.FromSlice([]float32{1})
	freed.Free()
	assert.ErrorContains(t, Save(path, []torch.Tensor{freed}), "freed")
	_, statErr := os.Stat(path)
	assert.True(t, os.IsNotExist(statErr), "a failed save leaves no file")
}

// TestLibtorchInterop checks the other reader and writer of the format,
// libtorch's (torch.Save and torch.Load, one tensor): each reads the
// other's file. No Python is needed.
func TestLibtorchInterop(t *testing.T) {
	dir := t.TempDir()
	for _, x := range []torch.Tensor{
		torch.FromSlice([]float32{1, -2, 3.5, 4}, 2, 2),
		torch.FromSlice([]int64{-1, 1 << 40}),
		torch.FromSlice([]complex128{1 + 2i}),
		torch.FromSlice([]bool{true, false, true}),
		torch.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3).Transpose(0, 1), // not contiguous
	} {
		ours := filepath.Join(dir, "ours.pt")
		require.NoError(t, Save(ours, x))
		back, err := torch.Load(ours)
		require.NoError(t, err, "libtorch reads pt.Save's file")
		equalValue(t, x, back, "libtorch's load of "+x.DType().String())

		theirs := filepath.Join(dir, "theirs.pt")
		require.NoError(t, torch.Save(x, theirs))
		v, err := Load(theirs)
		require.NoError(t, err, "pt reads torch.Save's file")
		equalValue(t, x, v, "pt's load of "+x.DType().String())
	}
}
