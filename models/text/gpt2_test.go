package text

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/pt"
)

const gpt2File = "testdata/gpt2_tiny.pt"

// loadGPT2 builds the golden model of config raw and loads the golden
// state dict strictly.
func loadGPT2(t *testing.T, c GPT2Config) *GPT2LMHeadModel {
	t.Helper()
	m, err := NewGPT2LMHeadModel(c)
	require.NoError(t, err)
	require.NoError(t, pt.LoadModule(m, gpt2File, true), "strict load of PyTorch's state dict")
	return m
}

func TestGPT2Golden(t *testing.T) {
	var g gGPT2
	readJSON(t, "gpt2_tiny.json", &g)
	t.Logf("golden values from PyTorch %s", g.TorchVersion)
	m := loadGPT2(t, gpt2Config(t, g.Config))

	// transformers' names, in its order; lm_head.weight is the tied
	// embedding, listed once among the parameters.
	sd := m.StateDict()
	assert.ElementsMatch(t, g.StateDictKeys, keys(sd))
	assert.Equal(t, g.StateDictKeys[:len(g.StateDictKeys)-1], paramNames(m))
	require.Equal(t, "lm_head.weight", g.StateDictKeys[len(g.StateDictKeys)-1])
	assert.True(t, sd["lm_head.weight"] == sd["transformer.wte.weight"], "lm_head.weight is transformer.wte.weight")

	m.Eval()
	ids := g.InputIDs.tensor(t)
	t.Run("logits", func(t *testing.T) {
		g.Logits.requireClose(t, m.Forward(ids), "eval logits")
	})
	t.Run("loss", func(t *testing.T) {
		var loss torch.Tensor
		torch.NoGrad(func() { loss, _ = m.Loss(ids, ids) })
		assert.True(t, golden.Close(g.EvalLoss, loss.Item(), torch.Float32), "eval loss: PyTorch %v, GoTorch %v", g.EvalLoss, loss.Item())
	})
	t.Run("greedy", func(t *testing.T) {
		prompt := g.Greedy.Prompt.tensor(t)
		for _, cache := range []bool{true, false} {
			out := m.Generate(prompt, WithMaxNewTokens(g.Greedy.MaxNewTokens), WithUseCache(cache))
			assert.Equal(t, g.Greedy.Tokens.Shape, out.Shape())
			assert.Equal(t, g.Greedy.Tokens.ints(), out.Int64s(), "greedy tokens, use_cache=%v", cache)
		}
	})
	t.Run("top-k sample", func(t *testing.T) {
		s := g.Sample
		out := m.Generate(s.Prompt.tensor(t), WithMaxNewTokens(s.MaxNewTokens), WithDoSample(true),
			WithTemperature(s.Temperature), WithTopK(s.TopK), WithSeed(s.Seed))
		assert.Equal(t, s.Tokens.ints(), out.Int64s(), "tokens sampled with torch.Generator().manual_seed(%d)", s.Seed)
	})
	t.Run("train step", func(t *testing.T) {
		tm := loadGPT2(t, gpt2Config(t, g.TrainConfig))
		tm.Train()
		opt := optim.AdamW(tm.Parameters(), optim.WithLR(g.TrainStep.LR))
		loss, _ := tm.Loss(ids, ids)
		assert.True(t, golden.Close(g.TrainStep.Loss, loss.Item(), torch.Float32), "training loss: PyTorch %v, GoTorch %v", g.TrainStep.Loss, loss.Item())
		loss.Backward()
		checkTrainStep(t, tm, g.TrainStep, opt.Step)
	})
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// tinyGPT2 is the golden model, with dropout as configured there.
func tinyGPT2(t *testing.T) *GPT2LMHeadModel {
	t.Helper()
	var g gGPT2
	readJSON(t, "gpt2_tiny.json", &g)
	return loadGPT2(t, gpt2Config(t, g.Config))
}

// The logits of a sequence fed in chunks through a KVCache are those of
// the whole sequence at once.
func TestGPT2CacheMatchesFullForward(t *testing.T) {
	m := tinyGPT2(t)
	m.Eval()
	torch.ManualSeed(5)
	ids := torch.RandintGenerator(m.Config.VocabSize, []int64{3, 12}, torch.NewGenerator(5))
	full := m.Forward(ids)
	cache := &KVCache{}
	defer cache.Free()
	start := int64(0)
	for _, n := range []int64{5, 1, 4, 2} {
		chunk := ids.Narrow(1, start, n)
		got, err := m.TryForward(chunk, cache)
		require.NoError(t, err)
		assert.Equal(t, start+n, cache.Len())
		want := full.Narrow(1, start, n).Contiguous()
		require.True(t, golden.AllClose(t, want.Float64s(), got.Float64s(), torch.Float32, "logits of positions %d..%d through the cache", start, start+n-1))
		start += n
	}
	// A longer greedy run than the golden one, with and without the cache.
	prompt := ids.Narrow(1, 0, 3)
	a := m.Generate(prompt, WithMaxNewTokens(m.Config.NPositions-3))
	b := m.Generate(prompt, WithMaxNewTokens(m.Config.NPositions-3), WithUseCache(false))
	assert.Equal(t, b.Int64s(), a.Int64s(), "cached and recomputed greedy decoding")
}

func TestGPT2Sampling(t *testing.T) {
	m := tinyGPT2(t)
	m.Eval()
	prompt := torch.FromSlice([]int64{1, 2, 3, 4, 5, 6, 7, 8}, 2, 4)
	greedy := m.Generate(prompt, WithMaxNewTokens(16)).Int64s()

	t.Run("top_k 1 is greedy", func(t *testing.T) {
		got := m.Generate(prompt, WithMaxNewTokens(16), WithDoSample(true), WithTopK(1), WithTemperature(3), WithSeed(9))
		assert.Equal(t, greedy, got.Int64s())
	})
	t.Run("seeded", func(t *testing.T) {
		opts := []GenerateOption{WithMaxNewTokens(16), WithDoSample(true), WithTopK(0), WithTemperature(2)}
		a := m.Generate(prompt, append(opts, WithSeed(1))...).Int64s()
		b := m.Generate(prompt, append(opts, WithSeed(1))...).Int64s()
		c := m.Generate(prompt, append(opts, WithSeed(2))...).Int64s()
		assert.Equal(t, a, b, "the same seed gives the same tokens")
		assert.NotEqual(t, a, c, "two seeds give two samples (32 tokens of 67 at temperature 2)")
		torch.ManualSeed(3)
		d := m.Generate(prompt, opts...).Int64s()
		torch.ManualSeed(3)
		e := m.Generate(prompt, opts...).Int64s()
		assert.Equal(t, d, e, "torch.ManualSeed seeds the default generator")
	})
	t.Run("within top_k", func(t *testing.T) {
		const k = 3
		out := m.Generate(prompt, WithMaxNewTokens(16), WithDoSample(true), WithTopK(k), WithSeed(4))
		// Recompute each step's logits from the generated prefix: every
		// token is among the k most likely.
		logits := m.Forward(out.Narrow(1, 0, out.Size(1)-1))
		toks := out.Int64s()
		n := out.Size(1)
		for b := range int64(2) {
			for pos := int64(4); pos < n; pos++ {
				_, idx := logits.Select(0, b).Select(0, pos-1).TopkAlong(k, -1)
				assert.Contains(t, idx.Int64s(), toks[b*n+pos], "row %d, position %d", b, pos)
			}
		}
	})
}

// nextTokens samples from softmax(scores/temperature) over the top k: the
// frequencies of 20,000 draws match those probabilities.
func TestNextTokensDistribution(t *testing.T) {
	scores := torch.FromSlice([]float32{2.0, 0.5, 1.0, -1.0, 1.5, 0.0}, 1, 6)
	const n = 20000
	rows := scores.Expand([]int64{n, 6}).Contiguous()
	for _, tc := range []struct {
		temperature float64
		topK        int64
	}{{1, 0}, {0.5, 0}, {2, 3}, {0.7, 2}} {
		s := &generateSettings{doSample: true, temperature: tc.temperature, topK: tc.topK, gen: torch.NewGenerator(11)}
		toks := nextTokens(rows, s).Int64s()
		want := softmaxTopK([]float64{2.0, 0.5, 1.0, -1.0, 1.5, 0.0}, tc.temperature, int(tc.topK))
		counts := make([]float64, 6)
		for _, x := range toks {
			counts[x]++
		}
		for i, p := range want {
			f := counts[i] / n
			if p == 0 {
				assert.Zero(t, counts[i], "T=%v k=%d: token %d is outside the top k", tc.temperature, tc.topK, i)
				continue
			}
			// 5 standard deviations of a binomial frequency.
			sd := sqrt(p * (1 - p) / n)
			assert.InDelta(t, p, f, 5*sd+1e-12, "T=%v k=%d: frequency of token %d", tc.temperature, tc.topK, i)
		}
	}
}

func TestGPT2StateDict(t *testing.T) {
	var g gGPT2
	readJSON(t, "gpt2_tiny.json", &g)
	c := gpt2Config(t, g.Config)
	sd, err := pt.LoadStateDict(gpt2File)
	require.NoError(t, err)

	t.Run("without lm_head.weight", func(t *testing.T) {
		// transformers' save_pretrained leaves the tied key out.
		m, err := NewGPT2LMHeadModel(c)
		require.NoError(t, err)
		rest := map[string]torch.Tensor{}
		for k, v := range sd {
			if k != "lm_head.weight" {
				rest[k] = v
			}
		}
		require.NoError(t, m.LoadStateDict(rest, true))
		assert.True(t, m.LmHead.Weight.Equal(sd["lm_head.weight"]))
	})
	t.Run("untied head", func(t *testing.T) {
		m, err := NewGPT2LMHeadModel(c)
		require.NoError(t, err)
		bad := map[string]torch.Tensor{}
		for k, v := range sd {
			bad[k] = v
		}
		bad["lm_head.weight"] = sd["lm_head.weight"].AddScalar(torch.S(1))
		err = m.LoadStateDict(bad, true)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "lm_head.weight differs from transformer.wte.weight")
	})
	t.Run("missing and unexpected", func(t *testing.T) {
		m, err := NewGPT2LMHeadModel(c)
		require.NoError(t, err)
		bad := map[string]torch.Tensor{"transformer.h.0.attn.bias": torch.Ones([]int64{1})}
		for k, v := range sd {
			if k != "transformer.h.1.mlp.c_fc.weight" {
				bad[k] = v
			}
		}
		err = m.LoadStateDict(bad, true)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "missing keys: transformer.h.1.mlp.c_fc.weight")
		assert.Contains(t, err.Error(), "unexpected keys: transformer.h.0.attn.bias")
		require.NoError(t, m.LoadStateDict(bad, false), "strict=false loads what matches")
	})
	t.Run("save and load back", func(t *testing.T) {
		m := loadGPT2(t, c)
		path := filepath.Join(t.TempDir(), "gpt2.pt")
		require.NoError(t, pt.Save(path, m.StateDict()))
		back, err := pt.LoadStateDict(path)
		require.NoError(t, err)
		assert.ElementsMatch(t, g.StateDictKeys, keys(back))
		m2, err := NewGPT2LMHeadModel(c)
		require.NoError(t, err)
		require.NoError(t, pt.LoadModule(m2, path, true))
		for name, p := range params(m) {
			assert.True(t, p.Equal(params(m2)[name]), name)
		}
	})
	t.Run("GPT2Model alone", func(t *testing.T) {
		// A checkpoint of transformers' GPT2Model has no "transformer."
		// prefix: it loads into m.Transformer.
		m, err := NewGPT2LMHeadModel(c)
		require.NoError(t, err)
		inner := map[string]torch.Tensor{}
		for k, v := range sd {
			if k != "lm_head.weight" {
				inner[k[len("transformer."):]] = v
			}
		}
		require.NoError(t, m.Transformer.LoadStateDict(inner, true))
		assert.True(t, m.LmHead.Weight.Equal(sd["lm_head.weight"]), "the head follows the embedding")
	})
}

func TestGPT2Dropout(t *testing.T) {
	m := tinyGPT2(t) // p = 0.1
	ids := torch.FromSlice([]int64{1, 2, 3, 4, 5}, 1, 5)
	m.Train()
	a, b := m.Forward(ids), m.Forward(ids)
	assert.False(t, a.Equal(b), "dropout in training mode")
	m.Eval()
	a, b = m.Forward(ids), m.Forward(ids)
	assert.True(t, a.Equal(b), "no dropout in eval mode")
}

func TestGPT2Errors(t *testing.T) {
	m := tinyGPT2(t)
	c := m.Config
	for _, tc := range []struct {
		name string
		ids  torch.Tensor
		msg  string
	}{
		{"1-D", torch.FromSlice([]int64{1, 2}), "input_ids must be (batch, seq), got shape [2]"},
		{"float", torch.FromSlice([]float32{1, 2}, 1, 2), "int64 or int32 token indices, got torch.float32"},
		{"empty", torch.Zeros([]int64{1, 0}, torch.WithDtype(torch.Int64)), "input_ids is empty"},
		{"out of vocab", torch.FromSlice([]int64{1, 67}, 1, 2), "input_ids must be in [0, vocab_size=67), got values from 1 to 67"},
		{"negative", torch.FromSlice([]int64{-1, 3}, 1, 2), "got values from -1 to 3"},
		{"too long", torch.Zeros([]int64{1, 33}, torch.WithDtype(torch.Int64)), "33 positions (0 cached, 33 new) exceed n_positions=32"},
		{"undefined", torch.Tensor{}, "input_ids is undefined"},
	} {
		_, err := m.TryForward(tc.ids, nil)
		require.Error(t, err, tc.name)
		assert.ErrorIs(t, err, ErrInput, tc.name)
		assert.Contains(t, err.Error(), tc.msg, tc.name)
		assert.Panics(t, func() { m.Forward(tc.ids) }, tc.name)
	}

	cache := &KVCache{}
	defer cache.Free()
	_, err := m.TryForward(torch.Zeros([]int64{2, 30}, torch.WithDtype(torch.Int64)), cache)
	require.NoError(t, err)
	_, err = m.TryForward(torch.Zeros([]int64{2, 3}, torch.WithDtype(torch.Int64)), cache)
	assert.ErrorContains(t, err, "33 positions (30 cached, 3 new) exceed n_positions=32")
	_, err = m.TryForward(torch.Zeros([]int64{1, 1}, torch.WithDtype(torch.Int64)), cache)
	assert.ErrorContains(t, err, "the cache is of a batch of 2, input_ids of 1")

	prompt := torch.FromSlice([]int64{1, 2, 3}, 1, 3)
	for _, tc := range []struct {
		opts []GenerateOption
		msg  string
	}{
		{[]GenerateOption{WithMaxNewTokens(30)}, "3 prompt tokens and max_new_tokens=30 exceed n_positions=32"},
		{[]GenerateOption{WithMaxNewTokens(-1)}, "max_new_tokens must be non-negative"},
		{[]GenerateOption{WithDoSample(true), WithTemperature(0)}, "temperature must be a positive number, got 0"},
		{[]GenerateOption{WithTopK(-2)}, "top_k must be non-negative"},
		{[]GenerateOption{WithEOSTokenID(c.VocabSize)}, "eos_token_id 67 is not in [0, vocab_size=67)"},
	} {
		_, err := m.TryGenerate(prompt, tc.opts...)
		require.Error(t, err, tc.msg)
		assert.ErrorIs(t, err, ErrInput)
		assert.Contains(t, err.Error(), tc.msg)
	}

	var nilModel *GPT2LMHeadModel
	_, err = nilModel.TryForward(prompt, nil)
	assert.ErrorIs(t, err, nn.ErrUninitialized)
	_, err = nilModel.TryGenerate(prompt)
	assert.ErrorIs(t, err, nn.ErrUninitialized)
	_, err = (&GPT2LMHeadModel{}).TryForward(prompt, nil)
	assert.ErrorIs(t, err, nn.ErrUninitialized)
	_, err = (&GPT2Model{Config: c}).TryForward(prompt, nil)
	assert.ErrorIs(t, err, nn.ErrUninitialized)
	assert.Panics(t, func() { (&GPT2Model{}).Forward(prompt) })

	// A cache made by another model: the error of the op that fails.
	other := c
	other.NHead = 2
	m2, err := NewGPT2LMHeadModel(other)
	require.NoError(t, err)
	cache2 := &KVCache{}
	defer cache2.Free()
	_, err = m2.TryForward(prompt, cache2)
	require.NoError(t, err)
	_, err = m.TryForward(torch.FromSlice([]int64{4}, 1, 1), cache2)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "text: GPT2Model: torch.")
	assert.EqualValues(t, 3, cache2.Len(), "a failed call leaves the cache as it was")

	bad := c
	bad.NHead = 5
	_, err = NewGPT2LMHeadModel(bad)
	assert.ErrorIs(t, err, ErrConfig)
	assert.ErrorContains(t, err, "n_embd (32) must be a multiple of n_head (5)")
	bad = c
	bad.ActivationFunction = "swiglu"
	_, err = NewGPT2LMHeadModel(bad)
	assert.ErrorContains(t, err, `activation_function "swiglu"`)
	bad = c
	bad.AttnPdrop = 1.5
	_, err = NewGPT2LMHeadModel(bad)
	assert.ErrorContains(t, err, "attn_pdrop must be in [0, 1], got 1.5")
}

func TestGPT2EOS(t *testing.T) {
	m := tinyGPT2(t)
	m.Eval()
	prompt := torch.FromSlice([]int64{1, 2, 3, 4, 5, 6, 7, 8}, 2, 4)
	free := m.Generate(prompt, WithMaxNewTokens(12)).Int64s()
	// The first token row 0 generates, as the EOS token: row 0 stops
	// there and is padded while row 1 goes on as before, unless it emits
	// it too.
	eos := free[4]
	const pad = 0
	got := m.Generate(prompt, WithMaxNewTokens(12), WithEOSTokenID(eos), WithPadTokenID(pad)).Int64s()
	n := len(got) / 2
	require.LessOrEqual(t, n, 16)
	assert.Equal(t, eos, got[4])
	for i := 5; i < n; i++ {
		assert.Equal(t, int64(pad), got[i], "row 0 is padded after its EOS, position %d", i)
	}
	row1 := free[16:]
	for i := 0; i < n; i++ {
		if row1[i] == eos && i >= 4 {
			break
		}
		assert.Equal(t, row1[i], got[n+i], "row 1 position %d", i)
	}
}

func TestGPT2Repr(t *testing.T) {
	m := tinyGPT2(t)
	s := m.String()
	for _, want := range []string{"GPT2LMHeadModel(", "(transformer): GPT2Model(", "(wte): Embedding(67, 32)",
		"(c_attn): Conv1D(nf=96, nx=32)", "(ln_1): LayerNorm((32,), eps=1e-05, elementwise_affine=True)",
		"(lm_head): Linear(in_features=32, out_features=67, bias=False)"} {
		assert.Contains(t, s, want)
	}
}
