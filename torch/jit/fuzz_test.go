package jit_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/jit"
)

// FuzzLoadBytes feeds the loader truncated and bit-flipped copies of a
// valid module: it must return an error or a working module, never crash.
func FuzzLoadBytes(f *testing.F) {
	data, err := os.ReadFile(netPath)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	for _, n := range []int{0, 1, 4, 22, 30, 100, len(data) / 2, len(data) - 22, len(data) - 1} {
		f.Add(data[:n])
	}
	// Bit flips across the file: in member headers and names (which the
	// zip check does not cover by CRC), in member data, and in the
	// central directory at the end.
	for _, at := range []int{0, 8, 14, 26, 30, 34, 40, 64, len(data) / 3, len(data) / 2, len(data) - 200, len(data) - 120, len(data) - 60, len(data) - 10} {
		b := bytes.Clone(data)
		b[at] ^= 0x04
		f.Add(b)
	}
	// Renamed members: the archive stays a valid zip, so libtorch parses it.
	for _, name := range []string{"data.pkl", "constants.pkl", "version", "code/__torch__.py"} {
		if i := bytes.LastIndex(data, []byte(name)); i >= 0 {
			b := bytes.Clone(data)
			b[i] ^= 0x01
			f.Add(b)
		}
	}
	x := torch.Ones([]int64{5, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := jit.LoadBytes(b)
		if err != nil {
			return
		}
		defer m.Close()
		if _, err := m.MethodNames(); err != nil {
			t.Fatalf("a loaded module: %v", err)
		}
		m.NamedParameters()
		m.ForwardTensor(x)
	})
}

// FuzzArchive rewrites one member of a valid module with fuzzed bytes and
// valid CRCs, so that what the fuzzer makes gets past the zip check to the
// pickle walk, the tensor-record check and libtorch: data.pkl,
// constants.pkl, a code file's .debug_pkl, a tensor record, or a member's
// directory attributes. The result must be an error or a working module.
func FuzzArchive(f *testing.F) {
	data, err := os.ReadFile(netPath)
	if err != nil {
		f.Fatal(err)
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		f.Fatal(err)
	}
	type member struct {
		hdr  zip.FileHeader
		body []byte
	}
	var members []member
	for _, zf := range z.File {
		rc, err := zf.Open()
		if err != nil {
			f.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			f.Fatal(err)
		}
		members = append(members, member{zf.FileHeader, b})
	}
	for i, m := range members {
		f.Add(uint8(i), uint32(0), m.body)
		if len(m.body) > 8 {
			f.Add(uint8(i), uint32(0), m.body[:len(m.body)/2])
		}
		f.Add(uint8(i), uint32(0x10), m.body)               // marked as a folder
		f.Add(uint8(i), uint32(0o40755<<16), m.body)        // a Unix directory
		f.Add(uint8(i), uint32(0), []byte("\x80\x02\x86.")) // a bare TUPLE2
	}
	x := torch.Ones([]int64{5, 4})
	f.Fuzz(func(t *testing.T, which uint8, attrs uint32, body []byte) {
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		for i, m := range members {
			h := m.hdr
			h.CRC32, h.CompressedSize64, h.UncompressedSize64 = 0, 0, 0
			b := m.body
			if i == int(which)%len(members) {
				b = body
				h.ExternalAttrs = attrs
				h.CreatorVersion = 3 << 8 // Unix, so that the mode bits count
			}
			fw, err := w.CreateHeader(&h)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fw.Write(b); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		m, err := jit.LoadBytes(buf.Bytes())
		if err != nil {
			var te *torch.Error
			if !errors.As(err, &te) || te.Msg == "" {
				t.Fatalf("LoadBytes failed with %T %v, want a *torch.Error", err, err)
			}
			return
		}
		defer m.Close()
		if _, err := m.MethodNames(); err != nil {
			t.Fatalf("a loaded module: %v", err)
		}
		m.NamedParameters()
		m.ForwardTensor(x)
	})
}

// FuzzValues builds Go values from a program of bytes (nested slices and
// maps of every kind that converts, shared and self-containing ones among
// them, deep ones) and passes them to the module's methods: each call must
// return a value or an error, never crash or overflow a stack.
func FuzzValues(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3})
	f.Add(bytes.Repeat([]byte{4}, 2000))           // nested 2000 deep
	f.Add(append(bytes.Repeat([]byte{4}, 10), 9))  // a slice that holds itself
	f.Add(append(bytes.Repeat([]byte{5}, 10), 10)) // a map that holds itself
	f.Add([]byte{1, 1, 6, 6, 6, 6, 6, 6, 6, 6, 7}) // shared, doubling
	f.Add([]byte{8, 2, 3, 8, 1, 11, 12})
	m, err := jit.Load(netPath)
	if err != nil {
		f.Fatal(err)
	}
	defer m.Close()
	methods := []string{"forward", "pair", "stats", "echo", "nested"}
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 1<<14 {
			return
		}
		v := buildValue(prog)
		for _, name := range methods {
			out, err := m.Method(name, v)
			if err != nil {
				var te *torch.Error
				if !errors.As(err, &te) || te.Msg == "" {
					t.Fatalf("%s failed with %T %v, want a *torch.Error", name, err, err)
				}
				continue
			}
			_ = out
		}
		// The module still works.
		if _, err := m.ForwardTensor(torch.Ones([]int64{2, 4})); err != nil {
			t.Fatalf("forward after the fuzzed calls: %v", err)
		}
	})
}

// buildValue runs prog over a stack of values: each byte pushes a scalar
// or a tensor, wraps the top in a slice or map, pairs the top two, or ties
// a container to itself.
func buildValue(prog []byte) any {
	stack := []any{torch.Ones([]int64{2, 4})}
	top := func() any { return stack[len(stack)-1] }
	for _, op := range prog {
		switch op % 13 {
		case 0:
			stack = append(stack, int64(op))
		case 1:
			stack = append(stack, torch.Ones([]int64{2, 4}))
		case 2:
			stack = append(stack, "s")
		case 3:
			stack = append(stack, float64(op)/7)
		case 4:
			stack[len(stack)-1] = []any{top()}
		case 5:
			stack[len(stack)-1] = map[string]any{"k": top()}
		case 6:
			stack[len(stack)-1] = []any{top(), top()}
		case 7:
			stack = append(stack, []int64{1, 2, 3})
		case 8:
			if len(stack) > 1 {
				a, b := stack[len(stack)-2], top()
				stack = append(stack[:len(stack)-2], []any{a, b})
			}
		case 9:
			s := []any{top(), nil}
			s[1] = s
			stack[len(stack)-1] = s
		case 10:
			mp := map[string]any{"v": top()}
			mp["self"] = mp
			stack[len(stack)-1] = mp
		case 11:
			stack = append(stack, nil)
		case 12:
			stack = append(stack, map[int64]torch.Tensor{1: torch.Ones([]int64{2})})
		}
		if len(stack) > 64 {
			stack = stack[len(stack)-64:]
		}
	}
	return top()
}
