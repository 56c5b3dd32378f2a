package robustness

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/gotorch/gotorch/internal/childtest"
)

// runInChild runs cases, each of which once killed the process, in one
// child process: the child (env set) runs each as a subtest, in name
// order, followed by after (the next call must work), and the parent
// reports each case from the child's -test.v output.
//
// One child for all of a test's cases, not one per case (issue 38): a
// child is the race-instrumented test binary started again, about 1.4 s of
// CPU before its first line. A case that crashes the child still fails the
// test, with the child's output, whose last "=== RUN" names the case.
func runInChild(t *testing.T, env string, cases map[string]func(*testing.T), after func(*testing.T)) {
	t.Helper()
	names := make([]string, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	slices.Sort(names)
	if os.Getenv(env) != "" {
		for _, name := range names {
			t.Run(name, func(t *testing.T) {
				cases[name](t)
				after(t)
			})
		}
		return
	}
	out := childtest.Rerun(t, env, "all", 3*time.Minute)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			assert.True(t, strings.Contains(out, "--- PASS: "+t.Name()+" ("), "child:\n%s", out)
		})
	}
}
