package functional

import (
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// EmbeddingBag is F.embedding_bag: the sums, means or maxima of bags of
// rows of weight, the rows at the integer indices input, without making
// the rows. input is (B, N), B bags of N indices (offsets undefined), or
// 1-D with offsets (1-D), the start of each bag.
//
// Options: WithMaxNorm (None), WithNormType (2), WithScaleGradByFreq
// (false), WithMode ("mean"; "sum" or "max"), WithSparse (false),
// WithPerSampleWeights (None; with mode "sum", a weight for each index,
// shaped like input), WithIncludeLastOffset (false), WithPaddingIdx
// (None; negative counts from the end).
func EmbeddingBag(input, weight, offsets torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryEmbeddingBag(input, weight, offsets, opts...))
}

// TryEmbeddingBag is EmbeddingBag that returns its error.
func TryEmbeddingBag(input, weight, offsets torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "embedding_bag"
	a := args{normType: 2, mode: "mean"}
	if err := a.parse(op, opts, "max_norm", "norm_type", "scale_grad_by_freq", "mode", "sparse", "per_sample_weights",
		"include_last_offset", "padding_idx"); err != nil {
		return torch.Tensor{}, err
	}
	psw := a.perSampleWeights
	is, err := shape(input)
	if err != nil {
		return torch.Tensor{}, err
	}
	ws, err := shape(weight)
	if err != nil {
		return torch.Tensor{}, err
	}
	if len(ws) != 2 {
		return torch.Tensor{}, errorf(op, "weight has to be a 2D Tensor, but got Tensor of dimension %d", len(ws))
	}
	if psw.Defined() {
		ps, err := shape(psw)
		if err != nil {
			return torch.Tensor{}, err
		}
		if !sameShape(ps, is) {
			return torch.Tensor{}, errorf(op, "If per_sample_weights (%s) is not None, then it must have the same shape as the input (%s)",
				torchSize(ps), torchSize(is))
		}
	}
	modes := map[string]int64{"sum": 0, "mean": 1, "max": 2}
	mode, ok := modes[a.mode]
	switch {
	case !ok:
		return torch.Tensor{}, errorf(op, "mode has to be one of sum, mean or max")
	case a.mode == "max" && a.scaleGradByFreq:
		return torch.Tensor{}, errorf(op, "max mode does not support scaling the gradient by the frequency")
	case a.mode == "max" && a.sparse:
		return torch.Tensor{}, errorf(op, "max mode does not support sparse weights")
	case psw.Defined() && a.mode != "sum":
		return torch.Tensor{}, errorf(op, "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode='%s'). Please open a feature request on GitHub.", a.mode)
	}
	var tops []torch.Option
	if a.has("padding_idx") {
		p := a.paddingIdx
		if p >= ws[0] || p < -ws[0] {
			return torch.Tensor{}, errorf(op, "padding_idx must be within num_embeddings")
		}
		if p < 0 {
			p += ws[0]
		}
		tops = append(tops, torch.WithPaddingIdx(p))
	}
	return temps.Run([]torch.Tensor{input, weight, offsets, psw}, func(tmp *temps.List) torch.Tensor {
		switch len(is) {
		case 2:
			if offsets.Defined() {
				panic(errorf(op, "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences. However, found offsets of type Tensor"))
			}
			offsets = tmp.Add(torch.ArangeStartStep(torch.S(0), torch.S(is[0]*is[1]), torch.WithStep(is[1]),
				torch.WithDtype(input.DType())))
			input = tmp.Add(input.Reshape([]int64{-1}))
			if psw.Defined() {
				psw = tmp.Add(psw.Reshape([]int64{-1}))
			}
		case 1:
			if !offsets.Defined() {
				panic(errorf(op, "offsets has to be a 1D Tensor but got None"))
			}
			if offsets.Dim() != 1 {
				panic(errorf(op, "offsets has to be a 1D Tensor"))
			}
		default:
			panic(errorf(op, "input has to be 1D or 2D Tensor, but got Tensor of dimension %d", len(is)))
		}
		if a.has("max_norm") {
			torch.NoGrad(func() {
				w := tmp.Add(weight.Detach())
				tmp.Add(torch.EmbeddingRenorm_(w, input, a.maxNorm, a.normType))
			})
		}
		out, offset2bag, bagSize, maxIndices := torch.EmbeddingBagPaddingIdx(weight, input, offsets, a.scaleGradByFreq, mode,
			a.sparse, psw, a.includeLastOffset, tops...)
		tmp.Add(offset2bag)
		tmp.Add(bagSize)
		tmp.Add(maxIndices)
		return out
	})
}
