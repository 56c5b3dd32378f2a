// Package childtest re-runs the calling test in a child process of the same
// test binary, for checks that must not touch the parent process: a capped
// address space or file size, a poisoned CUDA context. The test tells the
// child from the parent by an environment variable that only the child
// has.
package childtest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Rerun runs t's top-level test again in a child process, with env=value
// added to its environment, and returns what the child printed (with
// -test.v). The test fails, showing that output, if the child fails or has
// not ended after timeout, when it is killed.
func Rerun(t *testing.T, env, value string, timeout time.Duration) string {
	t.Helper()
	name := strings.Split(t.Name(), "/")[0]
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+name+"$", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+value)
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the child of %s did not end within %v:\n%s", name, timeout, out)
	}
	require.NoError(t, err, "child:\n%s", out)
	return string(out)
}
