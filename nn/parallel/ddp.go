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
// DDP runs on c10d's Reducer, the engine of PyTorch's DDP
// (torch/distributed.Reducer), and does what PyTorch's does:
//   - at construction it checks that every rank's parameters have rank 0's
//     shapes, and broadcasts the parameters and buffers from rank 0
//     (coalesced, as PyTorch's does);
//   - Forward arms the Reducer (prepare_for_backward); during the backward
//     that follows, the gradients are all-reduced in buckets, started from
//     gradient hooks as each bucket fills, so communication overlaps the
//     rest of backward; backward returns with every .grad holding the
//     average over the ranks, or fails with an error naming a dead rank;
//   - NoSync runs a function whose forwards do not arm the Reducer, so
//     their backward passes accumulate gradients locally (gradient
//     accumulation); the next synced backward averages what accumulated;
//   - Forward broadcasts the buffers (BatchNorm's running statistics) from
//     rank 0 first, as broadcast_buffers=True does;
//   - every parameter must get a gradient in each synced backward, unless
//     WithFindUnusedParameters (PyTorch's find_unused_parameters);
//   - every rank must have rank 0's model and options (DDP checks);
//   - CommTime reports the time of the gradient all-reduces.
//
// SyncBatchNorm and ConvertSyncBatchNorm (syncbn.go) are PyTorch's
// nn.SyncBatchNorm and convert_sync_batchnorm: batch norm with the
// statistics of the whole group's batch.
//
// A model whose forward is not Forward(torch.Tensor) torch.Tensor calls
// SyncBuffers before its forward and PrepareBackward after it.
package parallel

import (
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/distributed"
)

// DDPModule wraps a module for data-parallel training.
type DDPModule struct {
	module  moduler
	pg      *distributed.ProcessGroup
	reducer *distributed.Reducer
	names   []string // of the reducer's parameters, in its order
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
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
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
	var names []string
	for _, p := range named {
		if p.Tensor.RequiresGrad() {
			params = append(params, p.Tensor)
			names = append(names, p.Name)
		}
	}
	if len(params) == 0 {
		return nil, errors.New("parallel.DDP: the module has no parameter that requires a gradient")
	}
	d := &DDPModule{module: mod, pg: c.pg, names: names, cfg: c}
	// Every rank must have rank 0's model and options, else all refuse.
	if err := d.checkSettings(params); err != nil {
		return nil, err
	}
	// The Reducer checks the parameters' shapes across ranks too.
	r, err := distributed.NewReducer(c.pg, params, c.bucketBytes, c.firstBucketBytes, c.findUnused)
	if err != nil {
		return nil, fmt.Errorf("parallel.DDP: %w", err)
	}
	d.reducer = r
	// Rank 0's initial state everywhere (Python's _sync_module_states).
	states := make([]torch.Tensor, 0, len(named))
	for _, p := range named {
		states = append(states, p.Tensor)
	}
	for _, b := range mod.NamedBuffers() {
		states = append(states, b.Tensor)
	}
	if err := d.pg.BroadcastCoalesced(states, 0, broadcastBucketBytes); err != nil {
		r.Close()
		return nil, fmt.Errorf("parallel.DDP: broadcasting the parameters and buffers from rank 0: %w", err)
	}
	return d, nil
}

// checkSettings refuses, on every rank alike, a job whose ranks have
// different models (the number, size or shapes of the parameters) or were
// given different bucket plans or options: they would all-reduce
// different buckets (wrong averages, or a hang until the timeout).
// PyTorch checks the shapes only (c10d's verify_params_across_processes,
// which NewReducer runs too, but which fails on the mismatched ranks only,
// leaving rank 0 to fail at its next collective).
func (d *DDPModule) checkSettings(params []torch.Tensor) error {
	if d.pg.Size() == 1 {
		return nil
	}
	b2i := func(b bool) int64 {
		if b {
			return 1
		}
		return 0
	}
	h := fnv.New64a()
	var numel int64
	for _, p := range params {
		shape := p.Shape()
		fmt.Fprint(h, shape, p.Dtype(), ";")
		n := int64(1)
		for _, v := range shape {
			n *= v
		}
		numel += n
	}
	mine := []int64{int64(len(params)), numel, int64(h.Sum64() >> 1),
		d.cfg.bucketBytes, d.cfg.firstBucketBytes, b2i(d.cfg.findUnused), b2i(d.cfg.broadcastBuffers)}
	names := []string{"parameters", "parameter values", "parameter shapes and dtypes (a hash)",
		"bucket cap (bytes, WithBucketCapMB)", "first bucket (bytes)", "WithFindUnusedParameters", "WithBroadcastBuffers"}
	outs := make([]torch.Tensor, d.pg.Size())
	for i := range outs {
		outs[i] = torch.Zeros([]int64{int64(len(mine))}, torch.WithDtype(torch.Int64))
	}
	if err := d.pg.AllGather(outs, torch.FromSlice(mine, int64(len(mine)))); err != nil {
		return fmt.Errorf("parallel.DDP: comparing the ranks' models and settings: %w", err)
	}
	root := outs[0].Int64s()
	for r := 1; r < len(outs); r++ {
		for i, v := range outs[r].Int64s() {
			if v != root[i] {
				what := "model differs"
				if i >= 3 {
					what = "DDP options differ"
				}
				return fmt.Errorf("parallel.DDP: rank %d's %s from rank 0's: %s %d, rank 0's %d (every rank must build the same model and pass the same options)", r, what, names[i], v, root[i])
			}
		}
	}
	return nil
}

// broadcastBucketBytes caps the buffers in which parameters and buffers
// are broadcast (PyTorch DDP's broadcast_bucket_size, 250 MiB).
const broadcastBucketBytes = 250 << 20

func (d *DDPModule) broadcastBuffers() error {
	named := d.module.NamedBuffers()
	if len(named) == 0 {
		return nil
	}
	bufs := make([]torch.Tensor, len(named))
	for i, b := range named {
		bufs[i] = b.Tensor
	}
	if err := d.pg.BroadcastCoalesced(bufs, 0, broadcastBucketBytes); err != nil {
		return fmt.Errorf("parallel.DDP: broadcasting the buffers from rank 0: %w", err)
	}
	return nil
}

// Module is the wrapped module.
func (d *DDPModule) Module() nn.Moduler { return d.module }

// ProcessGroup is the group DDP reduces over.
func (d *DDPModule) ProcessGroup() *distributed.ProcessGroup { return d.pg }

// Buckets is the number of gradient buckets.
func (d *DDPModule) Buckets() int { return d.reducer.Buckets() }

// CommTime is the time the gradient all-reduces of the synced backward
// passes took, each bucket's from its start to its end, summed (PyTorch
// DDP logs it as backward_comm_time): the communication that backward
// overlapped or waited for.
func (d *DDPModule) CommTime() time.Duration { return d.reducer.CommTime() }

// SyncBuffers broadcasts the buffers from rank 0, when broadcast_buffers is
// on; Forward calls it. Call it before a forward of another signature (and
// PrepareBackward after it).
func (d *DDPModule) SyncBuffers() error {
	if !d.cfg.broadcastBuffers || d.pg.Size() == 1 {
		return nil
	}
	return d.broadcastBuffers()
}

// TryForward runs the module's Forward(x) (the module must have it,
// Forwarder) as PyTorch DDP's forward does: it checks that the last synced
// backward reduced every gradient, syncs the buffers, runs the forward,
// and, outside NoSync, arms the gradient reduction of the next backward.
func (d *DDPModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	f, ok := d.module.(Forwarder)
	if !ok {
		return torch.Tensor{}, fmt.Errorf("parallel.DDP: %T has no Forward(torch.Tensor) torch.Tensor; call SyncBuffers, its own forward and PrepareBackward", d.module)
	}
	sync := d.syncing()
	if err := d.reducer.BeforeForward(sync); err != nil {
		return torch.Tensor{}, d.explain(err)
	}
	if err := d.SyncBuffers(); err != nil {
		return torch.Tensor{}, err
	}
	y := f.Forward(x)
	if sync {
		if err := d.reducer.AfterForward(y); err != nil {
			return torch.Tensor{}, fmt.Errorf("parallel.DDP: %w", err)
		}
	}
	return y, nil
}

// Forward is TryForward that panics on error.
func (d *DDPModule) Forward(x torch.Tensor) torch.Tensor {
	y, err := d.TryForward(x)
	if err != nil {
		panic(err)
	}
	return y
}

// PrepareBackward is what Forward does around a forward that is not
// Forward(torch.Tensor): call it after the module's forward, before
// backward, with the forward's outputs (they matter only with
// WithFindUnusedParameters). Outside NoSync, the next backward averages
// the gradients across the ranks; without it, it does not. It does
// nothing while gradients are off (torch.NoGrad).
func (d *DDPModule) PrepareBackward(outputs ...torch.Tensor) error {
	sync := d.syncing()
	if err := d.reducer.BeforeForward(sync); err != nil {
		return d.explain(err)
	}
	if !sync {
		return nil
	}
	if err := d.reducer.AfterForward(outputs...); err != nil {
		return fmt.Errorf("parallel.DDP: %w", err)
	}
	return nil
}

// unreduced finds the parameter indices in c10d's error about a backward
// that left gradients unreduced.
var unreduced = regexp.MustCompile(`did not receive grad for rank \d+: ([0-9 ]+)`)

// explain puts c10d's error about unused parameters (whose advice is
// Python's) in GoTorch's terms, with the parameters' names.
func (d *DDPModule) explain(err error) error {
	msg := err.Error()
	if !strings.Contains(msg, "Expected to have finished reduction") {
		return fmt.Errorf("parallel.DDP: %w", err)
	}
	which := "some parameters"
	if m := unreduced.FindStringSubmatch(msg); m != nil {
		var ns []string
		for _, f := range strings.Fields(m[1]) {
			if i, e := strconv.Atoi(f); e == nil && i >= 0 && i < len(d.names) {
				ns = append(ns, d.names[i])
			}
		}
		if len(ns) > 0 {
			which = strings.Join(ns, ", ")
		}
	}
	return fmt.Errorf("parallel.DDP: %s got no gradient in the last synced backward: pass parallel.WithFindUnusedParameters(true) if the forward may leave them out, or make every output of the forward reach the loss (c10d's Reducer: %w)", which, err)
}

func (d *DDPModule) syncing() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.noSync == 0
}

// NoSync runs f with the gradient reduction off: the forwards in f do not
// arm it, so their backward passes accumulate gradients locally, and the
// first synced backward after it averages what accumulated (PyTorch's
// no_sync).
func (d *DDPModule) NoSync(f func()) {
	d.mu.Lock()
	d.noSync++
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.noSync--
		d.mu.Unlock()
	}()
	f()
}

// Close removes DDP's gradient hooks; the module trains alone again.
func (d *DDPModule) Close() error { return d.reducer.Close() }
