package torch

/*
#include <stdlib.h>
#include "hook.h"

extern gt_error gotorchCallHook(uintptr_t fn, gt_tensor grad, gt_tensor *out);
extern void gotorchReleaseHook(uintptr_t fn);
*/
import "C"

import (
	"fmt"
	"runtime"
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Tensor hooks (PyTorch's Tensor.register_hook). The Go function lives in
// a cgo.Handle; the closure that libtorch keeps on the tensor
// (cgotorch/hook.cc) owns the handle and gives it back through
// gotorchReleaseHook when libtorch destroys it: when the hook is taken off
// or the tensor dies. liveHooks counts the handles not yet given back.

var liveHooks atomic.Int64

// hookThreads holds the OS threads that run a hook now, with how many
// hooks each runs (nested backward passes). A hook runs on the thread that
// called into libtorch, locked to its goroutine until it returns, so no
// other goroutine runs there meanwhile: a goroutine finds its own thread
// here only from inside a hook.
var hookThreads = struct {
	sync.Mutex
	m map[int]int
}{m: map[int]int{}}

func enterHook() int {
	tid := syscall.Gettid()
	hookThreads.Lock()
	hookThreads.m[tid]++
	hookThreads.Unlock()
	return tid
}

func leaveHook(tid int) {
	hookThreads.Lock()
	if hookThreads.m[tid]--; hookThreads.m[tid] == 0 {
		delete(hookThreads.m, tid)
	}
	hookThreads.Unlock()
}

// inHook reports whether the calling goroutine runs inside a hook.
func inHook() bool {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	hookThreads.Lock()
	defer hookThreads.Unlock()
	return hookThreads.m[syscall.Gettid()] > 0
}

func init() {
	C.gt_hook_set_callbacks(C.gt_hook_call_fn(C.gotorchCallHook), C.gt_hook_release_fn(C.gotorchReleaseHook))
}

// RemovableHandle is a hook that RegisterHook registered (PyTorch's
// torch.utils.hooks.RemovableHandle). Dropping it leaves the hook in
// place, as in PyTorch; Remove takes it off.
type RemovableHandle struct {
	ref *hookRef
}

// hookRef holds the C handle of a hook, apart from RemovableHandle so that
// a cleanup can free it.
type hookRef struct {
	mu sync.Mutex
	h  C.gt_hook // nil once removed
}

// RegisterHook registers fn to run during backward each time the gradient
// of t is computed, with that gradient: a leaf's before it is accumulated
// into Grad. fn may return a replacement gradient, of the same shape,
// dtype and device, or the zero Tensor{} to keep it (PyTorch's None):
//
//	h := w.RegisterHook(func(g torch.Tensor) torch.Tensor { return g.Mul(torch.Scalar(2)) })
//	loss.Backward() // w.Grad() is twice the gradient
//	h.Remove()
//
// t must require grad. A panic in fn becomes the error of Backward. fn may
// read and set gradients (Grad, ZeroGrad, SetData run under the running
// Backward's lock there instead of waiting for it), but not register hooks
// (RegisterHook returns an error there). The
// hook lives as long as t's native tensor, or until Remove; an fn that
// refers to t itself keeps t alive until Remove or t.Free, since Go cannot
// see the cycle through libtorch. It panics with the error
// TryRegisterHook returns.
func (t Tensor) RegisterHook(fn func(grad Tensor) Tensor) *RemovableHandle {
	return must1(t.TryRegisterHook(fn))
}

// TryRegisterHook is RegisterHook that returns its error.
func (t Tensor) TryRegisterHook(fn func(grad Tensor) Tensor) (*RemovableHandle, error) {
	const op = "register_hook"
	if fn == nil {
		return nil, newError(op, nil, "the hook is a nil function")
	}
	if err := lockGradForHooks(op); err != nil {
		return nil, err
	}
	defer gradMu.Unlock()
	detachPendingLocked()
	p, err := t.ptr(op, "self")
	if err != nil {
		return nil, err
	}
	h := cgo.NewHandle(fn)
	liveHooks.Add(1)
	var hk C.gt_hook
	e := C.gt_tensor_register_hook(p, C.uintptr_t(h), &hk)
	t.unpin()
	if err := cError(op, e); err != nil {
		h.Delete()
		liveHooks.Add(-1)
		return nil, err
	}
	ref := &hookRef{h: hk}
	r := &RemovableHandle{ref: ref}
	runtime.AddCleanup(r, func(ref *hookRef) {
		ref.mu.Lock()
		if ref.h != nil {
			C.gt_hook_free(ref.h) // the hook stays on its tensor
			ref.h = nil
		}
		ref.mu.Unlock()
	}, ref)
	return r, nil
}

// Remove takes the hook off its tensor: the next backward passes the
// gradient through. Calling it again, or after the tensor is gone, does
// nothing. It may be called from a hook.
func (r *RemovableHandle) Remove() {
	if r == nil || r.ref == nil {
		return
	}
	r.ref.mu.Lock()
	h := r.ref.h
	r.ref.h = nil
	r.ref.mu.Unlock()
	if h == nil {
		return
	}
	C.gt_hook_disable(h)
	// libtorch may take a hook off only while no backward runs: otherwise
	// it waits, turned off, for the next RegisterHook or Remove that finds
	// none running.
	pendingMu.Lock()
	pending = append(pending, h)
	pendingMu.Unlock()
	if gradMu.TryLock() {
		detachPendingLocked()
		gradMu.Unlock()
	}
}

var (
	pendingMu sync.Mutex
	pending   []C.gt_hook // removed hooks still on their tensors
)

// detachPendingLocked takes the removed hooks off their tensors, which
// gives their handles back; the caller holds gradMu.
func detachPendingLocked() {
	pendingMu.Lock()
	hs := pending
	pending = nil
	pendingMu.Unlock()
	for _, h := range hs {
		e := C.gt_hook_detach(h)
		C.gt_hook_free(h)
		if err := cError("remove_hook", e); err != nil {
			panic(err) // libtorch lost the hook list: not the caller's input
		}
	}
}

// lockGradForHooks takes gradMu, waiting for running backward passes,
// unless called from a hook, which would wait for its own Backward.
func lockGradForHooks(op string) error {
	for wait := time.Microsecond; !gradMu.TryLock(); wait = min(2*wait, time.Millisecond) {
		if inHook() {
			return newError(op, nil, "called from a backward hook: register hooks before Backward or after it returns")
		}
		time.Sleep(wait)
	}
	return nil
}

//export gotorchCallHook
func gotorchCallHook(fn C.uintptr_t, grad C.gt_tensor, out *C.gt_tensor) (e C.gt_error) {
	defer leaveHook(enterHook())
	g := newTensorQ(grad)
	defer func() {
		if r := recover(); r != nil {
			if *out != nil {
				C.gt_tensor_free(*out)
				*out = nil
			}
			e = C.CString(fmt.Sprintf("register_hook: the hook panicked: %v", r))
		}
	}()
	res := cgo.Handle(fn).Value().(func(Tensor) Tensor)(g)
	if res.handle == nil {
		return nil
	}
	p, err := res.ptr("register_hook", "the hook's result")
	if err != nil {
		return C.CString(err.Error())
	}
	*out = C.gt_tensor_share(p)
	res.unpin()
	return nil
}

//export gotorchReleaseHook
func gotorchReleaseHook(fn C.uintptr_t) {
	cgo.Handle(fn).Delete()
	liveHooks.Add(-1)
}
