package parallel_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/disttest"
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/parallel"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
)

// rankBatch is rank r's input at step s (different on every rank).
func rankBatch(r, s int) torch.Tensor {
	torch.ManualSeed(500 + uint64(100*r+s))
	return torch.Randn([]int64{8, 4}).MulScalar(torch.S(1 + r)).AddScalar(torch.S(r))
}

func bnNet() *nn.SequentialModule {
	torch.ManualSeed(3)
	return nn.Sequential(nn.Linear(4, 5), nn.BatchNorm1d(5))
}

// broadcast_buffers: with it (the default), each forward starts from rank
// 0's running statistics, so after three steps rank r holds what one
// process gets from rank 0's first two batches and rank r's third; without
// it, each rank's statistics follow its own batches only.
func TestDDPBroadcastBuffers(t *testing.T) {
	if disttest.Worker() {
		for _, on := range []bool{true, false} {
			t.Run(fmt.Sprintf("broadcast=%v", on), func(t *testing.T) { checkBroadcastBuffers(t, on) })
		}
		return
	}
	runInPairJob(t)
}

// checkBroadcastBuffers is one rank's part of TestDDPBroadcastBuffers,
// with broadcast_buffers on or off.
func checkBroadcastBuffers(t *testing.T, on bool) {
	pg := initGroup(t)
	defer distributed.DestroyProcessGroup()
	const steps = 3
	net := bnNet()
	ddp, err := parallel.DDP(net, parallel.WithBroadcastBuffers(on))
	require.NoError(t, err)
	defer ddp.Close()
	for s := 0; s < steps; s++ {
		ddp.Forward(rankBatch(pg.Rank(), s)).Sum().Backward()
	}
	ref := bnNet()
	for s := 0; s < steps; s++ {
		r := pg.Rank()
		if on && s < steps-1 {
			r = 0
		}
		ref.Forward(rankBatch(r, s)).Sum().Backward()
	}
	want, got := ref.NamedBuffers(), net.NamedBuffers()
	require.Len(t, got, len(want))
	for i, b := range want {
		if b.Tensor.Dtype() == torch.Int64 {
			assert.Equal(t, b.Tensor.Int64s(), got[i].Tensor.Int64s(), b.Name)
			continue
		}
		assert.InDeltaSlice(t, b.Tensor.Float32s(), got[i].Tensor.Float32s(), 1e-6, "rank %d %s", pg.Rank(), b.Name)
	}
	// The ranks' statistics differ either way after a local update
	// (the check above could not tell the two apart otherwise); with
	// broadcast_buffers, SyncBuffers makes them rank 0's.
	rm := net.NamedBuffers()[0].Tensor
	require.Equal(t, "1.running_mean", net.NamedBuffers()[0].Name)
	mx, mn := rm.Clone(), rm.Clone()
	require.NoError(t, pg.AllReduce(mx, distributed.Max))
	require.NoError(t, pg.AllReduce(mn, distributed.Min))
	assert.NotEqual(t, mx.Float32s(), mn.Float32s())
	require.NoError(t, ddp.SyncBuffers())
	mx, mn = rm.Clone(), rm.Clone()
	require.NoError(t, pg.AllReduce(mx, distributed.Max))
	require.NoError(t, pg.AllReduce(mn, distributed.Min))
	if on {
		assert.Equal(t, mx.Float32s(), mn.Float32s())
	} else {
		assert.NotEqual(t, mx.Float32s(), mn.Float32s(), "SyncBuffers without broadcast_buffers must do nothing")
	}
}

func TestDDPNoSyncAccumulatesLocally(t *testing.T) {
	if disttest.Worker() {
		pg := initGroup(t)
		defer distributed.DestroyProcessGroup()
		net := newNet(7)
		ddp, err := parallel.DDP(net, parallel.WithBucketCapMB(0.0001))
		require.NoError(t, err)
		defer ddp.Close()
		ref := newNet(7)
		x, y := batch(pg.Rank())
		micro := func(m interface {
			Forward(torch.Tensor) torch.Tensor
		}, i int64) torch.Tensor {
			return F.MseLoss(m.Forward(x.Narrow(0, 4*i, 4)), y.Narrow(0, 4*i, 4))
		}
		grads := func(m *nn.SequentialModule) [][]float32 {
			var g [][]float32
			for _, p := range m.Parameters() {
				g = append(g, p.Grad().Float32s())
			}
			return g
		}
		for step := 0; step < 2; step++ { // the second step runs on rebuilt buckets
			ddp.NoSync(func() {
				for i := int64(0); i < 2; i++ {
					micro(ddp, i).Backward()
					micro(ref, i).Backward()
					for j, g := range grads(ref) {
						assert.InDeltaSlice(t, g, grads(net)[j], 1e-6, "step %d micro-batch %d parameter %d", step, i, j)
					}
				}
			})
			micro(ddp, 2).Backward()
			micro(ref, 2).Backward()
			for j, p := range ref.Parameters() {
				avg := p.Grad().Clone()
				require.NoError(t, pg.AllReduce(avg, distributed.Avg))
				assert.InDeltaSlice(t, avg.Float32s(), grads(net)[j], 1e-6, "step %d synced parameter %d", step, j)
			}
			// Across ranks the local gradients differ (different data).
			g := ref.Parameters()[0].Grad().Clone()
			mx, mn := g.Clone(), g.Clone()
			require.NoError(t, pg.AllReduce(mx, distributed.Max))
			require.NoError(t, pg.AllReduce(mn, distributed.Min))
			assert.NotEqual(t, mx.Float32s(), mn.Float32s())
			for _, m := range []*nn.SequentialModule{net, ref} {
				for _, p := range m.Parameters() {
					p.ZeroGrad()
				}
			}
		}
		return
	}
	runInPairJob(t)
}
