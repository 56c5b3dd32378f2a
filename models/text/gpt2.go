package text

import (
	"math"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// GPT2Attention is GPT-2's causal self-attention (transformers'
// GPT2Attention): c_attn projects to queries, keys and values at once,
// c_proj projects the heads back. Its causal mask is made per call, so it
// has no "bias" buffer (transformers' is not persistent either).
type GPT2Attention struct {
	nn.Module
	CAttn        *Conv1D           `gotorch:"name=c_attn"` // n_embd → 3·n_embd
	CProj        *Conv1D           `gotorch:"name=c_proj"` // n_embd → n_embd
	AttnDropout  *nn.DropoutModule `gotorch:"name=attn_dropout"`
	ResidDropout *nn.DropoutModule `gotorch:"name=resid_dropout"`

	EmbedDim, NumHeads, HeadDim int64
}

func newGPT2Attention(c GPT2Config) *GPT2Attention {
	a := &GPT2Attention{
		CAttn: NewConv1D(3*c.NEmbd, c.NEmbd), CProj: NewConv1D(c.NEmbd, c.NEmbd),
		AttnDropout: nn.Dropout(nn.WithP(c.AttnPdrop)), ResidDropout: nn.Dropout(nn.WithP(c.ResidPdrop)),
		EmbedDim: c.NEmbd, NumHeads: c.NHead, HeadDim: c.NEmbd / c.NHead,
	}
	a.Init(a)
	return a
}

// splitHeads views (batch, seq, n_embd) as (batch, head, seq, head_dim).
func (a *GPT2Attention) splitHeads(tmp *temps, t torch.Tensor) torch.Tensor {
	v := tmp.add(t.ViewDims(t.Size(0), t.Size(1), a.NumHeads, a.HeadDim))
	return tmp.add(v.PermuteDims(0, 2, 1, 3))
}

// kvPast is block i's keys and values in cache (nil for none), and where
// the block's new ones go (KVCache.extend).
type kvPast struct {
	cache *KVCache
	i     int
}

// extend returns the past keys and values followed by k and v.
func (p kvPast) extend(k, v torch.Tensor) (torch.Tensor, torch.Tensor) {
	var pk, pv torch.Tensor
	if c := p.cache; c != nil && len(c.Keys) > 0 {
		pk, pv = c.Keys[p.i], c.Values[p.i]
	}
	return p.cache.extend(p.i, pk, pv, k, v)
}

// forward attends from x (batch, seq, n_embd) to the keys and values of
// past (none for a nil cache) and of x itself, each position to itself and those
// before it. It returns the output and the keys and values of past and x
// together (transformers' "present").
func (a *GPT2Attention) forward(x torch.Tensor, past kvPast) (out, k, v torch.Tensor) {
	var tmp temps
	qkv := tmp.add(a.CAttn.Forward(x))
	parts := qkv.Split(a.EmbedDim, torch.WithDim(2))
	for _, p := range parts {
		tmp.add(p)
	}
	q := a.splitHeads(&tmp, parts[0])
	k = a.splitHeads(&tmp, parts[1])
	v = a.splitHeads(&tmp, parts[2])
	k, v = past.extend(k, v)
	w := tmp.add(q.Matmul(tmp.add(k.Transpose(-1, -2))))
	w = tmp.add(w.DivScalar(torch.S(math.Sqrt(float64(a.HeadDim)))))
	if tq, tk := q.Size(2), k.Size(2); tq > 1 {
		// Query i (position tk-tq+i) sees keys 0..tk-tq+i: mask the
		// upper triangle above that diagonal.
		ones := tmp.add(torch.Ones([]int64{tq, tk}, torch.WithDtype(torch.Bool), torch.WithDevice(w.Device())))
		masked := tmp.add(ones.Triu(torch.WithDiagonal(tk - tq + 1)))
		w = tmp.add(w.MaskedFillScalar(masked, torch.S(finfoMin(w.DType()))))
	}
	w = tmp.add(w.Softmax(-1))
	w = tmp.dropout(a.AttnDropout, w)
	h := tmp.add(w.Matmul(v))
	h = tmp.add(h.PermuteDims(0, 2, 1, 3))
	h = tmp.add(h.Contiguous())
	h = tmp.add(h.ViewDims(h.Size(0), h.Size(1), a.EmbedDim))
	out = tmp.dropout(a.ResidDropout, tmp.add(a.CProj.Forward(h)))
	tmp.free(out, k, v)
	return out, k, v
}

// GPT2MLP is GPT-2's feed-forward block (transformers' GPT2MLP): c_fc,
// the activation, c_proj, dropout.
type GPT2MLP struct {
	nn.Module
	CFc     *Conv1D `gotorch:"name=c_fc"`   // n_embd → n_inner
	CProj   *Conv1D `gotorch:"name=c_proj"` // n_inner → n_embd
	Dropout *nn.DropoutModule

	Activation string // activation_function
	act        func(torch.Tensor) torch.Tensor
}

func newGPT2MLP(c GPT2Config) *GPT2MLP {
	act, _ := activation(c.ActivationFunction)
	m := &GPT2MLP{CFc: NewConv1D(c.inner(), c.NEmbd), CProj: NewConv1D(c.NEmbd, c.inner()),
		Dropout: nn.Dropout(nn.WithP(c.ResidPdrop)), Activation: c.ActivationFunction, act: act}
	m.Init(m)
	return m
}

// Forward applies the block to x (*, n_embd).
func (m *GPT2MLP) Forward(x torch.Tensor) torch.Tensor {
	var tmp temps
	h := tmp.add(m.CFc.Forward(x))
	h = tmp.add(m.act(h))
	h = tmp.add(m.CProj.Forward(h))
	out := tmp.dropout(m.Dropout, h)
	tmp.free(out)
	return out
}

// GPT2Block is one pre-norm transformer block (transformers' GPT2Block):
// x + attn(ln_1(x)), then h + mlp(ln_2(h)).
type GPT2Block struct {
	nn.Module
	Ln1  *nn.LayerNormModule `gotorch:"name=ln_1"`
	Attn *GPT2Attention
	Ln2  *nn.LayerNormModule `gotorch:"name=ln_2"`
	MLP  *GPT2MLP            `gotorch:"name=mlp"`
}

func newGPT2Block(c GPT2Config) *GPT2Block {
	eps := nn.WithEps(c.LayerNormEpsilon)
	b := &GPT2Block{Ln1: nn.LayerNorm(c.NEmbd, eps), Attn: newGPT2Attention(c), Ln2: nn.LayerNorm(c.NEmbd, eps), MLP: newGPT2MLP(c)}
	b.Init(b)
	return b
}

// forward is the block on x, attending to past as GPT2Attention.forward.
func (b *GPT2Block) forward(x torch.Tensor, past kvPast) (out, k, v torch.Tensor) {
	var tmp temps
	a, k, v := b.Attn.forward(tmp.add(b.Ln1.Forward(x)), past)
	h := tmp.add(tmp.add(a).Add(x))
	out = h.Add(tmp.add(b.MLP.Forward(tmp.add(b.Ln2.Forward(h)))))
	tmp.free(out)
	return out, k, v
}

// GPT2Model is GPT-2's transformer without a head (transformers'
// GPT2Model): token and position embeddings, the blocks, and a final
// LayerNorm.
type GPT2Model struct {
	nn.Module
	Wte  *nn.EmbeddingModule // token embeddings (vocab_size, n_embd)
	Wpe  *nn.EmbeddingModule // position embeddings (n_positions, n_embd)
	Drop *nn.DropoutModule
	H    []*GPT2Block
	LnF  *nn.LayerNormModule `gotorch:"name=ln_f"`

	Config GPT2Config
}

// NewGPT2Model returns a GPT2Model of config c, initialized as
// transformers initializes GPT-2 (see NewGPT2LMHeadModel).
func NewGPT2Model(c GPT2Config) (*GPT2Model, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	m := newGPT2Model(c)
	initGPT2(m, c)
	return m, nil
}

func newGPT2Model(c GPT2Config) *GPT2Model {
	m := &GPT2Model{
		Wte: nn.Embedding(c.VocabSize, c.NEmbd), Wpe: nn.Embedding(c.NPositions, c.NEmbd),
		Drop: nn.Dropout(nn.WithP(c.EmbdPdrop)), LnF: nn.LayerNorm(c.NEmbd, nn.WithEps(c.LayerNormEpsilon)),
		Config: c,
	}
	m.H = make([]*GPT2Block, c.NLayer)
	for i := range m.H {
		m.H[i] = newGPT2Block(c)
	}
	m.Init(m)
	return m
}

// initGPT2 is transformers' GPT2PreTrainedModel._init_weights, with the
// c_proj weights drawn with std initializer_range/√(2·n_layer).
func initGPT2(m nn.Moduler, c GPT2Config) {
	mods := m.(interface{ NamedModules() []nn.NamedModule }).NamedModules()
	for _, nm := range mods {
		initWeights(nm.Module, c.InitializerRange)
	}
	std := c.InitializerRange / math.Sqrt(float64(2*c.NLayer))
	for _, nm := range mods {
		switch l := nm.Module.(type) {
		case *GPT2Attention:
			initWeights(l.CProj, std)
		case *GPT2MLP:
			initWeights(l.CProj, std)
		}
	}
}

// Forward returns the last hidden state (batch, seq, n_embd) of the
// token indices inputIDs (batch, seq). It panics on error.
func (m *GPT2Model) Forward(inputIDs torch.Tensor) torch.Tensor {
	h, err := m.TryForward(inputIDs, nil)
	must(err)
	return h
}

// TryForward returns the last hidden state of inputIDs, the tokens that
// follow those in cache. With a cache (nil for none) positions start
// after the cached tokens, and the keys and values of inputIDs are added
// to it.
func (m *GPT2Model) TryForward(inputIDs torch.Tensor, cache *KVCache) (torch.Tensor, error) {
	if m == nil || m.Wte == nil || m.Wpe == nil || m.LnF == nil || int64(len(m.H)) != m.Config.NLayer {
		return torch.Tensor{}, uninitialized("GPT2Model")
	}
	if err := m.check(inputIDs, cache); err != nil {
		return torch.Tensor{}, err
	}
	return catch("GPT2Model", func() torch.Tensor { return m.forward(inputIDs, cache) })
}

// check reports what is wrong with inputIDs and cache for m.
func (m *GPT2Model) check(ids torch.Tensor, cache *KVCache) error {
	const model = "GPT2Model"
	if err := checkIDs(model, "input_ids", ids); err != nil {
		return err
	}
	past := cache.Len()
	if n := past + ids.Size(1); n > m.Config.NPositions {
		return modelError(model, ErrInput, "%d positions (%d cached, %d new) exceed n_positions=%d", n, past, ids.Size(1), m.Config.NPositions)
	}
	if cache != nil && len(cache.Keys) > 0 {
		if int64(len(cache.Keys)) != m.Config.NLayer || len(cache.Values) != len(cache.Keys) {
			return modelError(model, ErrInput, "the cache holds %d blocks' keys and %d blocks' values, the model has %d blocks",
				len(cache.Keys), len(cache.Values), m.Config.NLayer)
		}
		if b := cache.Keys[0].Size(0); b != ids.Size(0) {
			return modelError(model, ErrInput, "the cache is of a batch of %d, input_ids of %d", b, ids.Size(0))
		}
	}
	return checkRange(model, "input_ids", ids, m.Config.VocabSize, "vocab_size")
}

func (m *GPT2Model) forward(ids torch.Tensor, cache *KVCache) torch.Tensor {
	var tmp temps
	past := cache.Len()
	pos := tmp.add(torch.ArangeStart(torch.S(past), torch.S(past+ids.Size(1)),
		torch.WithDtype(torch.Int64), torch.WithDevice(ids.Device())))
	pos = tmp.add(pos.Unsqueeze(0))
	h := tmp.add(tmp.add(m.Wte.Forward(ids)).Add(tmp.add(m.Wpe.Forward(pos))))
	h = tmp.dropout(m.Drop, h)
	var keys, values []torch.Tensor
	for i, b := range m.H {
		var k, v torch.Tensor
		h, k, v = b.forward(h, kvPast{cache, i})
		tmp.add(h)
		keys, values = append(keys, k), append(values, v)
	}
	out := m.LnF.Forward(h)
	tmp.free(out)
	if cache != nil {
		cache.set(keys, values)
	} else {
		for i := range keys {
			keys[i].Free()
			values[i].Free()
		}
	}
	return out
}
