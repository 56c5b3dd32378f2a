package text

import (
	"math"

	"github.com/gotorch/gotorch/torch"
)

// GenerateOption is an option of Generate, named With plus the keyword of
// transformers' generate (GenerationConfig) it stands for, as the options
// of packages torch and nn are. When one is repeated, the last one wins;
// the zero GenerateOption is an error.
type GenerateOption struct {
	name string
	n    int64
	f    float64
	b    bool
	gen  *torch.Generator
}

type generateSettings struct {
	maxNewTokens int64
	doSample     bool
	temperature  float64
	topK         int64
	gen          *torch.Generator
	useCache     bool
	eos, pad     int64
	hasEOS       bool
	hasPad       bool
}

// WithMaxNewTokens is max_new_tokens, how many tokens to generate (20).
func WithMaxNewTokens(n int64) GenerateOption { return GenerateOption{name: "max_new_tokens", n: n} }

// WithDoSample is do_sample: draw each token from the model's
// distribution, shaped by WithTemperature and WithTopK, instead of taking
// the most likely one (false: greedy decoding).
func WithDoSample(on bool) GenerateOption { return GenerateOption{name: "do_sample", b: on} }

// WithTemperature is temperature, what sampling divides the logits by
// (1.0): below 1 sharpens the distribution, above 1 flattens it. It must
// be positive.
func WithTemperature(t float64) GenerateOption { return GenerateOption{name: "temperature", f: t} }

// WithTopK is top_k: sampling keeps the k most likely tokens (50, as
// transformers); 0 keeps all.
func WithTopK(k int64) GenerateOption { return GenerateOption{name: "top_k", n: k} }

// WithGenerator draws the samples from g (torch.multinomial's
// generator=g) instead of torch's default generator, which
// torch.ManualSeed seeds.
func WithGenerator(g *torch.Generator) GenerateOption {
	return GenerateOption{name: "generator", gen: g}
}

// WithSeed draws the samples from a new generator seeded with seed: the
// same seed, model and prompt give the same tokens.
func WithSeed(seed uint64) GenerateOption {
	return GenerateOption{name: "generator", gen: torch.NewGenerator(seed)}
}

// WithUseCache is use_cache (true): keep the keys and values of the
// tokens seen in a KVCache, so that each new token costs one position,
// instead of running the whole sequence again. Both give the same tokens.
func WithUseCache(on bool) GenerateOption { return GenerateOption{name: "use_cache", b: on} }

// WithEOSTokenID is eos_token_id: a sequence that generates it is done,
// and is padded with WithPadTokenID (the EOS token by default) until every
// sequence is done or max_new_tokens are generated.
func WithEOSTokenID(id int64) GenerateOption { return GenerateOption{name: "eos_token_id", n: id} }

// WithPadTokenID is pad_token_id, what follows WithEOSTokenID's token.
func WithPadTokenID(id int64) GenerateOption { return GenerateOption{name: "pad_token_id", n: id} }

func generateSetup(c GPT2Config, opts []GenerateOption) (*generateSettings, error) {
	s := &generateSettings{maxNewTokens: 20, temperature: 1, topK: 50, useCache: true}
	for i, o := range opts {
		switch o.name {
		case "max_new_tokens":
			s.maxNewTokens = o.n
		case "do_sample":
			s.doSample = o.b
		case "temperature":
			s.temperature = o.f
		case "top_k":
			s.topK = o.n
		case "generator":
			s.gen = o.gen
		case "use_cache":
			s.useCache = o.b
		case "eos_token_id":
			s.eos, s.hasEOS = o.n, true
		case "pad_token_id":
			s.pad, s.hasPad = o.n, true
		default:
			return nil, modelError("GPT2LMHeadModel.Generate", ErrInput, "option %d is the zero GenerateOption (use the With functions)", i+1)
		}
	}
	bad := func(format string, args ...any) error {
		return modelError("GPT2LMHeadModel.Generate", ErrInput, format, args...)
	}
	switch {
	case s.maxNewTokens < 0:
		return nil, bad("max_new_tokens must be non-negative, got %d", s.maxNewTokens)
	case s.doSample && !(s.temperature > 0) || math.IsInf(s.temperature, 0):
		return nil, bad("temperature must be a positive number, got %v", s.temperature)
	case s.topK < 0:
		return nil, bad("top_k must be non-negative, got %d", s.topK)
	case s.hasEOS && (s.eos < 0 || s.eos >= c.VocabSize):
		return nil, bad("eos_token_id %d is not in [0, vocab_size=%d)", s.eos, c.VocabSize)
	case s.hasPad && (s.pad < 0 || s.pad >= c.VocabSize):
		return nil, bad("pad_token_id %d is not in [0, vocab_size=%d)", s.pad, c.VocabSize)
	}
	if !s.hasPad {
		s.pad = s.eos
	}
	return s, nil
}

// Generate continues the prompts inputIDs (batch, seq) and returns them
// with the new tokens, (batch, seq + new), as transformers' generate does:
// greedy by default, sampled with WithDoSample (then WithTemperature and
// WithTopK shape the distribution, and WithSeed or WithGenerator make it
// repeatable), with a key/value cache unless WithUseCache(false). It runs
// without recording gradients, in the model's mode: call Eval first, as
// transformers' from_pretrained does, or dropout stays on. It panics on
// error.
//
//	out := m.Generate(prompt, text.WithMaxNewTokens(64))
//	out = m.Generate(prompt, text.WithDoSample(true), text.WithTemperature(0.8), text.WithTopK(40), text.WithSeed(1))
func (m *GPT2LMHeadModel) Generate(inputIDs torch.Tensor, opts ...GenerateOption) torch.Tensor {
	out, err := m.TryGenerate(inputIDs, opts...)
	must(err)
	return out
}

// TryGenerate is Generate that returns its error.
func (m *GPT2LMHeadModel) TryGenerate(inputIDs torch.Tensor, opts ...GenerateOption) (out torch.Tensor, err error) {
	if m == nil || m.Transformer == nil || m.LmHead == nil {
		return out, uninitialized("GPT2LMHeadModel")
	}
	s, err := generateSetup(m.Config, opts)
	if err != nil {
		return out, err
	}
	if err := m.Transformer.check(inputIDs, nil); err != nil {
		return out, err
	}
	if n := inputIDs.Size(1) + s.maxNewTokens; n > m.Config.NPositions {
		return out, modelError("GPT2LMHeadModel.Generate", ErrInput, "%d prompt tokens and max_new_tokens=%d exceed n_positions=%d",
			inputIDs.Size(1), s.maxNewTokens, m.Config.NPositions)
	}
	torch.NoGrad(func() {
		out, err = catch("GPT2LMHeadModel.Generate", func() torch.Tensor { return m.generate(inputIDs, s) })
	})
	return out, err
}

func (m *GPT2LMHeadModel) generate(ids torch.Tensor, s *generateSettings) torch.Tensor {
	seq := ids.To(torch.Int64) // a handle of its own, even when ids is int64
	var cache *KVCache
	if s.useCache {
		// Room for every token it will see: each step copies one
		// position in instead of concatenating the whole past.
		cache = &KVCache{reserve: ids.Size(1) + s.maxNewTokens}
		defer cache.Free()
	}
	var finished torch.Tensor // (batch) bool, with an EOS token
	if s.hasEOS {
		finished = torch.Zeros([]int64{ids.Size(0)}, torch.WithDtype(torch.Bool), torch.WithDevice(ids.Device()))
		defer finished.Free()
	}
	next := seq
	for range s.maxNewTokens {
		var tmp temps
		in := seq
		if cache != nil {
			in = next
		}
		// TryGenerate checked the prompt; the tokens after it are the
		// model's own, so the steps skip TryForward's checks (reading the
		// tokens' range back to the host every step).
		logits := tmp.add(m.forward(in, cache))
		if next != seq {
			tmp.add(next)
		}
		tok := tmp.add(nextTokens(tmp.add(logits.Select(1, -1)), s))
		if s.hasEOS {
			tok = tmp.add(tok.MaskedFillScalar(finished, torch.S(s.pad)))
			done := tmp.add(finished.LogicalOr(tmp.add(tok.EqScalar(torch.S(s.eos)))))
			finished.Copy_(done)
		}
		next = tok.Unsqueeze(1)
		old := seq
		seq = torch.Cat([]torch.Tensor{seq, next}, torch.WithDim(1))
		old.Free()
		tmp.free()
		if s.hasEOS && finished.All().ItemBool() {
			break
		}
	}
	if next != seq {
		next.Free()
	}
	return seq
}

// nextTokens chooses a token per row of scores (batch, vocab), the
// logits of the last position: the largest, or with do_sample a draw from
// softmax(scores / temperature) restricted to the top_k largest
// (transformers' TemperatureLogitsWarper, TopKLogitsWarper, then
// torch.multinomial).
func nextTokens(scores torch.Tensor, s *generateSettings) torch.Tensor {
	if !s.doSample {
		return scores.ArgmaxAlong(-1)
	}
	var tmp temps
	if s.temperature != 1 {
		scores = tmp.add(scores.DivScalar(torch.S(s.temperature)))
	}
	if k := min(s.topK, scores.Size(-1)); k > 0 {
		vals, idx := scores.TopkAlong(k, -1)
		tmp.add(vals)
		tmp.add(idx)
		kth := tmp.add(vals.Narrow(-1, k-1, 1))
		scores = tmp.add(scores.MaskedFillScalar(tmp.add(scores.Lt(kth)), torch.S(math.Inf(-1))))
	}
	probs := tmp.add(scores.Softmax(-1))
	tok := tmp.add(probs.Multinomial(1, torch.WithGenerator(s.gen)))
	out := tok.SqueezeDim(1)
	tmp.free(out)
	return out
}
