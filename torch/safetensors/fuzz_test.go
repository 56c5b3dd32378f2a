package safetensors_test

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gotorch/gotorch/torch"
	st "github.com/gotorch/gotorch/torch/safetensors"
)

// seedCorpus adds valid files of several dtypes and the corrupt cases.
func seedCorpus(f *testing.F) {
	f.Add(validFile())
	if b, err := os.ReadFile("testdata/dtypes.safetensors"); err == nil {
		f.Add(b)
	}
	for _, tensors := range []map[string]torch.Tensor{
		zoo(),
		{"h": torch.FromSlice([]float32{1, -2}).To(torch.Float16), "b": torch.FromSlice([]bool{true})},
		{"i": torch.FromSlice([]int64{1, 2, 3}, 3, 1), "s": torch.FromSlice([]float64{2}, []int64{}...)},
		{},
	} {
		b, err := st.Marshal(tensors, map[string]string{"k": "v"})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, tc := range corruptCases {
		f.Add(tc.data)
	}
}

// FuzzParse checks that Parse never panics, that it fails only with a
// *FormatError, and that whatever it accepts survives Encode and Parse.
func FuzzParse(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := st.Parse(data)
		if err != nil {
			var fe *st.FormatError
			if !errors.As(err, &fe) || fe.Problem == "" {
				t.Fatalf("Parse failed with %T %v, want a *FormatError", err, err)
			}
			// Beyond the header, Parse checks only that BOOLs are 0 or 1.
			if _, herr := st.ReadHeader(bytes.NewReader(data), int64(len(data))); herr == nil && !strings.Contains(err.Error(), "BOOL element") {
				t.Fatalf("ReadHeader accepts what Parse rejects: %v", err)
			}
			return
		}
		if _, err := st.ReadHeader(bytes.NewReader(data), int64(len(data))); err != nil {
			t.Fatalf("ReadHeader rejects what Parse accepts: %v", err)
		}
		roundTrip(t, file)
	})
}

// FuzzUnmarshal checks that whatever Unmarshal accepts becomes libtorch
// tensors that Marshal writes back with the same bytes.
func FuzzUnmarshal(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		tensors, md, err := st.Unmarshal(data)
		if err != nil {
			return
		}
		file, err := st.Parse(data)
		if err != nil {
			t.Fatalf("Unmarshal accepts what Parse rejects: %v", err)
		}
		out, err := st.Marshal(tensors, md)
		if err != nil {
			t.Fatalf("Marshal of unmarshaled tensors: %v", err)
		}
		again, err := st.Parse(out)
		if err != nil {
			t.Fatalf("Parse of marshaled tensors: %v", err)
		}
		if len(again.Tensors) != len(file.Tensors) {
			t.Fatalf("%d tensors, want %d", len(again.Tensors), len(file.Tensors))
		}
		for _, ti := range file.Tensors {
			want, _ := file.Bytes(ti.Name)
			got, ok := again.Bytes(ti.Name)
			gi, _ := again.Lookup(ti.Name)
			if !ok || !bytes.Equal(want, got) || gi.DType != ti.DType || !equalShape(gi.Shape, ti.Shape) {
				t.Fatalf("tensor %q changed in a round trip through libtorch", ti.Name)
			}
		}
		for _, tt := range tensors {
			tt.Free()
		}
	})
}
