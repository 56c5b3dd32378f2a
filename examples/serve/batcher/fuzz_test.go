package batcher

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// kind is what the fuzzed batch function does for an input: x%8 picks it.
// A batch fails the way of its first failing input; one with only good
// inputs (0, 6, 7) doubles them.
func kind(x int) int { return ((x % 8) + 8) % 8 }

func fuzzRun(xs []int) ([]int, error) {
	for _, x := range xs {
		switch kind(x) {
		case 1:
			return nil, errors.New("bad batch")
		case 2:
			panic("boom")
		case 3:
			return make([]int, len(xs)+1), nil
		case 4:
			runtime.Goexit()
		case 5:
			time.Sleep(20 * time.Microsecond)
		}
	}
	return double(xs)
}

// FuzzBatcher drives a Batcher with a sequence of submissions, some with
// contexts that end early, whose batch function fails in every way it
// can (error, panic, wrong length, runtime.Goexit), and a Close at some
// point. Every Submit must return, within seconds, either the right output
// or one of the documented errors; after Close every Submit is refused and
// Close returns once the queue has drained.
func FuzzBatcher(f *testing.F) {
	f.Add([]byte{1, 4, 0, 6, 7})
	f.Add([]byte{3, 8, 0x44, 0x10, 0x2c, 0x04, 0x11, 0xff, 0x00})
	f.Add([]byte{2, 2, 0x0c, 0x0c, 0x0c, 0x90, 0x0e, 0x16})
	f.Add([]byte{0x85, 1, 0x01, 0x02, 0x03, 0x04, 0x05, 0xc0, 0x06})
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) < 2 || len(prog) > 256 {
			return
		}
		opts := Options{MaxBatch: int(prog[0]&7) + 1, QueueSize: int(prog[1]&15) + 1}
		if prog[0]&0x80 != 0 {
			opts.MaxWait = 50 * time.Microsecond
		}
		b := New(fuzzRun, opts)
		var wg sync.WaitGroup
		closedAt := -1
		for i, op := range prog[2:] {
			x := int(op & 0x3f)
			switch op >> 6 {
			case 3: // Close (the next ops then must be refused)
				if closedAt < 0 {
					closedAt = i
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					if err := b.Close(ctx); err != nil {
						t.Fatalf("Close: %v", err)
					}
					cancel()
					if !b.Closed() {
						t.Fatal("Closed() is false after Close")
					}
				}
				continue
			}
			wantClosed := closedAt >= 0
			cancelEarly := op>>6 == 2
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if cancelEarly {
					go cancel()
				}
				type res struct {
					out int
					err error
				}
				done := make(chan res, 1)
				go func() { out, err := b.Submit(ctx, x); done <- res{out, err} }()
				var r res
				select {
				case r = <-done:
				case <-time.After(20 * time.Second):
					t.Errorf("Submit(%d) did not return", x)
					return
				}
				switch {
				case wantClosed:
					if !errors.Is(r.err, ErrClosed) && !errors.Is(r.err, context.Canceled) {
						t.Errorf("Submit(%d) after Close: %v, want ErrClosed", x, r.err)
					}
				case r.err == nil:
					if k := kind(x); k != 0 && k != 5 && k != 6 && k != 7 {
						t.Errorf("Submit(%d) of a failing kind %d succeeded", x, k)
					}
					if r.out != 2*x {
						t.Errorf("Submit(%d) = %d, want %d", x, r.out, 2*x)
					}
				default:
					if !knownError(r.err) {
						t.Errorf("Submit(%d): undocumented error %v", x, r.err)
					}
				}
			}()
			if op&1 == 0 {
				wg.Wait() // alternate bursts and one-at-a-time
			}
		}
		wg.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Close(ctx); err != nil {
			t.Fatalf("final Close: %v", err)
		}
		if _, err := b.Submit(context.Background(), 0); !errors.Is(err, ErrClosed) {
			t.Fatalf("Submit after the final Close: %v", err)
		}
	})
}

func knownError(err error) bool {
	switch {
	case errors.Is(err, ErrQueueFull), errors.Is(err, ErrClosed), errors.Is(err, ErrWorkerExited),
		errors.Is(err, context.Canceled):
		return true
	}
	s := err.Error()
	return s == "bad batch" || strings.Contains(s, "panicked: boom") || strings.Contains(s, "outputs for")
}
