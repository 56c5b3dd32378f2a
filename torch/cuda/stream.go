package cuda

/*
#include "cuda/cuda.h"
*/
import "C"

import (
	"runtime"
	"time"

	"github.com/gotorch/gotorch/torch"
)

// Stream is a CUDA stream: a queue of kernels and copies that run in
// order, concurrently with other streams' (torch.cuda.Stream). Its memory
// is released when it becomes unreachable; the CUDA stream itself belongs
// to libtorch's pool and is never destroyed.
type Stream struct{ p C.gt_cuda_stream }

func newStream(op string, f func(*C.gt_cuda_stream) C.gt_error) (*Stream, error) {
	var p C.gt_cuda_stream
	if err := call(op, func() C.gt_error { return f(&p) }); err != nil {
		return nil, err
	}
	return adoptStream(p), nil
}

func adoptStream(p C.gt_cuda_stream) *Stream {
	s := &Stream{p}
	runtime.AddCleanup(s, func(p C.gt_cuda_stream) { C.gt_cuda_stream_free(p) }, p)
	return s
}

// NewStream takes a stream of device (or Current) from libtorch's pool,
// of high priority if asked: torch.cuda.Stream(device, priority).
func NewStream(device int, highPriority bool) (*Stream, error) {
	hp := C.int(0)
	if highPriority {
		hp = 1
	}
	return newStream("stream", func(p *C.gt_cuda_stream) C.gt_error {
		return C.gt_cuda_stream_new(C.int64_t(device), hp, p)
	})
}

// CurrentStream is the calling thread's current stream on device (or
// Current): torch.cuda.current_stream.
func CurrentStream(device int) (*Stream, error) {
	return newStream("current_stream", func(p *C.gt_cuda_stream) C.gt_error {
		return C.gt_cuda_stream_current(C.int64_t(device), p)
	})
}

// DefaultStream is device's default stream: torch.cuda.default_stream.
func DefaultStream(device int) (*Stream, error) {
	return newStream("default_stream", func(p *C.gt_cuda_stream) C.gt_error {
		return C.gt_cuda_stream_default(C.int64_t(device), p)
	})
}

func (s *Stream) check(op string) error {
	if s == nil || s.p == nil {
		return &torch.Error{Op: "cuda." + op, Msg: "nil stream"}
	}
	return noDevice(op)
}

// Device is the index of the stream's device.
func (s *Stream) Device() int {
	var id, d C.int64_t
	C.gt_cuda_stream_info(s.p, &id, &d)
	runtime.KeepAlive(s)
	return int(d)
}

// ID is libtorch's id of the stream (unique per device).
func (s *Stream) ID() int64 {
	var id, d C.int64_t
	C.gt_cuda_stream_info(s.p, &id, &d)
	runtime.KeepAlive(s)
	return int64(id)
}

// Synchronize waits until all the work queued on s is done.
func (s *Stream) Synchronize() error {
	if err := s.check("stream.synchronize"); err != nil {
		return err
	}
	err := cErr("stream.synchronize", C.gt_cuda_stream_synchronize(s.p))
	runtime.KeepAlive(s)
	return err
}

// Query reports whether all the work queued on s is done.
func (s *Stream) Query() (bool, error) {
	if err := s.check("stream.query"); err != nil {
		return false, err
	}
	var done C.int
	err := cErr("stream.query", C.gt_cuda_stream_query(s.p, &done))
	runtime.KeepAlive(s)
	return done != 0, err
}

// WaitEvent makes the work queued on s after this call wait for e, without
// blocking the host: Stream.wait_event. An event never recorded is no wait.
func (s *Stream) WaitEvent(e *Event) error {
	if err := s.check("stream.wait_event"); err != nil {
		return err
	}
	if err := e.check("stream.wait_event"); err != nil {
		return err
	}
	err := cErr("stream.wait_event", C.gt_cuda_stream_wait_event(s.p, e.p))
	runtime.KeepAlive(s)
	runtime.KeepAlive(e)
	return err
}

// WaitStream makes the work queued on s after this call wait for what is
// queued on other now: Stream.wait_stream.
func (s *Stream) WaitStream(other *Stream) error {
	e, err := NewEvent(false)
	if err != nil {
		return err
	}
	if err := e.Record(other); err != nil {
		return err
	}
	return s.WaitEvent(e)
}

// WithStream runs f with s as the current stream of s's device, then
// restores the previous one: with torch.cuda.stream(s). The goroutine is
// locked to its OS thread while f runs (the current stream is per
// thread), so ops that f issues on this goroutine go to s.
func WithStream(s *Stream, f func()) error {
	if err := s.check("stream"); err != nil {
		return err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var prev C.gt_cuda_stream
	if err := cErr("set_stream", C.gt_cuda_stream_exchange(s.p, &prev)); err != nil {
		return err
	}
	defer func() {
		var back C.gt_cuda_stream
		if C.gt_cuda_stream_exchange(prev, &back) == nil {
			C.gt_cuda_stream_free(back)
		}
		C.gt_cuda_stream_free(prev)
		runtime.KeepAlive(s)
	}()
	f()
	return nil
}

// Event is a CUDA event: a marker in a stream that the host or other
// streams can wait for, and, made with timing, a clock
// (torch.cuda.Event).
type Event struct{ p C.gt_cuda_event }

// NewEvent makes an event; timing enables ElapsedTime
// (torch.cuda.Event(enable_timing=True)).
func NewEvent(timing bool) (*Event, error) {
	t := C.int(0)
	if timing {
		t = 1
	}
	var p C.gt_cuda_event
	if err := call("event", func() C.gt_error { return C.gt_cuda_event_new(t, &p) }); err != nil {
		return nil, err
	}
	e := &Event{p}
	runtime.AddCleanup(e, func(p C.gt_cuda_event) { C.gt_cuda_event_free(p) }, p)
	return e, nil
}

func (e *Event) check(op string) error {
	if e == nil || e.p == nil {
		return &torch.Error{Op: "cuda." + op, Msg: "nil event"}
	}
	return noDevice(op)
}

// Record marks the current point of stream s (nil: the current stream of
// the current device) in e: Event.record.
func (e *Event) Record(s *Stream) error {
	if err := e.check("event.record"); err != nil {
		return err
	}
	if s == nil {
		var err error
		if s, err = CurrentStream(Current); err != nil {
			return err
		}
	}
	err := cErr("event.record", C.gt_cuda_event_record(e.p, s.p))
	runtime.KeepAlive(e)
	runtime.KeepAlive(s)
	return err
}

// Query reports whether the work e marks is done (true if e was never
// recorded).
func (e *Event) Query() (bool, error) {
	if err := e.check("event.query"); err != nil {
		return false, err
	}
	var done C.int
	err := cErr("event.query", C.gt_cuda_event_query(e.p, &done))
	runtime.KeepAlive(e)
	return done != 0, err
}

// Synchronize waits until the work e marks is done.
func (e *Event) Synchronize() error {
	if err := e.check("event.synchronize"); err != nil {
		return err
	}
	err := cErr("event.synchronize", C.gt_cuda_event_synchronize(e.p))
	runtime.KeepAlive(e)
	return err
}

// ElapsedTime is the GPU time between e and end, both recorded and made
// with timing, once end is done: Event.elapsed_time (which gives
// milliseconds). Call end.Synchronize() first.
func (e *Event) ElapsedTime(end *Event) (time.Duration, error) {
	if err := e.check("event.elapsed_time"); err != nil {
		return 0, err
	}
	if err := end.check("event.elapsed_time"); err != nil {
		return 0, err
	}
	var ms C.double
	err := cErr("event.elapsed_time", C.gt_cuda_event_elapsed_ms(e.p, end.p, &ms))
	runtime.KeepAlive(e)
	runtime.KeepAlive(end)
	return time.Duration(float64(ms) * float64(time.Millisecond)), err
}
