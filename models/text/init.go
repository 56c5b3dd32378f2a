package text

import (
	"github.com/gotorch/gotorch/nn"
	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/torch"
)

// initWeights is transformers' _init_weights for GPT-2 and BERT: the
// weights of linear layers, Conv1D and embeddings from N(0, std), biases
// zero, LayerNorm ones and zeros, and an embedding's padding row zero.
func initWeights(m nn.Moduler, std float64) {
	normal := func(t torch.Tensor) { nninit.Normal_(t, nninit.WithStd(std)) }
	switch l := m.(type) {
	case *nn.LinearModule:
		normal(l.Weight)
		if l.Bias.Defined() {
			nninit.Zeros_(l.Bias)
		}
	case *Conv1D:
		normal(l.Weight)
		nninit.Zeros_(l.Bias)
	case *nn.EmbeddingModule:
		normal(l.Weight)
		if l.PaddingIdx != nil {
			torch.NoGrad(func() {
				row := l.Weight.Select(0, *l.PaddingIdx)
				row.FillScalar_(torch.S(0))
				row.Free()
			})
		}
	case *nn.LayerNormModule:
		if l.Weight.Defined() {
			nninit.Ones_(l.Weight)
			nninit.Zeros_(l.Bias)
		}
	}
}
