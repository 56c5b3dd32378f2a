package torch_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gotorch/gotorch/torch"
)

// FuzzDecode feeds arbitrary bytes to Decode, which hands them to
// libtorch's zip reader and unpickler (torch.load's format). It must fail
// with a *torch.Error, never crash the process or allocate without bound;
// what it accepts must be a tensor that encodes again. Run it longer, with
// a cap on memory so that a runaway allocation fails instead of taking the
// machine's memory, with
//
//	(ulimit -v 8000000; go test ./torch -run '^$' -fuzz '^FuzzDecode$' -fuzztime 10m)
//
// testdata/fuzz/FuzzDecode holds what it found in libtorch 1.13's
// unpickler, now caught by cgotorch's checks before it runs: a LONG_BINPUT
// memo index of 772 million in a 337-byte file, which made it allocate all
// the memory there was, and TUPLE2 opcodes on an empty stack, a
// segmentation fault. (The third fix of the loader, sparse indices checked
// against the size, came from reading the unpickler, not from the fuzzer.)
func FuzzDecode(f *testing.F) {
	for _, t := range []torch.Tensor{
		torch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3),
		torch.FromSlice([]int64{7}, []int64{}...),
		torch.FromSlice([]bool{true, false}),
		torch.Zeros([]int64{0, 3}),
		torch.FromSlice([]float64{1, 2, 3, 4}, 2, 2).T(), // not contiguous
		torch.FromSlice([]float32{1, 2}).SetRequiresGrad(true),
		torch.FromSlice([]float32{0, 1, 2, 0}, 2, 2).ToSparse(),
	} {
		b := t.Encode()
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte("PK\x03\x04"))
	f.Add([]byte{0x80, 0x02, 'K', 1, '.'})
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := torch.Decode(data)
		if err != nil {
			var te *torch.Error
			if !errors.As(err, &te) || te.Msg == "" {
				t.Fatalf("Decode failed with %T %v, want a *torch.Error with a message", err, err)
			}
			// Under a ulimit -v, a container grown without bound shows as
			// this error instead of taking the machine's memory.
			if strings.Contains(te.Msg, "bad_alloc") {
				t.Fatalf("a %d-byte input made libtorch allocate too much: %v", len(data), err)
			}
			if x.Defined() {
				t.Fatal("Decode returned both a tensor and an error")
			}
			return
		}
		if !x.Defined() {
			t.Fatal("Decode returned neither a tensor nor an error")
		}
		// What decodes must be usable: its shape, a copy and an encoding.
		_ = x.Shape()
		if _, err := x.TryEncode(); err != nil {
			t.Fatalf("a decoded tensor does not encode: %v", err)
		}
		x.Free()
	})
}
