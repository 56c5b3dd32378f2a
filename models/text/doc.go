// Package text holds GPT-2 and BERT, built from package nn's layers with
// the module and parameter names of Hugging Face's transformers, so that
// a state dict saved from transformers loads with no renaming:
//
//	m, err := text.NewGPT2LMHeadModel(text.GPT2Small())
//	err = pt.LoadModule(m, "pytorch_model.bin", true)      // torch.save(model.state_dict())
//	m.Eval()
//	out := m.Generate(prompt, text.WithMaxNewTokens(20)) // greedy, with a key/value cache
//
// The map:
//
//   - GPT-2 (gpt2*.go, cache.go, generate.go): GPT2Config (GPT2Small,
//     ReadGPT2Config for a config.json), GPT2Model (transformer.*: wte,
//     wpe, h.N.{ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc,
//     mlp.c_proj}, ln_f) and GPT2LMHeadModel (transformer.* and lm_head,
//     tied to transformer.wte). Conv1D is transformers' linear layer with
//     its weight stored (in, out). Blocks are pre-norm, attention causal,
//     the MLP's activation gelu_new (GELU's tanh form). Loss is the
//     shifted language-model loss. Generate decodes greedily or samples
//     with temperature and top-k, seeded (WithSeed), with a KVCache;
//     TryForward with a KVCache runs one chunk of tokens at a time.
//   - BERT (bert*.go): BertConfig (BertBase, ReadBertConfig), BertModel
//     (embeddings.{word,position,token_type}_embeddings and LayerNorm,
//     encoder.layer.N.{attention.self.{query,key,value},
//     attention.output.{dense,LayerNorm}, intermediate.dense,
//     output.{dense,LayerNorm}}, pooler.dense) with post-norm blocks, an
//     attention mask and token types, and BertForSequenceClassification
//     (bert.*, classifier) with its loss.
//
// The constructors initialize as transformers' _init_weights does, from
// torch's default generator (torch.ManualSeed), and return an error
// wrapping ErrConfig for an invalid config. Forward panics and TryForward
// returns the error; inputs a model cannot take (a wrong shape or dtype,
// token indices out of range, more positions than the model has) are
// errors wrapping ErrInput, checked before any op runs.
//
// State dicts: transformers registers its causal-mask and position_ids
// buffers as not persistent (since 4.31), and so do these models, which
// have none. GPT2LMHeadModel's StateDict has lm_head.weight beside
// transformer.wte.weight, as PyTorch's has; its LoadStateDict takes a
// state dict with it (torch.save) or without it (save_pretrained's
// model.safetensors), and checks that both are equal when both are there.
// A checkpoint saved from GPT2Model ("gpt2" on the Hub: h.0.attn.c_attn.weight,
// …) loads into m.Transformer, and one saved from BertForPreTraining
// ("bert.…" and "cls.…") into m.Bert with pt.WithStripPrefix("bert.")
// and strict false; the old persistent attn.bias and attn.masked_bias
// buffers of such checkpoints are then reported as unexpected by a
// strict load: load them with strict false, or drop them.
//
// The models match a PyTorch reference written after transformers
// (testdata/gen.py, since transformers is not in Debian): eval logits,
// one training step's loss, gradients and AdamW update, GPT-2's first 20
// greedy tokens and a seeded top-k sample, within internal/golden's
// tolerance; and the full-size GPT-2 small (124,439,808 parameters) and
// BERT-base (109,482,240) have transformers' parameter names and shapes
// (testdata/shapes.json).
package text
