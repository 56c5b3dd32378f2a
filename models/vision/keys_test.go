package vision

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch/pt"
)

// counts is gen.py's counts.json: per full-size model, its parameters and
// buffers as torchvision has them.
type counts struct {
	Parameters        int                `json:"parameters"`
	ParameterElements int64              `json:"parameter_elements"`
	Buffers           int                `json:"buffers"`
	Shapes            map[string][]int64 `json:"shapes"`
}

func readCounts(t *testing.T) map[string]counts {
	b, err := os.ReadFile(filepath.Join("testdata", "counts.json"))
	require.NoError(t, err)
	var c map[string]counts
	require.NoError(t, json.Unmarshal(b, &c))
	return c
}

// TestFullSizeKeys builds each model at full size with its defaults, as
// torchvision.models.<name>() does, loads the keys_<name>.pt that gen.py
// saved from torchvision strictly (every key and shape must match, none
// may be missing or extra), checks that every value went to the tensor of
// its name, and compares the parameter counts with torchvision's.
func TestFullSizeKeys(t *testing.T) {
	all := readCounts(t)
	for _, name := range []string{"resnet18", "resnet50", "mobilenet_v2", "vgg11_bn", "vit_b_16"} {
		t.Run(name, func(t *testing.T) {
			if name != "resnet18" && testing.Short() {
				t.Skip("a full-size model: skipped with -short")
			}
			want, ok := all[name]
			require.True(t, ok, "counts.json has no %s", name)
			m, err := New(name)
			require.NoError(t, err)

			params := m.NamedParameters()
			var elems int64
			for _, p := range params {
				elems += p.Tensor.Numel()
			}
			require.Equal(t, want.Parameters, len(params), "parameters")
			require.Equal(t, want.ParameterElements, elems, "parameter elements")
			require.Equal(t, want.Buffers, len(m.NamedBuffers()), "buffers")
			sd := m.StateDict()
			for k, s := range want.Shapes {
				got, ok := sd[k]
				require.True(t, ok, "GoTorch has no %s", k)
				require.Equal(t, s, got.Shape(), k)
			}
			require.Len(t, sd, len(want.Shapes))

			require.NoError(t, pt.LoadModule(m, filepath.Join("testdata", "keys_"+name+".pt"), true))
			keys := make([]string, 0, len(sd))
			for k := range sd {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			sd = m.StateDict()
			for i, k := range keys {
				v := sd[k]
				want := float64(i+1) / 1024
				if !v.DType().IsFloatingPoint() {
					want = float64(i + 1)
				}
				lo, hi := v.MinAll().Item(), v.MaxAll().Item()
				require.Equal(t, []float64{want, want}, []float64{lo, hi}, "%s: the value of key %d", k, i)
			}
		})
	}
}
