package optim_test

import (
	"fmt"
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

// SparseAdam on an embedding table with sparse gradients: at each
// checkpoint, PyTorch's table and state before the step, one step, and
// PyTorch's table and state after it (docs/testing.md).
func TestSparseAdamMatchesPyTorch(t *testing.T) {
	r := loadReference(t)
	require.NotEmpty(t, r.Sparse.Configs)
	for _, name := range sortedKeys(r.Sparse.Configs) {
		c := r.Sparse.Configs[name]
		t.Run(name, func(t *testing.T) {
			require.NotEmpty(t, c.Checkpoints)
			for _, cp := range c.Checkpoints {
				e := torch.FromSlice(asDType(cp.Before.Table, torch.Float32), 6, 3).To(torch.Float32).SetRequiresGrad(true)
				v := torch.FromSlice(r.Sparse.V).To(torch.Float32)
				o := optim.SparseAdam([]torch.Tensor{e}, optionsOf(t, c.Options)...)
				if len(cp.Before.State) > 0 {
					sd := o.StateDict()
					sd.State = pyState(t, pyStateDict{State: cp.Before.State}).State
					require.NoError(t, o.LoadStateDict(sd), "step %d", cp.Step)
				}
				idx := torch.FromSlice(sparseRows(cp.Step))
				emb := torch.Embedding(e, idx, torch.WithSparse(true))
				loss := emb.Matmul(v).SubAny(0.1 * float64(cp.Step)).PowAny(2).Mean()
				if c.Negate {
					loss = loss.Neg()
				}
				loss.Backward()
				o.Step()
				golden.AllClose(t, asDType(cp.After.Table, torch.Float32), e.Float64s(), torch.Float32, "table after step %d", cp.Step)
				sd := o.StateDict()
				requireStateDict(t, pyStateDict{State: cp.After.State, ParamGroups: nil}, optim.StateDict{State: sd.State}, fmt.Sprintf("state after step %d", cp.Step), false)
			}
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
