package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// TestOverloadShedsBeforeTheBody: with MaxInFlight requests in flight and
// no line (AdmitWait < 0), the next gets 503 with Retry-After before a
// byte of its body is read, and
// the server answers again once they are done (issue #36: each refused
// request used to read and decode its body first).
func TestOverloadShedsBeforeTheBody(t *testing.T) {
	g := newGated(realModel(t))
	s := newTestServer(t, g, Config{MaxBatch: 1, QueueSize: 1, MaxInFlight: 2, AdmitWait: -1})
	body := jsonBody(testImage())
	codes := make(chan int, 2)
	send := func() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/predict", bytes.NewReader(body)))
		codes <- rec.Code
	}
	go send()
	<-g.started
	go send()
	waitFor(t, func() bool { return inFlightOf(s) == 2 })

	cr := &countingReader{r: bytes.NewReader(body)}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/predict", cr)
	req.Header.Set("Content-Type", "application/json")
	s.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	assert.Contains(t, rec.Body.String(), "overloaded: 2 requests in flight")
	assert.Zero(t, cr.n.Load(), "the refused request's body was not read")

	close(g.release)
	assert.Equal(t, 200, <-codes)
	assert.Equal(t, 200, <-codes)
	rec, _ = post(t, s, "application/json", body)
	assert.Equal(t, http.StatusOK, rec.Code, "the next request is answered")
	assert.Zero(t, inFlightOf(s))

	mrec := httptest.NewRecorder()
	s.ServeHTTP(mrec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	assert.Contains(t, mrec.Body.String(), "serve_shed_requests_total 1")
}

// TestBodyBombs: a declared length over MaxBodyBytes is refused before
// reading; a chunked body that grows past it is cut at the limit; an
// endless body is not read to its end.
func TestBodyBombs(t *testing.T) {
	s := newTestServer(t, realModel(t), Config{MaxBodyBytes: 16 << 10})
	cr := &countingReader{r: bytes.NewReader(make([]byte, 1<<20))}
	req := httptest.NewRequest(http.MethodPost, "/predict", cr)
	req.ContentLength = 1 << 40
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	assert.Zero(t, cr.n.Load())

	endless := &countingReader{r: zeros{}}
	req = httptest.NewRequest(http.MethodPost, "/predict", endless)
	req.ContentLength = -1 // chunked: the length is not known
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	assert.Less(t, endless.n.Load(), int64(64<<10), "reading stopped near the limit")

	rec, _ = post(t, s, "application/json", jsonBody(testImage()))
	assert.Equal(t, http.StatusOK, rec.Code)
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// serveOn runs s.Serve on a loopback listener until the test ends.
func serveOn(t *testing.T, s *Server) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return l.Addr().String()
}

// TestHeaderBombAndSlowClients: a header over MaxHeaderBytes gets 431;
// clients that send half a request and stall hold a connection but keep
// no one else from an answer, and the connection cap frees a place when
// one of them goes.
func TestHeaderBombAndSlowClients(t *testing.T) {
	s := NewServer(realModel(t), Config{MaxConns: 3, MaxHeaderBytes: 4 << 10})
	addr := serveOn(t, s)
	client := &http.Client{Timeout: 10 * time.Second}
	url := "http://" + addr + "/predict"

	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(jsonBody(testImage())))
	require.NoError(t, err)
	req.Header.Set("X-Bomb", strings.Repeat("a", 64<<10))
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, resp.StatusCode)

	// Two slow clients: one stalls in its header, one in its body.
	slowHeader, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer slowHeader.Close()
	fmt.Fprintf(slowHeader, "POST /predict HTTP/1.1\r\nHost: x\r\nContent-Ty")
	slowBody, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer slowBody.Close()
	fmt.Fprintf(slowBody, "POST /predict HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{\"image\": [")
	waitFor(t, func() bool { return s.conns.Load() != nil && s.conns.Load().Open() == 2 })

	post := func() int {
		resp, err := (&http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}).
			Post(url, "application/json", bytes.NewReader(jsonBody(testImage())))
		require.NoError(t, err)
		defer resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusOK, post(), "the third connection is answered beside the stalled two")
	assert.Zero(t, inFlightOf(s), "the stalled body holds no place in flight")

	// Fill the cap with a third idle connection: a new client waits for a
	// place, and gets it when a slow client goes.
	idle, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer idle.Close()
	waitFor(t, func() bool { return s.conns.Load().Open() == 3 })
	answered := make(chan int, 1)
	go func() { answered <- post() }()
	select {
	case code := <-answered:
		t.Fatalf("a fourth connection was served (%d) beyond MaxConns 3", code)
	case <-time.After(200 * time.Millisecond):
	}
	slowHeader.Close()
	select {
	case code := <-answered:
		assert.Equal(t, http.StatusOK, code)
	case <-time.After(10 * time.Second):
		t.Fatal("a closed connection did not free its place")
	}
	// The slow body's request is answered 400 once its client gives up.
	slowBody.(*net.TCPConn).CloseWrite()
	line, err := bufio.NewReader(slowBody).ReadString('\n')
	require.NoError(t, err)
	assert.Contains(t, line, "400")
}

// inFlightOf is the number of /predict requests holding a place.
func inFlightOf(s *Server) int64 {
	n, _ := s.admit.counts()
	return int64(n)
}

// TestLineWaitsWithTheBodyUnread: beyond MaxInFlight a request waits in
// line without its body read; beyond the line one gets 503 at once, its
// body unread; a freed place goes to the one in line, which is answered.
func TestLineWaitsWithTheBodyUnread(t *testing.T) {
	g := newGated(realModel(t))
	s := newTestServer(t, g, Config{MaxBatch: 1, QueueSize: 2, MaxInFlight: 2, MaxWaiting: 1, AdmitWait: time.Hour})
	body := jsonBody(testImage())
	codes := make(chan int, 3)
	send := func(r io.Reader) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/predict", r)
		req.Header.Set("Content-Type", "application/json")
		s.ServeHTTP(rec, req)
		codes <- rec.Code
	}
	go send(bytes.NewReader(body))
	<-g.started
	go send(bytes.NewReader(body))
	waitFor(t, func() bool { return inFlightOf(s) == 2 })

	waiting := &countingReader{r: bytes.NewReader(body)}
	go send(waiting)
	waitFor(t, func() bool { _, n := s.admit.counts(); return n == 1 })
	assert.Zero(t, waiting.n.Load(), "the body of a request in line is not read")

	refused := &countingReader{r: bytes.NewReader(body)}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/predict", refused)
	req.Header.Set("Content-Type", "application/json")
	s.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code, "the line is full")
	assert.Contains(t, rec.Body.String(), "overloaded: 2 requests in flight and 1 waiting")
	assert.Zero(t, refused.n.Load(), "a request beyond the line is refused before its body is read")

	close(g.release)
	for range 3 {
		assert.Equal(t, http.StatusOK, <-codes)
	}
	assert.Equal(t, int64(len(body)), waiting.n.Load(), "the request in line was answered once it had a place")
	n, w := s.admit.counts()
	assert.Zero(t, n)
	assert.Zero(t, w)
}

// TestLineWaitEnds: a request that finds no place within AdmitWait gets
// 503, its body unread, and leaves the line.
func TestLineWaitEnds(t *testing.T) {
	g := newGated(realModel(t))
	s := newTestServer(t, g, Config{MaxBatch: 1, QueueSize: 1, MaxInFlight: 1, AdmitWait: time.Millisecond})
	body := jsonBody(testImage())
	first := make(chan int, 1)
	go func() { rec, _ := post(t, s, "application/json", body); first <- rec.Code }()
	<-g.started
	cr := &countingReader{r: bytes.NewReader(body)}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/predict", cr))
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	assert.Zero(t, cr.n.Load())
	_, w := s.admit.counts()
	assert.Zero(t, w, "it left the line")
	close(g.release)
	assert.Equal(t, http.StatusOK, <-first)
}

// TestLoneConnectionDoesNotWait: requests one after another on one
// connection run at once, although MaxWait is an hour: no other request
// can arrive to share their batch (issue #35). The connection counts as
// one sender from its first /predict on, a GET does not make one, and a
// closed connection no longer counts.
func TestLoneConnectionDoesNotWait(t *testing.T) {
	s := NewServer(realModel(t), Config{MaxWait: time.Hour})
	addr := serveOn(t, s)
	tr := &http.Transport{MaxConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}

	resp, err := client.Get("http://" + addr + "/healthz")
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Zero(t, s.senders(), "a GET makes no sender")
	for i := range 3 {
		type res struct {
			code int
			err  error
		}
		done := make(chan res, 1)
		go func() {
			resp, err := client.Post("http://"+addr+"/predict", "application/json", bytes.NewReader(jsonBody(testImage())))
			if err != nil {
				done <- res{err: err}
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			done <- res{code: resp.StatusCode}
		}()
		select {
		case r := <-done:
			require.NoError(t, r.err)
			assert.Equal(t, http.StatusOK, r.code)
		case <-time.After(time.Minute): // MaxWait is an hour: a minute means it waited
			t.Fatalf("request %d on the only connection waited for a batch to fill", i)
		}
		assert.Equal(t, 1, s.senders())
	}
	tr.CloseIdleConnections()
	waitFor(t, func() bool { return s.senders() == 0 })
}

// TestConnectionsShareABatch: requests from several connections that
// arrive while the worker is busy still run as one batch.
func TestConnectionsShareABatch(t *testing.T) {
	g := newGated(realModel(t))
	s := NewServer(g, Config{MaxWait: 20 * time.Millisecond})
	addr := serveOn(t, s)
	codes := make(chan int, 6)
	send := func() {
		resp, err := (&http.Client{}).Post("http://"+addr+"/predict", "application/json", bytes.NewReader(jsonBody(testImage())))
		if !assert.NoError(t, err) {
			codes <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		codes <- resp.StatusCode
	}
	go send()
	assert.Equal(t, 1, <-g.started)
	for range 5 {
		go send()
	}
	waitFor(t, func() bool { return s.batch.Len() == 5 })
	close(g.release)
	for range 6 {
		assert.Equal(t, http.StatusOK, <-codes)
	}
	assert.Equal(t, 5, <-g.started, "the five that queued ran together")
}
