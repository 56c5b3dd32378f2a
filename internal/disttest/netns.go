package disttest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A Host is a network namespace that stands in for a machine: it holds
// one end of a veth pair, Iface, with the address Addr.
type Host struct {
	Netns string // the namespace's name, /run/netns/<Netns>
	Iface string
	Addr  string
}

// Run returns argv run inside h's namespace. It enters with nsenter, not
// "ip netns exec" or "ip -n", which also remount / and /sys and fail in a
// chroot whose / is not a mount point (scripts/debian13.sh).
func (h Host) Run(argv ...string) []string {
	return append([]string{"nsenter", "--net=/run/netns/" + h.Netns, "--"}, argv...)
}

// TwoHosts makes two network namespaces joined by a veth pair, 10.231.7.1
// and .2 on a /24, each with its loopback up, and removes them when t ends.
// It skips t, saying why, where that cannot be done (not root, no ip or
// nsenter, no veth in this kernel or container).
func TwoHosts(t testing.TB) [2]Host {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make network namespaces")
	}
	for _, tool := range []string{"ip", "nsenter"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	tag := fmt.Sprintf("gt%d", os.Getpid()%100000)
	hosts := [2]Host{{tag + "a", tag + "va", "10.231.7.1"}, {tag + "b", tag + "vb", "10.231.7.2"}}
	run := func(argv ...string) error {
		out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, out)
		}
		return nil
	}
	for _, h := range hosts {
		if err := run("ip", "netns", "add", h.Netns); err != nil {
			t.Skipf("cannot make network namespaces here: %v", err)
		}
		t.Cleanup(func() { run("ip", "netns", "del", h.Netns) })
	}
	if err := run("ip", "link", "add", hosts[0].Iface, "netns", hosts[0].Netns, "type", "veth",
		"peer", "name", hosts[1].Iface, "netns", hosts[1].Netns); err != nil {
		t.Skipf("cannot make a veth pair here: %v", err)
	}
	for _, h := range hosts {
		for _, argv := range [][]string{
			{"ip", "addr", "add", h.Addr + "/24", "dev", h.Iface},
			{"ip", "link", "set", h.Iface, "up"},
			{"ip", "link", "set", "lo", "up"},
		} {
			if err := run(h.Run(argv...)...); err != nil {
				t.Fatalf("disttest: setting up host %s: %v", h.Netns, err)
			}
		}
	}
	return hosts
}
