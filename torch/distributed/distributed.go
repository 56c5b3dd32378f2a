// Package distributed is GoTorch's torch.distributed: process groups on
// c10d, PyTorch's own distributed engine, with Gloo on CPUs (NCCL where the
// libtorch has it).
//
// A program started by torchrun (or by gop-torch run -nproc N) joins its
// job with
//
//	pg, err := distributed.InitProcessGroup(distributed.Gloo)
//	defer distributed.DestroyProcessGroup()
//	err = pg.AllReduce(grad, distributed.Avg)
//
// which reads torchrun's environment: RANK, WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT (rank 0 serves a TCPStore there, unless
// TORCHELASTIC_USE_AGENT_STORE says torchrun's agent does), LOCAL_RANK and
// TORCHELASTIC_RESTART_COUNT. Options give the rank, world size and store
// explicitly instead (WithRank, WithWorldSize, WithStore and
// NewFileStore/NewTCPStore). GLOO_SOCKET_IFNAME picks Gloo's network
// interface, as in PyTorch.
//
// Collectives (AllReduce, Broadcast, AllGather, ReduceScatter, Barrier,
// Send, Recv) work in place on contiguous CPU tensors and block; their
// *Async forms return a Work to Wait on. Every op fails, never hangs, when
// a peer dies: within the group's timeout (WithTimeout, 30 minutes by
// default as in PyTorch), with an error that names the op, this rank and
// the ranks that no longer answer.
//
// nn/parallel builds DDP on this package; data.DistributedSampler splits a
// dataset across ranks.
package distributed

/*
#cgo CFLAGS: -I${SRCDIR}/../../cgotorch -I${SRCDIR}/../../cgotorch/distributed
#include <stdlib.h>
#include "distributed.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"time"
	"unsafe"

	dist "github.com/gotorch/gotorch/cgotorch/distributed"
	"github.com/gotorch/gotorch/torch/internal/native"
)

// Backend names a c10d backend.
type Backend string

const (
	Gloo Backend = "gloo" // CPU tensors, TCP
	NCCL Backend = "nccl" // CUDA tensors; ErrUnsupported in a CPU-only libtorch
)

// ReduceOp is the reduction of AllReduce and ReduceScatter.
type ReduceOp int

const (
	Sum ReduceOp = iota
	Avg          // the sum divided by the world size (floating-point tensors)
	Product
	Min
	Max
)

func (op ReduceOp) String() string {
	switch op {
	case Sum:
		return "sum"
	case Avg:
		return "avg"
	case Product:
		return "product"
	case Min:
		return "min"
	case Max:
		return "max"
	}
	return "ReduceOp(" + strconv.Itoa(int(op)) + ")"
}

// DefaultTimeout is PyTorch's default process-group timeout.
const DefaultTimeout = 30 * time.Minute

// HasNCCL reports whether the linked libtorch has the NCCL backend.
func HasNCCL() bool { return dist.HasNCCL() }

func cerr(op string, e C.gt_error) error {
	if e == nil {
		return nil
	}
	return native.Error("distributed."+op, unsafe.Pointer(e))
}

// Store is a c10d key-value store, through which the ranks of a job find
// each other.
type Store struct {
	mu   sync.Mutex
	p    C.gt_dist_store
	desc string
}

// NewTCPStore connects to (or, with isServer, serves) a TCPStore at
// host:port for worldSize processes. timeout bounds every store operation
// and the connection itself.
func NewTCPStore(host string, port, worldSize int, isServer bool, timeout time.Duration) (*Store, error) {
	if port < 0 || port > 65535 {
		return nil, fmt.Errorf("distributed: TCPStore port %d out of range", port)
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("distributed: TCPStore timeout must be positive, got %v", timeout)
	}
	if err := checkCInt("TCPStore", "world size", worldSize); err != nil {
		return nil, err
	}
	ch := C.CString(host)
	defer C.free(unsafe.Pointer(ch))
	var p C.gt_dist_store
	srv := 0
	if isServer {
		srv = 1
	}
	if err := cerr("TCPStore", C.gt_dist_tcp_store(ch, C.int(port), C.int(srv), C.int(worldSize), C.int64_t(cMillis(timeout)), &p)); err != nil {
		return nil, fmt.Errorf("distributed: TCPStore %s:%d: %w", host, port, err)
	}
	return newStore(p, fmt.Sprintf("TCPStore %s:%d", host, port)), nil
}

// NewFileStore opens a FileStore at path (a file on a file system that
// every rank sees) for worldSize processes.
func NewFileStore(path string, worldSize int) (*Store, error) {
	if err := checkCInt("FileStore", "world size", worldSize); err != nil {
		return nil, err
	}
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	var p C.gt_dist_store
	if err := cerr("FileStore", C.gt_dist_file_store(cp, C.int(worldSize), &p)); err != nil {
		return nil, fmt.Errorf("distributed: FileStore %s: %w", path, err)
	}
	return newStore(p, "FileStore "+path), nil
}

func newStore(p C.gt_dist_store, desc string) *Store {
	s := &Store{p: p, desc: desc}
	runtime.SetFinalizer(s, (*Store).Close)
	return s
}

// WithPrefix returns a view of s whose keys all start with prefix.
func (s *Store) WithPrefix(prefix string) (*Store, error) {
	p, err := s.handle()
	if err != nil {
		return nil, err
	}
	cp := C.CString(prefix)
	defer C.free(unsafe.Pointer(cp))
	var out C.gt_dist_store
	err = cerr("PrefixStore", C.gt_dist_prefix_store(cp, p, &out))
	runtime.KeepAlive(s)
	if err != nil {
		return nil, err
	}
	return newStore(out, s.desc+" prefix "+prefix), nil
}

func (s *Store) handle() (C.gt_dist_store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p == nil {
		return nil, errors.New("distributed: " + s.desc + " used after Close")
	}
	return s.p, nil
}

// Set stores value under key.
func (s *Store) Set(key string, value []byte) error {
	p, err := s.handle()
	if err != nil {
		return err
	}
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	var v unsafe.Pointer
	if len(value) > 0 {
		v = C.CBytes(value)
		defer C.free(v)
	}
	err = cerr("store.set", C.gt_dist_store_set(p, ck, v, C.int64_t(len(value))))
	runtime.KeepAlive(s)
	return err
}

// Get waits (up to the store's timeout) for key and returns its value.
func (s *Store) Get(key string) ([]byte, error) {
	p, err := s.handle()
	if err != nil {
		return nil, err
	}
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	var v unsafe.Pointer
	var n C.int64_t
	err = cerr("store.get", C.gt_dist_store_get(p, ck, &v, &n))
	runtime.KeepAlive(s)
	if err != nil {
		return nil, err
	}
	defer C.free(v)
	return C.GoBytes(v, C.int(n)), nil
}

// Add adds delta to the counter at key and returns its new value.
func (s *Store) Add(key string, delta int64) (int64, error) {
	p, err := s.handle()
	if err != nil {
		return 0, err
	}
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	var out C.int64_t
	err = cerr("store.add", C.gt_dist_store_add(p, ck, C.int64_t(delta), &out))
	runtime.KeepAlive(s)
	return int64(out), err
}

// Close releases the store (a server stops serving).
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.p != nil {
		C.gt_dist_store_free(s.p)
		s.p = nil
	}
	return nil
}

func (s *Store) String() string { return s.desc }
