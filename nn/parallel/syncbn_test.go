package parallel_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/disttest"
	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/nn/parallel"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
)

type goldenTensor struct {
	Shape []int64
	Data  []float64
}

func (g goldenTensor) tensor() torch.Tensor {
	f := make([]float32, len(g.Data))
	for i, v := range g.Data {
		f[i] = float32(v)
	}
	return torch.FromSlice(f, g.Shape...)
}

// syncBNGolden is testdata/syncbn.json, written by testdata/syncbn.py.
type syncBNGolden struct {
	Sizes        []int64
	Steps        int
	LR, Momentum float64
	Init         map[string]goldenTensor
	Inputs       [][]goldenTensor
	Targets      [][]goldenTensor
	EvalInput    goldenTensor `json:"eval_input"`
	Ranks        []struct {
		Losses     []float64
		Outputs    [][]float64
		InputGrads [][]float64 `json:"input_grads"`
		Eval       []float64
		Final      map[string][]float64
	}
}

func syncBNNet() *nn.SequentialModule {
	return nn.Sequential(nn.Conv2d(3, 4, 3, nn.WithPadding(1)), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(),
		nn.Linear(100, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 3))
}

// SyncBatchNorm under DDP on 2 ranks with batches of 6 and 4 matches
// PyTorch 1.13.1's SyncBatchNorm under its DDP on 2 Gloo processes
// (testdata/syncbn.py, which checks its own result against one process
// running BatchNorm on the concatenated batch): each step's loss, output
// and input gradient on each rank, the evaluation output (running
// statistics) and the final parameters and buffers.
func TestSyncBatchNormMatchesPyTorch(t *testing.T) {
	if disttest.Worker() {
		pg := initGroup(t)
		defer distributed.DestroyProcessGroup()
		torch.SetNumThreads(1)
		b, err := os.ReadFile(filepath.Join("testdata", "syncbn.json"))
		require.NoError(t, err)
		var g syncBNGolden
		require.NoError(t, json.Unmarshal(b, &g))
		r := pg.Rank()
		want := g.Ranks[r]

		net := syncBNNet()
		sd := map[string]torch.Tensor{}
		for k, v := range g.Init {
			if k == "1.num_batches_tracked" || k == "5.num_batches_tracked" {
				sd[k] = torch.FromSlice([]int64{int64(v.Data[0])}).Reshape([]int64{})
				continue
			}
			sd[k] = v.tensor()
		}
		require.NoError(t, net.LoadStateDict(sd, true))
		conv, err := parallel.ConvertSyncBatchNorm(net, nil)
		require.NoError(t, err)
		require.Same(t, net, conv)
		assert.Contains(t, net.String(), "(1): SyncBatchNorm(4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)")
		assert.IsType(t, &parallel.SyncBatchNormModule{}, net.Layers[5])
		ddp, err := parallel.DDP(net)
		require.NoError(t, err)
		defer ddp.Close()
		opt := optim.SGD(net.Parameters(), optim.WithLR(g.LR), optim.WithMomentum(g.Momentum))
		tol := golden.For(torch.Float32)
		for s := 0; s < g.Steps; s++ {
			x := g.Inputs[s][r].tensor().SetRequiresGrad(true)
			opt.ZeroGrad()
			out := ddp.Forward(x)
			loss := F.MseLoss(out, g.Targets[s][r].tensor())
			loss.Backward()
			opt.Step()
			tol.AllClose(t, []float64{want.Losses[s]}, []float64{loss.Item()}, "rank %d step %d loss", r, s)
			tol.AllClose(t, want.Outputs[s], float64s(out), "rank %d step %d output", r, s)
			tol.AllClose(t, want.InputGrads[s], float64s(x.Grad()), "rank %d step %d input gradient", r, s)
		}
		net.Eval()
		var ev torch.Tensor
		torch.NoGrad(func() { ev = net.Forward(g.EvalInput.tensor()) })
		tol.AllClose(t, want.Eval, float64s(ev), "rank %d evaluation output", r)
		got := net.StateDict()
		require.Len(t, got, len(want.Final))
		for k, v := range want.Final {
			require.Contains(t, got, k)
			tol.AllClose(t, v, float64s(got[k]), "rank %d final %s", r, k)
		}
		return
	}
	runInPairJob(t)
}

func float64s(t torch.Tensor) []float64 {
	return t.Detach().Float64s()
}
