package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdmissionIsFirstComeFirstServed: freed places go to the waiters
// in the order they came, a request that arrives later does not take a
// place before them, and a waiter that gives up leaves the line.
func TestAdmissionIsFirstComeFirstServed(t *testing.T) {
	a := newAdmission(1, 3)
	require.NoError(t, a.acquire(context.Background(), 0))
	assert.ErrorIs(t, a.acquire(context.Background(), 0), errNoPlace, "no wait, no place")

	got := make(chan int, 3)
	ctx2, cancel2 := context.WithCancel(context.Background())
	for i, ctx := range []context.Context{context.Background(), ctx2, context.Background()} {
		go func() {
			if err := a.acquire(ctx, time.Hour); err != nil {
				got <- -i - 1
				return
			}
			got <- i
		}()
		waitFor(t, func() bool { _, w := a.counts(); return w == i+1 })
	}
	assert.ErrorIs(t, a.acquire(context.Background(), time.Hour), errNoPlace, "the line is full")
	assert.False(t, a.free())

	cancel2()
	assert.Equal(t, -2, <-got, "the cancelled waiter gives up")
	waitFor(t, func() bool { _, w := a.counts(); return w == 2 })

	a.release()
	assert.Equal(t, 0, <-got, "the first in line gets the place")
	a.release()
	assert.Equal(t, 2, <-got)
	n, w := a.counts()
	assert.Equal(t, 1, n)
	assert.Zero(t, w)
	a.release()
	assert.True(t, a.free())
	assert.Panics(t, a.release, "a release without an acquire is a bug")
}
