// Package disttest runs a test as a job of several processes: the test
// binary re-executes itself once per rank, with torchrun's environment
// (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT) on loopback and a
// marker that tells the copy it is a worker.
//
//	func TestAllReduce(t *testing.T) {
//		if disttest.Worker() {
//			// runs in each rank's process
//			return
//		}
//		disttest.Run(t, 2, nil) // fails t if any rank fails
//	}
package disttest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Marker is the environment variable that marks a worker process.
const Marker = "GOTORCH_DISTTEST_WORKER"

// Worker reports whether this process is a rank started by Run.
func Worker() bool { return os.Getenv(Marker) != "" }

// Result is one rank's exit.
type Result struct {
	Rank   int
	Err    error // nil for exit status 0
	Output string
}

// Options adjust Run.
type Options struct {
	// Env adds variables for a rank.
	Env func(rank int) []string
	// Timeout kills ranks that run longer (default 2 minutes), so that a
	// hang fails the test instead of the whole test binary.
	Timeout time.Duration
	// Wrap, when set, returns the command line that runs argv for a rank
	// (nsenter --net=... for the namespace test).
	Wrap func(rank int, argv []string) []string
	// MasterAddr is MASTER_ADDR (default 127.0.0.1).
	MasterAddr string
	// MasterPort is MASTER_PORT (default: a free port on MasterAddr).
	MasterPort int
}

// Start runs n ranks of the current test and returns their results
// without failing t.
func Start(t testing.TB, n int, o Options) []Result {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	addr := o.MasterAddr
	if addr == "" {
		addr = "127.0.0.1"
	}
	port := o.MasterPort
	if port == 0 {
		var err error
		if port, err = FreePort(addr); err != nil {
			t.Fatalf("disttest: no free port: %v", err)
		}
	}
	results := make([]Result, n)
	var wg sync.WaitGroup
	for r := 0; r < n; r++ {
		argv := []string{os.Args[0], "-test.run", "^" + strings.Split(t.Name(), "/")[0] + "$", "-test.v"}
		if o.Wrap != nil {
			argv = o.Wrap(r, argv)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), Marker+"="+t.Name(),
			"RANK="+strconv.Itoa(r), "LOCAL_RANK="+strconv.Itoa(r), "WORLD_SIZE="+strconv.Itoa(n),
			"LOCAL_WORLD_SIZE="+strconv.Itoa(n), "MASTER_ADDR="+addr, "MASTER_PORT="+strconv.Itoa(port))
		if o.Env != nil {
			cmd.Env = append(cmd.Env, o.Env(r)...)
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		results[r].Rank = r
		if err := cmd.Start(); err != nil {
			t.Fatalf("disttest: starting rank %d: %v", r, err)
		}
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			timer := time.AfterFunc(o.Timeout, func() { cmd.Process.Kill() })
			err := cmd.Wait()
			if !timer.Stop() {
				err = fmt.Errorf("rank %d killed after %v (a hang): %v", r, o.Timeout, err)
			}
			results[r].Err = err
			results[r].Output = out.String()
		}(r)
	}
	wg.Wait()
	return results
}

// Run runs n ranks of the current test and fails t, with each failing
// rank's output, unless all exit 0.
func Run(t testing.TB, n int, o Options) []Result {
	t.Helper()
	res := Start(t, n, o)
	for _, r := range res {
		if r.Err != nil {
			t.Errorf("rank %d failed: %v\n%s", r.Rank, r.Err, r.Output)
		}
	}
	return res
}

// FreePort returns a TCP port on host that was free a moment ago.
func FreePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Rank is this worker's $RANK.
func Rank() int { r, _ := strconv.Atoi(os.Getenv("RANK")); return r }
