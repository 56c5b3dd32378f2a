package parallel_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/disttest"
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/nn/parallel"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
)

const (
	globalBatch = 16
	steps       = 8
)

func newNet(seed uint64) *nn.SequentialModule {
	torch.ManualSeed(seed)
	return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))
}

// batch is step's global batch, the same on every rank.
func batch(step int) (torch.Tensor, torch.Tensor) {
	torch.ManualSeed(1000 + uint64(step))
	x := torch.Rand([]int64{globalBatch, 6})
	y := torch.Rand([]int64{globalBatch, 3})
	return x, y
}

// initGroup joins the test's job through its FileStore (storeFile), or,
// without one, through torchrun's environment (a TCPStore at MASTER_ADDR).
func initGroup(t *testing.T) *distributed.ProcessGroup {
	file := storeFile(t)
	if file == "" {
		pg, err := distributed.InitProcessGroup(distributed.Gloo, distributed.WithTimeout(time.Minute))
		require.NoError(t, err)
		return pg
	}
	store, err := distributed.NewFileStore(file, mustAtoi(os.Getenv("WORLD_SIZE")))
	require.NoError(t, err)
	pg, err := distributed.InitProcessGroup(distributed.Gloo, distributed.WithStore(store), distributed.WithTimeout(time.Minute))
	require.NoError(t, err)
	return pg
}

func mustAtoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// reference trains on the whole global batch in one process.
func reference() []float64 {
	net := newNet(7)
	opt := optim.SGD(net.Parameters(), optim.WithLR(0.1), optim.WithMomentum(0.9))
	var losses []float64
	for s := 0; s < steps; s++ {
		x, y := batch(s)
		opt.ZeroGrad()
		loss := F.MseLoss(net.Forward(x), y)
		loss.Backward()
		opt.Step()
		losses = append(losses, loss.Item())
	}
	return losses
}

// Ranks that each take their share of the global batch follow the loss
// trajectory of one process on the whole batch; with NoSync, two
// half-shards accumulated locally make the same steps. Two ranks run in
// the shared job (job_test.go), 4 (without NoSync) in a job of their own.
func TestDDPMatchesOneProcess(t *testing.T) {
	if disttest.Worker() {
		for _, accumulate := range []bool{false, true} {
			if accumulate && !inPairJob() {
				continue // the 4-rank job
			}
			t.Run(fmt.Sprintf("accumulate=%v", accumulate), func(t *testing.T) {
				pg := initGroup(t)
				defer distributed.DestroyProcessGroup()
				trainLikeOneProcess(t, pg, accumulate)
			})
		}
		return
	}
	t.Run("ranks=2", runInPairJob)
	t.Run("ranks=4", func(t *testing.T) {
		if testing.Short() {
			t.Skip("4 ranks: not in -short mode (TestDDPTwoHosts runs 4 too)")
		}
		file := filepath.Join(t.TempDir(), "store")
		disttest.Run(t, 4, disttest.Options{Env: func(int) []string { return []string{"STORE_FILE=" + file} }})
	})
}

// trainLikeOneProcess trains newNet for steps on this rank's share of each
// global batch (every rank from different weights) and checks each step's
// loss, averaged over the ranks, against one process on the whole batch;
// with accumulate, in two micro-batches, the first under NoSync.
func trainLikeOneProcess(t *testing.T, pg *distributed.ProcessGroup, accumulate bool) {
	want := reference()
	// Every rank starts from different weights: DDP must take rank 0's.
	net := newNet(7 + uint64(pg.Rank())*100)
	ddp, err := parallel.DDP(net, parallel.WithBucketCapMB(0.0001)) // ~105 bytes: several buckets
	require.NoError(t, err)
	defer ddp.Close()
	require.Greater(t, ddp.Buckets(), 2)
	opt := optim.SGD(net.Parameters(), optim.WithLR(0.1), optim.WithMomentum(0.9))
	n := int64(globalBatch / pg.Size())
	for s := 0; s < steps; s++ {
		x, y := batch(s)
		x = x.Narrow(0, int64(pg.Rank())*n, n)
		y = y.Narrow(0, int64(pg.Rank())*n, n)
		opt.ZeroGrad()
		var local float64
		if accumulate {
			h := n / 2
			ddp.NoSync(func() {
				l := F.MseLoss(ddp.Forward(x.Narrow(0, 0, h)), y.Narrow(0, 0, h)).MulScalar(torch.S(0.5))
				l.Backward()
				local += l.Item()
			})
			l := F.MseLoss(ddp.Forward(x.Narrow(0, h, n-h)), y.Narrow(0, h, n-h)).MulScalar(torch.S(0.5))
			l.Backward()
			local += l.Item()
		} else {
			loss := F.MseLoss(ddp.Forward(x), y)
			loss.Backward()
			local = loss.Item()
		}
		opt.Step()
		// The global loss is the average of the ranks' losses.
		lt := torch.FromSlice([]float64{local}, 1)
		require.NoError(t, pg.AllReduce(lt, distributed.Avg))
		got := lt.Float64s()[0]
		assert.InDelta(t, want[s], got, 1e-5*math.Max(1, math.Abs(want[s])), "step %d", s)
	}
	// The ranks hold the same weights.
	for _, p := range net.Parameters() {
		mx, mn := p.Detach().Clone(), p.Detach().Clone()
		require.NoError(t, pg.AllReduce(mx, distributed.Max))
		require.NoError(t, pg.AllReduce(mn, distributed.Min))
		assert.Equal(t, mx.Float32s(), mn.Float32s())
	}
}

// BatchNorm's running statistics follow rank 0's (broadcast_buffers), and
// a module without parameters is refused.
func TestDDPBuffers(t *testing.T) {
	if disttest.Worker() {
		pg := initGroup(t)
		defer distributed.DestroyProcessGroup()
		torch.ManualSeed(3)
		net := nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5))
		ddp, err := parallel.DDP(net)
		require.NoError(t, err)
		defer ddp.Close()
		torch.ManualSeed(50 + uint64(pg.Rank())) // different data on each rank
		for s := 0; s < 3; s++ {
			out := ddp.Forward(torch.Rand([]int64{8, 4}))
			out.Sum().Backward()
		}
		require.NoError(t, ddp.SyncBuffers())
		for _, b := range net.NamedBuffers() {
			if b.Tensor.Dtype() != torch.Float32 {
				continue
			}
			mx, mn := b.Tensor.Clone(), b.Tensor.Clone()
			require.NoError(t, pg.AllReduce(mx, distributed.Max))
			require.NoError(t, pg.AllReduce(mn, distributed.Min))
			assert.Equal(t, mx.Float32s(), mn.Float32s(), b.Name)
		}
		_, err = parallel.DDP(nn.Sequential(nn.ReLU()))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "no parameter")
		return
	}
	runInPairJob(t)
}

func TestDDPNeedsGroup(t *testing.T) {
	if disttest.Worker() {
		t.Skip()
	}
	_, err := parallel.DDP(newNet(1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "InitProcessGroup")
}

// A rank killed in the middle of a step (after its forward, before its
// backward) makes the others' backward fail within the timeout, with an
// error that names the dead rank, instead of hanging.
func TestDDPDeadRankFailsBackward(t *testing.T) {
	if disttest.Worker() {
		store, err := distributed.NewFileStore(os.Getenv("STORE_FILE"), 3)
		require.NoError(t, err)
		pg, err := distributed.InitProcessGroup(distributed.Gloo, distributed.WithStore(store), distributed.WithTimeout(20*time.Second))
		require.NoError(t, err)
		net := newNet(7)
		ddp, err := parallel.DDP(net)
		require.NoError(t, err)
		x, y := batch(0)
		F.MseLoss(ddp.Forward(x), y).Backward() // one good step
		loss := F.MseLoss(ddp.Forward(x), y)
		if pg.Rank() == 1 {
			os.Exit(3)
		}
		err = loss.TryBackward()
		require.Error(t, err, "backward with a dead rank must fail")
		t.Logf("error: %v", err)
		assert.Contains(t, err.Error(), "DDP gradient all_reduce")
		assert.Contains(t, err.Error(), "rank 1 is dead")
		return
	}
	file := filepath.Join(t.TempDir(), "store")
	res := disttest.Start(t, 3, disttest.Options{Timeout: 90 * time.Second,
		Env: func(int) []string { return []string{"STORE_FILE=" + file} }})
	for _, r := range res {
		if r.Rank == 1 {
			assert.Error(t, r.Err)
			continue
		}
		assert.NoError(t, r.Err, "rank %d:\n%s", r.Rank, r.Output)
		for _, l := range strings.Split(r.Output, "\n") {
			if strings.Contains(l, "error:") {
				t.Logf("rank %d: %s", r.Rank, strings.TrimSpace(l))
			}
		}
	}
}

// branchy runs A, then B on the rows of one half of the batch and C on
// the others' (which rank takes which half is the model's choice): a
// rank's forward leaves B or C out of its graph.
type branchy struct {
	nn.Module
	A, B, C *nn.LinearModule
	useB    bool
	both    bool // B and C (unused_test.go)
}

func newBranchy(seed uint64) *branchy {
	torch.ManualSeed(seed)
	m := &branchy{A: nn.Linear(6, 8), B: nn.Linear(8, 3), C: nn.Linear(8, 3)}
	m.Init(m)
	return m
}

func (m *branchy) Forward(x torch.Tensor) torch.Tensor {
	h := F.Relu(m.A.Forward(x))
	if m.both {
		return m.forwardBoth(h)
	}
	if m.useB {
		return m.B.Forward(h)
	}
	return m.C.Forward(h)
}

// With WithFindUnusedParameters, ranks whose forwards leave out different
// parameters (rank 0 uses B, rank 1 uses C) follow one process that runs
// B on the first half of the global batch and C on the second; without
// it, the next forward fails with c10d's error, as PyTorch's DDP does.
func TestDDPFindUnusedParameters(t *testing.T) {
	if disttest.Worker() {
		pg := initGroup(t)
		defer distributed.DestroyProcessGroup()
		// One process: the global batch, B on the first half, C on the second.
		ref := newBranchy(11)
		refOpt := optim.SGD(ref.Parameters(), optim.WithLR(0.1))
		var want []float64
		for s := 0; s < 4; s++ {
			x, y := batch(s)
			refOpt.ZeroGrad()
			ref.useB = true
			top := ref.Forward(x.Narrow(0, 0, globalBatch/2))
			ref.useB = false
			bottom := ref.Forward(x.Narrow(0, globalBatch/2, globalBatch/2))
			loss := F.MseLoss(torch.Cat([]torch.Tensor{top, bottom}), y)
			loss.Backward()
			refOpt.Step()
			want = append(want, loss.Item())
		}

		net := newBranchy(11 + uint64(pg.Rank()))
		net.useB = pg.Rank() == 0
		ddp, err := parallel.DDP(net, parallel.WithFindUnusedParameters(true))
		require.NoError(t, err)
		opt := optim.SGD(net.Parameters(), optim.WithLR(0.1))
		n := int64(globalBatch / 2)
		for s := 0; s < 4; s++ {
			x, y := batch(s)
			x = x.Narrow(0, int64(pg.Rank())*n, n)
			y = y.Narrow(0, int64(pg.Rank())*n, n)
			opt.ZeroGrad()
			loss := F.MseLoss(ddp.Forward(x), y)
			loss.Backward()
			opt.Step()
			lt := torch.FromSlice([]float64{loss.Item()}, 1)
			require.NoError(t, pg.AllReduce(lt, distributed.Avg))
			assert.InDelta(t, want[s], lt.Float64s()[0], 1e-5, "step %d", s)
		}
		for _, p := range net.NamedParameters() {
			mx, mn := p.Tensor.Detach().Clone(), p.Tensor.Detach().Clone()
			require.NoError(t, pg.AllReduce(mx, distributed.Max))
			require.NoError(t, pg.AllReduce(mn, distributed.Min))
			assert.Equal(t, mx.Float32s(), mn.Float32s(), p.Name)
		}
		for i, p := range ref.NamedParameters() {
			assert.InDeltaSlice(t, p.Tensor.Float32s(), net.NamedParameters()[i].Tensor.Float32s(), 1e-5, p.Name)
		}
		require.NoError(t, ddp.Close())

		// Without it, the Reducer waits for gradients that never come, and
		// the next forward says so.
		plain, err := parallel.DDP(newBranchy(11), parallel.WithBucketCapMB(0.0001))
		require.NoError(t, err)
		defer plain.Close()
		x, y := batch(0)
		F.MseLoss(plain.Forward(x), y).Backward() // C gets no gradient
		_, err = plain.TryForward(x)
		require.Error(t, err)
		t.Logf("error: %v", err)
		assert.Contains(t, err.Error(), "b.weight, b.bias got no gradient")
		assert.Contains(t, err.Error(), "WithFindUnusedParameters(true)")
		return
	}
	runInPairJob(t)
}
