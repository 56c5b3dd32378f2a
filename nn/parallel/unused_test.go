package parallel_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/disttest"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/parallel"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
)

// A branch that some rank does not take, without WithFindUnusedParameters,
// is an error that names the parameters, never a hang (PyTorch's DDP
// behaves the same; TestDDPFindUnusedParameters has the option's side):
//   - "split": rank 0 runs head B, rank 1 head C; neither fills its only
//     bucket, so no all-reduce starts, and each rank's next forward fails
//     naming the head it left out;
//   - "one-sided": rank 0 runs both heads, rank 1 only C; rank 0's bucket
//     fills and its all-reduce waits for rank 1, whose next forward fails
//     naming b.weight and b.bias; rank 1 then exits, and rank 0's backward
//     fails at once, naming rank 1, instead of waiting out the timeout.
func TestDDPUnusedParametersWithoutOption(t *testing.T) {
	if disttest.Worker() {
		mode := "one-sided"
		if inPairJob() {
			mode = "split"
		}
		t.Run(mode, func(t *testing.T) { checkUnused(t, mode) })
		return
	}
	// In "split" both ranks end normally: the shared job. In "one-sided"
	// rank 0's backward needs rank 1 gone: a job of its own.
	t.Run("split", runInPairJob)
	t.Run("one-sided", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "store")
		res := disttest.Run(t, 2, disttest.Options{Env: func(int) []string { return []string{"STORE_FILE=" + file} }})
		for _, r := range res {
			for _, l := range strings.Split(r.Output, "\n") {
				if strings.Contains(l, "error:") {
					t.Logf("rank %d: %s", r.Rank, strings.TrimSpace(l))
				}
			}
		}
	})
}

// checkUnused is one rank's part of TestDDPUnusedParametersWithoutOption
// in the given mode.
func checkUnused(t *testing.T, mode string) {
	pg := initGroup(t) // timeout: a minute
	defer distributed.DestroyProcessGroup()
	net := newBranchy(11)
	net.useB = pg.Rank() == 0
	net.both = mode == "one-sided" && pg.Rank() == 0
	ddp, err := parallel.DDP(net)
	require.NoError(t, err)
	x, y := batch(0)
	x, y = x.Narrow(0, 0, 8), y.Narrow(0, 0, 8)
	err = F.MseLoss(ddp.Forward(x), y).TryBackward()
	if net.both {
		require.Error(t, err, "rank 0's all-reduce must fail once rank 1 is gone")
		t.Logf("error: %v", err)
		assert.Contains(t, err.Error(), "DDP gradient all_reduce of bucket 0")
		assert.Contains(t, err.Error(), "rank 1 is dead")
		return
	}
	require.NoError(t, err)
	_, err = ddp.TryForward(x)
	require.Error(t, err, "the forward after a backward that left parameters out must fail")
	t.Logf("error: %v", err)
	unused := "c.weight, c.bias"
	if !net.useB {
		unused = "b.weight, b.bias"
	}
	assert.Contains(t, err.Error(), "parallel.DDP: "+unused+" got no gradient in the last synced backward")
	assert.Contains(t, err.Error(), "WithFindUnusedParameters(true)")
}

// Forward of branchy with both heads: their sum.
func (m *branchy) forwardBoth(h torch.Tensor) torch.Tensor {
	return m.B.Forward(h).Add(m.C.Forward(h))
}
