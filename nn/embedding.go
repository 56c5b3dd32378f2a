package nn

import (
	"fmt"

	F "github.com/gotorch/gotorch/nn/functional"
	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/torch"
)

// EmbeddingModule is a lookup table of NumEmbeddings vectors of size
// EmbeddingDim (torch.nn.Embedding).
type EmbeddingModule struct {
	Module
	Weight                      torch.Tensor // (num_embeddings, embedding_dim), from N(0, 1)
	NumEmbeddings, EmbeddingDim int64
	PaddingIdx                  *int64   // the row that stays zero and gets no gradient (from the start); nil: None
	MaxNorm                     *float64 // renormalize looked-up rows longer than this; nil: None
	NormType                    float64
	ScaleGradByFreq             bool
	Sparse                      bool
}

// Embedding returns an EmbeddingModule, its weight drawn from N(0, 1) as
// PyTorch does (with the padding row zeroed).
//
// Options: WithPaddingIdx (None), WithMaxNorm (None), WithNormType (2),
// WithScaleGradByFreq (false), WithSparse (false), WithDtype, WithDevice.
func Embedding(numEmbeddings, embeddingDim int64, opts ...Option) *EmbeddingModule {
	const layer = "Embedding"
	var a layerArgs
	a.parse(layer, opts, "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse", "dtype", "device")
	m := &EmbeddingModule{NumEmbeddings: numEmbeddings, EmbeddingDim: embeddingDim, NormType: a.float("norm_type", 2),
		ScaleGradByFreq: a.bool("scale_grad_by_freq", false), Sparse: a.bool("sparse", false)}
	m.PaddingIdx, m.MaxNorm = lookupArgs(&a, numEmbeddings, "Padding_idx must be within num_embeddings")
	m.Weight = a.param(numEmbeddings, embeddingDim)
	m.ResetParameters()
	m.Init(m)
	return m
}

// ResetParameters draws the weight from N(0, 1) again and zeroes the
// padding row.
func (m *EmbeddingModule) ResetParameters() { resetLookup(m.Weight, m.PaddingIdx) }

// lookupArgs reads the padding_idx and max_norm of Embedding and
// EmbeddingBag, nil where not given (PyTorch's None): the padding row
// counted from the start (a negative one counts from the end, as PyTorch
// converts it) and the norm, any value as PyTorch takes it (max_norm=0
// zeroes the rows looked up).
func lookupArgs(a *layerArgs, num int64, outOfRange string) (paddingIdx *int64, maxNorm *float64) {
	if a.has("padding_idx") {
		p := a.int("padding_idx", 0)
		if p >= num || p < -num {
			layerPanic(a.layer, "%s", outOfRange)
		}
		if p < 0 {
			p += num
		}
		paddingIdx = &p
	}
	if a.has("max_norm") {
		v := a.float("max_norm", 0)
		maxNorm = &v
	}
	return paddingIdx, maxNorm
}

// resetLookup draws a lookup table from N(0, 1) and zeroes its padding
// row.
func resetLookup(w torch.Tensor, paddingIdx *int64) {
	nninit.Normal_(w)
	if paddingIdx != nil {
		torch.NoGrad(func() { w.Select(0, *paddingIdx).FillScalar_(torch.S(0)) })
	}
}

// Forward returns the rows of the weight at the integer indices input.
func (m *EmbeddingModule) Forward(input torch.Tensor) torch.Tensor { return must(m.TryForward(input)) }

// TryForward is Forward that returns its error.
func (m *EmbeddingModule) TryForward(input torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	opts := []F.Option{F.WithNormType(m.NormType), F.WithScaleGradByFreq(m.ScaleGradByFreq), F.WithSparse(m.Sparse)}
	if m.PaddingIdx != nil {
		opts = append(opts, F.WithPaddingIdx(*m.PaddingIdx))
	}
	if m.MaxNorm != nil {
		opts = append(opts, F.WithMaxNorm(*m.MaxNorm))
	}
	return F.TryEmbedding(input, m.Weight, opts...)
}

// ExtraRepr is "10, 3" and the settings that are not PyTorch's defaults
// ("10, 3, padding_idx=0").
func (m *EmbeddingModule) ExtraRepr() string {
	s := fmt.Sprintf("%d, %d", m.NumEmbeddings, m.EmbeddingDim)
	if m.PaddingIdx != nil {
		s += fmt.Sprintf(", padding_idx=%d", *m.PaddingIdx)
	}
	if m.MaxNorm != nil {
		s += ", max_norm=" + pyFloat(*m.MaxNorm)
	}
	if m.NormType != 2 {
		s += ", norm_type=" + pyFloat(m.NormType)
	}
	if m.ScaleGradByFreq {
		s += ", scale_grad_by_freq=True"
	}
	if m.Sparse {
		s += ", sparse=True"
	}
	return s
}
