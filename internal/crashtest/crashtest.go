// Package crashtest is the harness behind GoTorch's crash-safety tests of
// its atomic file writers (checkpoints, torch.Save, optimizer state). A
// test re-runs itself as a child process that saves generation after
// generation of a file and reports each on its standard output; the parent
// kills the child with SIGKILL at a random moment, then checks what is on
// disk: the last reported generation or the one in flight, whole, and no
// other file than the writers' temporary ones.
//
// The child reports with lines of words; the harness reads two of them:
// "saved N ..." (generation N is on disk) and "error ..." (the test fails).
package crashtest

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ChildSpec reports whether this process is a child that Start began with
// the environment variable env, and if so the spec and first generation it
// was given.
func ChildSpec(env string) (spec string, start int64, ok bool) {
	v := os.Getenv(env)
	if v == "" {
		return "", 0, false
	}
	spec, n, _ := strings.Cut(v, "|")
	start, err := strconv.ParseInt(n, 10, 64)
	if err != nil {
		panic(fmt.Sprintf("crashtest: bad %s=%q: %v", env, v, err))
	}
	return spec, start, true
}

// Child is a running child process.
type Child struct {
	t     *testing.T
	cmd   *exec.Cmd
	lines chan string
	// LastSaved is the last generation the child reported saved, or one
	// less than its first generation.
	LastSaved int64
}

// Start re-runs the current test binary, running only the test named
// test, with env set to spec and the child's first generation, start.
func Start(t *testing.T, test, env, spec string, start int64) *Child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%d", env, spec, start))
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	c := &Child{t: t, cmd: cmd, lines: make(chan string, 1000), LastSaved: start - 1}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	return c
}

// note records what a line says about the saves.
func (c *Child) note(f []string) {
	if len(f) >= 2 && f[0] == "saved" {
		n, err := strconv.ParseInt(f[1], 10, 64)
		require.NoError(c.t, err, "child line %q", strings.Join(f, " "))
		c.LastSaved = n
	}
}

// WaitFor reads the child's lines, split into words, until done returns
// true for one. The test fails if the child reports an error, exits, or
// says nothing done accepts within timeout.
func (c *Child) WaitFor(timeout time.Duration, done func(words []string) bool) {
	c.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-c.lines:
			require.True(c.t, ok, "child exited early")
			require.False(c.t, strings.HasPrefix(l, "error"), l)
			f := strings.Fields(l)
			if len(f) == 0 {
				continue
			}
			c.note(f)
			if done(f) {
				return
			}
		case <-deadline:
			c.t.Fatalf("child said nothing awaited within %v", timeout)
		}
	}
}

// Kill kills the child with SIGKILL, waits for it, and reads what it said
// before it died.
func (c *Child) Kill() {
	c.t.Helper()
	require.NoError(c.t, c.cmd.Process.Kill())
	_ = c.cmd.Wait()
	for l := range c.lines {
		c.note(strings.Fields(l))
	}
}

// Strays checks that dir holds nothing but the files named in keep and the
// atomic writers' temporary files for them (".NAME.tmp-…"), removes the
// temporary files, as a user's cleanup would, and returns how many there
// were: a kill that left one landed inside a write.
func Strays(t *testing.T, dir string, keep ...string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	n := 0
next:
	for _, e := range entries {
		for _, k := range keep {
			if e.Name() == k {
				continue next
			}
		}
		temp := false
		for _, k := range keep {
			temp = temp || strings.HasPrefix(e.Name(), "."+k+".tmp-")
		}
		require.True(t, temp, "unexpected file %s in %s", e.Name(), dir)
		require.NoError(t, os.Remove(filepath.Join(dir, e.Name())))
		n++
	}
	return n
}
