package functional

import (
	"math"

	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// ScaledDotProductAttention is F.scaled_dot_product_attention (PyTorch
// 2.x; libtorch 1.13 has no fused kernel, so it is computed here from
// matmul and softmax, as PyTorch's reference implementation does):
//
//	softmax(query·keyᵀ·scale + mask) · value
//
// query is (..., L, E), key (..., S, E) and value (..., S, Ev); the result
// is (..., L, Ev).
//
// Options: WithAttnMask (None; a bool mask, true where attention is
// allowed, or a float mask added to the scores, broadcastable to
// (..., L, S)), WithDropoutP (0; dropout on the attention weights),
// WithIsCausal (false; a lower-triangular mask, which excludes
// WithAttnMask), WithScale (None: 1/sqrt(E)).
func ScaledDotProductAttention(query, key, value torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryScaledDotProductAttention(query, key, value, opts...))
}

// TryScaledDotProductAttention is ScaledDotProductAttention that returns
// its error.
func TryScaledDotProductAttention(query, key, value torch.Tensor, opts ...Option) (out torch.Tensor, err error) {
	const op = "scaled_dot_product_attention"
	var a args
	if err := a.parse(op, opts, "attn_mask", "dropout_p", "is_causal", "scale"); err != nil {
		return torch.Tensor{}, err
	}
	if a.isCausal && a.attnMask.Defined() {
		return torch.Tensor{}, errorf(op, "Explicit attn_mask should not be set when is_causal=True")
	}
	if a.dropoutP < 0 || a.dropoutP > 1 {
		return torch.Tensor{}, errorf(op, "dropout probability has to be between 0 and 1, but got %s", pyFloat(a.dropoutP))
	}
	qs, err := shape(query)
	if err != nil {
		return torch.Tensor{}, err
	}
	ks, err := shape(key)
	if err != nil {
		return torch.Tensor{}, err
	}
	if len(qs) < 2 || len(ks) < 2 {
		return torch.Tensor{}, errorf(op, "query and key must have at least 2 dimensions, got %dD and %dD", len(qs), len(ks))
	}
	scale := 1 / math.Sqrt(float64(qs[len(qs)-1]))
	if a.has("scale") {
		scale = a.scale
	}
	// Every tensor made here but the result is freed on the way out.
	var tmp temps.List
	defer func() { tmp.Free(query, key, value, a.attnMask, out) }()
	kt, err := key.TryTranspose(-2, -1)
	if err != nil {
		return torch.Tensor{}, err
	}
	scores, err := query.TryMatmul(tmp.Add(kt))
	if err != nil {
		return torch.Tensor{}, err
	}
	if scores, err = tmp.Add(scores).TryMulScalar(torch.S(scale)); err != nil {
		return torch.Tensor{}, err
	}
	tmp.Add(scores)
	negInf := torch.S(math.Inf(-1))
	switch {
	case a.isCausal:
		l, s := qs[len(qs)-2], ks[len(ks)-2]
		ones, err := torch.TryOnes([]int64{l, s}, torch.WithDtype(torch.Bool), torch.WithDevice(query.Device()))
		if err != nil {
			return torch.Tensor{}, err
		}
		keep, err := tmp.Add(ones).TryTril()
		if err != nil {
			return torch.Tensor{}, err
		}
		drop, err := tmp.Add(keep).TryLogicalNot()
		if err != nil {
			return torch.Tensor{}, err
		}
		if scores, err = scores.TryMaskedFillScalar(tmp.Add(drop), negInf); err != nil {
			return torch.Tensor{}, err
		}
		tmp.Add(scores)
	case a.attnMask.Defined() && a.attnMask.DType() == torch.Bool:
		drop, err := a.attnMask.TryLogicalNot()
		if err != nil {
			return torch.Tensor{}, err
		}
		if scores, err = scores.TryMaskedFillScalar(tmp.Add(drop), negInf); err != nil {
			return torch.Tensor{}, err
		}
		tmp.Add(scores)
	case a.attnMask.Defined():
		if scores, err = scores.TryAdd(a.attnMask); err != nil {
			return torch.Tensor{}, err
		}
		tmp.Add(scores)
	}
	weights, err := scores.TrySoftmax(-1)
	if err != nil {
		return torch.Tensor{}, err
	}
	tmp.Add(weights)
	if a.dropoutP > 0 {
		if weights, err = torch.TryDropout(weights, a.dropoutP, true); err != nil {
			return torch.Tensor{}, err
		}
		tmp.Add(weights)
	}
	return weights.TryMatmul(value)
}
