package text

import (
	"math"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// BertEmbeddings sums the word, position and token-type embeddings, then
// normalizes (transformers' BertEmbeddings). Positions are 0, 1, … (its
// position_ids buffer is not persistent in transformers, and not kept
// here).
type BertEmbeddings struct {
	nn.Module
	WordEmbeddings      *nn.EmbeddingModule // (vocab_size, hidden_size), padding_idx=pad_token_id
	PositionEmbeddings  *nn.EmbeddingModule // (max_position_embeddings, hidden_size)
	TokenTypeEmbeddings *nn.EmbeddingModule // (type_vocab_size, hidden_size)
	LayerNorm           *nn.LayerNormModule `gotorch:"name=LayerNorm"`
	Dropout             *nn.DropoutModule
}

func newBertEmbeddings(c BertConfig) *BertEmbeddings {
	e := &BertEmbeddings{
		WordEmbeddings:      nn.Embedding(c.VocabSize, c.HiddenSize, nn.WithPaddingIdx(c.PadTokenID)),
		PositionEmbeddings:  nn.Embedding(c.MaxPositionEmbeddings, c.HiddenSize),
		TokenTypeEmbeddings: nn.Embedding(c.TypeVocabSize, c.HiddenSize),
		LayerNorm:           nn.LayerNorm(c.HiddenSize, nn.WithEps(c.LayerNormEps)),
		Dropout:             nn.Dropout(nn.WithP(c.HiddenDropoutProb)),
	}
	e.Init(e)
	return e
}

// Forward embeds inputIDs with their token types (both (batch, seq)).
func (e *BertEmbeddings) Forward(inputIDs, tokenTypeIDs torch.Tensor) torch.Tensor {
	var tmp temps
	pos := tmp.add(torch.Arange(torch.S(inputIDs.Size(1)), torch.WithDtype(torch.Int64), torch.WithDevice(inputIDs.Device())))
	pos = tmp.add(pos.Unsqueeze(0))
	h := tmp.add(tmp.add(e.WordEmbeddings.Forward(inputIDs)).Add(tmp.add(e.TokenTypeEmbeddings.Forward(tokenTypeIDs))))
	h = tmp.add(h.Add(tmp.add(e.PositionEmbeddings.Forward(pos))))
	out := tmp.dropout(e.Dropout, tmp.add(e.LayerNorm.Forward(h)))
	tmp.free(out)
	return out
}

// BertSelfAttention is BERT's multi-head self-attention without its
// output projection (transformers' BertSelfAttention).
type BertSelfAttention struct {
	nn.Module
	Query, Key, Value *nn.LinearModule // hidden_size → hidden_size
	Dropout           *nn.DropoutModule

	NumAttentionHeads, AttentionHeadSize int64
}

// Forward attends from every position of h (batch, seq, hidden) to every
// other, adding mask (batch, 1, 1, seq; 0 where seen, a large negative
// value where not) to the scores.
func (a *BertSelfAttention) Forward(h, mask torch.Tensor) torch.Tensor {
	var tmp temps
	heads := func(x torch.Tensor) torch.Tensor {
		v := tmp.add(x.ViewDims(x.Size(0), x.Size(1), a.NumAttentionHeads, a.AttentionHeadSize))
		return tmp.add(v.PermuteDims(0, 2, 1, 3))
	}
	q := heads(tmp.add(a.Query.Forward(h)))
	k := heads(tmp.add(a.Key.Forward(h)))
	v := heads(tmp.add(a.Value.Forward(h)))
	s := tmp.add(q.Matmul(tmp.add(k.Transpose(-1, -2))))
	s = tmp.add(s.DivScalar(torch.S(math.Sqrt(float64(a.AttentionHeadSize)))))
	if mask.Defined() {
		s = tmp.add(s.Add(mask))
	}
	p := tmp.dropout(a.Dropout, tmp.add(s.Softmax(-1)))
	ctx := tmp.add(tmp.add(p.Matmul(v)).PermuteDims(0, 2, 1, 3))
	ctx = tmp.add(ctx.Contiguous())
	out := ctx.ViewDims(ctx.Size(0), ctx.Size(1), a.NumAttentionHeads*a.AttentionHeadSize)
	tmp.free(out)
	return out
}

// BertSelfOutput is dense, dropout and a residual LayerNorm
// (transformers' BertSelfOutput; BertOutput is the same with other
// widths).
type BertSelfOutput struct {
	nn.Module
	Dense     *nn.LinearModule
	LayerNorm *nn.LayerNormModule `gotorch:"name=LayerNorm"`
	Dropout   *nn.DropoutModule
}

// BertOutput is the feed-forward block's output: dense from
// intermediate_size, dropout, LayerNorm of the sum with the block's input.
type BertOutput = BertSelfOutput

func newBertSelfOutput(c BertConfig, in int64) *BertSelfOutput {
	o := &BertSelfOutput{Dense: nn.Linear(in, c.HiddenSize), LayerNorm: nn.LayerNorm(c.HiddenSize, nn.WithEps(c.LayerNormEps)),
		Dropout: nn.Dropout(nn.WithP(c.HiddenDropoutProb))}
	o.Init(o)
	return o
}

// Forward is LayerNorm(dropout(dense(h)) + input).
func (o *BertSelfOutput) Forward(h, input torch.Tensor) torch.Tensor {
	var tmp temps
	d := tmp.dropout(o.Dropout, tmp.add(o.Dense.Forward(h)))
	out := o.LayerNorm.Forward(tmp.add(d.Add(input)))
	tmp.free(out)
	return out
}

// BertAttention is self-attention and its output block (transformers'
// BertAttention): attention.self.* and attention.output.*.
type BertAttention struct {
	nn.Module
	Self   *BertSelfAttention
	Output *BertSelfOutput
}

// Forward is output(self(h, mask), h).
func (a *BertAttention) Forward(h, mask torch.Tensor) torch.Tensor {
	s := a.Self.Forward(h, mask)
	defer s.Free()
	return a.Output.Forward(s, h)
}

// BertIntermediate is the feed-forward block's first half: dense to
// intermediate_size and the activation (transformers' BertIntermediate).
type BertIntermediate struct {
	nn.Module
	Dense *nn.LinearModule

	HiddenAct string
	act       func(torch.Tensor) torch.Tensor
}

// Forward is act(dense(h)).
func (m *BertIntermediate) Forward(h torch.Tensor) torch.Tensor {
	d := m.Dense.Forward(h)
	defer d.Free()
	return m.act(d)
}

// BertLayer is one post-norm encoder block (transformers' BertLayer).
type BertLayer struct {
	nn.Module
	Attention    *BertAttention
	Intermediate *BertIntermediate
	Output       *BertOutput
}

func newBertLayer(c BertConfig) *BertLayer {
	head := c.HiddenSize / c.NumAttentionHeads
	self := &BertSelfAttention{Query: nn.Linear(c.HiddenSize, c.HiddenSize), Key: nn.Linear(c.HiddenSize, c.HiddenSize),
		Value: nn.Linear(c.HiddenSize, c.HiddenSize), Dropout: nn.Dropout(nn.WithP(c.AttentionProbsDropoutProb)),
		NumAttentionHeads: c.NumAttentionHeads, AttentionHeadSize: head}
	self.Init(self)
	att := &BertAttention{Self: self, Output: newBertSelfOutput(c, c.HiddenSize)}
	att.Init(att)
	act, _ := activation(c.HiddenAct)
	inter := &BertIntermediate{Dense: nn.Linear(c.HiddenSize, c.IntermediateSize), HiddenAct: c.HiddenAct, act: act}
	inter.Init(inter)
	l := &BertLayer{Attention: att, Intermediate: inter, Output: newBertSelfOutput(c, c.IntermediateSize)}
	l.Init(l)
	return l
}

// Forward runs the block on h with the attention mask.
func (l *BertLayer) Forward(h, mask torch.Tensor) torch.Tensor {
	a := l.Attention.Forward(h, mask)
	defer a.Free()
	i := l.Intermediate.Forward(a)
	defer i.Free()
	return l.Output.Forward(i, a)
}

// BertEncoder is the stack of blocks (transformers' BertEncoder):
// encoder.layer.0, encoder.layer.1, ….
type BertEncoder struct {
	nn.Module
	Layer []*BertLayer
}

// Forward runs every block in turn.
func (e *BertEncoder) Forward(h, mask torch.Tensor) torch.Tensor {
	out := h
	for _, l := range e.Layer {
		next := l.Forward(out, mask)
		if out != h {
			out.Free()
		}
		out = next
	}
	return out
}

// BertPooler is tanh(dense(first token's hidden state)) (transformers'
// BertPooler).
type BertPooler struct {
	nn.Module
	Dense *nn.LinearModule
}

// Forward pools h (batch, seq, hidden) into (batch, hidden).
func (p *BertPooler) Forward(h torch.Tensor) torch.Tensor {
	first := h.Select(1, 0)
	defer first.Free()
	d := p.Dense.Forward(first)
	defer d.Free()
	return d.Tanh()
}

// BertModel is BERT's encoder with its pooler (transformers' BertModel):
// embeddings.*, encoder.layer.N.*, pooler.dense.*.
type BertModel struct {
	nn.Module
	Embeddings *BertEmbeddings
	Encoder    *BertEncoder
	Pooler     *BertPooler

	Config BertConfig
}

// NewBertModel returns a BertModel of config c, initialized as
// transformers does (normal weights with std initializer_range, zero
// biases and padding row, LayerNorm ones and zeros) from torch's default
// generator. An invalid config is an error wrapping ErrConfig.
func NewBertModel(c BertConfig) (*BertModel, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	m := newBertModel(c)
	initBert(m, c)
	return m, nil
}

func newBertModel(c BertConfig) *BertModel {
	enc := &BertEncoder{Layer: make([]*BertLayer, c.NumHiddenLayers)}
	for i := range enc.Layer {
		enc.Layer[i] = newBertLayer(c)
	}
	enc.Init(enc)
	pool := &BertPooler{Dense: nn.Linear(c.HiddenSize, c.HiddenSize)}
	pool.Init(pool)
	m := &BertModel{Embeddings: newBertEmbeddings(c), Encoder: enc, Pooler: pool, Config: c}
	m.Init(m)
	return m
}

// initBert is transformers' BertPreTrainedModel._init_weights.
func initBert(m interface{ NamedModules() []nn.NamedModule }, c BertConfig) {
	for _, nm := range m.NamedModules() {
		initWeights(nm.Module, c.InitializerRange)
	}
}

// Forward returns the last hidden state (batch, seq, hidden_size) and the
// pooled output (batch, hidden_size) of the token indices inputIDs (batch,
// seq). attentionMask (batch, seq; 1 for a token, 0 for padding) and
// tokenTypeIDs (batch, seq) may be undefined, torch.Tensor{}: then every
// token is attended to, and every token is of type 0, as transformers'
// defaults. It panics on error.
func (m *BertModel) Forward(inputIDs, attentionMask, tokenTypeIDs torch.Tensor) (lastHidden, pooled torch.Tensor) {
	lastHidden, pooled, err := m.TryForward(inputIDs, attentionMask, tokenTypeIDs)
	must(err)
	return lastHidden, pooled
}

// TryForward is Forward that returns its error.
func (m *BertModel) TryForward(inputIDs, attentionMask, tokenTypeIDs torch.Tensor) (lastHidden, pooled torch.Tensor, err error) {
	if m == nil || m.Embeddings == nil || m.Encoder == nil || m.Pooler == nil {
		return lastHidden, pooled, uninitialized("BertModel")
	}
	if err := m.check(inputIDs, attentionMask, tokenTypeIDs); err != nil {
		return lastHidden, pooled, err
	}
	out, err := catch("BertModel", func() [2]torch.Tensor {
		h, p := m.forward(inputIDs, attentionMask, tokenTypeIDs)
		return [2]torch.Tensor{h, p}
	})
	return out[0], out[1], err
}

func (m *BertModel) check(ids, mask, types torch.Tensor) error {
	const model = "BertModel"
	c := m.Config
	if err := checkIDs(model, "input_ids", ids); err != nil {
		return err
	}
	if s := ids.Size(1); s > c.MaxPositionEmbeddings {
		return modelError(model, ErrInput, "%d tokens exceed max_position_embeddings=%d", s, c.MaxPositionEmbeddings)
	}
	if err := checkRange(model, "input_ids", ids, c.VocabSize, "vocab_size"); err != nil {
		return err
	}
	if mask.Defined() && !equalShape(mask.Shape(), ids.Shape()) {
		return modelError(model, ErrInput, "attention_mask is %v, input_ids %v", mask.Shape(), ids.Shape())
	}
	if types.Defined() {
		if !equalShape(types.Shape(), ids.Shape()) {
			return modelError(model, ErrInput, "token_type_ids are %v, input_ids %v", types.Shape(), ids.Shape())
		}
		if err := checkIDs(model, "token_type_ids", types); err != nil {
			return err
		}
		return checkRange(model, "token_type_ids", types, c.TypeVocabSize, "type_vocab_size")
	}
	return nil
}

func (m *BertModel) forward(ids, mask, types torch.Tensor) (lastHidden, pooled torch.Tensor) {
	var tmp temps
	if !types.Defined() {
		types = tmp.add(torch.ZerosLike(ids, torch.WithDtype(torch.Int64)))
	}
	h := tmp.add(m.Embeddings.Forward(ids, types))
	var ext torch.Tensor
	if mask.Defined() {
		// transformers' get_extended_attention_mask: (1 - mask) * min,
		// broadcast over heads and query positions.
		f := tmp.add(mask.To(h.DType()))
		f = tmp.add(f.ViewDims(ids.Size(0), 1, 1, ids.Size(1)))
		one := tmp.add(tmp.add(f.Neg()).AddScalar(torch.S(1.0)))
		ext = tmp.add(one.MulScalar(torch.S(finfoMin(h.DType()))))
	}
	lastHidden = m.Encoder.Forward(h, ext)
	pooled = m.Pooler.Forward(lastHidden)
	tmp.free(lastHidden)
	return lastHidden, pooled
}
