// Package parallel holds DDP, GoTorch's DistributedDataParallel: data
// parallel training over a torch/distributed process group, with PyTorch
// DDP's semantics.
//
//	pg, _ := distributed.InitProcessGroup(distributed.Gloo) // torchrun's env
//	ddp, err := parallel.DDP(net)                          // rank 0's weights everywhere
//	for x, y := range loader {                             // each rank its own shard (data.DistributedSampler)
//		loss := F.CrossEntropy(ddp.Forward(x), y)
//		loss.Backward()                                     // gradients averaged across ranks here
//		opt.Step()
//	}
//
// What DDP does, as PyTorch's does:
//   - at construction it broadcasts the parameters and buffers from rank 0;
//   - during backward it all-reduces the gradients in buckets, started from
//     gradient hooks as each bucket fills, so communication overlaps the
//     rest of backward (torch/distributed's Reducer); backward returns with
//     every .grad holding the average over the ranks;
//   - NoSync runs a function whose backward passes accumulate gradients
//     locally (gradient accumulation); the next synced backward averages
//     the accumulated gradients;
//   - Forward (and SyncBuffers, for a Forward of another signature)
//     broadcasts the buffers (BatchNorm's running statistics) from rank 0
//     first, as broadcast_buffers=True does.
package parallel

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
)

// Option configures DDP.
type Option func(*config)

type config struct {
	pg               *distributed.ProcessGroup
	bucketBytes      int64
	firstBucketBytes int64
	broadcastBuffers bool
}

// WithProcessGroup uses pg instead of the default group.
func WithProcessGroup(pg *distributed.ProcessGroup) Option { return func(c *config) { c.pg = pg } }

// WithBucketCapMB caps a gradient bucket (PyTorch's bucket_cap_mb, 25).
func WithBucketCapMB(mb float64) Option {
	return func(c *config) { c.bucketBytes = int64(mb * 1024 * 1024) }
}

// WithBroadcastBuffers turns the broadcast of buffers before each Forward
// on (the default) or off.
func WithBroadcastBuffers(on bool) Option { return func(c *config) { c.broadcastBuffers = on } }

// DDPModule wraps a module for data-parallel training.
type DDPModule struct {
	module  moduler
	pg      *distributed.ProcessGroup
	reducer *distributed.Reducer
	cfg     config
	mu      sync.Mutex
	noSync  int
}

// moduler is what every module (a struct that embeds nn.Module) has.
type moduler interface {
	nn.Moduler
	NamedParameters() []nn.Named
	NamedBuffers() []nn.Named
}

// A Forwarder has the Forward of one tensor that DDPModule.Forward calls.
type Forwarder interface {
	Forward(torch.Tensor) torch.Tensor
}

// DDP wraps m: it broadcasts m's parameters and buffers from rank 0 and
// hooks the parameters that require a gradient.
func DDP(m nn.Moduler, opts ...Option) (*DDPModule, error) {
	c := config{bucketBytes: 25 << 20, firstBucketBytes: 1 << 20, broadcastBuffers: true}
	for _, o := range opts {
		o(&c)
	}
	if c.pg == nil {
		pg, err := distributed.DefaultOrError()
		if err != nil {
			return nil, fmt.Errorf("parallel.DDP: %w", err)
		}
		c.pg = pg
	}
	if c.bucketBytes <= 0 {
		return nil, fmt.Errorf("parallel.DDP: bucket cap must be positive, got %d bytes", c.bucketBytes)
	}
	if c.firstBucketBytes > c.bucketBytes {
		c.firstBucketBytes = c.bucketBytes
	}
	mod, ok := m.(moduler)
	if !ok || m == nil {
		return nil, fmt.Errorf("parallel.DDP: %T is not a module (a struct that embeds nn.Module)", m)
	}
	named := mod.NamedParameters()
	var params []torch.Tensor
	for _, p := range named {
		if p.Tensor.RequiresGrad() {
			params = append(params, p.Tensor)
		}
	}
	if len(params) == 0 {
		return nil, errors.New("parallel.DDP: the module has no parameter that requires a gradient")
	}
	d := &DDPModule{module: mod, pg: c.pg, cfg: c}
	// Rank 0's initial state everywhere.
	for _, p := range named {
		if err := d.broadcast("parameter "+p.Name, p.Tensor); err != nil {
			return nil, err
		}
	}
	if err := d.broadcastBuffers(); err != nil {
		return nil, err
	}
	r, err := distributed.NewReducer(c.pg, params, c.bucketBytes, c.firstBucketBytes)
	if err != nil {
		return nil, fmt.Errorf("parallel.DDP: %w", err)
	}
	d.reducer = r
	return d, nil
}

func (d *DDPModule) broadcast(what string, t torch.Tensor) error {
	if err := d.pg.Broadcast(t, 0); err != nil {
		return fmt.Errorf("parallel.DDP: broadcasting %s from rank 0: %w", what, err)
	}
	return nil
}

func (d *DDPModule) broadcastBuffers() error {
	for _, b := range d.module.NamedBuffers() {
		if err := d.broadcast("buffer "+b.Name, b.Tensor); err != nil {
			return err
		}
	}
	return nil
}

// Module is the wrapped module.
func (d *DDPModule) Module() nn.Moduler { return d.module }

// ProcessGroup is the group DDP reduces over.
func (d *DDPModule) ProcessGroup() *distributed.ProcessGroup { return d.pg }

// Buckets is the number of gradient buckets.
func (d *DDPModule) Buckets() int { return d.reducer.Buckets() }

// SyncBuffers broadcasts the buffers from rank 0, when broadcast_buffers is
// on; Forward calls it. Call it before a Forward of another signature.
func (d *DDPModule) SyncBuffers() error {
	if !d.cfg.broadcastBuffers || d.pg.Size() == 1 {
		return nil
	}
	return d.broadcastBuffers()
}

// TryForward syncs the buffers and runs the module's Forward(x); the
// module must have that method (Forwarder).
func (d *DDPModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	f, ok := d.module.(Forwarder)
	if !ok {
		return torch.Tensor{}, fmt.Errorf("parallel.DDP: %T has no Forward(torch.Tensor) torch.Tensor; call SyncBuffers and its own forward", d.module)
	}
	if err := d.SyncBuffers(); err != nil {
		return torch.Tensor{}, err
	}
	return f.Forward(x), nil
}

// Forward is TryForward that panics on error.
func (d *DDPModule) Forward(x torch.Tensor) torch.Tensor {
	y, err := d.TryForward(x)
	if err != nil {
		panic(err)
	}
	return y
}

// NoSync runs f with the gradient all-reduce off: backward passes in f
// accumulate gradients locally, and the first backward after it averages
// what accumulated (PyTorch's no_sync).
func (d *DDPModule) NoSync(f func()) {
	d.mu.Lock()
	d.noSync++
	d.reducer.SetSync(false)
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.noSync--
		if d.noSync == 0 {
			d.reducer.SetSync(true)
		}
		d.mu.Unlock()
	}()
	f()
}

// Close removes DDP's gradient hooks; the module trains alone again.
func (d *DDPModule) Close() error { return d.reducer.Close() }
