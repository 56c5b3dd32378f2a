package nn

import (
	"fmt"
	"math"

	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// MultiheadAttentionSettings are the settings of MultiheadAttention,
// named after PyTorch's constructor keywords and set by the With options;
// their defaults are PyTorch's.
type MultiheadAttentionSettings struct {
	Dropout     float64 // dropout on the attention weights, in training (WithDropout, default 0)
	Bias        bool    // in_proj_bias and out_proj.bias (WithBias, default true)
	AddBiasKV   bool    // add_bias_kv: learned bias_k and bias_v appended to the keys and values (WithAddBiasKV)
	AddZeroAttn bool    // add_zero_attn: a zero key and value appended (WithAddZeroAttn)
	KDim, VDim  int64   // kdim and vdim, the features of the keys and values (WithKdim, WithVdim; default embed_dim)
	BatchFirst  bool    // batched input and output are (batch, seq, feature) (WithBatchFirst)
}

// MultiheadAttentionModule is multi-head attention
// (torch.nn.MultiheadAttention), computed as PyTorch's
// F.multi_head_attention_forward.
//
// Its parameters are named as PyTorch's: in_proj_weight (or q_proj_weight,
// k_proj_weight and v_proj_weight when KDim or VDim differ from EmbedDim),
// in_proj_bias, bias_k, bias_v, out_proj.weight and out_proj.bias.
type MultiheadAttentionModule struct {
	Module
	InProjWeight torch.Tensor // (3*embed_dim, embed_dim): the query, key and value projections stacked
	QProjWeight  torch.Tensor // (embed_dim, embed_dim), only when KDim or VDim differ from EmbedDim
	KProjWeight  torch.Tensor // (embed_dim, kdim), only when KDim or VDim differ from EmbedDim
	VProjWeight  torch.Tensor // (embed_dim, vdim), only when KDim or VDim differ from EmbedDim
	InProjBias   torch.Tensor // (3*embed_dim); undefined with WithBias(false)
	BiasK, BiasV torch.Tensor // (1, 1, embed_dim), only with AddBiasKV
	OutProj      *NonDynamicallyQuantizableLinear

	EmbedDim, NumHeads, HeadDim int64
	MultiheadAttentionSettings
}

// NonDynamicallyQuantizableLinear is MultiheadAttention's output
// projection: a linear layer y = x Wᵀ + b, named after PyTorch's class of
// the same name so that it prints the same.
type NonDynamicallyQuantizableLinear struct {
	Module
	Weight torch.Tensor // (out_features, in_features)
	Bias   torch.Tensor // (out_features), or undefined without bias

	InFeatures, OutFeatures int64
}

// Forward is x Wᵀ + b.
func (l *NonDynamicallyQuantizableLinear) Forward(x torch.Tensor) torch.Tensor {
	mustModule(l)
	return mhaLinear(x, l.Weight, l.Bias)
}

// ExtraRepr prints "in_features=4, out_features=4, bias=True".
func (l *NonDynamicallyQuantizableLinear) ExtraRepr() string {
	return fmt.Sprintf("in_features=%d, out_features=%d, bias=%s", l.InFeatures, l.OutFeatures, pyBool(l.Bias.Defined()))
}

// mhaLinear is at::linear with an optional bias.
func mhaLinear(x, w, b torch.Tensor) torch.Tensor {
	if b.Defined() {
		return torch.Linear(x, w, torch.WithBias(b))
	}
	return torch.Linear(x, w)
}

// MultiheadAttention returns multi-head attention over embedDim features
// split into numHeads heads, initialized as PyTorch does: xavier_uniform_
// projection weights (in_proj_weight, or q/k/v_proj_weight), zero
// in_proj_bias and out_proj.bias, out_proj.weight as nn.Linear's
// (kaiming_uniform_ with a=√5, i.e. U(-1/√embedDim, 1/√embedDim)), and
// xavier_normal_ bias_k and bias_v. It panics on invalid settings.
//
// Options: WithDropout (0), WithBias (true), WithAddBiasKV (false),
// WithAddZeroAttn (false), WithKdim (embedDim), WithVdim (embedDim),
// WithBatchFirst (false), WithDtype, WithDevice.
//
//	mha := nn.MultiheadAttention(512, 8, nn.WithBatchFirst(true))
//	out, weights := mha.Forward(q, k, v, nn.WithKeyPaddingMask(pad))
func MultiheadAttention(embedDim, numHeads int64, opts ...Option) *MultiheadAttentionModule {
	a := mustParseArgs("MultiheadAttention", opts, "dropout", "bias", "add_bias_kv", "add_zero_attn", "kdim", "vdim", "batch_first", "dtype", "device")
	f := a.factory()
	o := MultiheadAttentionSettings{
		Dropout:     a.float("dropout", 0),
		Bias:        a.bool("bias", true),
		AddBiasKV:   a.bool("add_bias_kv", false),
		AddZeroAttn: a.bool("add_zero_attn", false),
		KDim:        a.int("kdim", embedDim),
		VDim:        a.int("vdim", embedDim),
		BatchFirst:  a.bool("batch_first", false),
	}
	switch {
	case embedDim <= 0 || numHeads <= 0 || o.KDim < 0 || o.VDim < 0:
		panic(fmt.Errorf("nn.MultiheadAttention: embed_dim (%d), num_heads (%d), kdim (%d) and vdim (%d) must be positive",
			embedDim, numHeads, o.KDim, o.VDim))
	case embedDim%numHeads != 0:
		panic(fmt.Errorf("nn.MultiheadAttention: embed_dim must be divisible by num_heads, got %d and %d", embedDim, numHeads))
	case !(o.Dropout >= 0 && o.Dropout <= 1):
		panic(fmt.Errorf("nn.MultiheadAttention: dropout probability has to be between 0 and 1, but got %v", o.Dropout))
	}
	m := &MultiheadAttentionModule{EmbedDim: embedDim, NumHeads: numHeads, HeadDim: embedDim / numHeads, MultiheadAttentionSettings: o}
	param := func(t torch.Tensor) torch.Tensor { return t.SetRequiresGrad(true) }
	if m.sameEmbedDim() {
		m.InProjWeight = param(mhaXavierUniform(f, 3*embedDim, embedDim))
	} else {
		m.QProjWeight = param(mhaXavierUniform(f, embedDim, embedDim))
		m.KProjWeight = param(mhaXavierUniform(f, embedDim, o.KDim))
		m.VProjWeight = param(mhaXavierUniform(f, embedDim, o.VDim))
	}
	m.OutProj = &NonDynamicallyQuantizableLinear{InFeatures: embedDim, OutFeatures: embedDim}
	bound := 1 / math.Sqrt(float64(embedDim))
	m.OutProj.Weight = param(mhaUniform(f, bound, embedDim, embedDim))
	if o.Bias {
		m.InProjBias = param(torch.Zeros([]int64{3 * embedDim}, f...))
		m.OutProj.Bias = param(torch.Zeros([]int64{embedDim}, f...))
	}
	m.OutProj.Init(m.OutProj)
	if o.AddBiasKV {
		// xavier_normal_ of a (1, 1, E) tensor: fan_in = fan_out = E.
		std := math.Sqrt(2 / float64(2*embedDim))
		m.BiasK = param(torch.Empty([]int64{1, 1, embedDim}, f...).Normal_(torch.WithStd(std)))
		m.BiasV = param(torch.Empty([]int64{1, 1, embedDim}, f...).Normal_(torch.WithStd(std)))
	}
	m.Init(m)
	return m
}

func (m *MultiheadAttentionModule) sameEmbedDim() bool {
	return m.KDim == m.EmbedDim && m.VDim == m.EmbedDim
}

// mhaUniform is a tensor of shape drawn from U(-bound, bound).
func mhaUniform(factory []torch.Option, bound float64, shape ...int64) torch.Tensor {
	return torch.Empty(shape, factory...).Uniform_(torch.WithFrom(-bound), torch.WithTo(bound))
}

// mhaXavierUniform is a (fanOut, fanIn) tensor initialized as PyTorch's
// xavier_uniform_ (gain 1).
func mhaXavierUniform(factory []torch.Option, fanOut, fanIn int64) torch.Tensor {
	return mhaUniform(factory, math.Sqrt(6/float64(fanIn+fanOut)), fanOut, fanIn)
}

// attnArgs are the parsed arguments of MultiheadAttention's Forward.
type attnArgs struct {
	keyPaddingMask, attnMask torch.Tensor
	needWeights, average     bool
}

// Forward attends from query, (L, batch, embed_dim), to key,
// (S, batch, kdim), and value, (S, batch, vdim) — batch first with
// BatchFirst, or without the batch dimension for unbatched input — and
// returns the attention output, shaped as query, and the attention
// weights: (batch, L, S) averaged over heads, (batch, num_heads, L, S)
// with WithAverageAttnWeights(false), undefined with
// WithNeedWeights(false). Dropout applies in training. It panics with an
// error on bad input; TryForward returns it.
//
// Options: WithKeyPaddingMask, WithAttnMask, WithNeedWeights (true),
// WithAverageAttnWeights (true).
//
// Unlike PyTorch, it never takes the fused inference fast path
// (at::_native_multi_head_attention); the results agree within float
// rounding.
func (m *MultiheadAttentionModule) Forward(query, key, value torch.Tensor, opts ...Option) (out, weights torch.Tensor) {
	mustModule(m)
	a := mustParseArgs("MultiheadAttention", opts, "key_padding_mask", "attn_mask", "need_weights", "average_attn_weights")
	o := attnArgs{keyPaddingMask: a.tensor("key_padding_mask"), attnMask: a.tensor("attn_mask"),
		needWeights: a.bool("need_weights", true), average: a.bool("average_attn_weights", true)}
	for _, a := range []struct {
		name string
		t    torch.Tensor
	}{{"query", query}, {"key", key}, {"value", value}} {
		if !a.t.Defined() {
			panic(fmt.Errorf("nn.MultiheadAttention: %s is an undefined tensor", a.name))
		}
	}
	if kpm := o.keyPaddingMask; kpm.Defined() && kpm.DType() != torch.Bool && !kpm.DType().IsFloatingPoint() {
		panic(fmt.Errorf("nn.MultiheadAttention: only bool and floating types of key_padding_mask are supported, got %v", kpm.DType()))
	}
	batched := query.Dim() == 3
	if !m.BatchFirst || !batched {
		return m.attend(query, key, value, o)
	}
	// Keep the identities that the packed in-projection looks at.
	k := key.Transpose(1, 0)
	v, q := k, k
	if value != key {
		v = value.Transpose(1, 0)
	}
	if query != key {
		q = query.Transpose(1, 0)
	}
	tq, weights := m.attend(q, k, v, o)
	out = tq.Transpose(1, 0)
	for _, t := range []torch.Tensor{q, k, v, tq} {
		temps.Free(t, out, weights)
	}
	return out, weights
}

// TryForward is Forward that returns its error: a *torch.Error from
// libtorch, or an error naming the bad shape or argument.
func (m *MultiheadAttentionModule) TryForward(query, key, value torch.Tensor, opts ...Option) (out, weights torch.Tensor, err error) {
	err = rnnCatchError(func() { out, weights = m.Forward(query, key, value, opts...) })
	return
}

func mhaErr(format string, args ...any) error {
	return fmt.Errorf("nn.MultiheadAttention: "+format, args...)
}

// attend is F.multi_head_attention_forward for sequence-first input.
func (m *MultiheadAttentionModule) attend(query, key, value torch.Tensor, o attnArgs) (torch.Tensor, torch.Tensor) {
	kpm, attnMask := o.keyPaddingMask, o.attnMask
	H := m.NumHeads

	// _mha_shape_check
	var batched bool
	switch query.Dim() {
	case 3:
		batched = true
		if key.Dim() != 3 || value.Dim() != 3 {
			panic(mhaErr("for batched (3-D) query, expected key and value to be 3-D but found %d-D and %d-D tensors respectively", key.Dim(), value.Dim()))
		}
		if kpm.Defined() && kpm.Dim() != 2 {
			panic(mhaErr("for batched (3-D) query, expected key_padding_mask to be undefined or 2-D but found %d-D tensor instead", kpm.Dim()))
		}
	case 2:
		if key.Dim() != 2 || value.Dim() != 2 {
			panic(mhaErr("for unbatched (2-D) query, expected key and value to be 2-D but found %d-D and %d-D tensors respectively", key.Dim(), value.Dim()))
		}
		if kpm.Defined() && kpm.Dim() != 1 {
			panic(mhaErr("for unbatched (2-D) query, expected key_padding_mask to be undefined or 1-D but found %d-D tensor instead", kpm.Dim()))
		}
		if attnMask.Defined() && attnMask.Dim() == 3 {
			if exp := []int64{H, query.Size(0), key.Size(0)}; !equalShape(attnMask.Shape(), exp) {
				panic(mhaErr("expected attn_mask shape to be %v but got %v", exp, attnMask.Shape()))
			}
		}
	default:
		panic(mhaErr("query should be unbatched 2-D or batched 3-D tensor but received %d-D query tensor (shape %v)", query.Dim(), query.Shape()))
	}
	if attnMask.Defined() && attnMask.Dim() != 2 && attnMask.Dim() != 3 {
		panic(mhaErr("expected attn_mask to be undefined, 2-D or 3-D but found %d-D tensor instead", attnMask.Dim()))
	}
	// Every tensor made below, but the two results, is freed before
	// returning; query, key, value and the masks are the caller's.
	var tmp temps.List
	if !batched {
		kIsV, qIsK := key == value, query == key
		query = tmp.Add(query.Unsqueeze(1))
		if kIsV {
			key = tmp.Add(key.Unsqueeze(1))
			value = key
		} else {
			key, value = tmp.Add(key.Unsqueeze(1)), tmp.Add(value.Unsqueeze(1))
		}
		if qIsK {
			query = key
		}
		if kpm.Defined() {
			kpm = tmp.Add(kpm.Unsqueeze(0))
		}
	}

	qs, ks := query.Shape(), key.Shape()
	tgtLen, bsz, embedDim := qs[0], qs[1], qs[2]
	srcLen := ks[0]
	if embedDim != m.EmbedDim {
		panic(mhaErr("was expecting embedding dimension of %d, but got %d", m.EmbedDim, embedDim))
	}
	headDim := embedDim / H
	vs := value.Shape()
	if ks[1] != bsz || vs[1] != bsz {
		panic(mhaErr("query, key and value must have the same batch size, got shapes %v, %v and %v", qs, ks, vs))
	}
	if ks[0] != vs[0] {
		panic(mhaErr("key's sequence and batch dims %v do not match value's %v", ks[:2], vs[:2]))
	}
	if ks[2] != m.KDim || vs[2] != m.VDim {
		panic(mhaErr("expected key and value with %d and %d features, got shapes %v and %v", m.KDim, m.VDim, ks, vs))
	}

	// In-projection.
	var q, k, v torch.Tensor
	if m.sameEmbedDim() {
		q, k, v = mhaInProjectionPacked(query, key, value, m.InProjWeight, m.InProjBias)
	} else {
		var bq, bk, bv torch.Tensor
		if m.InProjBias.Defined() {
			b := m.InProjBias.Chunk(3)
			bq, bk, bv = tmp.Add(b[0]), tmp.Add(b[1]), tmp.Add(b[2])
		}
		q, k, v = mhaLinear(query, m.QProjWeight, bq), mhaLinear(key, m.KProjWeight, bk), mhaLinear(value, m.VProjWeight, bv)
	}
	tmp.Add(q)
	tmp.Add(k)
	tmp.Add(v)

	// Masks.
	if attnMask.Defined() {
		switch dt := attnMask.DType(); {
		case dt == torch.Uint8:
			attnMask = tmp.Add(attnMask.To(torch.Bool))
		case dt != torch.Bool && !dt.IsFloatingPoint():
			panic(mhaErr("only float, byte, and bool types are supported for attn_mask, not %v", dt))
		}
		if attnMask.Dim() == 2 {
			if exp := []int64{tgtLen, srcLen}; !equalShape(attnMask.Shape(), exp) {
				panic(mhaErr("the shape of the 2D attn_mask is %v, but should be %v", attnMask.Shape(), exp))
			}
			attnMask = tmp.Add(attnMask.Unsqueeze(0))
		} else if exp := []int64{bsz * H, tgtLen, srcLen}; !equalShape(attnMask.Shape(), exp) {
			panic(mhaErr("the shape of the 3D attn_mask is %v, but should be %v", attnMask.Shape(), exp))
		}
	}
	if m.BiasK.Defined() && m.BiasV.Defined() {
		k = tmp.Add(torch.Cat([]torch.Tensor{k, tmp.Add(m.BiasK.Repeat([]int64{1, bsz, 1}))}))
		v = tmp.Add(torch.Cat([]torch.Tensor{v, tmp.Add(m.BiasV.Repeat([]int64{1, bsz, 1}))}))
		if attnMask.Defined() {
			attnMask = tmp.Add(torch.ConstantPadNd(attnMask, []int64{0, 1}))
		}
		if kpm.Defined() {
			kpm = tmp.Add(torch.ConstantPadNd(kpm, []int64{0, 1}))
		}
	}

	// Heads: (seq, batch, E) → (batch*heads, seq, head_dim).
	heads := func(t torch.Tensor, seq int64) torch.Tensor {
		return tmp.Add(tmp.Add(tmp.Add(t.Contiguous()).View([]int64{seq, bsz * H, headDim})).Transpose(0, 1))
	}
	q = heads(q, tgtLen)
	k = heads(k, k.Size(0))
	v = heads(v, v.Size(0))
	if m.AddZeroAttn {
		zeros := []int64{bsz * H, 1, headDim}
		k = tmp.Add(torch.Cat([]torch.Tensor{k, tmp.Add(k.NewZeros(zeros))}, torch.WithDim(1)))
		v = tmp.Add(torch.Cat([]torch.Tensor{v, tmp.Add(v.NewZeros(zeros))}, torch.WithDim(1)))
		if attnMask.Defined() {
			attnMask = tmp.Add(torch.ConstantPadNd(attnMask, []int64{0, 1}))
		}
		if kpm.Defined() {
			kpm = tmp.Add(torch.ConstantPadNd(kpm, []int64{0, 1}))
		}
	}
	srcLen = k.Size(1)
	if kpm.Defined() {
		if exp := []int64{bsz, srcLen}; !equalShape(kpm.Shape(), exp) {
			panic(mhaErr("expecting key_padding_mask shape of %v, but got %v", exp, kpm.Shape()))
		}
		kpm = tmp.Add(kpm.View([]int64{bsz, 1, 1, srcLen}))
		kpm = tmp.Add(kpm.Expand([]int64{-1, H, -1, -1}))
		kpm = tmp.Add(kpm.Reshape([]int64{bsz * H, 1, srcLen}))
		switch {
		case !attnMask.Defined():
			attnMask = kpm
		case attnMask.DType() == torch.Bool:
			attnMask = tmp.Add(attnMask.LogicalOr(kpm))
		default:
			attnMask = tmp.Add(attnMask.MaskedFillScalar(kpm, torch.S(math.Inf(-1))))
		}
	}
	if attnMask.Defined() && attnMask.DType() == torch.Bool {
		zeros := tmp.Add(torch.ZerosLike(attnMask, torch.WithDtype(q.DType())))
		attnMask = tmp.Add(zeros.MaskedFillScalar(attnMask, torch.S(math.Inf(-1))))
	}

	// Scaled dot-product attention.
	dropoutP := m.Dropout
	if !m.IsTraining() {
		dropoutP = 0
	}
	qScaled := tmp.Add(q.DivScalar(torch.S(math.Sqrt(float64(headDim)))))
	kt := tmp.Add(k.Transpose(-2, -1))
	var w torch.Tensor
	if attnMask.Defined() {
		w = tmp.Add(torch.Baddbmm(attnMask, qScaled, kt))
	} else {
		w = tmp.Add(torch.Bmm(qScaled, kt))
	}
	w = tmp.Add(torch.Softmax(w, -1))
	if dropoutP > 0 {
		w = tmp.Add(torch.Dropout(w, dropoutP, true))
	}
	out := tmp.Add(torch.Bmm(w, v))
	out = tmp.Add(tmp.Add(out.Transpose(0, 1)).Contiguous())
	out = tmp.Add(out.View([]int64{tgtLen * bsz, embedDim}))
	out = tmp.Add(mhaLinear(out, m.OutProj.Weight, m.OutProj.Bias))
	out = out.View([]int64{tgtLen, bsz, out.Size(1)})
	if !batched {
		out = tmp.Add(out).SqueezeDim(1)
	}
	if !o.needWeights {
		tmp.Free(out)
		return out, torch.Tensor{}
	}
	w = tmp.Add(w.View([]int64{bsz, H, tgtLen, srcLen}))
	if o.average {
		w = tmp.Add(w.SumDimIntList([]int64{1})).DivScalar(torch.S(float64(H)))
	}
	if !batched {
		w = tmp.Add(w).SqueezeDim(0)
	}
	tmp.Free(out, w)
	return out, w
}

// mhaInProjectionPacked is PyTorch's _in_projection_packed: one matmul when
// query, key and value are the same tensor, two when key is value. It
// frees what it makes but its results: the packed projections, and its
// views of w and b.
func mhaInProjectionPacked(q, k, v, w, b torch.Tensor) (torch.Tensor, torch.Tensor, torch.Tensor) {
	E := q.Size(-1)
	if k == v {
		if q == k {
			qkv := mhaLinear(q, w, b)
			c := qkv.Chunk(3, torch.WithDim(-1))
			qkv.Free() // the chunks are views of it
			return c[0], c[1], c[2]
		}
		ws := w.SplitWithSizes([]int64{E, 2 * E})
		var bq, bkv torch.Tensor
		var bs []torch.Tensor
		if b.Defined() {
			bs = b.SplitWithSizes([]int64{E, 2 * E})
			bq, bkv = bs[0], bs[1]
		}
		kvp := mhaLinear(k, ws[1], bkv)
		kv := kvp.Chunk(2, torch.WithDim(-1))
		qp := mhaLinear(q, ws[0], bq)
		for _, t := range append(append(ws, bs...), kvp) {
			t.Free()
		}
		return qp, kv[0], kv[1]
	}
	ws := w.Chunk(3)
	var bq, bk, bv torch.Tensor
	var bs []torch.Tensor
	if b.Defined() {
		bs = b.Chunk(3)
		bq, bk, bv = bs[0], bs[1], bs[2]
	}
	qp, kp, vp := mhaLinear(q, ws[0], bq), mhaLinear(k, ws[1], bk), mhaLinear(v, ws[2], bv)
	for _, t := range append(ws, bs...) {
		t.Free()
	}
	return qp, kp, vp
}
