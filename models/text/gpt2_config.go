package text

import (
	"encoding/json"
	"fmt"
	"os"
)

// GPT2Config is the configuration of a GPT-2 model, with the fields and
// JSON names of transformers' GPT2Config (config.json). GPT2Small is
// OpenAI's 124M-parameter "gpt2"; ReadGPT2Config reads a config.json over
// it.
type GPT2Config struct {
	VocabSize  int64 `json:"vocab_size"`  // tokens (50257)
	NPositions int64 `json:"n_positions"` // longest sequence, cache included (1024)
	NEmbd      int64 `json:"n_embd"`      // width (768)
	NLayer     int64 `json:"n_layer"`     // blocks (12)
	NHead      int64 `json:"n_head"`      // attention heads; must divide n_embd (12)
	// NInner is the MLP's inner width; 0 (null in config.json) is 4·n_embd.
	NInner int64 `json:"n_inner"`
	// ActivationFunction is the MLP's activation: "gelu_new" (GELU's tanh
	// approximation, GPT-2's), "gelu_pytorch_tanh", "gelu", "relu",
	// "silu" or "tanh".
	ActivationFunction string  `json:"activation_function"`
	ResidPdrop         float64 `json:"resid_pdrop"`        // dropout after attention and MLP (0.1)
	EmbdPdrop          float64 `json:"embd_pdrop"`         // dropout of the embeddings (0.1)
	AttnPdrop          float64 `json:"attn_pdrop"`         // dropout of the attention weights (0.1)
	LayerNormEpsilon   float64 `json:"layer_norm_epsilon"` // (1e-5)
	InitializerRange   float64 `json:"initializer_range"`  // std of the initial weights (0.02)
}

// GPT2Small is the configuration of OpenAI's GPT-2 small ("gpt2"), which
// is also transformers' GPT2Config() default.
func GPT2Small() GPT2Config {
	return GPT2Config{
		VocabSize: 50257, NPositions: 1024, NEmbd: 768, NLayer: 12, NHead: 12,
		ActivationFunction: "gelu_new", ResidPdrop: 0.1, EmbdPdrop: 0.1, AttnPdrop: 0.1,
		LayerNormEpsilon: 1e-5, InitializerRange: 0.02,
	}
}

// ReadGPT2Config reads a transformers config.json: the fields it sets
// replace GPT2Small's, and the others (architectures, task_specific_params,
// …) are ignored. The result is checked.
func ReadGPT2Config(path string) (GPT2Config, error) {
	c := GPT2Small()
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("text: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("text: %s: %w", path, err)
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%w (in %s)", err, path)
	}
	return c, nil
}

// inner is the MLP's width.
func (c GPT2Config) inner() int64 {
	if c.NInner > 0 {
		return c.NInner
	}
	return 4 * c.NEmbd
}

// Validate reports the first thing wrong with c, naming the field by its
// config.json name.
func (c GPT2Config) Validate() error {
	bad := func(format string, args ...any) error {
		return modelError("GPT2Config", ErrConfig, format, args...)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"vocab_size", c.VocabSize}, {"n_positions", c.NPositions}, {"n_embd", c.NEmbd}, {"n_layer", c.NLayer}, {"n_head", c.NHead}} {
		if f.v <= 0 {
			return bad("%s must be positive, got %d", f.name, f.v)
		}
	}
	if c.NInner < 0 {
		return bad("n_inner must be positive or 0 (4·n_embd), got %d", c.NInner)
	}
	if c.NEmbd%c.NHead != 0 {
		return bad("n_embd (%d) must be a multiple of n_head (%d)", c.NEmbd, c.NHead)
	}
	if _, ok := activation(c.ActivationFunction); !ok {
		return bad("activation_function %q is not one of gelu_new, gelu_pytorch_tanh, gelu, relu, silu, tanh", c.ActivationFunction)
	}
	for _, f := range []struct {
		name string
		p    float64
	}{{"resid_pdrop", c.ResidPdrop}, {"embd_pdrop", c.EmbdPdrop}, {"attn_pdrop", c.AttnPdrop}} {
		if !(f.p >= 0 && f.p <= 1) {
			return bad("%s must be in [0, 1], got %v", f.name, f.p)
		}
	}
	if !(c.LayerNormEpsilon > 0) {
		return bad("layer_norm_epsilon must be positive, got %v", c.LayerNormEpsilon)
	}
	if !(c.InitializerRange >= 0) {
		return bad("initializer_range must be non-negative, got %v", c.InitializerRange)
	}
	return nil
}
