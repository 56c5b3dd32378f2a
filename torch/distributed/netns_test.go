package distributed_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/disttest"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
)

// Two hosts in network namespaces joined by a veth pair: the rendezvous
// and Gloo's traffic cross a real interface (GLOO_SOCKET_IFNAME), not
// loopback. Needs root, iproute2's ip and util-linux's nsenter; skipped
// otherwise (disttest.TwoHosts). nn/parallel's TestDDPTwoHosts trains a
// 2×2 job the same way.
func TestNetworkNamespaces(t *testing.T) {
	if disttest.Worker() {
		pg, err := distributed.InitProcessGroup(distributed.Gloo, distributed.WithTimeout(time.Minute))
		require.NoError(t, err)
		defer distributed.DestroyProcessGroup()
		x := torch.Ones([]int64{1 << 16}).MulScalar(torch.S(pg.Rank() + 1))
		require.NoError(t, pg.AllReduce(x, distributed.Sum))
		assert.Equal(t, float64(3<<16), x.Sum().Item())
		return
	}
	hosts := disttest.TwoHosts(t)
	disttest.Run(t, 2, disttest.Options{
		MasterAddr: hosts[0].Addr,
		MasterPort: 29731,
		Env:        func(r int) []string { return []string{"GLOO_SOCKET_IFNAME=" + hosts[r].Iface} },
		Wrap:       func(r int, argv []string) []string { return hosts[r].Run(argv...) },
	})
}
