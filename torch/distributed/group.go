package distributed

/*
#include <stdlib.h>
#include "distributed.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/internal/native"
)

// Env is torchrun's environment, as InitProcessGroup reads it.
type Env struct {
	Rank, WorldSize, LocalRank, LocalWorldSize int
	MasterAddr                                 string
	MasterPort                                 int
	RestartCount                               int
	AgentStore                                 bool // TORCHELASTIC_USE_AGENT_STORE: torchrun's agent serves the store
}

// ReadEnv reads torchrun's variables; only RANK and WORLD_SIZE are
// required (MASTER_ADDR defaults to 127.0.0.1, MASTER_PORT to 29500).
func ReadEnv() (Env, error) {
	e := Env{MasterAddr: "127.0.0.1", MasterPort: 29500, LocalWorldSize: 1}
	num := func(name string, dst *int, required bool) error {
		v, ok := os.LookupEnv(name)
		if !ok || v == "" {
			if required {
				return fmt.Errorf("distributed: $%s is not set (start the program with torchrun or gop-torch run -nproc N, or pass WithRank and WithWorldSize)", name)
			}
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("distributed: $%s=%q is not an integer", name, v)
		}
		*dst = n
		return nil
	}
	for _, f := range []struct {
		name string
		dst  *int
		req  bool
	}{{"RANK", &e.Rank, true}, {"WORLD_SIZE", &e.WorldSize, true}, {"LOCAL_RANK", &e.LocalRank, false},
		{"LOCAL_WORLD_SIZE", &e.LocalWorldSize, false}, {"MASTER_PORT", &e.MasterPort, false},
		{"TORCHELASTIC_RESTART_COUNT", &e.RestartCount, false}} {
		if err := num(f.name, f.dst, f.req); err != nil {
			return Env{}, err
		}
	}
	if v := os.Getenv("MASTER_ADDR"); v != "" {
		e.MasterAddr = v
	}
	e.AgentStore = os.Getenv("TORCHELASTIC_USE_AGENT_STORE") == "True"
	if e.WorldSize <= 0 || e.Rank < 0 || e.Rank >= e.WorldSize {
		return Env{}, fmt.Errorf("distributed: RANK=%d is not in [0, WORLD_SIZE=%d)", e.Rank, e.WorldSize)
	}
	return e, nil
}

// ProcessGroup is a group of processes that run collectives together.
type ProcessGroup struct {
	mu      sync.Mutex
	p       C.gt_dist_pg
	backend Backend
	rank    int
	size    int
	store   *Store
	timeout time.Duration
}

var (
	defaultMu sync.Mutex
	defaultPG *ProcessGroup
)

// InitProcessGroup joins the job's process group, from torchrun's
// environment unless options say otherwise, and makes it the default
// group (Default). It returns once every rank has joined, or an error
// after the timeout.
func InitProcessGroup(backend Backend, opts ...Option) (*ProcessGroup, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if c.timeout <= 0 {
		return nil, fmt.Errorf("distributed: timeout must be positive, got %v", c.timeout)
	}
	var code C.int
	switch backend {
	case Gloo:
	case NCCL:
		code = 1
		if !HasNCCL() {
			return nil, cerr("init_process_group", C.gt_dist_pg_new(1, nil, 0, 1, 1, nil, nil, 0, nil))
		}
	default:
		return nil, fmt.Errorf("distributed: unknown backend %q (want %q or %q)", backend, Gloo, NCCL)
	}
	if c.iface == "" {
		c.iface = os.Getenv("GLOO_SOCKET_IFNAME")
	}
	store := c.store
	if !c.hasRank || !c.hasSize || store == nil {
		env, err := ReadEnv()
		if err != nil && (!c.hasRank || !c.hasSize) {
			return nil, err
		}
		if !c.hasRank {
			c.rank = env.Rank
		}
		if !c.hasSize {
			c.size = env.WorldSize
		}
		if store == nil {
			if err != nil {
				env, err = Env{MasterAddr: "127.0.0.1", MasterPort: 29500}, nil
				if v := os.Getenv("MASTER_ADDR"); v != "" {
					env.MasterAddr = v
				}
				if v := os.Getenv("MASTER_PORT"); v != "" {
					if env.MasterPort, err = strconv.Atoi(v); err != nil {
						return nil, fmt.Errorf("distributed: $MASTER_PORT=%q is not an integer", v)
					}
				}
			}
			server := c.rank == 0 && !env.AgentStore
			base, err := NewTCPStore(env.MasterAddr, env.MasterPort, c.size, server, c.timeout)
			if err != nil {
				return nil, err
			}
			// As PyTorch's env:// does: a job restarted by torchrun's agent
			// must not read the keys of the attempt before.
			if store, err = base.WithPrefix(fmt.Sprintf("/worker/attempt_%d/", env.RestartCount)); err != nil {
				return nil, err
			}
			// base stays alive through the prefix store (it holds the C++ store).
			base.Close()
		}
	}
	if c.size <= 0 || c.rank < 0 || c.rank >= c.size {
		return nil, fmt.Errorf("distributed: rank %d is not in [0, world size %d)", c.rank, c.size)
	}
	if err := checkCInt("init_process_group", "world size", c.size); err != nil {
		return nil, err
	}
	if err := checkCInt("init_process_group", "threads", c.threads); err != nil {
		return nil, err
	}
	sp, err := store.handle()
	if err != nil {
		return nil, err
	}
	ci, ch := C.CString(c.iface), C.CString(c.host)
	defer C.free(unsafe.Pointer(ci))
	defer C.free(unsafe.Pointer(ch))
	var p C.gt_dist_pg
	err = cerr("init_process_group", C.gt_dist_pg_new(code, sp, C.int(c.rank), C.int(c.size),
		C.int64_t(cMillis(c.timeout)), ci, ch, C.int(c.threads), &p))
	runtime.KeepAlive(store)
	if err != nil {
		return nil, fmt.Errorf("distributed: init_process_group(%s) as rank %d of %d through %s: %w", backend, c.rank, c.size, store, err)
	}
	pg := &ProcessGroup{p: p, backend: backend, rank: c.rank, size: c.size, store: store, timeout: c.timeout}
	runtime.SetFinalizer(pg, (*ProcessGroup).Destroy)
	defaultMu.Lock()
	defaultPG = pg
	defaultMu.Unlock()
	return pg, nil
}

// Default is the group of the last InitProcessGroup (nil before it and
// after DestroyProcessGroup).
func Default() *ProcessGroup {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	return defaultPG
}

// IsInitialized reports whether there is a default group.
func IsInitialized() bool { return Default() != nil }

// DestroyProcessGroup destroys the default group.
func DestroyProcessGroup() {
	defaultMu.Lock()
	pg := defaultPG
	defaultPG = nil
	defaultMu.Unlock()
	if pg != nil {
		pg.Destroy()
	}
}

// Destroy releases the group; using it afterwards is an error.
func (pg *ProcessGroup) Destroy() {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.p != nil {
		C.gt_dist_pg_free(pg.p)
		pg.p = nil
	}
}

// Rank is this process's rank in the group.
func (pg *ProcessGroup) Rank() int { return pg.rank }

// Size is the number of processes in the group (the world size).
func (pg *ProcessGroup) Size() int { return pg.size }

// Backend is the group's backend.
func (pg *ProcessGroup) Backend() Backend { return pg.backend }

// Store is the store the group rendezvoused through.
func (pg *ProcessGroup) Store() *Store { return pg.store }

// Timeout is the group's timeout.
func (pg *ProcessGroup) Timeout() time.Duration { return pg.timeout }

// Handle is the group's C handle, for nn/parallel. It stays valid while pg
// is not destroyed.
func (pg *ProcessGroup) Handle() (unsafe.Pointer, error) {
	p, err := pg.handle("handle")
	return unsafe.Pointer(p), err
}

func (pg *ProcessGroup) handle(op string) (C.gt_dist_pg, error) {
	if pg == nil {
		return nil, fmt.Errorf("distributed.%s: nil process group (call InitProcessGroup first)", op)
	}
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.p == nil {
		return nil, fmt.Errorf("distributed.%s: the process group was destroyed", op)
	}
	return pg.p, nil
}

// Work is an asynchronous collective in flight.
type Work struct {
	mu      sync.Mutex
	p       C.gt_dist_work
	pg      *ProcessGroup
	tensors []torch.Tensor
}

func newWork(pg *ProcessGroup, p C.gt_dist_work, ts []torch.Tensor) *Work {
	w := &Work{p: p, pg: pg, tensors: ts}
	runtime.SetFinalizer(w, func(w *Work) {
		if w.p != nil {
			C.gt_dist_work_free(w.p)
		}
	})
	return w
}

// Wait blocks until the op ends and returns its error: a failed op names
// itself, this rank and a dead peer. Waiting again returns the same result.
func (w *Work) Wait() error { return w.WaitTimeout(0) }

// WaitTimeout is Wait that gives up after d (0: the group's timeout only).
func (w *Work) WaitTimeout(d time.Duration) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	err := cerr("wait", C.gt_dist_work_wait(w.p, C.int64_t(cMillis(d))))
	runtime.KeepAlive(w)
	return err
}

// IsCompleted reports whether the op has ended (successfully or not).
func (w *Work) IsCompleted() bool {
	done := C.gt_dist_work_completed(w.p) != 0
	runtime.KeepAlive(w)
	return done
}

// borrow pins ts for one C call; release undoes it.
func borrow(op string, ts []torch.Tensor) ([]C.gt_tensor, func(), error) {
	ps := make([]C.gt_tensor, len(ts))
	n := 0
	release := func() {
		for _, t := range ts[:n] {
			native.Release(t)
		}
	}
	for i, t := range ts {
		p, err := native.Borrow(t, "distributed."+op, "tensor "+strconv.Itoa(i))
		if err != nil {
			release()
			return nil, nil, err
		}
		ps[i] = C.gt_tensor(p)
		n++
	}
	return ps, release, nil
}

func first(ps []C.gt_tensor) *C.gt_tensor {
	if len(ps) == 0 {
		return nil
	}
	return &ps[0]
}

// start runs one collective-starting C call on the tensors ts.
func (pg *ProcessGroup) start(op string, ts []torch.Tensor, call func(p C.gt_dist_pg, ps []C.gt_tensor, w *C.gt_dist_work) C.gt_error) (*Work, error) {
	p, err := pg.handle(op)
	if err != nil {
		return nil, err
	}
	ps, release, err := borrow(op, ts)
	if err != nil {
		return nil, err
	}
	var w C.gt_dist_work
	e := call(p, ps, &w)
	// C pointers to the C array are fine: ps is a Go slice of C handles
	// (no Go pointers inside), passed by its first element.
	release()
	runtime.KeepAlive(pg)
	if err := cerr(op, e); err != nil {
		return nil, err
	}
	return newWork(pg, w, ts), nil
}

func (op ReduceOp) check() error {
	if op < Sum || op > Max {
		return fmt.Errorf("distributed: invalid reduce op %d", int(op))
	}
	return nil
}

// AllReduceAsync starts reducing t across the group in place.
func (pg *ProcessGroup) AllReduceAsync(t torch.Tensor, op ReduceOp) (*Work, error) {
	if err := op.check(); err != nil {
		return nil, err
	}
	return pg.start("all_reduce", []torch.Tensor{t}, func(p C.gt_dist_pg, ps []C.gt_tensor, w *C.gt_dist_work) C.gt_error {
		return C.gt_dist_allreduce(p, first(ps), 1, C.int(op), w)
	})
}

// AllReduce reduces t across the group in place: every rank ends with
// op of all ranks' t.
func (pg *ProcessGroup) AllReduce(t torch.Tensor, op ReduceOp) error {
	return wait(pg.AllReduceAsync(t, op))
}

// BroadcastCoalesced copies root's ts into every rank's, as PyTorch's DDP
// syncs a module's parameters and buffers: c10d's broadcast_coalesced
// flattens them, by dtype, into buffers of up to bufferBytes each, so that
// many small tensors take a few broadcasts. It returns when done.
func (pg *ProcessGroup) BroadcastCoalesced(ts []torch.Tensor, root int, bufferBytes int64) error {
	if err := checkCInt("BroadcastCoalesced", "root", root); err != nil { // the C side checks the range
		return err
	}
	p, err := pg.handle("BroadcastCoalesced")
	if err != nil {
		return err
	}
	ps, release, err := borrow("BroadcastCoalesced", ts)
	if err != nil {
		return err
	}
	e := C.gt_dist_broadcast_coalesced(p, first(ps), C.int64_t(len(ps)), C.int(root), C.int64_t(bufferBytes))
	release()
	runtime.KeepAlive(pg)
	return cerr("BroadcastCoalesced", e)
}

// BroadcastAsync starts copying root's t into every rank's t.
func (pg *ProcessGroup) BroadcastAsync(t torch.Tensor, root int) (*Work, error) {
	if err := checkCInt("broadcast", "root", root); err != nil { // the C side checks the range
		return nil, err
	}
	return pg.start("broadcast", []torch.Tensor{t}, func(p C.gt_dist_pg, ps []C.gt_tensor, w *C.gt_dist_work) C.gt_error {
		return C.gt_dist_broadcast(p, first(ps), 1, C.int(root), w)
	})
}

// Broadcast copies root's t into every rank's t.
func (pg *ProcessGroup) Broadcast(t torch.Tensor, root int) error {
	return wait(pg.BroadcastAsync(t, root))
}

// AllGatherAsync starts gathering every rank's in into outs (one tensor
// per rank, shaped like in).
func (pg *ProcessGroup) AllGatherAsync(outs []torch.Tensor, in torch.Tensor) (*Work, error) {
	ts := append(append([]torch.Tensor{}, outs...), in)
	return pg.start("all_gather", ts, func(p C.gt_dist_pg, ps []C.gt_tensor, w *C.gt_dist_work) C.gt_error {
		n := len(ps) - 1
		return C.gt_dist_allgather(p, first(ps[:n]), C.int64_t(n), ps[n], w)
	})
}

// AllGather gathers every rank's in into outs[rank].
func (pg *ProcessGroup) AllGather(outs []torch.Tensor, in torch.Tensor) error {
	return wait(pg.AllGatherAsync(outs, in))
}

// ReduceScatterAsync starts reducing ins (one tensor per rank) across the
// group and leaves reduction number rank in out.
func (pg *ProcessGroup) ReduceScatterAsync(out torch.Tensor, ins []torch.Tensor, op ReduceOp) (*Work, error) {
	if err := op.check(); err != nil {
		return nil, err
	}
	ts := append([]torch.Tensor{out}, ins...)
	return pg.start("reduce_scatter", ts, func(p C.gt_dist_pg, ps []C.gt_tensor, w *C.gt_dist_work) C.gt_error {
		return C.gt_dist_reduce_scatter(p, ps[0], first(ps[1:]), C.int64_t(len(ps)-1), C.int(op), w)
	})
}

// ReduceScatter reduces ins[i] across ranks into rank i's out.
func (pg *ProcessGroup) ReduceScatter(out torch.Tensor, ins []torch.Tensor, op ReduceOp) error {
	return wait(pg.ReduceScatterAsync(out, ins, op))
}

// BarrierAsync starts a barrier.
func (pg *ProcessGroup) BarrierAsync() (*Work, error) {
	return pg.start("barrier", nil, func(p C.gt_dist_pg, _ []C.gt_tensor, w *C.gt_dist_work) C.gt_error {
		return C.gt_dist_barrier(p, w)
	})
}

// Barrier returns once every rank has entered it.
func (pg *ProcessGroup) Barrier() error { return wait(pg.BarrierAsync()) }

// Isend starts sending t to rank dst; tag matches it with the Recv.
func (pg *ProcessGroup) Isend(t torch.Tensor, dst, tag int) (*Work, error) {
	if err := errors.Join(pg.checkPeer("send", "dst", dst), checkCInt("send", "tag", tag)); err != nil {
		return nil, err
	}
	return pg.start("send", []torch.Tensor{t}, func(p C.gt_dist_pg, ps []C.gt_tensor, w *C.gt_dist_work) C.gt_error {
		return C.gt_dist_send(p, ps[0], C.int(dst), C.int(tag), w)
	})
}

// Irecv starts receiving into t from rank src.
func (pg *ProcessGroup) Irecv(t torch.Tensor, src, tag int) (*Work, error) {
	if err := errors.Join(pg.checkPeer("recv", "src", src), checkCInt("recv", "tag", tag)); err != nil {
		return nil, err
	}
	return pg.start("recv", []torch.Tensor{t}, func(p C.gt_dist_pg, ps []C.gt_tensor, w *C.gt_dist_work) C.gt_error {
		return C.gt_dist_recv(p, ps[0], C.int(src), C.int(tag), w)
	})
}

// Send sends t to rank dst and waits until it is sent.
func (pg *ProcessGroup) Send(t torch.Tensor, dst, tag int) error { return wait(pg.Isend(t, dst, tag)) }

// Recv receives into t from rank src.
func (pg *ProcessGroup) Recv(t torch.Tensor, src, tag int) error { return wait(pg.Irecv(t, src, tag)) }

func wait(w *Work, err error) error {
	if err != nil {
		return err
	}
	return w.Wait()
}

// FreePort returns a TCP port on host that was free a moment ago (for
// tests and launchers that pick MASTER_PORT).
func FreePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

var errNoGroup = errors.New("distributed: no process group (call InitProcessGroup first)")

// DefaultOrError returns the default group, or an error if there is none.
func DefaultOrError() (*ProcessGroup, error) {
	if pg := Default(); pg != nil {
		return pg, nil
	}
	return nil, errNoGroup
}
