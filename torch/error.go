package torch

/*
#include "cgotorch.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// Error is the error of a failing op. The panicking form of an op panics
// with a *Error; its Try form returns one.
type Error struct {
	Op  string // the op that failed, as PyTorch names it ("add", "mm")
	Msg string // libtorch's message, or GoTorch's for Go-side checks
	Err error  // a sentinel such as ErrFreed, or nil for libtorch errors
}

func (e *Error) Error() string { return "torch." + e.Op + ": " + e.Msg }

// Unwrap returns the sentinel, so errors.Is(err, torch.ErrFreed) works.
func (e *Error) Unwrap() error { return e.Err }

var (
	// ErrUndefined is the cause when a zero Tensor{} is used where a tensor
	// is required.
	ErrUndefined = errors.New("undefined tensor (the zero Tensor{})")
	// ErrFreed is the cause when a tensor is used after Free.
	ErrFreed = errors.New("tensor used after Free")
	// ErrUnsupported is the cause when the linked libtorch lacks what was
	// asked: an op added after it or removed before it (the message says
	// which versions have it), or a dtype it does not know.
	ErrUnsupported = errors.New("not supported by this libtorch")
)

func newError(op string, cause error, format string, args ...any) *Error {
	return &Error{Op: op, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// unsupportedPrefix starts the C message of an op that the linked libtorch
// lacks (GT_UNSUPPORTED_PREFIX in cgotorch/internal.h).
const unsupportedPrefix = "gotorch-unsupported: "

// cError turns a C error into a Go error and frees the C string.
func cError(op string, e C.gt_error) error {
	if e == nil {
		return nil
	}
	msg := C.GoString(e)
	C.gt_free_error(e)
	if m, ok := strings.CutPrefix(msg, unsupportedPrefix); ok {
		return &Error{Op: op, Msg: m, Err: ErrUnsupported}
	}
	if oom := classifyOOM(msg); oom != nil {
		oom.Collected = onOutOfMemory()
		return &Error{Op: op, Msg: msg, Err: oom}
	}
	return &Error{Op: op, Msg: shortenDispatchError(trimOpPrefix(op, msg))}
}

// trimOpPrefix drops the op's name where libtorch's message starts with it
// ("torch.clamp: At least one of 'min' or 'max' must not be None"), since
// Error prints it first already.
func trimOpPrefix(op, msg string) string {
	for _, p := range [...]string{"torch." + op + ": ", op + ": ", op + "(): "} {
		if m, ok := strings.CutPrefix(msg, p); ok {
			return m
		}
	}
	return msg
}

// shortenDispatchError cuts libtorch's "no kernel for this backend" error,
// a first sentence that names the problem followed by some fifty lines
// listing every dispatch key, down to the first sentence and the backends
// that have the op.
func shortenDispatchError(msg string) string {
	const tail = " This could be because the operator doesn't exist for this backend"
	if !strings.HasPrefix(msg, "Could not run '") {
		return msg
	}
	i := strings.Index(msg, tail)
	if i < 0 {
		return msg
	}
	short := msg[:i]
	if _, list, ok := strings.Cut(msg[i:], "is only available for these backends: ["); ok {
		if list, _, ok = strings.Cut(list, "]"); ok {
			var backends []string
			for _, k := range strings.Split(list, ", ") {
				if isBackendKey(k) {
					backends = append(backends, k)
				}
			}
			if len(backends) > 0 {
				short += " It has kernels for " + strings.Join(backends, ", ") + "."
			} else {
				// pin_memory without CUDA: only a backend-less key such as
				// BackendSelect has a kernel.
				short += " It has no kernel for any device in this build."
			}
		}
	}
	return short
}

// must panics with err if it is not nil.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// must1 returns v, or panics with err.
func must1[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// SetBacktrace makes libtorch's errors carry their C++ backtrace. It is off
// by default; GOTORCH_BACKTRACE=1 in the environment turns it on at start.
func SetBacktrace(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.gt_set_backtrace(v)
}

func init() {
	if os.Getenv("GOTORCH_BACKTRACE") == "1" {
		SetBacktrace(true)
	}
}

// isBackendKey tells the dispatch keys of devices and layouts (CPU, Meta,
// SparseCPU, ...) from the framework keys (Autograd*, Python, Tracer, ...).
func isBackendKey(k string) bool {
	if strings.HasPrefix(k, "Autograd") || strings.HasPrefix(k, "Autocast") {
		return false
	}
	for _, b := range []string{"CPU", "CUDA", "Meta", "MPS", "XLA", "HIP", "XPU", "HPU", "IPU", "VE", "Lazy", "PrivateUse"} {
		if strings.Contains(k, b) {
			return true
		}
	}
	return false
}
