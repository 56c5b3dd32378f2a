// Command serve is an HTTP inference server for the Fashion-MNIST CNN of
// the main job (examples/fashion_mnist), on net/http:
//
//	make train                                   # writes fashion_mnist.safetensors
//	go run ./examples/serve -weights fashion_mnist.safetensors -addr 127.0.0.1:8080
//	/usr/bin/python3 examples/serve/export.py fashion_mnist.safetensors --out fm  # fm.pt, fm.torchscript.pt
//	go run ./examples/serve -weights fm.torchscript.pt   # or fm.pt: PyTorch's files
//	curl -s --data-binary @shoe.png -H 'Content-Type: image/png' 127.0.0.1:8080/predict
//	curl -s -d '{"image": [0, 0.1, ...784 numbers]}' -H 'Content-Type: application/json' 127.0.0.1:8080/predict
//
// POST /predict takes one image and answers JSON: the class, its label and
// the top five classes with their probabilities. Images may be PNG, JPEG
// or GIF of any size up to 1024×1024: they are turned grey (luminance;
// transparency counts as black) and averaged down (or stretched) to 28×28.
// Like Fashion-MNIST's, the object should be light on a dark background.
// JSON is {"image": [784 numbers]} or {"image": [[28 numbers] × 28 rows]},
// intensities in [0, 1]. Bad input gets a 4xx status and a JSON
// {"error": "..."} saying what is wrong.
//
// Requests are batched (package batcher): one worker runs up to -max-batch
// images per forward pass, waiting at most -max-wait for a batch to fill,
// and not at all once the batch holds a request of every connection that
// sends them (one connection's requests never wait). At most -queue
// images wait, and at most -max-in-flight requests are decoded, queued or
// run; beyond that a request waits for a place, its body unread, in a
// line of at most -max-waiting for at most -admit-wait, and then gets 503
// without its body read, so that an overloaded server spends its CPU on
// the requests it can answer. At most -max-conns connections are open;
// more wait to be accepted. A request not answered within -timeout gets
// 504. -debug-addr serves net/http/pprof on an address of its own. SIGTERM or SIGINT drains: /healthz
// turns 503, no new connections are taken, and the requests in flight are
// answered. GET / is a page to drop or draw an image on; /healthz and
// /metrics (Prometheus) are there for operators.
//
// Files: decode.go reads requests (decode_fast.go, the flat JSON one in
// one pass), model.go loads and runs the model, server.go has the
// handlers, metrics and shutdown, admit.go the line for places in
// flight, limit.go the connection cap and the count of /predict
// connections, debug.go pprof, static/ the page.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/gotorch/gotorch/torch"
)

func main() {
	var (
		addr     = flag.String("addr", "127.0.0.1:8080", "address to listen on")
		weights  = flag.String("weights", "fashion_mnist.safetensors", "model weights: GoTorch's checkpoint (.safetensors), or export.py's state dict (.pt) or TorchScript (.torchscript.pt)")
		format   = flag.String("format", "auto", "weights format: auto (by file name), safetensors, pt or torchscript")
		threads  = flag.Int("threads", 0, "libtorch intra-op threads (0: GoTorch's default, every core or GOTORCH_NUM_THREADS)")
		maxBatch = flag.Int("max-batch", 32, "most images per forward pass")
		maxWait  = flag.Duration("max-wait", 0, "how long the first image of a batch waits for more (0: batch only what is already queued)")
		queue    = flag.Int("queue", 256, "most images waiting; /predict answers 503 beyond")
		timeout  = flag.Duration("timeout", 0, "request timeout (default 5s)")
		maxBody  = flag.Int64("max-body", 1<<20, "largest request body in bytes; larger get 413")
		inFlight = flag.Int("max-in-flight", 0, "most /predict requests decoding, queued or running; more wait in line, their bodies unread (0: 3 × max-batch, at most queue + max-batch)")
		waiting  = flag.Int("max-waiting", 0, "most /predict requests waiting in line for a place in flight; 503 beyond, before the body is read (0: 3 × max-in-flight)")
		admit    = flag.Duration("admit-wait", 0, "longest wait in line; 503 after it, the body unread (0: 500ms; negative: no line, 503 at once)")
		maxConns = flag.Int("max-conns", 0, "most open connections; more wait in the kernel's backlog (0: max-in-flight + max-waiting, at least 64; -1: no bound)")
		debug    = flag.String("debug-addr", "", "serve net/http/pprof here (e.g. 127.0.0.1:6060); off when empty")
	)
	flag.Parse()
	if err := run(*addr, *weights, *format, *threads, Config{
		MaxBatch: *maxBatch, MaxWait: *maxWait, QueueSize: *queue,
		RequestTimeout: *timeout, MaxBodyBytes: *maxBody, MaxInFlight: *inFlight, MaxConns: *maxConns,
		MaxWaiting: *waiting, AdmitWait: *admit,
	}, *debug); err != nil {
		log.Fatal(err)
	}
}

func run(addr, weights, format string, threads int, cfg Config, debugAddr string) error {
	if threads > 0 {
		torch.SetNumThreads(threads)
	}
	if err := checkWeightsFile(weights); err != nil {
		return err
	}
	model, err := loadServedModel(weights, format) // -arch (vision.go)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if debugAddr != "" {
		if err := serveDebug(ctx, debugAddr); err != nil {
			return err
		}
	}
	s := NewServer(model, cfg)
	c := s.cfg
	log.Printf("serving %s on http://%s (%d libtorch threads, batches of up to %d, max wait %v, queue %d, in flight %d, waiting %d for %v, connections %d, timeout %v)",
		weights, l.Addr(), torch.GetNumThreads(), c.MaxBatch, c.MaxWait, c.QueueSize, c.MaxInFlight, c.MaxWaiting, c.AdmitWait, c.MaxConns, c.RequestTimeout)
	if err := s.Serve(ctx, l); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	log.Printf("drained and stopped")
	return nil
}
