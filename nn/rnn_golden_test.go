package nn_test

// Golden-data harness for the sequence models' tests:
// nn/testdata/rnn_attention.json (LSTM, GRU, MultiheadAttention,
// TransformerEncoderLayer), written by /usr/bin/python3
// nn/testdata/rnn_attention.py with PyTorch 1.13, and nn/testdata/seq.json
// (RNN, the cells, packed sequences, the transformer stacks), written by
// nn/testdata/seq.py.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// raFloat is a JSON number, or "inf", "-inf" or "nan".
type raFloat float64

func (f *raFloat) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		switch s {
		case "inf":
			*f = raFloat(math.Inf(1))
		case "-inf":
			*f = raFloat(math.Inf(-1))
		case "nan":
			*f = raFloat(math.NaN())
		default:
			return fmt.Errorf("bad float %q", s)
		}
		return nil
	}
	var v float64
	err := json.Unmarshal(b, &v)
	*f = raFloat(v)
	return err
}

// raTensor is a tensor in the golden file: dtype "float32" or "bool",
// shape, and values flattened in row-major order.
type raTensor struct {
	DType  string    `json:"dtype"`
	Shape  []int64   `json:"shape"`
	Values []raFloat `json:"values"`
}

func (g raTensor) tensor(t *testing.T) torch.Tensor {
	t.Helper()
	switch g.DType {
	case "float32":
		v := make([]float32, len(g.Values))
		for i, x := range g.Values {
			v[i] = float32(x)
		}
		return torch.FromSlice(v, g.Shape...)
	case "bool":
		v := make([]bool, len(g.Values))
		for i, x := range g.Values {
			v[i] = x != 0
		}
		return torch.FromSlice(v, g.Shape...)
	}
	t.Fatalf("golden tensor of dtype %q", g.DType)
	return torch.Tensor{}
}

type raCase struct {
	Repr       string              `json:"repr"`
	Training   bool                `json:"training"`
	ParamNames []string            `json:"param_names"`
	StateDict  map[string]raTensor `json:"state_dict"`
	Inputs     map[string]raTensor `json:"inputs"`
	Outputs    []*raTensor         `json:"outputs"`
	Cotangents []*raTensor         `json:"cotangents"`
	InputGrads map[string]raTensor `json:"input_grads"`
	ParamGrads map[string]raTensor `json:"param_grads"`
}

type raGolden struct {
	TorchVersion string              `json:"torch_version"`
	Cases        map[string]raCase   `json:"cases"`
	Repr         map[string]string   `json:"repr"`
	Tensors      map[string]raTensor `json:"tensors"`
}

var (
	raOnce sync.Once
	raData raGolden
	raErr  error
)

func raLoad(t *testing.T) *raGolden {
	t.Helper()
	raOnce.Do(func() {
		// rnn_attention.json, then seq.json (nn/testdata/seq.py: RNN, the
		// cells, packed sequences and the transformer stacks); their case
		// names differ.
		for _, name := range []string{"rnn_attention.json", "seq.json"} {
			b, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				raErr = err
				return
			}
			var g raGolden
			if err := json.Unmarshal(b, &g); err != nil {
				raErr = fmt.Errorf("%s: %w", name, err)
				return
			}
			if raData.Cases == nil {
				raData = raGolden{TorchVersion: g.TorchVersion, Cases: map[string]raCase{}, Repr: map[string]string{}, Tensors: map[string]raTensor{}}
			}
			for k, v := range g.Cases {
				raData.Cases[k] = v
			}
			for k, v := range g.Repr {
				raData.Repr[k] = v
			}
			for k, v := range g.Tensors {
				raData.Tensors[k] = v
			}
		}
	})
	require.NoError(t, raErr, "golden data (regenerate with /usr/bin/python3 nn/testdata/rnn_attention.py and nn/testdata/seq.py)")
	return &raData
}

// raModule is what the harness needs of a module.
type raModule interface {
	nn.Moduler
	NamedParameters() []nn.Named
	LoadStateDict(map[string]torch.Tensor, bool) error
	Train(...bool)
	String() string
}

// raClose requires got to have want's shape, and values within the
// tolerance of got's dtype (internal/golden).
func raClose(t *testing.T, what string, want raTensor, got torch.Tensor) {
	t.Helper()
	require.True(t, got.Defined(), "%s: undefined", what)
	require.Equal(t, want.Shape, got.Shape(), "%s: shape", what)
	w := make([]float64, len(want.Values))
	for i, x := range want.Values {
		w[i] = float64(x)
	}
	golden.TensorClose(t, w, got.Contiguous(), what)
}

// raRun checks module m against golden case name: repr, parameter names
// and order, loading PyTorch's state dict, the forward results, and the
// gradients of the inputs and parameters. forward gets the inputs by
// their golden names and returns the results in PyTorch's order, an
// undefined tensor where PyTorch returns None.
func raRun(t *testing.T, name string, m raModule, forward func(in map[string]torch.Tensor) []torch.Tensor) {
	t.Helper()
	c, ok := raLoad(t).Cases[name]
	require.True(t, ok, "no golden case %s", name)

	assert.Equal(t, c.Repr, m.String(), "repr")
	var names []string
	for _, n := range m.NamedParameters() {
		names = append(names, n.Name)
	}
	require.Equal(t, c.ParamNames, names, "parameter names and order")

	sd := map[string]torch.Tensor{}
	for k, v := range c.StateDict {
		sd[k] = v.tensor(t)
	}
	require.NoError(t, m.LoadStateDict(sd, true))
	m.Train(c.Training)

	in := map[string]torch.Tensor{}
	for k, v := range c.Inputs {
		x := v.tensor(t)
		if _, ok := c.InputGrads[k]; ok {
			x = x.SetRequiresGrad(true)
		}
		in[k] = x
	}
	res := forward(in)
	require.Len(t, res, len(c.Outputs), "number of results")
	var loss torch.Tensor
	for i, want := range c.Outputs {
		if want == nil {
			assert.False(t, res[i].Defined(), "result %d: PyTorch returns None", i)
			continue
		}
		raClose(t, fmt.Sprintf("result %d", i), *want, res[i])
		term := res[i].Mul(c.Cotangents[i].tensor(t)).Sum()
		if loss.Defined() {
			loss = loss.Add(term)
		} else {
			loss = term
		}
	}
	loss.Backward()
	for k, want := range c.InputGrads {
		raClose(t, "grad of input "+k, want, in[k].Grad())
	}
	for _, n := range m.NamedParameters() {
		want, ok := c.ParamGrads[n.Name]
		require.True(t, ok, "no golden grad for %s", n.Name)
		raClose(t, "grad of "+n.Name, want, n.Tensor.Grad())
	}
}

// raRepr is the golden repr of a freshly built module.
func raRepr(t *testing.T, name string) string {
	t.Helper()
	s, ok := raLoad(t).Repr[name]
	require.True(t, ok, "no golden repr %s", name)
	return s
}

// raPanicErr runs f, requires it to panic with an error whose message
// contains want, and returns the error.
func raPanicErr(t *testing.T, want string, f func()) error {
	t.Helper()
	var r any
	func() {
		defer func() { r = recover() }()
		f()
	}()
	require.NotNil(t, r, "expected a panic containing %q", want)
	err, ok := r.(error)
	require.True(t, ok, "panic value %T (%v) is not an error", r, r)
	assert.Contains(t, err.Error(), want)
	return err
}
