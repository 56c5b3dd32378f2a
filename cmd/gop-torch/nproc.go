package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// takeNproc removes -nproc N (or -nproc=N) from run's flags: gop-torch run
// -nproc N DIR starts N processes of the program, a data-parallel job on
// this machine, with the environment that torchrun --nproc-per-node N
// gives (RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT, TORCHELASTIC_RESTART_COUNT); torch/distributed's
// InitProcessGroup reads it. 0 means no -nproc.
func takeNproc(args []string) (n int, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		var v string
		switch {
		case a == "-nproc" || a == "--nproc":
			if i+1 == len(args) {
				return 0, nil, errors.New("-nproc needs a number of processes")
			}
			i++
			v = args[i]
		case strings.HasPrefix(a, "-nproc=") || strings.HasPrefix(a, "--nproc="):
			v = a[strings.Index(a, "=")+1:]
		default:
			rest = append(rest, a)
			if valueFlags[a] && i+1 < len(args) {
				i++
				rest = append(rest, args[i])
			}
			continue
		}
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			return 0, nil, fmt.Errorf("-nproc %q: want a number of processes, at least 1", v)
		}
	}
	return n, rest, nil
}

// runNproc builds dir's program and runs nproc copies of it. When one
// fails, it stops the others (SIGTERM), as torchrun does, and returns the
// first failure's exit code.
func runNproc(nproc int, flags []string, dir string, rest []string, stdout, stderr io.Writer) int {
	tmp, err := os.MkdirTemp("", "gop-torch-nproc-")
	if err != nil {
		return fail(stderr, err)
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, filepath.Base(absDir(dir)))
	if code := goCommand("build", append([]string{"-o", bin}, flags...), dir, nil, stdout, stderr); code != 0 {
		return code
	}
	workDir := ""
	if pkg := relPath(dir); filepath.IsAbs(pkg) {
		workDir = pkg // where gop-torch run runs a directory outside the working directory
	}
	return launch(nproc, bin, workDir, rest, stdout, stderr)
}

// launch runs nproc copies of bin in workDir ("" for the working
// directory) with torchrun's environment.
func launch(nproc int, bin, workDir string, rest []string, stdout, stderr io.Writer) int {
	addr := os.Getenv("MASTER_ADDR")
	if addr == "" {
		addr = "127.0.0.1"
	}
	port := os.Getenv("MASTER_PORT")
	if port == "" {
		l, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
		if err != nil {
			return fail(stderr, fmt.Errorf("-nproc: no free port on %s for MASTER_PORT: %v", addr, err))
		}
		port = strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		l.Close()
	}
	// torchrun sets OMP_NUM_THREADS=1 when it is unset; splitting the
	// CPUs between the processes keeps them all busy instead.
	threads := os.Getenv("OMP_NUM_THREADS")
	if threads == "" {
		threads = strconv.Itoa(max(1, runtime.NumCPU()/nproc))
	}
	// The ranks write at once: os/exec copies into a writer that is not a
	// file from one goroutine per process, so such writers share a lock.
	stdout, stderr = syncWriters(stdout, stderr)
	cmds := make([]*exec.Cmd, nproc)
	for r := range cmds {
		c := exec.Command(bin, rest...)
		c.Dir = workDir
		c.Env = append(os.Environ(),
			"RANK="+strconv.Itoa(r), "LOCAL_RANK="+strconv.Itoa(r), "GROUP_RANK=0", "ROLE_RANK="+strconv.Itoa(r),
			"WORLD_SIZE="+strconv.Itoa(nproc), "LOCAL_WORLD_SIZE="+strconv.Itoa(nproc), "ROLE_WORLD_SIZE="+strconv.Itoa(nproc),
			"MASTER_ADDR="+addr, "MASTER_PORT="+port, "TORCHELASTIC_RESTART_COUNT=0", "TORCHELASTIC_MAX_RESTARTS=0",
			"OMP_NUM_THREADS="+threads)
		c.Stdin = nil
		c.Stdout, c.Stderr = stdout, stderr
		if err := c.Start(); err != nil {
			for _, p := range cmds[:r] {
				p.Process.Kill()
			}
			return fail(stderr, fmt.Errorf("-nproc: starting rank %d: %v", r, err))
		}
		cmds[r] = c
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	var (
		mu      sync.Mutex
		code    int
		failed  = -1
		stopAll = func(s os.Signal) {
			for _, c := range cmds {
				c.Process.Signal(s)
			}
		}
	)
	go func() {
		if s, ok := <-sig; ok {
			stopAll(s)
		}
	}()
	var wg sync.WaitGroup
	for r, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := c.Wait()
			if err == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if failed >= 0 {
				return
			}
			failed, code = r, 1
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() > 0 {
				code = ee.ExitCode()
			}
			fmt.Fprintf(stderr, "gop-torch: rank %d of %d failed (%v); stopping the others\n", r, nproc, err)
			stopAll(syscall.SIGTERM)
		}()
	}
	wg.Wait()
	return code
}

func absDir(dir string) string {
	if a, err := filepath.Abs(dir); err == nil {
		return a
	}
	return dir
}

// syncWriters returns out and errw as they are when both are files (the
// processes then write to the descriptors themselves), or else wrapped in
// one lock, since they may be the same buffer.
func syncWriters(out, errw io.Writer) (io.Writer, io.Writer) {
	_, f1 := out.(*os.File)
	_, f2 := errw.(*os.File)
	if f1 && f2 {
		return out, errw
	}
	mu := new(sync.Mutex)
	return &lockedWriter{mu: mu, w: out}, &lockedWriter{mu: mu, w: errw}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
