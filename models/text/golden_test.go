package text

// Harness of the golden tests: the files that testdata/gen.py writes with
// the reference PyTorch.

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// gTensor is a tensor of a golden file: dtype "float32" or "int64",
// shape, values in row-major order.
type gTensor struct {
	DType  string    `json:"dtype"`
	Shape  []int64   `json:"shape"`
	Values []float64 `json:"values"`
}

func (g gTensor) tensor(t *testing.T) torch.Tensor {
	t.Helper()
	switch g.DType {
	case "float32":
		v := make([]float32, len(g.Values))
		for i, x := range g.Values {
			v[i] = float32(x)
		}
		return torch.FromSlice(v, g.Shape...)
	case "int64":
		return torch.FromSlice(g.ints(), g.Shape...)
	}
	t.Fatalf("golden tensor of dtype %q", g.DType)
	return torch.Tensor{}
}

func (g gTensor) ints() []int64 {
	v := make([]int64, len(g.Values))
	for i, x := range g.Values {
		v[i] = int64(x)
	}
	return v
}

// requireClose checks got's shape and values against g.
func (g gTensor) requireClose(t *testing.T, got torch.Tensor, what string) {
	t.Helper()
	require.Equal(t, g.Shape, got.Shape(), "%s: shape", what)
	require.True(t, golden.TensorClose(t, g.Values, got, "%s", what), "%s differs from PyTorch", what)
}

type gTrainStep struct {
	Loss       float64            `json:"loss"`
	LR         float64            `json:"lr"`
	Grads      map[string]gTensor `json:"grads"`
	AfterAdamW map[string]gTensor `json:"after_adamw"`
}

type gGenerate struct {
	Prompt       gTensor `json:"prompt"`
	MaxNewTokens int64   `json:"max_new_tokens"`
	Tokens       gTensor `json:"tokens"`
	MinGap       float64 `json:"min_gap"`
	Temperature  float64 `json:"temperature"`
	TopK         int64   `json:"top_k"`
	Seed         uint64  `json:"seed"`
}

type gGPT2 struct {
	TorchVersion  string          `json:"torch_version"`
	Config        json.RawMessage `json:"config"`
	TrainConfig   json.RawMessage `json:"train_config"`
	InputIDs      gTensor         `json:"input_ids"`
	Logits        gTensor         `json:"logits"`
	EvalLoss      float64         `json:"eval_loss"`
	Greedy        gGenerate       `json:"greedy"`
	Sample        gGenerate       `json:"sample"`
	TrainStep     gTrainStep      `json:"train_step"`
	StateDictKeys []string        `json:"state_dict_keys"`
}

type gBert struct {
	TorchVersion          string          `json:"torch_version"`
	Config                json.RawMessage `json:"config"`
	TrainConfig           json.RawMessage `json:"train_config"`
	InputIDs              gTensor         `json:"input_ids"`
	AttentionMask         gTensor         `json:"attention_mask"`
	TokenTypeIDs          gTensor         `json:"token_type_ids"`
	Labels                gTensor         `json:"labels"`
	Logits                gTensor         `json:"logits"`
	EvalLoss              float64         `json:"eval_loss"`
	LastHiddenState       gTensor         `json:"last_hidden_state"`
	PoolerOutput          gTensor         `json:"pooler_output"`
	LastHiddenStateNoMask gTensor         `json:"last_hidden_state_no_mask"`
	PoolerOutputNoMask    gTensor         `json:"pooler_output_no_mask"`
	TrainStep             gTrainStep      `json:"train_step"`
	StateDictKeys         []string        `json:"state_dict_keys"`
}

type gShapes struct {
	Parameters    [][2]json.RawMessage `json:"parameters"`
	Count         int64                `json:"count"`
	StateDictKeys []string             `json:"state_dict_keys"`
	Config        json.RawMessage      `json:"config"`
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err, "golden file (made by /usr/bin/python3 models/text/testdata/gen.py)")
	require.NoError(t, json.Unmarshal(b, v), name)
}

// gpt2Config reads a golden config over GPT2Small, as ReadGPT2Config does.
func gpt2Config(t *testing.T, raw json.RawMessage) GPT2Config {
	t.Helper()
	c := GPT2Small()
	require.NoError(t, json.Unmarshal(raw, &c))
	require.NoError(t, c.Validate())
	return c
}

func bertConfig(t *testing.T, raw json.RawMessage) BertConfig {
	t.Helper()
	c := BertBase()
	require.NoError(t, json.Unmarshal(raw, &c))
	require.NoError(t, c.Validate())
	return c
}

// paramNames lists m's parameter names in order.
func paramNames(m interface{ NamedParameters() []nn.Named }) []string {
	var names []string
	for _, n := range m.NamedParameters() {
		names = append(names, n.Name)
	}
	return names
}

// params maps m's parameters by name.
func params(m interface{ NamedParameters() []nn.Named }) map[string]torch.Tensor {
	out := map[string]torch.Tensor{}
	for _, n := range m.NamedParameters() {
		out[n.Name] = n.Tensor
	}
	return out
}

// checkTrainStep compares one step's gradients and AdamW update with
// PyTorch's; backward has run on the model's loss.
func checkTrainStep(t *testing.T, m interface{ NamedParameters() []nn.Named }, step gTrainStep, optStep func()) {
	t.Helper()
	ps := params(m)
	for name, g := range step.Grads {
		p, ok := ps[name]
		require.True(t, ok, "no parameter %s", name)
		g.requireClose(t, p.Grad(), "grad of "+name)
	}
	optStep()
	for name, g := range step.AfterAdamW {
		g.requireClose(t, ps[name].Detach(), name+" after one AdamW step")
	}
}

// softmaxTopK is softmax(scores/temperature) over the k largest scores (k
// 0: all), zero elsewhere.
func softmaxTopK(scores []float64, temperature float64, k int) []float64 {
	kth := math.Inf(-1)
	if k > 0 && k < len(scores) {
		s := slices.Clone(scores)
		slices.Sort(s)
		kth = s[len(s)-k]
	}
	p := make([]float64, len(scores))
	sum := 0.0
	for i, x := range scores {
		if x >= kth {
			p[i] = math.Exp(x / temperature)
			sum += p[i]
		}
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}

func sqrt(x float64) float64 { return math.Sqrt(x) }
