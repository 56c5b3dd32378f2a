package distributed_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch/distributed"
)

// The zero Option is an error, not a silent default.
func TestInitProcessGroupZeroOption(t *testing.T) {
	_, err := distributed.InitProcessGroup(distributed.Gloo, distributed.WithRank(0), distributed.Option{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "distributed: init_process_group: option 2 is the zero Option")
}
