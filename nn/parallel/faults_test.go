package parallel_test

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/disttest"
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/parallel"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
)

// A rank with a different model, or with a different bucket plan, is
// refused at start, on every rank, with an error that says what differs.
func TestDDPRefusesMismatchedRanks(t *testing.T) {
	if disttest.Worker() {
		for _, mismatch := range []string{"model", "buckets"} {
			t.Run(mismatch, func(t *testing.T) { checkMismatch(t, mismatch) })
		}
		return
	}
	runInPairJob(t)
}

// checkMismatch is one rank's part of TestDDPRefusesMismatchedRanks: rank
// 1's model or DDP options differ from rank 0's.
func checkMismatch(t *testing.T, mismatch string) {
	pg := initGroup(t)
	defer distributed.DestroyProcessGroup()
	torch.ManualSeed(1)
	hidden, opts := int64(16), []parallel.Option(nil)
	if pg.Rank() == 1 {
		switch mismatch {
		case "model":
			hidden = 17
		case "buckets":
			opts = append(opts, parallel.WithBucketCapMB(1))
		}
	}
	net := nn.Sequential(nn.Linear(6, hidden), nn.ReLU(), nn.Linear(hidden, 3))
	_, err := parallel.DDP(net, opts...)
	require.Error(t, err, "rank %d", pg.Rank())
	t.Logf("error: %v", err)
	if mismatch == "model" {
		assert.Contains(t, err.Error(), "parallel.DDP: rank 1's model differs from rank 0's: parameter values 173, rank 0's 163")
	} else {
		assert.Contains(t, err.Error(), "parallel.DDP: rank 1's DDP options differ from rank 0's: bucket cap (bytes, WithBucketCapMB) 1048576, rank 0's 26214400")
	}
}

func TestDDPHungRankReported(t *testing.T) {
	if disttest.Worker() {
		store, err := distributed.NewFileStore(os.Getenv("STORE_FILE"), 2)
		require.NoError(t, err)
		_, err = distributed.InitProcessGroup(distributed.Gloo, distributed.WithStore(store), distributed.WithTimeout(3*time.Second))
		require.NoError(t, err)
		ddp, err := parallel.DDP(newNet(7))
		require.NoError(t, err)
		x, y := batch(0)
		loss := F.MseLoss(ddp.Forward(x), y)
		if disttest.Rank() == 1 {
			time.Sleep(12 * time.Second) // hung: alive, silent
			os.Exit(0)
		}
		start := time.Now()
		err = loss.TryBackward()
		took := time.Since(start)
		require.Error(t, err, "backward with a hung rank must fail")
		t.Logf("error after %v: %v", took, err)
		assert.Contains(t, err.Error(), "DDP gradient all_reduce")
		assert.Contains(t, err.Error(), "rank 1 is dead or hung")
		assert.Less(t, took, 10*time.Second, "reported within the 3 s timeout and the 3 s probe")
		return
	}
	file := filepath.Join(t.TempDir(), "store")
	disttest.Run(t, 2, disttest.Options{Timeout: time.Minute, Env: func(int) []string { return []string{"STORE_FILE=" + file} }})
}

// A MASTER_PORT already in use is a clear error at start, not a hang.
func TestInitPortInUse(t *testing.T) {
	if disttest.Worker() {
		t.Skip()
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	t.Setenv("RANK", "0")
	t.Setenv("WORLD_SIZE", "2")
	t.Setenv("MASTER_ADDR", "127.0.0.1")
	t.Setenv("MASTER_PORT", strconv.Itoa(port))
	start := time.Now()
	_, err = distributed.InitProcessGroup(distributed.Gloo, distributed.WithTimeout(20*time.Second))
	require.Error(t, err)
	t.Logf("error after %v: %v", time.Since(start), err)
	assert.Contains(t, err.Error(), strconv.Itoa(port))
	assert.Less(t, time.Since(start), 15*time.Second)
}
