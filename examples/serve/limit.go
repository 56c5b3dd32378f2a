package main

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// limitListener accepts at most a fixed number of connections at once
// (none when the limit is 0 or less): Accept waits for one of them to
// close, and the kernel's backlog holds the clients beyond. Each
// connection a client holds costs a goroutine, buffers and, when it
// sends, parsing and a 503; past a few hundred they only take CPU from
// the batch worker. (golang.org/x/net/netutil's LimitListener does the
// same; the module does not depend on x/net.)
//
// It also counts the connections that have carried a /predict request
// (senders): HTTP/1.1 carries one request at a time, so no more
// requests can arrive at once than there are such connections, which
// lets the batcher stop waiting for a batch to fill when every one of
// them has its request in it (batcher.Options.Senders).
type limitListener struct {
	net.Listener
	slots     chan struct{} // one per connection, and one for the Accept under way; nil: no limit
	open      atomic.Int64
	senders   atomic.Int64
	done      chan struct{}
	closeOnce sync.Once
}

func newLimitListener(l net.Listener, n int) *limitListener {
	ll := &limitListener{Listener: l, done: make(chan struct{})}
	if n > 0 {
		ll.slots = make(chan struct{}, n)
	}
	return ll
}

// Open is the number of connections accepted and not yet closed.
func (l *limitListener) Open() int { return int(l.open.Load()) }

// Senders is the number of open connections that have carried a
// /predict request.
func (l *limitListener) Senders() int { return int(l.senders.Load()) }

func (l *limitListener) Accept() (net.Conn, error) {
	if l.slots != nil {
		select {
		case l.slots <- struct{}{}:
		case <-l.done:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		if l.slots != nil {
			<-l.slots
		}
		return nil, err
	}
	l.open.Add(1)
	return &limitConn{Conn: c, l: l}, nil
}

func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// limitConn gives its slot back, and uncounts itself, on its first Close.
type limitConn struct {
	net.Conn
	l      *limitListener
	mu     sync.Mutex
	closed bool
	sender bool // has carried a /predict request
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return err
	}
	c.closed = true
	if c.sender {
		c.l.senders.Add(-1)
	}
	c.l.open.Add(-1)
	if c.l.slots != nil {
		<-c.l.slots
	}
	return err
}

// connKey is the context key under which withConn stores a request's
// connection.
type connKey struct{}

// withConn is http.Server's ConnContext: it gives each request's context
// its connection, for markSender.
func withConn(ctx context.Context, c net.Conn) context.Context {
	if lc, ok := c.(*limitConn); ok {
		return context.WithValue(ctx, connKey{}, lc)
	}
	return ctx
}

// markSender counts r's connection among the senders, once, unless it
// has closed.
func markSender(r *http.Request) {
	c, ok := r.Context().Value(connKey{}).(*limitConn)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed && !c.sender {
		c.sender = true
		c.l.senders.Add(1)
	}
}
