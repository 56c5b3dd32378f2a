// Command loadgen is a small closed-loop HTTP load generator for
// examples/serve, for machines without wrk: -c connections each send one
// request after another for -d and it reports the throughput, the status
// codes and the latency percentiles of the successes.
//
//	go run ./examples/serve/cmd/loadgen -url http://127.0.0.1:8080/predict \
//		-body body.json -type application/json -c 1000 -d 15s
//
// Like wrk, a request not answered within -timeout counts as a timeout and
// its connection is dropped and dialled again. The generator runs on the
// same machine as the server, as wrk does in loadtest.sh: its own CPU use
// is part of the picture (-cpu limits its Go threads).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"
)

func main() {
	var (
		url     = flag.String("url", "http://127.0.0.1:8080/predict", "where to POST")
		body    = flag.String("body", "", "file with the request body (required)")
		ctype   = flag.String("type", "application/json", "Content-Type of the body")
		conns   = flag.Int("c", 64, "connections, each with one request at a time")
		dur     = flag.Duration("d", 10*time.Second, "how long to send")
		timeout = flag.Duration("timeout", 2*time.Second, "a request not answered within it is a timeout (wrk's default)")
		cpu     = flag.Int("cpu", 1, "GOMAXPROCS of the generator")
		tsv     = flag.Bool("tsv", false, "print one TSV line: connections, requests/s, ok, 503, other, timeouts, errors, p50, p99, max (ms)")
	)
	flag.Parse()
	runtime.GOMAXPROCS(*cpu)
	payload, err := os.ReadFile(*body)
	if err != nil || *body == "" {
		log.Fatalf("loadgen: -body: %v", err)
	}
	r := run(*url, payload, *ctype, *conns, *dur, *timeout)
	if *tsv {
		fmt.Printf("%d\t%.1f\t%d\t%d\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\n", *conns, float64(r.ok)/dur.Seconds(),
			r.ok, r.unavailable, r.other, r.timeouts, r.errs, ms(r.percentile(50)), ms(r.percentile(99)), ms(r.percentile(100)))
		return
	}
	fmt.Printf("%d connections, %v: %d ok (%.1f/s), %d × 503, %d other statuses, %d timeouts, %d errors\n",
		*conns, *dur, r.ok, float64(r.ok)/dur.Seconds(), r.unavailable, r.other, r.timeouts, r.errs)
	fmt.Printf("latency of the successes: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
		ms(r.percentile(50)), ms(r.percentile(99)), ms(r.percentile(100)))
	if r.firstErr != nil {
		fmt.Printf("first error: %v\n", r.firstErr)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

type result struct {
	ok, unavailable, other, timeouts, errs int
	latencies                              []time.Duration // of the 2xx answers
	firstErr                               error
}

func (r *result) add(o result) {
	r.ok += o.ok
	r.unavailable += o.unavailable
	r.other += o.other
	r.timeouts += o.timeouts
	r.errs += o.errs
	r.latencies = append(r.latencies, o.latencies...)
	if r.firstErr == nil {
		r.firstErr = o.firstErr
	}
}

func (r *result) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	slices.Sort(r.latencies)
	i := int(float64(len(r.latencies)-1) * p / 100)
	return r.latencies[i]
}

// run drives conns clients, each on its own keep-alive connection.
func run(url string, payload []byte, ctype string, conns int, dur, timeout time.Duration) result {
	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	var (
		mu    sync.Mutex
		total result
		wg    sync.WaitGroup
	)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One transport per client: one connection each, as wrk has.
			tr := &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1,
				DialContext: (&net.Dialer{Timeout: timeout}).DialContext}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: timeout}
			var mine result
			for ctx.Err() == nil {
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
				if err != nil {
					log.Fatal(err)
				}
				req.Header.Set("Content-Type", ctype)
				start := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() != nil {
						break // the run ended during the request: not counted
					}
					var ne net.Error
					if errors.As(err, &ne) && ne.Timeout() {
						mine.timeouts++
					} else {
						mine.errs++
						if mine.firstErr == nil {
							mine.firstErr = err
						}
						time.Sleep(10 * time.Millisecond) // a refused dial: do not spin
					}
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				took := time.Since(start)
				switch {
				case resp.StatusCode/100 == 2:
					mine.ok++
					mine.latencies = append(mine.latencies, took)
				case resp.StatusCode == http.StatusServiceUnavailable:
					mine.unavailable++
				default:
					mine.other++
				}
			}
			mu.Lock()
			total.add(mine)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return total
}
