package optim_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// withGrads returns parameters whose gradients are grads (through
// backward of sum(p*g)), and a last one without a gradient.
func withGrads(grads ...torch.Tensor) []torch.Tensor {
	var ps []torch.Tensor
	for _, g := range grads {
		p := torch.ZerosLike(g).SetRequiresGrad(true)
		p.Mul(g).Sum().Backward()
		ps = append(ps, p)
	}
	return append(ps, param(2))
}

func clipGrads(r *reference) []torch.Tensor {
	g := r.Clip.Grads
	return withGrads(
		torch.FromSlice(flatten(g.A), 2, 3).To(torch.Float32),
		torch.FromSlice(g.B).To(torch.Float32),
		torch.ScalarTensor(torch.S(g.C), torch.WithDtype(torch.Float32)),
	)
}

func TestClipGradNormMatchesPyTorch(t *testing.T) {
	r := loadReference(t)
	require.NotEmpty(t, r.Clip.Norm)
	for _, c := range r.Clip.Norm {
		normType := math.Inf(1)
		if f, ok := c.NormType.(float64); ok {
			normType = f
		}
		ps := clipGrads(r)
		total := optim.ClipGradNorm_(ps, c.MaxNorm, optim.WithNormType(normType))
		assert.Equal(t, torch.Float32, total.DType())
		assert.Equal(t, int64(0), total.Dim())
		golden.RequireAllClose(t, []float64{c.TotalNorm}, []float64{total.Item()}, torch.Float32, "total norm %v, max %v", normType, c.MaxNorm)
		for i, want := range c.Grads {
			golden.RequireAllClose(t, asDType(want, torch.Float32), ps[i].Grad().Float64s(), torch.Float32, "grad %d, norm %v, max %v", i, normType, c.MaxNorm)
		}
		assert.False(t, ps[3].Grad().Defined())
	}
}

func TestClipGradValueMatchesPyTorch(t *testing.T) {
	r := loadReference(t)
	ps := clipGrads(r)
	optim.ClipGradValue_(ps, r.Clip.Value.ClipValue)
	for i, want := range r.Clip.Value.Grads {
		golden.RequireAllClose(t, asDType(want, torch.Float32), ps[i].Grad().Float64s(), torch.Float32, "grad %d", i)
	}
	assert.False(t, ps[3].Grad().Defined())
}

func TestClipGradNormEdges(t *testing.T) {
	// No gradients: a total norm of 0.
	total := optim.ClipGradNorm_([]torch.Tensor{param(3)}, 1)
	assert.Equal(t, 0.0, total.Item())

	// A non-finite norm: clipped anyway, or an error that clips nothing.
	ps := withGrads(torch.FromSlice([]float32{1, float32(math.Inf(1))}))
	_, err := optim.TryClipGradNorm_(ps, 1, optim.WithErrorIfNonfinite(true))
	assert.ErrorContains(t, err, "optim.ClipGradNorm_: the total norm of order 2 for gradients from `parameters` is non-finite")
	assert.Equal(t, []float32{1, float32(math.Inf(1))}, ps[0].Grad().Float32s())
	total = optim.ClipGradNorm_(ps, 1)
	assert.True(t, math.IsInf(total.Item(), 1))

	_, err = optim.TryClipGradNorm_(ps, 1, optim.WithLR(1))
	assert.EqualError(t, err, "optim.ClipGradNorm_: unexpected option lr")
}
