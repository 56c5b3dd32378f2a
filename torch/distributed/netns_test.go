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
// loopback. Needs root, iproute2's ip and util-linux's nsenter; skipped
// otherwise. Commands enter a namespace with nsenter, not "ip -n" or
// "ip netns exec": those also remount / and /sys, which fails in a chroot
// whose / is not a mount point (scripts/debian13.sh).
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
	for _, tool := range []string{"ip", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	tag := fmt.Sprintf("gt%d", os.Getpid()%100000)
	ns := []string{tag + "a", tag + "b"}
	veth := []string{tag + "va", tag + "vb"}
	addr := []string{"10.231.7.1", "10.231.7.2"}
	run := func(argv ...string) error {
		out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, out)
		}
		return nil
	}
	ip := func(args ...string) error { return run(append([]string{"ip"}, args...)...) }
	// in returns argv run inside network namespace n.
	in := func(n string, argv ...string) []string {
		return append([]string{"nsenter", "--net=/run/netns/" + n, "--"}, argv...)
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
		require.NoError(t, run(in(ns[i], "ip", "addr", "add", addr[i]+"/24", "dev", veth[i])...))
		require.NoError(t, run(in(ns[i], "ip", "link", "set", veth[i], "up")...))
		require.NoError(t, run(in(ns[i], "ip", "link", "set", "lo", "up")...))
	}
	disttest.Run(t, 2, disttest.Options{
		MasterAddr: addr[0],
		MasterPort: 29731,
		Env:        func(r int) []string { return []string{"GLOO_SOCKET_IFNAME=" + veth[r]} },
		Wrap: func(r int, argv []string) []string {
			return in(ns[r], argv...)
		},
	})
}
