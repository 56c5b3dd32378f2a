package main

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errNoPlace is acquire's error when every place is taken and the line
// is full, or when no place came free within the wait.
var errNoPlace = errors.New("no place in flight")

// admission bounds the /predict requests in flight (decoding, queued or
// in a batch) and keeps a line of those waiting for a place, first come
// first served: a freed place goes to the oldest waiter, never to a
// request that arrives later. A request in line has not had its body
// read, and waits parked, so a server over capacity spends nothing on
// it; a closed-loop client that got 503 at once would send again at once
// and keep the CPU busy with refusals (issue #36).
type admission struct {
	max     int // places
	maxLine int // waiters beyond them

	mu       sync.Mutex
	inFlight int
	line     []*waiter // oldest first
}

type waiter struct {
	granted chan struct{} // closed when a place is handed over
}

func newAdmission(places, line int) *admission {
	return &admission{max: places, maxLine: line}
}

// counts returns the requests in flight and those in line.
func (a *admission) counts() (inFlight, waiting int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inFlight, len(a.line)
}

// free reports whether a request arriving now would get a place at once.
func (a *admission) free() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inFlight < a.max && len(a.line) == 0
}

// acquire takes a place: at once if one is free and nobody waits,
// otherwise by waiting in line for at most wait (errNoPlace when the line
// is full or the wait ends first, ctx's error when ctx ends first). Each
// nil return must be paired with one release.
func (a *admission) acquire(ctx context.Context, wait time.Duration) error {
	a.mu.Lock()
	if a.inFlight < a.max && len(a.line) == 0 {
		a.inFlight++
		a.mu.Unlock()
		return nil
	}
	if wait <= 0 || len(a.line) >= a.maxLine {
		a.mu.Unlock()
		return errNoPlace
	}
	w := &waiter{granted: make(chan struct{})}
	a.line = append(a.line, w)
	a.mu.Unlock()

	timer := time.NewTimer(wait)
	defer timer.Stop()
	var err error
	select {
	case <-w.granted:
		return nil
	case <-timer.C:
		err = errNoPlace
	case <-ctx.Done():
		err = ctx.Err()
	}
	a.mu.Lock()
	select {
	case <-w.granted: // handed a place while giving up: pass it on
		a.mu.Unlock()
		a.release()
		return err
	default:
	}
	for i, x := range a.line {
		if x == w {
			a.line = append(a.line[:i], a.line[i+1:]...)
			break
		}
	}
	a.mu.Unlock()
	return err
}

// release gives a place back: to the oldest waiter if any (a waiter
// that gives up leaves the line under mu, so every one in it still
// waits), else to the pool.
func (a *admission) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.line) > 0 {
		w := a.line[0]
		a.line[0] = nil
		a.line = a.line[1:]
		close(w.granted) // the place passes on: inFlight stays
		return
	}
	if a.inFlight <= 0 {
		panic("admission: release without acquire")
	}
	a.inFlight--
}
