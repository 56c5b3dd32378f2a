package text

import (
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// GPT2LMHeadModel is GPT-2 with its language-model head (transformers'
// GPT2LMHeadModel): the transformer, then lm_head, a linear layer without
// bias whose weight is the token embedding's (tied, as transformers'
// tie_word_embeddings does by default). Its parameters and state dict
// keys are transformers': transformer.wte.weight,
// transformer.h.0.attn.c_attn.weight, …, lm_head.weight.
type GPT2LMHeadModel struct {
	nn.Module
	Transformer *GPT2Model
	LmHead      *nn.LinearModule // weight: Transformer.Wte.Weight

	Config GPT2Config
}

// NewGPT2LMHeadModel returns a GPT-2 language model of config c,
// initialized as transformers does (normal weights with std
// initializer_range, the c_proj weights with initializer_range/√(2·n_layer),
// zero biases, LayerNorm ones and zeros) from torch's default generator
// (torch.ManualSeed). Load trained weights with pt.LoadModule or
// LoadStateDict. An invalid config is an error wrapping ErrConfig.
func NewGPT2LMHeadModel(c GPT2Config) (*GPT2LMHeadModel, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	m := newGPT2LMHeadModel(c)
	initGPT2(m, c)
	return m, nil
}

// newGPT2LMHeadModel builds the model with its layers' own
// initialization, before transformers' (initGPT2).
func newGPT2LMHeadModel(c GPT2Config) *GPT2LMHeadModel {
	t := newGPT2Model(c)
	head := &nn.LinearModule{Weight: t.Wte.Weight, InFeatures: c.NEmbd, OutFeatures: c.VocabSize}
	head.Init(head)
	m := &GPT2LMHeadModel{Transformer: t, LmHead: head, Config: c}
	m.Init(m)
	return m
}

// Forward returns the logits (batch, seq, vocab_size) of the token
// indices inputIDs (batch, seq), int64 or int32. It panics on error.
func (m *GPT2LMHeadModel) Forward(inputIDs torch.Tensor) torch.Tensor {
	y, err := m.TryForward(inputIDs, nil)
	must(err)
	return y
}

// TryForward returns the logits of inputIDs, the tokens that follow those
// in cache (nil for none), adding their keys and values to the cache.
func (m *GPT2LMHeadModel) TryForward(inputIDs torch.Tensor, cache *KVCache) (torch.Tensor, error) {
	if m == nil || m.Transformer == nil || m.LmHead == nil {
		return torch.Tensor{}, uninitialized("GPT2LMHeadModel")
	}
	h, err := m.Transformer.TryForward(inputIDs, cache)
	if err != nil {
		return torch.Tensor{}, err
	}
	defer h.Free()
	return m.LmHead.TryForward(h)
}

// forward is TryForward without its checks, panicking on error.
func (m *GPT2LMHeadModel) forward(ids torch.Tensor, cache *KVCache) torch.Tensor {
	h := m.Transformer.forward(ids, cache)
	defer h.Free()
	return m.LmHead.Forward(h)
}

// Loss returns transformers' language-model loss of inputIDs with labels
// (batch, seq), and the logits: the cross entropy of the logits at each
// position with the label of the next one (labels shifted left inside, so
// labels may be inputIDs itself), averaged, labels of -100 ignored.
func (m *GPT2LMHeadModel) Loss(inputIDs, labels torch.Tensor) (loss, logits torch.Tensor) {
	loss, logits, err := m.TryLoss(inputIDs, labels)
	must(err)
	return loss, logits
}

// TryLoss is Loss that returns its error.
func (m *GPT2LMHeadModel) TryLoss(inputIDs, labels torch.Tensor) (loss, logits torch.Tensor, err error) {
	if err := checkIDs("GPT2LMHeadModel", "labels", labels); err != nil {
		return loss, logits, err
	}
	if inputIDs.Defined() && !equalShape(labels.Shape(), inputIDs.Shape()) {
		return loss, logits, modelError("GPT2LMHeadModel", ErrInput, "labels are %v, input_ids %v", labels.Shape(), inputIDs.Shape())
	}
	if logits, err = m.TryForward(inputIDs, nil); err != nil {
		return loss, logits, err
	}
	loss, err = catch("GPT2LMHeadModel", func() torch.Tensor { return CausalLMLoss(logits, labels) })
	return loss, logits, err
}

// CausalLMLoss is the loss of a causal language model's logits (batch,
// seq, vocab) with labels (batch, seq): the cross entropy of position i's
// logits with label i+1, averaged over the labels that are not -100.
func CausalLMLoss(logits, labels torch.Tensor) torch.Tensor {
	var tmp temps
	t := logits.Size(1)
	shiftLogits := tmp.add(tmp.add(logits.Narrow(1, 0, t-1)).Contiguous())
	shiftLabels := tmp.add(tmp.add(labels.Narrow(1, 1, t-1)).Contiguous())
	if shiftLabels.DType() != torch.Int64 {
		shiftLabels = tmp.add(shiftLabels.To(torch.Int64))
	}
	loss := F.CrossEntropy(tmp.add(shiftLogits.ViewDims(-1, logits.Size(-1))), tmp.add(shiftLabels.ViewDims(-1)))
	tmp.free(loss)
	return loss
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
