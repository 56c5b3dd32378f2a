package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gotorch/gotorch/examples/serve/batcher"
	"github.com/gotorch/gotorch/torch"
)

//go:embed static
var static embed.FS

// Config holds the server's settings; zero fields take the defaults of
// the flags in main.go.
type Config struct {
	MaxBatch       int           // most images per forward pass
	MaxWait        time.Duration // how long a batch's first image waits for more
	QueueSize      int           // images waiting beyond it get 503
	RequestTimeout time.Duration // from a request's arrival to its answer; 504 after it
	MaxBodyBytes   int64         // larger bodies get 413
	DrainTimeout   time.Duration // how long shutdown waits for requests in flight
	// MaxInFlight bounds the /predict requests being decoded, queued or
	// run (default 3×MaxBatch, at most QueueSize+MaxBatch: one batch
	// running and two waiting keep the worker busy, and more only wait
	// longer). A request beyond it waits for a
	// place, its body unread, in a line of at most MaxWaiting, first come
	// first served, for at most AdmitWait; it gets 503 when the line is
	// full or the wait ends, still without its body read or decoded.
	MaxInFlight int
	// MaxWaiting bounds that line (default 3×MaxInFlight).
	MaxWaiting int
	// AdmitWait is how long a request waits in line for a place (default
	// 500 ms; negative: none, 503 at once beyond MaxInFlight). Waiting
	// parked costs the server nothing, where a 503 at once brings a
	// retrying client straight back.
	AdmitWait time.Duration
	// MaxConns bounds the open connections (default MaxInFlight +
	// MaxWaiting, at least 64); clients beyond wait in the kernel's
	// backlog until one closes. Negative: no bound.
	MaxConns int
	// MaxHeaderBytes bounds a request's header (default 64 KiB); larger
	// get 431.
	MaxHeaderBytes int
}

func (c Config) withDefaults() Config {
	if c.MaxBatch <= 0 {
		c.MaxBatch = 32
	}
	if c.QueueSize <= 0 {
		c.QueueSize = 256
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = 5 * time.Second
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 1 << 20
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = 30 * time.Second
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = min(3*c.MaxBatch, c.QueueSize+c.MaxBatch)
	}
	if c.MaxWaiting <= 0 {
		c.MaxWaiting = 3 * c.MaxInFlight
	}
	if c.AdmitWait == 0 {
		c.AdmitWait = 500 * time.Millisecond
	}
	if c.AdmitWait < 0 {
		c.AdmitWait = 0
	}
	if c.MaxConns == 0 {
		c.MaxConns = max(c.MaxInFlight+c.MaxWaiting, 64)
	}
	if c.MaxHeaderBytes <= 0 {
		c.MaxHeaderBytes = 64 << 10
	}
	return c
}

// Server answers /predict by batching requests into the model, and serves
// the page at /, /healthz and /metrics.
type Server struct {
	cfg      Config
	batch    *batcher.Batcher[*Pixels, Probs]
	draining atomic.Bool
	admit    *admission // /predict requests admitted (decoding, queued or running) and waiting
	shed     prometheus.Counter
	conns    atomic.Pointer[limitListener] // Serve's listener, for the gauge
	registry *prometheus.Registry
	latency  *prometheus.HistogramVec
	mux      *http.ServeMux
}

// NewServer starts the batch worker for model.
func NewServer(model Model, cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, registry: prometheus.NewRegistry(), admit: newAdmission(cfg.MaxInFlight, cfg.MaxWaiting)}
	batchSizes := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "serve_batch_size",
		Help:    "Images per forward pass.",
		Buckets: sizeBuckets(cfg.MaxBatch),
	})
	batchSeconds := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "serve_batch_duration_seconds",
		Help:    "Time of one forward pass, softmax included.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
	})
	s.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "serve_request_duration_seconds",
		Help:    "Time from a /predict request's arrival to its answer, by status code.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16),
	}, []string{"code"})
	s.batch = batcher.New(model.Classify, batcher.Options{
		MaxBatch:  cfg.MaxBatch,
		MaxWait:   cfg.MaxWait,
		QueueSize: cfg.QueueSize,
		Senders:   s.senders,
		OnBatch: func(n int, took time.Duration) {
			batchSizes.Observe(float64(n))
			batchSeconds.Observe(took.Seconds())
		},
	})
	queue := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "serve_queue_length",
		Help: "Images waiting for the batch worker.",
	}, func() float64 { return float64(s.batch.Len()) })
	inFlight := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "serve_requests_in_flight",
		Help: "/predict requests admitted and not yet answered (decoding, queued or in a batch).",
	}, func() float64 { n, _ := s.admit.counts(); return float64(n) })
	waiting := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "serve_requests_waiting",
		Help: "/predict requests waiting for a place in flight, their bodies unread (at most -max-waiting).",
	}, func() float64 { _, n := s.admit.counts(); return float64(n) })
	senders := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "serve_predict_connections",
		Help: "Open connections that have carried a /predict request: the batcher runs a batch at once when it holds a request of each.",
	}, func() float64 { return float64(max(s.senders(), 0)) })
	conns := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "serve_open_connections",
		Help: "Connections accepted and not yet closed (at most -max-conns).",
	}, func() float64 {
		if l := s.conns.Load(); l != nil {
			return float64(l.Open())
		}
		return 0
	})
	s.shed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "serve_shed_requests_total",
		Help: "/predict requests answered 503 before their body was read, because MaxInFlight were in flight and the line was full or the wait too long.",
	})
	liveTensors := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "gotorch_live_tensors",
		Help: "Native tensors not yet freed (torch.ReadMemStats).",
	}, func() float64 { return float64(torch.ReadMemStats().LiveTensors) })
	liveBytes := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "gotorch_live_tensor_bytes",
		Help: "Bytes of the native tensors not yet freed (torch.ReadMemStats).",
	}, func() float64 { return float64(torch.ReadMemStats().LiveBytes) })
	s.registry.MustRegister(batchSizes, batchSeconds, s.latency, queue, inFlight, waiting, senders, conns, s.shed, liveTensors, liveBytes,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	pages, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded folder is part of the binary
	}
	s.mux = http.NewServeMux()
	s.mux.Handle("/", http.FileServerFS(pages))
	s.mux.HandleFunc("/predict", s.predict)
	s.mux.HandleFunc("/healthz", s.healthz)
	s.mux.Handle("/metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{}))
	return s
}

// sizeBuckets are 1, 2, 4, ... up to max, and max.
func sizeBuckets(max int) []float64 {
	var b []float64
	for n := 1; n < max; n *= 2 {
		b = append(b, float64(n))
	}
	return append(b, float64(max))
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// senders is the batcher's Options.Senders: the connections that have
// carried a /predict request, or -1 (not known) before Serve, as when a
// test calls ServeHTTP itself.
func (s *Server) senders() int {
	if l := s.conns.Load(); l != nil {
		return l.Senders()
	}
	return -1
}

// Prediction is /predict's answer.
type Prediction struct {
	Class int     `json:"class"`
	Label string  `json:"label"`
	Top5  []Score `json:"top5"`
}

// Score is one class's probability.
type Score struct {
	Class       int     `json:"class"`
	Label       string  `json:"label"`
	Probability float32 `json:"probability"`
}

func predictionOf(p Probs) Prediction {
	order := make([]int, NumClasses)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p[order[a]] > p[order[b]] })
	top := make([]Score, 5)
	for i := range top {
		c := order[i]
		top[i] = Score{Class: c, Label: label(c), Probability: p[c]}
	}
	return Prediction{Class: top[0].Class, Label: top[0].Label, Top5: top}
}

// errorBody is every error's JSON.
type errorBody struct {
	Error string `json:"error"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) predict(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	status := s.answer(w, r)
	s.latency.WithLabelValues(strconv.Itoa(status)).Observe(time.Since(start).Seconds())
}

// answer handles one /predict request and returns the status it wrote.
func (s *Server) answer(w http.ResponseWriter, r *http.Request) int {
	fail := func(status int, format string, args ...any) int {
		writeJSON(w, status, errorBody{Error: fmt.Sprintf(format, args...)})
		return status
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return fail(http.StatusMethodNotAllowed, "%s /predict: use POST with a PNG, JPEG or GIF image or JSON {\"image\": [784 numbers in [0,1]]}", r.Method)
	}
	markSender(r)
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	// Shed load before any work: beyond MaxInFlight a request waits for
	// a place in line, its body unread, and gets 503 when the line is
	// full or the wait ends, so that refusing costs far less than
	// answering and a refused client does not come straight back.
	refuse := func(err error) int {
		switch {
		case errors.Is(err, errNoPlace):
			s.shed.Inc()
			w.Header().Set("Retry-After", "1")
			return fail(http.StatusServiceUnavailable, "overloaded: %d requests in flight and %d waiting; retry later", s.cfg.MaxInFlight, s.cfg.MaxWaiting)
		case errors.Is(err, context.DeadlineExceeded):
			return fail(http.StatusGatewayTimeout, "no place within the request timeout of %v", s.cfg.RequestTimeout)
		}
		return 499 // the client went away; nobody reads this
	}
	held := false
	defer func() {
		if held {
			s.admit.release()
		}
	}()
	if !s.admit.free() {
		// Wait with the body unread: only a request that has a place
		// reads it, so the line costs no memory for bodies.
		if err := s.admit.acquire(ctx, s.cfg.AdmitWait); err != nil {
			return refuse(err)
		}
		held = true
	}
	if r.ContentLength > s.cfg.MaxBodyBytes {
		return fail(http.StatusRequestEntityTooLarge, "body is over %d bytes", s.cfg.MaxBodyBytes)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fail(http.StatusRequestEntityTooLarge, "body is over %d bytes", s.cfg.MaxBodyBytes)
		}
		return fail(http.StatusBadRequest, "reading the body: %v", err)
	}
	// A request that found a place free reads its body first, while the
	// client is slow if it is, and takes the place only now, so that slow
	// clients hold none.
	if !held {
		if err := s.admit.acquire(ctx, s.cfg.AdmitWait); err != nil {
			return refuse(err)
		}
		held = true
	}
	img, err := decodeBody(r.Header.Get("Content-Type"), body)
	if err != nil {
		return fail(statusOf(err), "%v", err)
	}
	probs, err := s.batch.Submit(ctx, img)
	switch {
	case err == nil:
		writeJSON(w, http.StatusOK, predictionOf(probs))
		return http.StatusOK
	case errors.Is(err, batcher.ErrQueueFull):
		w.Header().Set("Retry-After", "1")
		return fail(http.StatusServiceUnavailable, "overloaded: %d images already queued; retry later", s.cfg.QueueSize)
	case errors.Is(err, batcher.ErrClosed):
		return fail(http.StatusServiceUnavailable, "shutting down")
	case errors.Is(err, context.DeadlineExceeded):
		return fail(http.StatusGatewayTimeout, "no answer within the request timeout of %v", s.cfg.RequestTimeout)
	case errors.Is(err, context.Canceled):
		return 499 // the client went away; nobody reads this
	}
	log.Printf("predict: %v", err)
	return fail(http.StatusInternalServerError, "model failed: %v", err)
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		http.Error(w, "draining", http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, "ok\n")
}

// Serve answers on l until ctx ends, then shuts down gracefully: /healthz
// turns 503, the listener closes, requests in flight (and so every queued
// image) get their answers within DrainTimeout, and the batch worker stops.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	ll := newLimitListener(l, s.cfg.MaxConns) // MaxConns < 0: no limit, still counted
	s.conns.Store(ll)
	l = ll
	srv := &http.Server{
		Handler:           s,
		ConnContext:       withConn,
		MaxHeaderBytes:    s.cfg.MaxHeaderBytes,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       s.cfg.RequestTimeout,
		WriteTimeout:      s.cfg.RequestTimeout + 5*time.Second,
		IdleTimeout:       15 * time.Second, // an idle keep-alive connection holds one of MaxConns
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		s.batch.Close(context.Background())
		return err
	case <-ctx.Done():
	}
	s.draining.Store(true)
	drain, cancel := context.WithTimeout(context.Background(), s.cfg.DrainTimeout)
	defer cancel()
	err := srv.Shutdown(drain)
	if cerr := s.batch.Close(drain); err == nil {
		err = cerr
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
