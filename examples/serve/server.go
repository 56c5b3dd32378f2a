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
	// run (default QueueSize+MaxBatch); beyond it a request gets 503
	// before its body is read or decoded.
	MaxInFlight int
	// MaxConns bounds the open connections (default 2×MaxInFlight, at
	// least 64); clients beyond wait in the kernel's backlog until one
	// closes. Negative: no bound.
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
		c.MaxInFlight = c.QueueSize + c.MaxBatch
	}
	if c.MaxConns == 0 {
		c.MaxConns = max(2*c.MaxInFlight, 64)
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
	inFlight atomic.Int64 // /predict requests admitted: decoding, queued or running
	shed     prometheus.Counter
	conns    atomic.Pointer[limitListener] // Serve's listener, for the gauge
	registry *prometheus.Registry
	latency  *prometheus.HistogramVec
	mux      *http.ServeMux
}

// NewServer starts the batch worker for model.
func NewServer(model Model, cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, registry: prometheus.NewRegistry()}
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
	}, func() float64 { return float64(s.inFlight.Load()) })
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
		Help: "/predict requests answered 503 before their body was decoded, because MaxInFlight were in flight.",
	})
	liveTensors := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "gotorch_live_tensors",
		Help: "Native tensors not yet freed (torch.ReadMemStats).",
	}, func() float64 { return float64(torch.ReadMemStats().LiveTensors) })
	liveBytes := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "gotorch_live_tensor_bytes",
		Help: "Bytes of the native tensors not yet freed (torch.ReadMemStats).",
	}, func() float64 { return float64(torch.ReadMemStats().LiveBytes) })
	s.registry.MustRegister(batchSizes, batchSeconds, s.latency, queue, inFlight, conns, s.shed, liveTensors, liveBytes,
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
	// Shed load before any work: a request that would wait beyond
	// MaxInFlight gets 503 before its body is read or decoded, so that
	// refusing costs far less than answering.
	overloaded := func() int {
		s.shed.Inc()
		w.Header().Set("Retry-After", "1")
		return fail(http.StatusServiceUnavailable, "overloaded: %d requests in flight; retry later", s.cfg.MaxInFlight)
	}
	if s.inFlight.Load() >= int64(s.cfg.MaxInFlight) {
		return overloaded()
	}
	if r.ContentLength > s.cfg.MaxBodyBytes {
		return fail(http.StatusRequestEntityTooLarge, "body is over %d bytes", s.cfg.MaxBodyBytes)
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return fail(http.StatusRequestEntityTooLarge, "body is over %d bytes", s.cfg.MaxBodyBytes)
		}
		return fail(http.StatusBadRequest, "reading the body: %v", err)
	}
	// The body is read, while the client was slow if it was: admit the
	// request for decoding only now, so that slow clients hold no place.
	if s.inFlight.Add(1) > int64(s.cfg.MaxInFlight) {
		s.inFlight.Add(-1)
		return overloaded()
	}
	defer s.inFlight.Add(-1)
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
	if s.cfg.MaxConns > 0 {
		ll := newLimitListener(l, s.cfg.MaxConns)
		s.conns.Store(ll)
		l = ll
	}
	srv := &http.Server{
		Handler:           s,
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
