package optim_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

func sparseRows(step int) []int64 {
	var rows []int64
	for i := 0; i < 4; i++ {
		rows = append(rows, int64((step*i+1)%6))
	}
	return append(rows, int64((step+2)%6))
}

// SparseAdam on an embedding table with sparse gradients, against
// PyTorch's trajectory.
func TestSparseAdamMatchesPyTorch(t *testing.T) {
	r := loadReference(t)
	require.NotEmpty(t, r.Sparse.Configs)
	for _, name := range sortedKeys(r.Sparse.Configs) {
		c := r.Sparse.Configs[name]
		t.Run(name, func(t *testing.T) {
			e := torch.FromSlice(flatten(r.Sparse.Init), 6, 3).To(torch.Float32).SetRequiresGrad(true)
			v := torch.FromSlice(r.Sparse.V).To(torch.Float32)
			o := optim.SparseAdam([]torch.Tensor{e}, optionsOf(t, c.Options)...)
			for step := 1; step <= len(c.Params); step++ {
				o.ZeroGrad()
				idx := torch.FromSlice(sparseRows(step))
				emb := torch.Embedding(e, idx, torch.WithSparse(true))
				loss := emb.Matmul(v).SubAny(0.1 * float64(step)).PowAny(2).Mean()
				if c.Negate {
					loss = loss.Neg()
				}
				loss.Backward()
				o.Step()
				golden.AllClose(t, asDType(c.Params[step-1], torch.Float32), e.Float64s(), torch.Float32, "table after step %d", step)
			}
			sd := o.StateDict()
			assert.Equal(t, len(c.Params), sd.State[0]["step"])
		})
	}
}

func TestSparseAdamRejectsDenseGradients(t *testing.T) {
	p := param(3)
	o := optim.SparseAdam([]torch.Tensor{p})
	p.MulAny(2).Sum().Backward()
	err := o.TryStep()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not support dense gradients")
	assert.Equal(t, []float64{0, 0, 0}, p.Float64s())
}
