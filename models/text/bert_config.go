package text

import (
	"encoding/json"
	"fmt"
	"os"
)

// BertConfig is the configuration of a BERT encoder, with the fields and
// JSON names of transformers' BertConfig (config.json). BertBase is
// Google's bert-base-uncased; ReadBertConfig reads a config.json over it.
type BertConfig struct {
	VocabSize                 int64   `json:"vocab_size"`                   // (30522)
	HiddenSize                int64   `json:"hidden_size"`                  // (768)
	NumHiddenLayers           int64   `json:"num_hidden_layers"`            // (12)
	NumAttentionHeads         int64   `json:"num_attention_heads"`          // must divide hidden_size (12)
	IntermediateSize          int64   `json:"intermediate_size"`            // feed-forward width (3072)
	HiddenAct                 string  `json:"hidden_act"`                   // "gelu" (erf), "gelu_new", "relu", …
	HiddenDropoutProb         float64 `json:"hidden_dropout_prob"`          // (0.1)
	AttentionProbsDropoutProb float64 `json:"attention_probs_dropout_prob"` // (0.1)
	MaxPositionEmbeddings     int64   `json:"max_position_embeddings"`      // longest sequence (512)
	TypeVocabSize             int64   `json:"type_vocab_size"`              // token types, segments (2)
	InitializerRange          float64 `json:"initializer_range"`            // (0.02)
	LayerNormEps              float64 `json:"layer_norm_eps"`               // (1e-12)
	PadTokenID                int64   `json:"pad_token_id"`                 // word_embeddings' padding_idx (0)
	// NumLabels is the classifier's outputs (2). config.json gives it as
	// the size of id2label, which ReadBertConfig counts.
	NumLabels int64 `json:"num_labels"`
	// ClassifierDropout is the dropout before the classifier; nil (null)
	// means hidden_dropout_prob.
	ClassifierDropout *float64 `json:"classifier_dropout"`
}

// BertBase is the configuration of bert-base-uncased, which is also
// transformers' BertConfig() default.
func BertBase() BertConfig {
	return BertConfig{
		VocabSize: 30522, HiddenSize: 768, NumHiddenLayers: 12, NumAttentionHeads: 12, IntermediateSize: 3072,
		HiddenAct: "gelu", HiddenDropoutProb: 0.1, AttentionProbsDropoutProb: 0.1, MaxPositionEmbeddings: 512,
		TypeVocabSize: 2, InitializerRange: 0.02, LayerNormEps: 1e-12, PadTokenID: 0, NumLabels: 2,
	}
}

// ReadBertConfig reads a transformers config.json: the fields it sets
// replace BertBase's, num_labels is the size of id2label when that is
// given, and other fields are ignored. The result is checked.
func ReadBertConfig(path string) (BertConfig, error) {
	c := BertBase()
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("text: %w", err)
	}
	var labels struct {
		ID2Label map[string]string `json:"id2label"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("text: %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &labels); err != nil {
		return c, fmt.Errorf("text: %s: %w", path, err)
	}
	if len(labels.ID2Label) > 0 {
		c.NumLabels = int64(len(labels.ID2Label))
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%w (in %s)", err, path)
	}
	return c, nil
}

// Validate reports the first thing wrong with c, naming the field by its
// config.json name.
func (c BertConfig) Validate() error {
	bad := func(format string, args ...any) error {
		return modelError("BertConfig", ErrConfig, format, args...)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"vocab_size", c.VocabSize}, {"hidden_size", c.HiddenSize}, {"num_hidden_layers", c.NumHiddenLayers},
		{"num_attention_heads", c.NumAttentionHeads}, {"intermediate_size", c.IntermediateSize},
		{"max_position_embeddings", c.MaxPositionEmbeddings}, {"type_vocab_size", c.TypeVocabSize}, {"num_labels", c.NumLabels}} {
		if f.v <= 0 {
			return bad("%s must be positive, got %d", f.name, f.v)
		}
	}
	if c.HiddenSize%c.NumAttentionHeads != 0 {
		return bad("hidden_size (%d) must be a multiple of num_attention_heads (%d)", c.HiddenSize, c.NumAttentionHeads)
	}
	if _, ok := activation(c.HiddenAct); !ok {
		return bad("hidden_act %q is not one of gelu, gelu_new, gelu_pytorch_tanh, relu, silu, tanh", c.HiddenAct)
	}
	probs := []struct {
		name string
		p    float64
	}{{"hidden_dropout_prob", c.HiddenDropoutProb}, {"attention_probs_dropout_prob", c.AttentionProbsDropoutProb}}
	if c.ClassifierDropout != nil {
		probs = append(probs, struct {
			name string
			p    float64
		}{"classifier_dropout", *c.ClassifierDropout})
	}
	for _, f := range probs {
		if !(f.p >= 0 && f.p <= 1) {
			return bad("%s must be in [0, 1], got %v", f.name, f.p)
		}
	}
	if c.PadTokenID < 0 || c.PadTokenID >= c.VocabSize {
		return bad("pad_token_id %d is not in [0, vocab_size=%d)", c.PadTokenID, c.VocabSize)
	}
	if !(c.LayerNormEps > 0) {
		return bad("layer_norm_eps must be positive, got %v", c.LayerNormEps)
	}
	if !(c.InitializerRange >= 0) {
		return bad("initializer_range must be non-negative, got %v", c.InitializerRange)
	}
	return nil
}
