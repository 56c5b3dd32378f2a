package robustness

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/safetensors"
)

// FuzzLoadCheckpoint feeds arbitrary files to nn.Load, strict and not. A
// file must load, with the module's shapes and dtypes unchanged, or fail
// with an error; when it fails, the module keeps its weights. Run it
// longer with
//
//	go test ./internal/robustness -run '^$' -fuzz '^FuzzLoadCheckpoint$' -fuzztime 10m
func FuzzLoadCheckpoint(f *testing.F) {
	dir := f.TempDir()
	path := filepath.Join(dir, "seed.safetensors")
	if err := nn.Save(newCkModel(2), path); err != nil {
		f.Fatal(err)
	}
	valid, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid, true)
	f.Add(valid, false)
	f.Add(valid[:len(valid)/2], true)
	f.Add(valid[:9], false)
	if err := nn.Save(newCkModel(4), path); err != nil { // wrong shapes
		f.Fatal(err)
	}
	wrong, _ := os.ReadFile(path)
	f.Add(wrong, false)
	partial, err := safetensors.Marshal(map[string]torch.Tensor{
		"fc.weight": torch.Ones([]int64{2, 3}, torch.WithDtype(torch.Float64)), // converted on load
		"fc.bias":   torch.FromSlice([]int64{1, 2}),
	}, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(partial, false)
	f.Add(partial, true)
	f.Add([]byte{}, true)
	f.Fuzz(func(t *testing.T, file []byte, strict bool) {
		p := filepath.Join(t.TempDir(), "ck.safetensors")
		if err := os.WriteFile(p, file, 0o644); err != nil {
			t.Fatal(err)
		}
		m := newCkModel(2)
		before := m.StateDict()
		snapshot := map[string][]float64{}
		for k, v := range before {
			snapshot[k] = v.To(torch.Float64).Float64s()
		}
		err := nn.Load(m, p, strict)
		after := m.StateDict()
		for k, v := range after {
			if v.DType() != before[k].DType() || len(v.Shape()) != len(before[k].Shape()) || v.Numel() != before[k].Numel() {
				t.Fatalf("%s changed from %v %v to %v %v", k, before[k].DType(), before[k].Shape(), v.DType(), v.Shape())
			}
		}
		if err == nil {
			return
		}
		var sde *nn.StateDictError
		if !errors.Is(err, safetensors.ErrInvalid) && !errors.As(err, &sde) && err.Error() == "" {
			t.Fatalf("an error without a message: %T", err)
		}
		// A failed load copies nothing.
		for k, v := range after {
			got := v.To(torch.Float64).Float64s()
			for i := range got {
				if got[i] != snapshot[k][i] && !(got[i] != got[i] && snapshot[k][i] != snapshot[k][i]) {
					t.Fatalf("a failed load (%v) changed %s", err, k)
				}
			}
		}
	})
}
