package parallel

import (
	"fmt"

	"github.com/gotorch/gotorch/torch/distributed"
)

// Option is an optional (keyword) argument of DDP, named With plus the
// keyword of torch.nn.parallel.DistributedDataParallel it stands for, as
// the options of packages nn and torch are; leaving it out gives
// PyTorch's default:
//
//	parallel.DDP(net, parallel.WithBucketCapMB(50), parallel.WithFindUnusedParameters(true))
//
// When an option is repeated, the last one wins. The zero Option is an
// error.
type Option struct {
	name string
	pg   *distributed.ProcessGroup
	f    float64
	b    bool
}

// WithProcessGroup is process_group: use pg instead of the default group.
func WithProcessGroup(pg *distributed.ProcessGroup) Option {
	return Option{name: "process_group", pg: pg}
}

// WithBucketCapMB is bucket_cap_mb, the cap of a gradient bucket (25).
func WithBucketCapMB(mb float64) Option { return Option{name: "bucket_cap_mb", f: mb} }

// WithBroadcastBuffers is broadcast_buffers: broadcast the buffers before
// each Forward (the default) or not.
func WithBroadcastBuffers(on bool) Option { return Option{name: "broadcast_buffers", b: on} }

// WithFindUnusedParameters is find_unused_parameters: let some parameters
// get no gradient in a backward (a branch the forward skipped). Forward
// then finds, from its output, the parameters it did not use, and reduces
// zeros for them (it costs a graph walk and an all-reduce of a
// used-parameter map per step).
func WithFindUnusedParameters(on bool) Option {
	return Option{name: "find_unused_parameters", b: on}
}

// maxBucketCapMB bounds WithBucketCapMB (1 TiB), so that the cap in
// bytes is an int64.
const maxBucketCapMB = 1 << 20

// config is DDP's options, applied.
type config struct {
	pg               *distributed.ProcessGroup
	bucketBytes      int64
	firstBucketBytes int64
	broadcastBuffers bool
	findUnused       bool
}

// newConfig applies opts to PyTorch's defaults.
func newConfig(opts []Option) (config, error) {
	c := config{bucketBytes: 25 << 20, firstBucketBytes: 1 << 20, broadcastBuffers: true}
	for i, o := range opts {
		switch o.name {
		case "process_group":
			c.pg = o.pg
		case "bucket_cap_mb":
			if !(o.f > 0 && o.f <= maxBucketCapMB) {
				return config{}, fmt.Errorf("parallel.DDP: WithBucketCapMB(%v): the bucket cap must be a positive number of MB, at most %d", o.f, maxBucketCapMB)
			}
			c.bucketBytes = int64(o.f * 1024 * 1024)
		case "broadcast_buffers":
			c.broadcastBuffers = o.b
		case "find_unused_parameters":
			c.findUnused = o.b
		case "":
			return config{}, fmt.Errorf("parallel.DDP: option %d is the zero Option (use the With functions)", i+1)
		default:
			return config{}, fmt.Errorf("parallel.DDP: unexpected option %s", o.name)
		}
	}
	return c, nil
}
