package distributed_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/disttest"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
)

func vals(t torch.Tensor) []float32 { return t.Float32s() }

// Every collective, on 3 ranks that rendezvous through a FileStore.
func TestCollectivesFileStore(t *testing.T) {
	if disttest.Worker() {
		store, err := distributed.NewFileStore(os.Getenv("STORE_FILE"), 3)
		require.NoError(t, err)
		pg, err := distributed.InitProcessGroup(distributed.Gloo, distributed.WithStore(store),
			distributed.WithTimeout(time.Minute))
		require.NoError(t, err)
		defer distributed.DestroyProcessGroup()
		collectives(t, pg)
		return
	}
	file := filepath.Join(t.TempDir(), "store")
	disttest.Run(t, 3, disttest.Options{Env: func(int) []string { return []string{"STORE_FILE=" + file} }})
}

func collectives(t *testing.T, pg *distributed.ProcessGroup) {
	r, n := pg.Rank(), pg.Size()
	require.Equal(t, 3, n)
	fr := float32(r)
	// rank r holds [r+1, 10(r+1)]
	mk := func() torch.Tensor { return torch.FromSlice([]float32{fr + 1, 10 * (fr + 1)}, 2) }
	for _, c := range []struct {
		op   distributed.ReduceOp
		want []float32
	}{
		{distributed.Sum, []float32{6, 60}},
		{distributed.Avg, []float32{2, 20}},
		{distributed.Product, []float32{6, 6000}},
		{distributed.Min, []float32{1, 10}},
		{distributed.Max, []float32{3, 30}},
	} {
		x := mk()
		require.NoError(t, pg.AllReduce(x, c.op), c.op.String())
		assert.InDeltaSlice(t, c.want, vals(x), 1e-4, c.op.String())
	}

	b := torch.FromSlice([]float32{fr, fr}, 2)
	require.NoError(t, pg.Broadcast(b, 2))
	assert.Equal(t, []float32{2, 2}, vals(b))

	// Coalesced: several dtypes, a leaf that requires grad, buffers of 8
	// bytes (several broadcasts), from rank 1.
	w := torch.FromSlice([]float32{fr, 2 * fr, 3 * fr}, 3).SetRequiresGrad(true)
	i64 := torch.FromSlice([]int64{int64(r), int64(r) + 7}, 2)
	f64 := torch.FromSlice([]float64{float64(r) / 2}, 1)
	require.NoError(t, pg.BroadcastCoalesced([]torch.Tensor{w, i64, f64}, 1, 8))
	assert.Equal(t, []float32{1, 2, 3}, vals(w))
	assert.True(t, w.RequiresGrad())
	assert.Equal(t, []int64{1, 8}, i64.Int64s())
	assert.Equal(t, []float64{0.5}, f64.Float64s())
	err := pg.BroadcastCoalesced([]torch.Tensor{f64}, 3, 8)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "root 3 out of range")

	outs := []torch.Tensor{torch.Zeros([]int64{2}), torch.Zeros([]int64{2}), torch.Zeros([]int64{2})}
	require.NoError(t, pg.AllGather(outs, mk()))
	for i, o := range outs {
		assert.Equal(t, []float32{float32(i) + 1, 10 * (float32(i) + 1)}, vals(o), "all_gather slot %d", i)
	}

	// ins[i] on rank r is [100i + r]: rank i receives sum over r = 300i + 3.
	ins := make([]torch.Tensor, n)
	for i := range ins {
		ins[i] = torch.FromSlice([]float32{100*float32(i) + fr}, 1)
	}
	out := torch.Zeros([]int64{1})
	require.NoError(t, pg.ReduceScatter(out, ins, distributed.Sum))
	assert.Equal(t, []float32{300*fr + 3}, vals(out))

	require.NoError(t, pg.Barrier())

	// A ring of Isend/Irecv: rank r sends r to r+1.
	recv := torch.Zeros([]int64{1})
	sw, err := pg.Isend(torch.FromSlice([]float32{fr}, 1), (r+1)%n, 7)
	require.NoError(t, err)
	rw, err := pg.Irecv(recv, (r+n-1)%n, 7)
	require.NoError(t, err)
	require.NoError(t, sw.Wait())
	require.NoError(t, rw.Wait())
	assert.True(t, rw.IsCompleted())
	assert.Equal(t, []float32{float32((r + n - 1) % n)}, vals(recv))

	// Async all-reduces in flight together, waited in reverse.
	var works []*distributed.Work
	var xs []torch.Tensor
	for i := 0; i < 4; i++ {
		x := torch.FromSlice([]float32{fr * float32(i)}, 1)
		w, err := pg.AllReduceAsync(x, distributed.Sum)
		require.NoError(t, err)
		works, xs = append(works, w), append(xs, x)
	}
	for i := len(works) - 1; i >= 0; i-- {
		require.NoError(t, works[i].Wait())
		require.NoError(t, works[i].Wait(), "a second Wait")
		assert.Equal(t, []float32{3 * float32(i)}, vals(xs[i]))
	}

	// Bad input fails on the calling rank with a clear error, before any
	// communication.
	err = pg.Broadcast(torch.Zeros([]int64{2}), 5)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "root 5 out of range")
	err = pg.AllGather([]torch.Tensor{torch.Zeros([]int64{2})}, torch.Zeros([]int64{2}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "one output tensor per rank")
	err = pg.AllReduce(torch.Zeros([]int64{2, 2}).Transpose(0, 1), distributed.Sum)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "contiguous")
	err = pg.AllReduce(torch.FromSlice([]int64{1}, 1), distributed.Avg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "floating-point")
	_, err = pg.AllReduceAsync(torch.Zeros([]int64{1}), distributed.ReduceOp(42))
	require.Error(t, err)
	err = pg.Send(torch.Zeros([]int64{1}), r, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not another rank")
	require.NoError(t, pg.Barrier(), "the group still works after refused calls")
}

// torchrun's environment: a TCPStore that rank 0 serves at MASTER_ADDR:MASTER_PORT.
func TestInitFromEnvTCPStore(t *testing.T) {
	if disttest.Worker() {
		env, err := distributed.ReadEnv()
		require.NoError(t, err)
		pg, err := distributed.InitProcessGroup(distributed.Gloo, distributed.WithTimeout(time.Minute))
		require.NoError(t, err)
		defer distributed.DestroyProcessGroup()
		assert.Equal(t, env.Rank, pg.Rank())
		assert.Equal(t, 2, pg.Size())
		assert.Same(t, pg, distributed.Default())
		x := torch.FromSlice([]float32{float32(pg.Rank() + 1)}, 1)
		require.NoError(t, pg.AllReduce(x, distributed.Sum))
		assert.Equal(t, []float32{3}, vals(x))
		return
	}
	disttest.Run(t, 2, disttest.Options{})
}

// A rank that dies makes the others' collective fail with an error naming
// it, within the timeout, instead of hanging.
func TestDeadPeerFails(t *testing.T) {
	if disttest.Worker() {
		pg, err := distributed.InitProcessGroup(distributed.Gloo, distributed.WithTimeout(20*time.Second))
		require.NoError(t, err)
		x := torch.Ones([]int64{1000})
		require.NoError(t, pg.AllReduce(x, distributed.Sum))
		if pg.Rank() == 2 {
			os.Exit(3) // dies mid-job, without a goodbye
		}
		var errs []string
		for i := 0; i < 3; i++ { // the next collectives all fail
			err := pg.AllReduce(x, distributed.Sum)
			if err == nil {
				continue
			}
			errs = append(errs, err.Error())
		}
		require.NotEmpty(t, errs, "collectives with a dead rank must fail")
		t.Logf("error: %s", errs[0])
		assert.Contains(t, errs[0], "all_reduce")
		assert.Contains(t, errs[0], "rank 2 is dead")
		// Rank 0 hosts the store: it stays until the other survivor is
		// done with it (else a slow rank 1 finds the store gone and blames
		// rank 0).
		_, err = pg.Store().Add("survivors_done", 1)
		require.NoError(t, err)
		for pg.Rank() == 0 {
			n, err := pg.Store().Add("survivors_done", 0)
			require.NoError(t, err)
			if n == 2 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		return
	}
	res := disttest.Start(t, 3, disttest.Options{Timeout: 90 * time.Second})
	for _, r := range res {
		if r.Rank == 2 {
			assert.Error(t, r.Err, "rank 2 exits 3")
			continue
		}
		assert.NoError(t, r.Err, "rank %d:\n%s", r.Rank, r.Output)
		t.Logf("rank %d: %s", r.Rank, grepLine(r.Output, "error:"))
		assert.Contains(t, r.Output, "rank 2 is dead", "rank %d", r.Rank)
	}
}

func TestNCCLUnsupported(t *testing.T) {
	if distributed.HasNCCL() {
		t.Skip("this libtorch has NCCL")
	}
	_, err := distributed.InitProcessGroup(distributed.NCCL, distributed.WithRank(0), distributed.WithWorldSize(1))
	require.Error(t, err)
	assert.True(t, errors.Is(err, torch.ErrUnsupported), "%v", err)
}

func TestInitErrors(t *testing.T) {
	if disttest.Worker() {
		t.Skip()
	}
	t.Setenv("RANK", "")
	t.Setenv("WORLD_SIZE", "")
	_, err := distributed.InitProcessGroup(distributed.Gloo)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "$RANK is not set")

	t.Setenv("RANK", "x")
	t.Setenv("WORLD_SIZE", "2")
	_, err = distributed.InitProcessGroup(distributed.Gloo)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `$RANK="x" is not an integer`)

	store, err := distributed.NewFileStore(filepath.Join(t.TempDir(), "s"), 1)
	require.NoError(t, err)
	_, err = distributed.InitProcessGroup(distributed.Gloo, distributed.WithStore(store), distributed.WithRank(3), distributed.WithWorldSize(2))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rank 3 is not in [0, world size 2)")

	_, err = distributed.InitProcessGroup("mpi", distributed.WithStore(store))
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), `unknown backend "mpi"`), "%v", err)

	// World size 1 works without any peer.
	pg, err := distributed.InitProcessGroup(distributed.Gloo, distributed.WithStore(store), distributed.WithRank(0), distributed.WithWorldSize(1))
	require.NoError(t, err)
	x := torch.FromSlice([]float32{2}, 1)
	require.NoError(t, pg.AllReduce(x, distributed.Avg))
	assert.Equal(t, []float32{2}, vals(x))
	pg.Destroy()
	err = pg.Barrier()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "destroyed")
}

func TestStore(t *testing.T) {
	if disttest.Worker() {
		t.Skip()
	}
	port, err := disttest.FreePort("127.0.0.1")
	require.NoError(t, err)
	srv, err := distributed.NewTCPStore("127.0.0.1", port, 2, true, 10*time.Second)
	require.NoError(t, err)
	defer srv.Close()
	cli, err := distributed.NewTCPStore("127.0.0.1", port, 2, false, 10*time.Second)
	require.NoError(t, err)
	defer cli.Close()
	require.NoError(t, srv.Set("k", []byte("v")))
	v, err := cli.Get("k")
	require.NoError(t, err)
	assert.Equal(t, "v", string(v))
	n, err := cli.Add("c", 5)
	require.NoError(t, err)
	assert.EqualValues(t, 5, n)
	n, err = srv.Add("c", 2)
	require.NoError(t, err)
	assert.EqualValues(t, 7, n)
	cli.Close()
	_, err = cli.Get("k")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "after Close")
}

func grepLine(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
