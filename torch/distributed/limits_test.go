package distributed

import (
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// TestLimits: issue #36's class of values that the C side would wrap or
// read as "no timeout": sizes, ranks and tags beyond 32 bits, and
// timeouts under a millisecond.
func TestLimits(t *testing.T) {
	assert.Equal(t, int64(1), cMillis(500*time.Microsecond), "a positive timeout never becomes c10d's 0 (no timeout)")
	assert.Equal(t, int64(1), cMillis(time.Nanosecond))
	assert.Equal(t, int64(2), cMillis(1001*time.Microsecond))
	assert.Equal(t, int64(1500), cMillis(1500*time.Millisecond))
	assert.Equal(t, int64(0), cMillis(0))

	_, err := NewFileStore(filepath.Join(t.TempDir(), "store"), 1<<32+1)
	require.ErrorContains(t, err, "FileStore: world size 4294967297 does not fit in 32 bits")
	_, err = NewTCPStore("127.0.0.1", 0, math.MaxInt, true, time.Second)
	require.ErrorContains(t, err, "TCPStore: world size 9223372036854775807 does not fit in 32 bits")
	// 1<<32+2 would reach C as 2, where rank 1 is valid: a wrong group.
	_, err = InitProcessGroup(Gloo, WithRank(1), WithWorldSize(1<<32+2), WithTimeout(time.Second),
		WithStore(&Store{desc: "unused"}))
	require.ErrorContains(t, err, "world size 4294967298 does not fit in 32 bits")

	pg := &ProcessGroup{size: 2}
	x := torch.Zeros([]int64{2})
	for _, c := range []struct {
		name string
		f    func() error
		want string
	}{
		{"send to 1<<32+1", func() error { _, err := pg.Isend(x, 1<<32+1, 0); return err }, "send: dst 4294967297 is not a rank of the group (world size 2)"},
		{"send to -1", func() error { _, err := pg.Isend(x, -1, 0); return err }, "send: dst -1 is not a rank"},
		{"send tag 1<<40", func() error { _, err := pg.Isend(x, 1, 1<<40); return err }, "send: tag 1099511627776 does not fit in 32 bits"},
		{"recv from 2", func() error { _, err := pg.Irecv(x, 2, 0); return err }, "recv: src 2 is not a rank"},
		{"broadcast root 1<<32", func() error { _, err := pg.BroadcastAsync(x, 1<<32); return err }, "broadcast: root 4294967296 does not fit in 32 bits"},
		{"broadcast coalesced root 1<<40", func() error { return pg.BroadcastCoalesced([]torch.Tensor{x}, 1<<40, 1<<20) }, "BroadcastCoalesced: root 1099511627776 does not fit in 32 bits"},
	} {
		assert.ErrorContains(t, c.f(), c.want, c.name)
	}
}
