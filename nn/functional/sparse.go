package functional

import (
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// Embedding is F.embedding: the rows of weight picked by the integer
// tensor input.
//
// Options: WithPaddingIdx (None; that row gets no gradient), WithMaxNorm
// (None; rows longer than it are renormalized in place), WithNormType (2),
// WithScaleGradByFreq (false), WithSparse (false).
func Embedding(input, weight torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryEmbedding(input, weight, opts...))
}

// TryEmbedding is Embedding that returns its error.
func TryEmbedding(input, weight torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "embedding"
	a := args{normType: 2}
	if err := a.parse(op, opts, "padding_idx", "max_norm", "norm_type", "scale_grad_by_freq", "sparse"); err != nil {
		return torch.Tensor{}, err
	}
	paddingIdx := int64(-1)
	if a.has("padding_idx") {
		s, err := shape(weight)
		if err != nil {
			return torch.Tensor{}, err
		}
		if len(s) == 0 {
			return torch.Tensor{}, errorf(op, "'weight' must be 2-D")
		}
		paddingIdx = a.paddingIdx
		if paddingIdx >= s[0] || paddingIdx < -s[0] {
			return torch.Tensor{}, errorf(op, "Padding_idx must be within num_embeddings")
		}
		if paddingIdx < 0 {
			paddingIdx += s[0]
		}
	}
	indices := input
	if a.has("max_norm") {
		var err error
		if indices, err = input.TryContiguous(); err != nil {
			return torch.Tensor{}, err
		}
		defer temps.Free(indices, input, weight)
		torch.NoGrad(func() {
			var w torch.Tensor
			if w, err = weight.TryDetach(); err == nil {
				// Renormalizes weight's rows in place and returns w.
				_, err = torch.TryEmbeddingRenorm_(w, indices, a.maxNorm, a.normType)
				temps.Free(w, weight)
			}
		})
		if err != nil {
			return torch.Tensor{}, err
		}
	}
	return torch.TryEmbedding(weight, indices, torch.WithPaddingIdx(paddingIdx),
		torch.WithScaleGradByFreq(a.scaleGradByFreq), torch.WithSparse(a.sparse))
}

// OneHot is F.one_hot: an int64 tensor with a last dimension of
// numClasses, 1 at each value of the integer tensor input.
//
// Options: WithNumClasses (-1: one more than the largest value).
func OneHot(input torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryOneHot(input, opts...))
}

// TryOneHot is OneHot that returns its error.
func TryOneHot(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{numClasses: -1}
	if err := a.parse("one_hot", opts, "num_classes"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryOneHot(input, torch.WithNumClasses(a.numClasses))
}
