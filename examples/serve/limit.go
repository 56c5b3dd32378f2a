package main

import (
	"net"
	"sync"
	"sync/atomic"
)

// limitListener accepts at most a fixed number of connections at once:
// Accept waits for one of them to close, and the kernel's backlog holds
// the clients beyond. Each connection a client holds costs a goroutine,
// buffers and, when it sends, parsing and a 503; past a few hundred they
// only take CPU from the batch worker. (golang.org/x/net/netutil's
// LimitListener does the same; the module does not depend on x/net.)
type limitListener struct {
	net.Listener
	slots     chan struct{} // one per connection, and one for the Accept under way
	open      atomic.Int64
	done      chan struct{}
	closeOnce sync.Once
}

func newLimitListener(l net.Listener, n int) *limitListener {
	return &limitListener{Listener: l, slots: make(chan struct{}, n), done: make(chan struct{})}
}

// Open is the number of connections accepted and not yet closed.
func (l *limitListener) Open() int { return int(l.open.Load()) }

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	l.open.Add(1)
	return &limitConn{Conn: c, release: func() { l.open.Add(-1); <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back on its first Close.
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
