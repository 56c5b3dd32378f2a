package safetensors_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
	st "github.com/gotorch/gotorch/torch/safetensors"
)

// file assembles a safetensors file from a header and a data buffer,
// without padding.
func file(header string, data []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	out = append(out, header...)
	return append(out, data...)
}

func f32bytes(vs ...float32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// zoo returns one tensor of every dtype both sides know, plus odd shapes.
func zoo() map[string]torch.Tensor {
	f := torch.FromSlice([]float32{1, -2, 3.5, 4, 5, 6}, 2, 3)
	return map[string]torch.Tensor{
		"f32":        f,
		"f64":        torch.FromSlice([]float64{math.Pi, -1e300, math.Inf(1)}),
		"f16":        torch.FromSlice([]float32{1, -2.5, 65504, 0.1}).To(torch.Float16),
		"bf16":       torch.FromSlice([]float32{1, -2.5, 3e38, 0.1}, 2, 2).To(torch.BFloat16),
		"i64":        torch.FromSlice([]int64{math.MinInt64, math.MaxInt64, 0, -1}),
		"i32":        torch.FromSlice([]int32{-3, -2, -1, 0, 1, 2}, 3, 2),
		"i16":        torch.FromSlice([]int16{-32768, 32767}),
		"i8":         torch.FromSlice([]int8{-128, 127, 5}),
		"u8":         torch.FromSlice([]uint8{0, 255, 7}),
		"bool":       torch.FromSlice([]bool{true, false, true}, 1, 3),
		"c64":        torch.FromSlice([]complex64{1 + 2i, -3.5 - 0.25i}),
		"scalar":     torch.FromSlice([]float32{3.25}, []int64{}...),
		"empty":      torch.Zeros([]int64{0, 4}),
		"transposed": f.T(),
		"grad":       torch.Ones([]int64{2}).SetRequiresGrad(true),
	}
}

func requireSame(t *testing.T, want, got map[string]torch.Tensor) {
	t.Helper()
	require.Len(t, got, len(want))
	for name, w := range want {
		g, ok := got[name]
		require.True(t, ok, "missing %s", name)
		assert.Equal(t, w.DType(), g.DType(), name)
		assert.Equal(t, w.Shape(), g.Shape(), name)
		assert.Equal(t, torch.CPU, g.Device(), name)
		wr, err := st.RawFromTensor(w)
		require.NoError(t, err)
		gr, err := st.RawFromTensor(g)
		require.NoError(t, err)
		assert.Equal(t, wr.Data, gr.Data, "%s: bytes differ", name)
		assert.False(t, g.RequiresGrad(), name)
	}
}

func TestRoundTripAllDTypes(t *testing.T) {
	tensors := zoo()
	md := map[string]string{"format": "pt", "note": "ünïcode <&>"}
	b, err := st.Marshal(tensors, md)
	require.NoError(t, err)
	got, gotMD, err := st.Unmarshal(b)
	require.NoError(t, err)
	assert.Equal(t, md, gotMD)
	requireSame(t, tensors, got)

	path := filepath.Join(t.TempDir(), "zoo.safetensors")
	require.NoError(t, st.Save(path, tensors, nil))
	got, gotMD, err = st.Load(path)
	require.NoError(t, err)
	assert.Nil(t, gotMD)
	requireSame(t, tensors, got)
	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	inMemory, err := st.Marshal(tensors, nil)
	require.NoError(t, err)
	assert.Equal(t, inMemory, onDisk)
}

func TestExactBits(t *testing.T) {
	// F16 and BF16 keep their bits: 1.0 is 0x3c00 and 0x3f80.
	b, err := st.Marshal(map[string]torch.Tensor{
		"h": torch.FromSlice([]float32{1, -2}).To(torch.Float16),
		"b": torch.FromSlice([]float32{1, -2}).To(torch.BFloat16),
	}, nil)
	require.NoError(t, err)
	f, err := st.Parse(b)
	require.NoError(t, err)
	h, _ := f.Bytes("h")
	bf, _ := f.Bytes("b")
	assert.Equal(t, []byte{0x00, 0x3c, 0x00, 0xc0}, h)
	assert.Equal(t, []byte{0x80, 0x3f, 0x00, 0xc0}, bf)

	// NaN payloads and signed zeros survive a round trip.
	raw := st.Raw{DType: st.F16, Shape: []int64{4}, Data: []byte{0x01, 0x7c, 0xff, 0xff, 0x00, 0x80, 0x00, 0x00}}
	tt, err := raw.Tensor()
	require.NoError(t, err)
	assert.Equal(t, torch.Float16, tt.DType())
	back, err := st.RawFromTensor(tt)
	require.NoError(t, err)
	assert.Equal(t, raw, back)
}

func TestGoldenBytes(t *testing.T) {
	b, err := st.Marshal(map[string]torch.Tensor{"a": torch.FromSlice([]float32{1, 2})}, nil)
	require.NoError(t, err)
	hdr := `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`
	hdr += strings.Repeat(" ", -len(hdr)&7)
	assert.Equal(t, file(hdr, f32bytes(1, 2)), b)
}

func TestLayoutAligned(t *testing.T) {
	b, err := st.Marshal(zoo(), map[string]string{"x": "odd length"})
	require.NoError(t, err)
	f, err := st.Parse(b)
	require.NoError(t, err)
	assert.Zero(t, f.DataStart%8, "data buffer starts at %d", f.DataStart)
	size := 8
	for _, ti := range f.Tensors {
		assert.Zero(t, ti.DataOffsets[0]%int64(ti.DType.Size()), "%s at %d", ti.Name, ti.DataOffsets[0])
		assert.LessOrEqual(t, ti.DType.Size(), size, "buffer order is by decreasing element size")
		size = ti.DType.Size()
	}
	// The JSON keys are sorted, __metadata__ first.
	hdr := string(b[8:f.DataStart])
	last := -1
	for _, k := range append([]string{"__metadata__"}, f.Names()...) {
		i := strings.Index(hdr, strconv.Quote(k)+":")
		require.Greater(t, i, last, k)
		last = i
	}
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.safetensors")
	require.NoError(t, st.Save(path, map[string]torch.Tensor{"ok": torch.Ones([]int64{2})}, nil))
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	freed := torch.Ones([]int64{1})
	freed.Free()
	for _, tc := range []struct {
		name    string
		tensors map[string]torch.Tensor
		md      map[string]string
		want    string
	}{
		{"undefined", map[string]torch.Tensor{"u": {}}, nil, `tensor "u" is undefined`},
		{"freed", map[string]torch.Tensor{"f": freed}, nil, `tensor "f" is undefined or freed`},
		{"complex128", map[string]torch.Tensor{"c": torch.FromSlice([]complex128{1})}, nil, "torch.complex128 has no safetensors dtype"},
		{"reserved", map[string]torch.Tensor{"__metadata__": torch.Ones([]int64{1})}, nil, "reserved"},
		{"bad utf-8 name", map[string]torch.Tensor{"\xff": torch.Ones([]int64{1})}, nil, "not valid UTF-8"},
		{"bad utf-8 metadata", nil, map[string]string{"k": "\xff"}, "not valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := st.Marshal(tc.tensors, tc.md)
			require.ErrorContains(t, err, tc.want)
			err = st.Save(path, tc.tensors, tc.md)
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, path)
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, before, after, "the old file is intact")
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temporary file is left")
		})
	}
	_, err = st.Marshal(map[string]torch.Tensor{"c": torch.FromSlice([]complex128{1})}, nil)
	assert.ErrorIs(t, err, st.ErrUnsupportedDType)

	var buf bytes.Buffer
	err = st.Encode(&buf, map[string]st.Raw{"a": {DType: st.F32, Shape: []int64{3}, Data: make([]byte, 8)}}, nil)
	assert.ErrorContains(t, err, `tensor "a": shape [3] of F32 needs 12 bytes`)
	err = st.Encode(&buf, map[string]st.Raw{"a": {DType: "F128", Shape: []int64{1}, Data: make([]byte, 16)}}, nil)
	assert.ErrorContains(t, err, `unknown dtype "F128"`)
}

// corruptCases are malformed files and the problem each error must name.
var corruptCases = []struct {
	name string
	data []byte
	want string
}{
	{"empty file", nil, "empty file"},
	{"too short", []byte{1, 2, 3, 4, 5}, "file is 5 bytes, too short"},
	{"header length beyond file", append(binary.LittleEndian.AppendUint64(nil, 1000), "{}"...), "header length 1000 exceeds the 2 bytes"},
	{"header length huge", append(binary.LittleEndian.AppendUint64(nil, math.MaxUint64), "{}"...), "header length 18446744073709551615 exceeds"},
	{"header length zero", binary.LittleEndian.AppendUint64(nil, 0), "header length is 0"},
	{"invalid JSON", file(`{"a":{"dtype":"F32",`, nil), "invalid JSON header"},
	{"invalid JSON syntax", file(`{"a" 1}`, nil), "invalid JSON header"},
	{"not an object", file(`[1, 2]  `, nil), "header does not start with '{'"},
	{"trailing JSON", file(`{} {}`, nil), `unexpected "{" after the header object`},
	{"invalid UTF-8", file("{\"\xff\":1}", nil), "header is not valid UTF-8"},
	{"unknown dtype", file(`{"a":{"dtype":"F128","shape":[1],"data_offsets":[0,16]}}`, make([]byte, 16)), `tensor "a": unknown dtype "F128"`},
	{"dtype not a string", file(`{"a":{"dtype":4,"shape":[1],"data_offsets":[0,4]}}`, make([]byte, 4)), `expected a string, found number 4`},
	{"tensor not an object", file(`{"a":[1]}`, nil), `tensor "a": expected "{", found "["`},
	{"missing shape", file(`{"a":{"dtype":"F32","data_offsets":[0,4]}}`, make([]byte, 4)), `tensor "a": missing field "shape"`},
	{"missing offsets", file(`{"a":{"dtype":"F32","shape":[1]}}`, make([]byte, 4)), `tensor "a": missing field "data_offsets"`},
	{"unknown field", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"Dtype":"F64"}}`, make([]byte, 4)), `tensor "a": unknown field "Dtype"`},
	{"duplicate key", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, make([]byte, 8)), `duplicate key "a" in header`},
	{"duplicate field", file(`{"a":{"dtype":"F32","dtype":"F64","shape":[1],"data_offsets":[0,4]}}`, make([]byte, 4)), `tensor "a": duplicate field "dtype"`},
	{"duplicate metadata", file(`{"__metadata__":{"k":"1","k":"2"}}`, nil), `duplicate key "k" in __metadata__`},
	{"duplicate __metadata__", file(`{"__metadata__":{},"__metadata__":{}}`, nil), `duplicate key "__metadata__" in header`},
	{"metadata value not a string", file(`{"__metadata__":{"k":1}}`, nil), `__metadata__["k"]: expected a string, found number 1`},
	{"metadata not an object", file(`{"__metadata__":["k"]}`, nil), `__metadata__ must be an object of strings`},
	{"negative size", file(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}`, make([]byte, 4)), `tensor "a": negative size -1 in shape`},
	{"negative offset", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}}`, nil), `tensor "a": negative value -4 in data_offsets`},
	{"fractional size", file(`{"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}}`, make([]byte, 4)), `tensor "a": shape: 1.5 is not a 64-bit integer`},
	{"size beyond int64", file(`{"a":{"dtype":"F32","shape":[1e30],"data_offsets":[0,4]}}`, make([]byte, 4)), `1e30 is not a 64-bit integer`},
	{"three offsets", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}}`, make([]byte, 4)), `tensor "a": data_offsets has 3 values, want 2`},
	{"reversed offsets", file(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`, make([]byte, 8)), `tensor "a": data_offsets [8 0] end before they begin`},
	{"offsets out of range", file(`{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}`, make([]byte, 8)), `tensor "a": data_offsets [0 16] out of range: the data buffer has 8 bytes`},
	{"overlapping", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, make([]byte, 12)), `tensor "b": data_offsets [4 12] overlap those of tensor "a"`},
	{"same offsets", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, make([]byte, 4)), `tensor "b": data_offsets [0 4] overlap those of tensor "a"`},
	{"gap", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}`, make([]byte, 12)), `bytes [4 8) of the data buffer belong to no tensor (gap before tensor "b")`},
	{"gap at start", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, make([]byte, 8)), `bytes [0 4) of the data buffer belong to no tensor`},
	{"trailing data", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, make([]byte, 6)), `bytes [4 6) at the end of the data buffer belong to no tensor`},
	{"shape and bytes disagree", file(`{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, make([]byte, 8)), `tensor "a": shape [3] of F32 needs 12 bytes, data_offsets [0 8] hold 8`},
	{"shape overflows", file(`{"a":{"dtype":"F32","shape":[1099511627776,1099511627776,0],"data_offsets":[0,0]}}`, nil), `tensor "a": shape [1099511627776 1099511627776 0] has too many elements`},
	{"bytes overflow", file(`{"a":{"dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,0]}}`, nil), `tensor "a": shape [4611686018427387904] of F64 is too large`},
	{"bad bool", file(`{"a":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}}`, []byte{0, 1, 2}), `tensor "a": BOOL element 2 is 0x02, not 0 or 1`},
	{"truncated", validFile()[:len(validFile())-3], `tensor "b": data_offsets [0 8] out of range: the data buffer has 5 bytes (truncated file?)`},
	{"truncated header", validFile()[:20], `header length 56 exceeds the 12 bytes that follow it`},
}

// validFile has a 2-element F32 tensor "b", with a 56-byte header.
func validFile() []byte {
	hdr := `{"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`
	return file(hdr+strings.Repeat(" ", -len(hdr)&7), f32bytes(1, 2))
}

func TestCorrupt(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range corruptCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := st.Parse(tc.data)
			require.Error(t, err)
			assert.ErrorIs(t, err, st.ErrInvalid)
			assert.True(t, strings.HasPrefix(err.Error(), "safetensors: "), err)
			assert.ErrorContains(t, err, tc.want)
			_, _, err = st.Unmarshal(tc.data)
			assert.ErrorContains(t, err, tc.want)

			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".safetensors")
			require.NoError(t, os.WriteFile(path, tc.data, 0o644))
			_, _, err = st.Load(path)
			require.Error(t, err)
			assert.ErrorIs(t, err, st.ErrInvalid)
			assert.True(t, strings.HasPrefix(err.Error(), "safetensors: "+path+": "), err)
			assert.ErrorContains(t, err, tc.want)
			var fe *st.FormatError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, path, fe.File)
		})
	}
}

func TestParseAccepts(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"no tensors", file(`{}`, nil)},
		{"only metadata", file(`{"__metadata__":{"a":"b"}}`, nil)},
		{"null metadata", file(`{"__metadata__":null}`, nil)},
		{"whitespace padding", file("{ }\n\t  ", nil)},
		{"zero-size tensors share offsets", file(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},"b":{"dtype":"I8","shape":[0,5],"data_offsets":[0,0]},"c":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"d":{"dtype":"F32","shape":[2,0],"data_offsets":[4,4]}}`, make([]byte, 4))},
		{"keys in any order", file(`{"b":{"data_offsets":[4,8],"shape":[],"dtype":"I32"},"a":{"shape":[1],"dtype":"F32","data_offsets":[0,4]}}`, make([]byte, 8))},
		{"unsupported by torch", file(`{"a":{"dtype":"U16","shape":[2],"data_offsets":[0,4]}}`, make([]byte, 4))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := st.Parse(tc.data)
			require.NoError(t, err)
			roundTrip(t, f)
		})
	}
	f, err := st.Parse(file(`{"a":{"dtype":"U16","shape":[2],"data_offsets":[0,4]}}`, make([]byte, 4)))
	require.NoError(t, err)
	_, err = f.TorchTensor("a")
	assert.ErrorIs(t, err, st.ErrUnsupportedDType)
	assert.ErrorContains(t, err, `tensor "a": unsupported dtype: U16 has no libtorch dtype`)

	path := filepath.Join(t.TempDir(), "u16.safetensors")
	require.NoError(t, os.WriteFile(path, file(`{"a":{"dtype":"U16","shape":[2],"data_offsets":[0,4]}}`, make([]byte, 4)), 0o644))
	_, _, err = st.Load(path)
	assert.ErrorIs(t, err, st.ErrUnsupportedDType)
	assert.ErrorContains(t, err, path)
}

// roundTrip re-encodes a parsed file and checks that it parses to the same
// tensors and metadata.
func roundTrip(t testing.TB, f *st.File) {
	raws := map[string]st.Raw{}
	for _, ti := range f.Tensors {
		b, _ := f.Bytes(ti.Name)
		raws[ti.Name] = st.Raw{DType: ti.DType, Shape: ti.Shape, Data: b}
	}
	var buf bytes.Buffer
	if err := st.Encode(&buf, raws, f.Metadata); err != nil {
		t.Fatalf("re-encoding a parsed file: %v", err)
	}
	g, err := st.Parse(buf.Bytes())
	if err != nil {
		t.Fatalf("parsing a re-encoded file: %v", err)
	}
	if len(g.Tensors) != len(raws) {
		t.Fatalf("re-encoded file has %d tensors, want %d", len(g.Tensors), len(raws))
	}
	for _, ti := range g.Tensors {
		r, ok := raws[ti.Name]
		b, _ := g.Bytes(ti.Name)
		if !ok || r.DType != ti.DType || !equalShape(r.Shape, ti.Shape) || !bytes.Equal(r.Data, b) {
			t.Fatalf("tensor %q changed in a round trip", ti.Name)
		}
	}
	if len(f.Metadata) != len(g.Metadata) || (f.Metadata == nil) != (g.Metadata == nil) {
		t.Fatalf("metadata changed in a round trip: %v, %v", f.Metadata, g.Metadata)
	}
	for k, v := range f.Metadata {
		if g.Metadata[k] != v {
			t.Fatalf("metadata %q changed in a round trip", k)
		}
	}
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

func TestDTypes(t *testing.T) {
	for _, d := range []st.DType{st.BOOL, st.U8, st.I8, st.I16, st.F16, st.BF16, st.I32, st.F32, st.F64, st.I64, st.C64} {
		td, err := d.Torch()
		require.NoError(t, err, d)
		assert.Equal(t, d.Size(), td.Size(), d)
		back, err := st.DTypeFromTorch(td)
		require.NoError(t, err)
		assert.Equal(t, d, back)
	}
	for _, d := range []st.DType{st.U16, st.U32, st.U64, st.F8E4M3, st.F8E5M2} {
		assert.True(t, d.Valid())
		_, err := d.Torch()
		assert.ErrorIs(t, err, st.ErrUnsupportedDType, d)
	}
	assert.False(t, st.DType("F128").Valid())
	for _, td := range []torch.DType{torch.Complex32, torch.Complex128, torch.QInt8, torch.QUint8, torch.QInt32} {
		_, err := st.DTypeFromTorch(td)
		assert.ErrorIs(t, err, st.ErrUnsupportedDType, td)
	}
}

// pyExpected is testdata/dtypes.json, written by safetensors_py.py.
type pyExpected struct {
	Metadata map[string]string `json:"metadata"`
	Tensors  map[string]struct {
		DType  string            `json:"dtype"`
		Shape  []int64           `json:"shape"`
		Values []json.RawMessage `json:"values"`
		Hex    string            `json:"hex"`
	} `json:"tensors"`
}

func TestPythonFile(t *testing.T) {
	var want pyExpected
	js, err := os.ReadFile("testdata/dtypes.json")
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(js, &want))
	path := "testdata/dtypes.safetensors"
	tensors, md, err := st.Load(path)
	require.NoError(t, err)
	assert.Equal(t, want.Metadata, md)
	require.Len(t, tensors, len(want.Tensors))
	for name, w := range want.Tensors {
		tt, ok := tensors[name]
		require.True(t, ok, name)
		assert.Equal(t, w.Shape, tt.Shape(), name)
		sd, err := st.DTypeFromTorch(tt.DType())
		require.NoError(t, err)
		assert.Equal(t, w.DType, string(sd), name)
		raw, err := st.RawFromTensor(tt)
		require.NoError(t, err)
		assert.Equal(t, w.Hex, hex.EncodeToString(raw.Data), name)
		// The values, as Go reads them.
		require.Len(t, w.Values, int(tt.Numel()), name)
		for i, v := range w.Values {
			switch {
			case tt.DType() == torch.Bool:
				var b bool
				require.NoError(t, json.Unmarshal(v, &b))
				assert.Equal(t, b, tt.Bools()[i], name)
			case tt.DType().IsComplex():
				var c [2]float64
				require.NoError(t, json.Unmarshal(v, &c))
				assert.Equal(t, complex(c[0], c[1]), torch.ToSlice[complex128](tt)[i], name)
			case tt.DType().IsFloatingPoint():
				var f float64
				require.NoError(t, json.Unmarshal(v, &f))
				assert.Equal(t, f, tt.Float64s()[i], name)
			default:
				var s string
				require.NoError(t, json.Unmarshal(v, &s))
				n, err := strconv.ParseInt(s, 10, 64)
				require.NoError(t, err)
				assert.Equal(t, n, tt.Int64s()[i], name)
			}
		}
	}
	// Go writes the very bytes that the Python writer wrote.
	pyBytes, err := os.ReadFile(path)
	require.NoError(t, err)
	goBytes, err := st.Marshal(tensors, md)
	require.NoError(t, err)
	assert.Equal(t, pyBytes, goBytes)
}

const python = "/usr/bin/python3"

// TestPythonReadsGoFile writes the Python zoo from Go, reads it back, and
// has the Python reader check it when /usr/bin/python3 has torch.
func TestPythonReadsGoFile(t *testing.T) {
	tensors, md, err := st.Load("testdata/dtypes.safetensors")
	require.NoError(t, err)
	// Write from fresh, non-contiguous or converted tensors, not the loaded
	// ones: f32 through a transpose, f16 through a conversion.
	f32 := tensors["f32"]
	tensors["f32"] = f32.T().Contiguous().T()
	tensors["f16"] = tensors["f16"].To(torch.Float32).To(torch.Float16)
	path := filepath.Join(t.TempDir(), "from_go.safetensors")
	require.NoError(t, st.Save(path, tensors, md))
	got, gotMD, err := st.Load(path)
	require.NoError(t, err)
	assert.Equal(t, md, gotMD)
	requireSame(t, tensors, got)

	if err := exec.Command(python, "-c", "import torch").Run(); err != nil {
		t.Skipf("%s with torch is not available (%v): skipping the Python check", python, err)
	}
	out, err := exec.Command(python, "testdata/safetensors_py.py", "check", path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Logf("python: %s", bytes.TrimSpace(out))
}

func TestLoadErrors(t *testing.T) {
	_, _, err := st.Load(filepath.Join(t.TempDir(), "missing.safetensors"))
	assert.True(t, errors.Is(err, os.ErrNotExist), "%v", err)
	assert.ErrorContains(t, err, "missing.safetensors")
	_, _, err = st.Load(t.TempDir())
	assert.ErrorContains(t, err, "not a regular file")
}

func TestReadHeader(t *testing.T) {
	data := validFile()
	h, err := st.ReadHeader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, h.Names())
	assert.Equal(t, int64(64), h.DataStart)
	assert.Equal(t, int64(8), h.DataSize)
	ti, ok := h.Lookup("b")
	require.True(t, ok)
	assert.Equal(t, st.TensorInfo{Name: "b", DType: st.F32, Shape: []int64{2}, DataOffsets: [2]int64{0, 8}}, ti)
	assert.Equal(t, int64(2), ti.NumElements())
	assert.Equal(t, int64(8), ti.NumBytes())
	_, err = st.ReadHeader(bytes.NewReader(data[:30]), int64(len(data)))
	assert.ErrorContains(t, err, "file truncated while reading the 56-byte header")
}
