package parallel_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/disttest"
	"github.com/gotorch/gotorch/torch/distributed"
)

// A 2×2 job: two "hosts" (network namespaces joined by a veth pair) with
// two ranks each, started with torchrun's variables (MASTER_ADDR on host
// 0's veth, RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK),
// the rendezvous through the TCPStore that rank 0 serves there and Gloo on
// the veth (GLOO_SOCKET_IFNAME), trains to the single-process trajectory
// as TestDDPMatchesOneProcess does on loopback. Root only; skipped where
// namespaces or veth pairs cannot be made.
func TestDDPTwoHosts(t *testing.T) {
	if disttest.Worker() {
		env, err := distributed.ReadEnv()
		require.NoError(t, err)
		pg := initGroup(t) // no STORE_FILE: torchrun's environment
		defer distributed.DestroyProcessGroup()
		assert.Equal(t, 4, pg.Size())
		assert.Equal(t, env.Rank, pg.Rank())
		assert.Equal(t, pg.Rank()%2, env.LocalRank)
		assert.Equal(t, 2, env.LocalWorldSize)
		trainLikeOneProcess(t, pg, false)
		return
	}
	hosts := disttest.TwoHosts(t)
	host := func(r int) disttest.Host { return hosts[r/2] }
	disttest.Run(t, 4, disttest.Options{
		Timeout:    90 * time.Second,
		MasterAddr: hosts[0].Addr,
		MasterPort: 29733,
		Env: func(r int) []string {
			return []string{"STORE_FILE=", "LOCAL_RANK=" + strconv.Itoa(r%2), "LOCAL_WORLD_SIZE=2",
				"GROUP_RANK=" + strconv.Itoa(r/2), "GLOO_SOCKET_IFNAME=" + host(r).Iface}
		},
		Wrap: func(r int, argv []string) []string { return host(r).Run(argv...) },
	})
}
