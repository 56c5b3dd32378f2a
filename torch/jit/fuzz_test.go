package jit_test

import (
	"bytes"
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
