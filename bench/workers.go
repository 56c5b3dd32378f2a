package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// impl is one implementation of the workloads: a worker program.
type impl struct {
	Name  string   // short name: cxx, go, gop, python
	Label string   // in tables: C++, Go, Go+, Python
	Cmd   []string // the worker's command line, without the mode
}

// message is one JSON line of the worker protocol (see
// bench/internal/worker); each mode uses some of its fields.
type message struct {
	Error string `json:"error"`
	// hello
	Impl    string `json:"impl"`
	Version string `json:"version"`
	Threads int    `json:"threads"`
	// serve results
	Job   string  `json:"job"`
	Iters int     `json:"iters"`
	NS    []int64 `json:"ns"`
	GCNS  []int64 `json:"gc_ns"`
	// -device cuda: the job's peak of allocated GPU bytes, -1 unknown; on
	// the CPU with BENCH_COUNT_ALLOC (the mem part), the peak bytes of live
	// tensor storage, and the process's peak RSS
	PeakBytes *int64 `json:"peak_bytes"`
	HWMBytes  int64  `json:"hwm_bytes"`
	// training jobs on the CPU: forward with the loss, zero_grad, backward
	// and optimizer step, summed over the timed steps (ns)
	Phases []int64 `json:"phases_ns"`
	// startup
	FirstOp int64 `json:"first_op_unix_ns"`
	// rss
	Step    int    `json:"step"`
	RSS     int64  `json:"rss"`
	Live    *int64 `json:"live"`
	Done    bool   `json:"done"`
	TotalNS int64  `json:"total_ns"`
}

func parseMessage(line string) (message, error) {
	var m message
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		return m, fmt.Errorf("bad worker output %q: %v", truncate(line, 200), err)
	}
	return m, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// process is a running worker whose output is read line by line.
type process struct {
	impl   impl
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	stderr *tailBuffer
	hello  message
}

// tailBuffer keeps the last bytes written to it (a worker's stderr).
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return strings.TrimSpace(string(t.b)) }

// start starts a worker in the given mode with extra arguments.
func start(im impl, env []string, dir string, args ...string) (*process, error) {
	argv := append(append([]string{}, im.Cmd...), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = dir
	p := &process{impl: im, cmd: cmd, lines: make(chan string, 64), stderr: &tailBuffer{}}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %v", im.Label, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	return p, nil
}

var errExited = errors.New("worker exited")

// next returns the next message, waiting at most timeout.
func (p *process) next(timeout time.Duration) (message, error) {
	select {
	case line, ok := <-p.lines:
		if !ok {
			return message{}, fmt.Errorf("%s: %w: %s", p.impl.Label, errExited, p.stderr)
		}
		m, err := parseMessage(line)
		if err != nil {
			return m, fmt.Errorf("%s: %v", p.impl.Label, err)
		}
		if m.Error != "" {
			return m, fmt.Errorf("%s: %s", p.impl.Label, m.Error)
		}
		return m, nil
	case <-time.After(timeout):
		p.kill()
		return message{}, fmt.Errorf("%s: no answer in %v", p.impl.Label, timeout)
	}
}

// serve starts a worker in serve mode and reads its hello.
func serve(im impl, env []string, dir string) (*process, error) {
	p, err := start(im, env, dir, "serve")
	if err != nil {
		return nil, err
	}
	if p.hello, err = p.next(2 * time.Minute); err != nil {
		p.kill()
		return nil, err
	}
	return p, nil
}

// run sends one command and waits for its result.
func (p *process) run(job string, iters, warmup, reps int, timeout time.Duration) (message, error) {
	if _, err := fmt.Fprintf(p.stdin, "%s %d %d %d\n", job, iters, warmup, reps); err != nil {
		return message{}, fmt.Errorf("%s: %v: %s", p.impl.Label, err, p.stderr)
	}
	m, err := p.next(timeout)
	if err != nil {
		return m, err
	}
	if m.Job != job || len(m.NS) != reps {
		return m, fmt.Errorf("%s: answer %q with %d times to %q with %d repetitions", p.impl.Label, m.Job, len(m.NS), job, reps)
	}
	return m, nil
}

// close ends a serving worker: end of input, then wait.
func (p *process) close() error {
	p.stdin.Close()
	for range p.lines {
	}
	return p.cmd.Wait()
}

func (p *process) kill() {
	if p.cmd.Process != nil {
		p.cmd.Process.Kill()
	}
}

// pid is the worker's process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// workerEnv is the environment of every worker: the harness's own with
// the thread settings replaced, the same for all.
func workerEnv(base []string, threads int, ompWait string) []string {
	set := map[string]string{
		"BENCH_THREADS":        fmt.Sprint(threads),
		"OMP_NUM_THREADS":      fmt.Sprint(threads),
		"GOTORCH_NUM_THREADS":  fmt.Sprint(threads),
		"OPENBLAS_NUM_THREADS": "1",
		"MKL_NUM_THREADS":      fmt.Sprint(threads),
	}
	if ompWait != "" {
		set["OMP_WAIT_POLICY"] = ompWait
	}
	var env []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := set[k]; !ok {
			env = append(env, kv)
		}
	}
	for _, k := range sortedKeys(set) {
		env = append(env, k+"="+set[k])
	}
	return env
}

// relevantEnv lists the variables of env that change how the workers run
// (threads, BLAS, malloc, OpenMP, Go's runtime).
func relevantEnv(env []string) []string {
	prefixes := []string{"BENCH_", "OMP_", "GOMP_", "KMP_", "OPENBLAS_", "MKL_", "MALLOC_", "GOTORCH_", "GOGC", "GOMAXPROCS", "GODEBUG", "GOMEMLIMIT", "LD_PRELOAD"}
	var out []string
	for _, kv := range env {
		for _, p := range prefixes {
			if strings.HasPrefix(kv, p) {
				out = append(out, kv)
				break
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// runOnce runs a worker to its end and returns its messages.
func runOnce(im impl, env []string, dir string, timeout time.Duration, each func(message), args ...string) error {
	p, err := start(im, env, dir, args...)
	if err != nil {
		return err
	}
	p.stdin.Close()
	deadline := time.Now().Add(timeout)
	for {
		m, err := p.next(time.Until(deadline))
		if errors.Is(err, errExited) {
			break
		}
		if err != nil {
			p.kill()
			p.cmd.Wait()
			return err
		}
		each(m)
	}
	if err := p.cmd.Wait(); err != nil {
		return fmt.Errorf("%s: %v: %s", im.Label, err, p.stderr)
	}
	return nil
}

// fileExists reports whether path names a regular file.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
