package parallel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/nn/parallel"
)

// Bad options are errors of DDP, before it needs a process group.
func TestDDPBadOptions(t *testing.T) {
	net := nn.Linear(2, 2)
	_, err := parallel.DDP(net, parallel.WithBroadcastBuffers(false), parallel.Option{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "parallel.DDP: option 2 is the zero Option")
	for _, mb := range []float64{0, -1, 1 << 30} {
		_, err = parallel.DDP(net, parallel.WithBucketCapMB(mb))
		require.Error(t, err, "bucket_cap_mb %v", mb)
		assert.Contains(t, err.Error(), "the bucket cap must be a positive number of MB")
	}
}
