package nn

import (
	"fmt"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// EmbeddingBagModule sums, averages or takes the maximum of bags of rows
// of a lookup table without making the rows (torch.nn.EmbeddingBag).
type EmbeddingBagModule struct {
	Module
	Weight                      torch.Tensor // (num_embeddings, embedding_dim), from N(0, 1)
	NumEmbeddings, EmbeddingDim int64
	MaxNorm                     *float64 // renormalize looked-up rows longer than this; nil: None
	NormType                    float64
	ScaleGradByFreq             bool
	Mode                        string // "mean", "sum" or "max"
	Sparse                      bool
	IncludeLastOffset           bool
	PaddingIdx                  *int64 // the row left out of the bags, which gets no gradient (from the start); nil: None
}

// EmbeddingBag returns an EmbeddingBagModule, its weight drawn from N(0, 1)
// as PyTorch does (with the padding row zeroed).
//
// Options: WithMaxNorm (None), WithNormType (2), WithScaleGradByFreq
// (false), WithMode ("mean"), WithSparse (false), WithIncludeLastOffset
// (false), WithPaddingIdx (None), WithDtype, WithDevice.
func EmbeddingBag(numEmbeddings, embeddingDim int64, opts ...Option) *EmbeddingBagModule {
	const layer = "EmbeddingBag"
	var a layerArgs
	a.parse(layer, opts, "max_norm", "norm_type", "scale_grad_by_freq", "mode", "sparse", "include_last_offset",
		"padding_idx", "dtype", "device")
	m := &EmbeddingBagModule{NumEmbeddings: numEmbeddings, EmbeddingDim: embeddingDim, NormType: a.float("norm_type", 2),
		ScaleGradByFreq: a.bool("scale_grad_by_freq", false), Mode: a.str("mode", "mean"), Sparse: a.bool("sparse", false),
		IncludeLastOffset: a.bool("include_last_offset", false)}
	switch m.Mode {
	case "sum", "mean":
	case "max":
		if m.ScaleGradByFreq {
			layerPanic(layer, "max mode does not support scaling the gradient by the frequency")
		}
		if m.Sparse {
			layerPanic(layer, "max mode does not support sparse weights")
		}
	default:
		layerPanic(layer, "mode has to be one of sum, mean or max")
	}
	m.PaddingIdx, m.MaxNorm = lookupArgs(&a, numEmbeddings, "padding_idx must be within num_embeddings")
	m.Weight = a.param(numEmbeddings, embeddingDim)
	m.ResetParameters()
	m.Init(m)
	return m
}

// ResetParameters draws the weight from N(0, 1) again and zeroes the
// padding row.
func (m *EmbeddingBagModule) ResetParameters() { resetLookup(m.Weight, m.PaddingIdx) }

// Forward reduces the bags of input: a (B, N) tensor of B bags of N
// indices, with offsets undefined, or a 1-D tensor of indices with
// offsets, the start of each bag in it. It returns (B, embedding_dim).
func (m *EmbeddingBagModule) Forward(input, offsets torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, offsets))
}

// TryForward is Forward that returns its error.
func (m *EmbeddingBagModule) TryForward(input, offsets torch.Tensor) (torch.Tensor, error) {
	return m.TryForwardWeighted(input, offsets, torch.Tensor{})
}

// ForwardWeighted is Forward with per_sample_weights, a weight for each
// index of input (shaped like it), which only mode "sum" takes.
func (m *EmbeddingBagModule) ForwardWeighted(input, offsets, perSampleWeights torch.Tensor) torch.Tensor {
	return must(m.TryForwardWeighted(input, offsets, perSampleWeights))
}

// TryForwardWeighted is ForwardWeighted that returns its error.
func (m *EmbeddingBagModule) TryForwardWeighted(input, offsets, perSampleWeights torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	opts := []F.Option{F.WithNormType(m.NormType), F.WithScaleGradByFreq(m.ScaleGradByFreq), F.WithMode(m.Mode),
		F.WithSparse(m.Sparse), F.WithPerSampleWeights(perSampleWeights), F.WithIncludeLastOffset(m.IncludeLastOffset)}
	if m.MaxNorm != nil {
		opts = append(opts, F.WithMaxNorm(*m.MaxNorm))
	}
	if m.PaddingIdx != nil {
		opts = append(opts, F.WithPaddingIdx(*m.PaddingIdx))
	}
	return F.TryEmbeddingBag(input, m.Weight, offsets, opts...)
}

// ExtraRepr is "10, 3, mode=mean" and the settings that PyTorch prints
// when they are not its defaults ("10, 3, max_norm=1.0, mode=sum,
// padding_idx=0").
func (m *EmbeddingBagModule) ExtraRepr() string {
	s := fmt.Sprintf("%d, %d", m.NumEmbeddings, m.EmbeddingDim)
	if m.MaxNorm != nil {
		s += ", max_norm=" + pyFloat(*m.MaxNorm)
	}
	if m.NormType != 2 {
		s += ", norm_type=" + pyFloat(m.NormType)
	}
	if m.ScaleGradByFreq {
		s += ", scale_grad_by_freq=True"
	}
	s += ", mode=" + m.Mode
	if m.PaddingIdx != nil {
		s += fmt.Sprintf(", padding_idx=%d", *m.PaddingIdx)
	}
	return s
}

// torchSize formats a shape as torch.Size([2, 3]).
func torchSize(s []int64) string {
	out := "torch.Size(["
	for i, v := range s {
		if i > 0 {
			out += ", "
		}
		out += itoa(v)
	}
	return out + "])"
}

// CosineSimilarityModule is the cosine similarity of x1 and x2 along Dim
// (torch.nn.CosineSimilarity).
type CosineSimilarityModule struct {
	Module
	Dim int64
	Eps float64
}

// CosineSimilarity returns a CosineSimilarityModule.
//
// Options: WithDim (1), WithEps (1e-8).
func CosineSimilarity(opts ...Option) *CosineSimilarityModule {
	var a layerArgs
	a.parse("CosineSimilarity", opts, "dim", "eps")
	m := &CosineSimilarityModule{Dim: a.int("dim", 1), Eps: a.float("eps", 1e-8)}
	m.Init(m)
	return m
}

// Forward returns the similarity of x1 and x2, broadcast together.
func (m *CosineSimilarityModule) Forward(x1, x2 torch.Tensor) torch.Tensor {
	return must(m.TryForward(x1, x2))
}

// TryForward is Forward that returns its error.
func (m *CosineSimilarityModule) TryForward(x1, x2 torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return torch.TryCosineSimilarity(x1, x2, torch.WithDim(m.Dim), torch.WithEps(m.Eps))
}

// PairwiseDistanceModule is the P-norm distance of the rows of x1 and x2,
// with Eps added to their difference (torch.nn.PairwiseDistance).
type PairwiseDistanceModule struct {
	Module
	P       float64 // the norm degree
	Eps     float64
	Keepdim bool
}

// PairwiseDistance returns a PairwiseDistanceModule.
//
// Options: WithP (2), WithEps (1e-6), WithKeepdim (false).
func PairwiseDistance(opts ...Option) *PairwiseDistanceModule {
	var a layerArgs
	a.parse("PairwiseDistance", opts, "p", "eps", "keepdim")
	m := &PairwiseDistanceModule{P: a.float("p", 2), Eps: a.float("eps", 1e-6), Keepdim: a.bool("keepdim", false)}
	m.Init(m)
	return m
}

// Forward returns the distances of x1 and x2.
func (m *PairwiseDistanceModule) Forward(x1, x2 torch.Tensor) torch.Tensor {
	return must(m.TryForward(x1, x2))
}

// TryForward is Forward that returns its error.
func (m *PairwiseDistanceModule) TryForward(x1, x2 torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return torch.TryPairwiseDistance(x1, x2, torch.WithP(m.P), torch.WithEps(m.Eps), torch.WithKeepdim(m.Keepdim))
}
