package text

import (
	"fmt"
	"maps"

	"github.com/gotorch/gotorch/torch"
)

// The key of the tied head's weight.
const (
	lmHeadKey = "lm_head.weight"
	wteKey    = "transformer.wte.weight"
)

// StateDict returns the parameters by transformers' names, as PyTorch's
// state_dict does for transformers' GPT2LMHeadModel: lm_head.weight is
// there beside transformer.wte.weight, the same tensor. (NamedParameters
// and Parameters list the tied weight once, as PyTorch's do.) pt.Save
// writes the tied tensor once.
func (m *GPT2LMHeadModel) StateDict() map[string]torch.Tensor {
	sd := m.Module.StateDict()
	sd[lmHeadKey] = m.LmHead.Weight
	return sd
}

// LoadStateDict copies sd into the model, as nn.Module's LoadStateDict
// does, with the tied head taken care of: lm_head.weight may be there
// (torch.save of a state dict has it) or not (transformers'
// save_pretrained leaves it out); when there, it must equal
// transformer.wte.weight, since the model holds one tensor for both.
func (m *GPT2LMHeadModel) LoadStateDict(sd map[string]torch.Tensor, strict bool) error {
	if m == nil || m.LmHead == nil {
		return uninitialized("GPT2LMHeadModel")
	}
	head, ok := sd[lmHeadKey]
	if !ok {
		return m.Module.LoadStateDict(sd, strict)
	}
	wte, ok := sd[wteKey]
	if !ok {
		// Nothing to compare with: let the checks below name the missing
		// embedding and the head as unexpected.
		return m.Module.LoadStateDict(sd, strict)
	}
	if head.Defined() && wte.Defined() && !sameTensor(head, wte) {
		return fmt.Errorf("text: GPT2LMHeadModel: load state dict: %s differs from %s, but the model's head is tied to its token embedding (transformers' tie_word_embeddings)", lmHeadKey, wteKey)
	}
	rest := maps.Clone(sd)
	delete(rest, lmHeadKey)
	return m.Module.LoadStateDict(rest, strict)
}

// sameTensor reports whether a and b have the same shape and values.
func sameTensor(a, b torch.Tensor) bool {
	if !equalShape(a.Shape(), b.Shape()) || a.DType() != b.DType() {
		return false
	}
	eq := false
	torch.NoGrad(func() { eq = a.Equal(b) })
	return eq
}
