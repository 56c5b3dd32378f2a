package distributed_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
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
// loopback. Needs root and iproute2's ip; skipped otherwise.
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
	if os.Geteuid() != 0 {
		t.Skip("needs root to make network namespaces")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("needs iproute2's ip")
	}
	tag := fmt.Sprintf("gt%d", os.Getpid()%100000)
	ns := []string{tag + "a", tag + "b"}
	veth := []string{tag + "va", tag + "vb"}
	addr := []string{"10.231.7.1", "10.231.7.2"}
	ip := func(args ...string) error {
		out, err := exec.Command("ip", args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	for _, n := range ns {
		if err := ip("netns", "add", n); err != nil {
			t.Skipf("cannot make network namespaces here: %v", err)
		}
		t.Cleanup(func() { ip("netns", "del", n) })
	}
	if err := ip("link", "add", veth[0], "netns", ns[0], "type", "veth", "peer", "name", veth[1], "netns", ns[1]); err != nil {
		t.Skipf("cannot make a veth pair here: %v", err)
	}
	for i := range ns {
		require.NoError(t, ip("-n", ns[i], "addr", "add", addr[i]+"/24", "dev", veth[i]))
		require.NoError(t, ip("-n", ns[i], "link", "set", veth[i], "up"))
		require.NoError(t, ip("-n", ns[i], "link", "set", "lo", "up"))
	}
	disttest.Run(t, 2, disttest.Options{
		MasterAddr: addr[0],
		MasterPort: 29731,
		Env:        func(r int) []string { return []string{"GLOO_SOCKET_IFNAME=" + veth[r]} },
		Wrap: func(r int, argv []string) []string {
			return append([]string{"ip", "netns", "exec", ns[r]}, argv...)
		},
	})
}
