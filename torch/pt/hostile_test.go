package pt

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// makeZip writes records, in order, under archive/.
func makeZip(t *testing.T, records ...[2]string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, r := range records {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: "archive/" + r[0], Method: zip.Store})
		require.NoError(t, err)
		_, err = io.WriteString(w, r[1])
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return b.Bytes()
}

func decodeBytes(b []byte, opts ...Option) (any, error) {
	return Decode(bytes.NewReader(b), int64(len(b)), opts...)
}

// runPickle runs a bare pickle through a zip archive with no storages.
func runPickle(t *testing.T, pkl string, opts ...Option) (any, error) {
	return decodeBytes(makeZip(t, [2]string{"data.pkl", pkl}, [2]string{"version", "3\n"}), opts...)
}

// tensorPickle is {"t": _rebuild_tensor_v2(storage, offset, size, stride, False, None)}
// over a FloatStorage of numel elements with key "0".
func tensorPickle(numel byte, offset byte, size, stride []byte) string {
	var b strings.Builder
	b.WriteString("\x80\x02}X\x01\x00\x00\x00t")
	b.WriteString("ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK" + string(numel) + "tQ")
	b.WriteString("K" + string(offset) + "(")
	for _, s := range size {
		b.WriteString("K" + string(s))
	}
	b.WriteString("t(")
	for _, s := range stride {
		b.WriteString("K" + string(s))
	}
	b.WriteString("t\x89NtRs.")
	return b.String()
}

func TestHostilePickles(t *testing.T) {
	cases := []struct {
		name, pkl string
		opts      []Option
		want      error
		msg       string
	}{
		{"huge string length", "\x80\x02X\xff\xff\xff\x7f", nil, ErrInvalid, "only 0 are left"},
		{"huge integer", "\x80\x02\x8b\xff\xff\xff\x7f", nil, ErrLimit, "an integer of"},
		{"os.system", "\x80\x02cos\nsystem\nX\x02\x00\x00\x00ls\x85R.", nil, ErrNotAllowed, `"os.system"`},
		{"builtins.eval by STACK_GLOBAL", "\x80\x04\x8c\x08builtins\x8c\x04eval\x93.", nil, ErrNotAllowed, `"builtins.eval"`},
		{"unknown opcode", "\x80\x02\xff.", nil, ErrInvalid, "unknown opcode 0xff"},
		{"pop from empty stack", "\x80\x020.", nil, ErrInvalid, "empty stack"},
		{"SETITEM on a list", "\x80\x02]K\x01K\x02s.", nil, ErrInvalid, "not a dict"},
		{"get of an unset memo entry", "\x80\x02h\x05.", nil, ErrInvalid, "never stored"},
		{"no STOP", "\x80\x02N", nil, ErrInvalid, "ends early"},
		{"two values at STOP", "\x80\x02NN.", nil, ErrInvalid, "STOP with 2 values"},
		{"a list that contains itself", "\x80\x02]q\x00h\x00a.", nil, ErrUnsupported, "contains itself"},
		{"unhashable key", "\x80\x02}]Ns.", nil, ErrInvalid, "unhashable list"},
		{"protocol 6", "\x80\x06N.", nil, ErrUnsupported, "protocol 6"},
		{"instance by INST", "\x80\x02(ios\nsystem\n.", nil, ErrUnsupported, "INST"},
		{"stack limit", "\x80\x02" + strings.Repeat("N", 200) + ".", []Option{WithLimits(Limits{MaxStack: 100})}, ErrLimit, "more than 100 values"},
		{"memo limit", "\x80\x02N" + strings.Repeat("\x94", 50) + ".", []Option{WithLimits(Limits{MaxMemo: 10})}, ErrLimit, "more than 10 memo"},
		{"deep nesting", "\x80\x02" + strings.Repeat("]", 2000) + strings.Repeat("a", 1999) + ".", nil, ErrLimit, "nested more than 1000"},
		{"a tuple key that doubles at each level", "\x80\x02})" + strings.Repeat("2\x86", 60) + "Ns.", nil, ErrLimit, "longer than 65536 bytes"},
		{"persistent id of a module", "\x80\x02X\x06\x00\x00\x00module\x85Q.", nil, ErrUnsupported, "torch.save(model)"},
		{"storage larger than the file", "\x80\x02(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuJ\xff\xff\xff\x7ftQ.", nil, ErrInvalid, "in a file of"},
		{"view past its storage", tensorPickle(4, 1, []byte{2, 2}, []byte{2, 1}), nil, ErrInvalid, "reaches element 4 of a storage of 4"},
		{"size and stride differ", tensorPickle(4, 0, []byte{2, 2}, []byte{1}), nil, ErrInvalid, "differ in length"},
		{"storage without its record", tensorPickle(4, 0, []byte{2}, []byte{1}), nil, ErrInvalid, "has no record"},
		{"backward hooks", strings.Replace(tensorPickle(1, 0, nil, nil), "\x89NtR", "\x89]tR", 1), nil, ErrUnsupported, "backward hooks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := runPickle(t, c.pkl, c.opts...)
			require.ErrorIs(t, err, c.want)
			assert.ErrorContains(t, err, c.msg)
		})
	}
}

func TestSharedStructureIsConvertedOnce(t *testing.T) {
	// ((x, x), (x, x)) sixty times over: 2^60 leaves, 61 objects.
	v, err := runPickle(t, "\x80\x02]"+strings.Repeat("2\x86", 60)+".")
	require.NoError(t, err)
	for i := 0; i < 60; i++ {
		tu := v.(Tuple)
		require.Len(t, tu, 2)
		v = tu[0]
	}
	assert.Equal(t, []any{}, v)
}

func TestStorageRecords(t *testing.T) {
	pkl := tensorPickle(4, 0, []byte{2, 2}, []byte{2, 1})
	floats := string(binary.LittleEndian.AppendUint32(nil, 0x3f800000)) + strings.Repeat("\x00", 12) // 1, 0, 0, 0
	v, err := decodeBytes(makeZip(t, [2]string{"data.pkl", pkl}, [2]string{"data/0", floats}))
	require.NoError(t, err)
	got, _ := v.(*Dict).Get("t")
	assert.Equal(t, []float32{1, 0, 0, 0}, got.(torch.Tensor).Float32s())

	_, err = decodeBytes(makeZip(t, [2]string{"data.pkl", pkl}, [2]string{"data/0", floats[:12]}))
	require.ErrorIs(t, err, ErrInvalid)
	assert.ErrorContains(t, err, "record of 12 bytes, want 16")

	_, err = decodeBytes(makeZip(t, [2]string{"data.pkl", pkl}, [2]string{"data.pkl", pkl}))
	assert.ErrorContains(t, err, "appears twice")

	_, err = decodeBytes(makeZip(t, [2]string{"model.pkl", pkl}))
	assert.ErrorContains(t, err, "without a NAME/data.pkl")

	_, err = decodeBytes(makeZip(t, [2]string{"data.pkl", pkl}, [2]string{"data/0", floats}, [2]string{"byteorder", "middle"}))
	assert.ErrorContains(t, err, `byteorder "middle"`)

	_, err = decodeBytes([]byte("not a pickle at all"))
	assert.ErrorIs(t, err, ErrInvalid)
	assert.ErrorContains(t, err, "neither a zip archive nor")
}

func TestLimits(t *testing.T) {
	_, err := Load("testdata/cnn.pt", WithLimits(Limits{MaxStorageBytes: 1000}))
	require.ErrorIs(t, err, ErrLimit)
	assert.ErrorContains(t, err, "storages of more than 1000 bytes")

	_, err = Load("testdata/views.pt", WithLimits(Limits{MaxTensors: 3}))
	require.ErrorIs(t, err, ErrLimit)
	assert.ErrorContains(t, err, "more than 3 tensors")
}

// TestBigEndian reads views.pt rewritten as a big-endian machine of
// PyTorch 2.x writes it: a byteorder record, and every element's bytes
// reversed.
func TestBigEndian(t *testing.T) {
	for _, file := range []string{"testdata/views.pt", "testdata/dtypes.pt", "testdata/torch2.6/views.pt", "testdata/torch2.6/dtypes.pt"} {
		data := goldenFiles(t)[file]
		require.NotEmpty(t, data, file)
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		require.NoError(t, err)
		a, err := open(bytes.NewReader(data), int64(len(data)), defaultLimits)
		require.NoError(t, err)
		var recs [][2]string
		for _, f := range zr.File {
			rc, err := f.Open()
			require.NoError(t, err)
			b, err := io.ReadAll(rc)
			require.NoError(t, err)
			name := strings.SplitN(f.Name, "/", 2)[1]
			if name == "byteorder" { // PyTorch 2.x's "little", replaced below
				continue
			}
			if key, ok := strings.CutPrefix(name, "data/"); ok {
				s := a.storages[key]
				swapBytes(b, s.dtype.Size(), s.dtype.IsComplex())
			}
			recs = append(recs, [2]string{name, string(b)})
		}
		recs = append(recs, [2]string{"byteorder", "big"})
		big := makeZip(t, recs...)
		want, err := decodeBytes(data)
		require.NoError(t, err)
		got, err := decodeBytes(big)
		require.NoError(t, err)
		wd, gd := want.(*Dict), got.(*Dict)
		for i, k := range wd.Keys {
			w, g := wd.Values[i].(torch.Tensor), gd.Values[i].(torch.Tensor)
			// The bits, as NaN != NaN.
			wb, err := tensorBytes(w)
			require.NoError(t, err)
			gb, err := tensorBytes(g)
			require.NoError(t, err)
			assert.Equal(t, wb, gb, "%s %v", file, k)
		}
	}
}

// TestDamagedFiles cuts and mutates the golden files: every result is a
// value or an error of a known kind, never a panic.
func TestDamagedFiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	for name, data := range goldenFiles(t) {
		step := max(1, len(data)/200)
		for n := 0; n < len(data); n += step {
			v, err := decodeBytes(data[:n], WithLimits(fuzzLimits))
			require.Error(t, err, "%s cut at %d", name, n)
			checkErr(t, err)
			Free(v)
		}
		for i := 0; i < 200; i++ {
			b := mutate(rng, bytes.Clone(data))
			v, err := decodeBytes(b, WithLimits(fuzzLimits))
			checkErr(t, err)
			Free(v)
		}
	}
}

// lengths are values that make a length or a count absurd.
var lengths = [][]byte{{0xff, 0xff, 0xff, 0x7f}, {0}, {0xff}, {0x80}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, {0x10, 0x27}}

// mutate flips bytes, writes or inserts absurd lengths, and repeats
// chunks, one to six times.
func mutate(rng *rand.Rand, b []byte) []byte {
	for j := 0; j < 1+rng.IntN(6); j++ {
		p := rng.IntN(len(b))
		switch rng.IntN(4) {
		case 0:
			b[p] ^= byte(1 + rng.IntN(255))
		case 1:
			copy(b[p:], lengths[rng.IntN(len(lengths))])
		case 2:
			b = append(b[:p:p], append(bytes.Clone(lengths[rng.IntN(len(lengths))]), b[p:]...)...)
		case 3:
			q := rng.IntN(len(b))
			p, q = min(p, q), max(p, q)
			b = append(b[:q:q], append(bytes.Clone(b[p:q]), b[q:]...)...)
		}
	}
	return b
}

// v3Pickle is {"t": _rebuild_tensor_v3(storage, offset, size, stride,
// False, None, torch.<dtype>)} over an UntypedStorage of nbytes bytes with
// key "0", as PyTorch 2.x writes its new dtypes; more adds entries "u",
// "w", ... of the same form (dtype, offset, size, stride) over the same
// storage.
type v3Tensor struct {
	dtype        string
	offset       byte
	size, stride []byte
}

func v3Pickle(nbytes byte, ts ...v3Tensor) string {
	var b strings.Builder
	b.WriteString("\x80\x02}")
	for i, t := range ts {
		b.WriteString("X\x01\x00\x00\x00" + string("tuwxyz"[i]))
		b.WriteString("ctorch._utils\n_rebuild_tensor_v3\n((X\x07\x00\x00\x00storagectorch.storage\nUntypedStorage\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK" + string(nbytes) + "tQ")
		b.WriteString("K" + string(t.offset) + "(")
		for _, s := range t.size {
			b.WriteString("K" + string(s))
		}
		b.WriteString("t(")
		for _, s := range t.stride {
			b.WriteString("K" + string(s))
		}
		b.WriteString("t\x89N")
		if t.dtype == "" {
			b.WriteString("K\x07") // an int, not a dtype
		} else {
			b.WriteString("ctorch\n" + t.dtype + "\n")
		}
		b.WriteString("tRs")
	}
	b.WriteString(".")
	return b.String()
}

func TestRebuildTensorV3(t *testing.T) {
	i16 := v3Tensor{"int16", 1, []byte{3}, []byte{1}}
	for _, c := range []struct {
		name, pkl string
		want      error
		msg       string
	}{
		{"bytes not whole elements", v3Pickle(5, v3Tensor{"int16", 0, []byte{2}, []byte{1}}), ErrInvalid, "untyped storage of 5 bytes holds no whole number of torch.int16"},
		{"view past its storage", v3Pickle(8, v3Tensor{"int16", 1, []byte{4}, []byte{1}}), ErrInvalid, "reaches element 4 of a storage of 4"},
		{"bool", v3Pickle(4, v3Tensor{"bool", 0, []byte{4}, []byte{1}}), ErrUnsupported, "bool tensor in an untyped storage"},
		{"dtype not a dtype", v3Pickle(4, v3Tensor{"", 0, []byte{2}, []byte{1}}), ErrInvalid, "dtype is int, not a torch.dtype"},
		{"typed storage", strings.Replace(v3Pickle(8, i16), "ctorch.storage\nUntypedStorage\n", "ctorch\nFloatStorage\n", 1), ErrInvalid, "a torch.int16 tensor in a FloatStorage"},
		{"too few arguments", strings.Replace(v3Pickle(8, i16), "\x89Nctorch\nint16\n", "\x89N", 1), ErrInvalid, "want (storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype[, metadata])"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := runPickle(t, c.pkl)
			require.ErrorIs(t, err, c.want)
			assert.ErrorContains(t, err, c.msg)
		})
	}

	// Four int16s, 1 to 4, in either byte order; t is elements 1 to 3 and
	// u the same bytes as two int32s.
	le := "\x01\x00\x02\x00\x03\x00\x04\x00"
	be := "\x00\x01\x00\x02\x00\x03\x00\x04"
	v, err := decodeBytes(makeZip(t, [2]string{"data.pkl", v3Pickle(8, i16, v3Tensor{"int32", 0, []byte{2}, []byte{1}})}, [2]string{"data/0", le}))
	require.NoError(t, err)
	tt, _ := v.(*Dict).Get("t")
	u, _ := v.(*Dict).Get("u")
	assert.Equal(t, []int16{2, 3, 4}, torch.ToSlice[int16](tt.(torch.Tensor)))
	assert.Equal(t, []int32{0x00020001, 0x00040003}, torch.ToSlice[int32](u.(torch.Tensor)))
	// They share the storage's memory, as in Python.
	tt.(torch.Tensor).AddScalar_(torch.S(1))
	assert.Equal(t, []int32{0x00030001, 0x00050004}, torch.ToSlice[int32](u.(torch.Tensor)))

	v, err = decodeBytes(makeZip(t, [2]string{"data.pkl", v3Pickle(8, i16)}, [2]string{"data/0", be}, [2]string{"byteorder", "big"}))
	require.NoError(t, err)
	tt, _ = v.(*Dict).Get("t")
	assert.Equal(t, []int16{2, 3, 4}, torch.ToSlice[int16](tt.(torch.Tensor)))

	// Bytes swapped as int16s cannot also be int32s.
	_, err = decodeBytes(makeZip(t, [2]string{"data.pkl", v3Pickle(8, i16, v3Tensor{"int32", 0, []byte{2}, []byte{1}})}, [2]string{"data/0", be}, [2]string{"byteorder", "big"}))
	require.ErrorIs(t, err, ErrUnsupported)
	assert.ErrorContains(t, err, "read as torch.int16 and as torch.int32")
}
