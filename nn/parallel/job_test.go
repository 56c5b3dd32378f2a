package parallel_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotorch/gotorch/internal/disttest"
)

// The two-rank tests share one job (issue 38). A rank is a copy of the
// race-instrumented test binary, and each copy costs about 1.4 s of CPU
// (loading libtorch and its static initializers) before its first line:
// one job of two ranks per test made 22 of them. Each test in pairTests
// still runs on two processes that train, all-reduce and fail as before,
// with a process group of its own (initGroup: a FileStore named by the
// subtest in $STORE_DIR), but the two processes run the tests one after
// another, each rank with -test.run naming them all.
//
// A test whose rank must die or hang (TestDDPDeadRankFailsBackward,
// TestDDPHungRankReported, the one-sided case of
// TestDDPUnusedParametersWithoutOption) or that needs 4 ranks keeps a job
// of its own.

// pairTests are the tests that run in the two-rank job: in each, every
// rank ends its part normally, so the next test can follow in the same
// process.
var pairTests = []string{
	"TestDDPBroadcastBuffers",
	"TestDDPNoSyncAccumulatesLocally",
	"TestDDPMatchesOneProcess",
	"TestDDPBuffers",
	"TestDDPFindUnusedParameters",
	"TestDDPRefusesMismatchedRanks",
	"TestSyncBatchNormMatchesPyTorch",
	"TestDDPUnusedParametersWithoutOption",
}

// pairJobEnv marks the ranks of the shared job: a test in pairTests runs
// only its shared part there (TestDDPUnusedParametersWithoutOption's
// one-sided case has a job of its own).
const pairJobEnv = "GOTORCH_PAIR_JOB"

func inPairJob() bool { return os.Getenv(pairJobEnv) != "" }

// pairJobTimeout bounds the whole shared job: each test's process group
// times out after a minute, and the job's tests together take well under
// a minute of their own.
const pairJobTimeout = 5 * time.Minute

var pairJob struct {
	once  sync.Once
	tests []string // the tests the job ran
	res   []disttest.Result
}

// runInPairJob is the parent side of a test in pairTests: the first such
// test starts the job, with every test of pairTests that this run selects
// (-test.run, -test.skip), and each reports its own part of the ranks'
// output: it fails, with that part, unless every rank passed it.
func runInPairJob(t *testing.T) {
	t.Helper()
	name := strings.Split(t.Name(), "/")[0]
	pairJob.once.Do(func() {
		pairJob.tests = selectedPairTests()
		dir := t.TempDir()
		pattern := "^(" + strings.Join(pairJob.tests, "|") + ")$"
		pairJob.res = disttest.Start(t, 2, disttest.Options{
			Timeout: pairJobTimeout,
			Env:     func(int) []string { return []string{"STORE_DIR=" + dir, pairJobEnv + "=1"} },
			Wrap: func(_ int, argv []string) []string {
				return []string{argv[0], "-test.run", pattern, "-test.v"}
			},
		})
	})
	if !contains(pairJob.tests, name) {
		t.Fatalf("%s ran, but the shared job did not select it (tests %v)", name, pairJob.tests)
	}
	for _, r := range pairJob.res {
		part, ok := testOutput(r.Output, name)
		if !ok {
			t.Errorf("rank %d did not finish %s (%v); its output:\n%s", r.Rank, name, r.Err, r.Output)
			continue
		}
		if !strings.Contains(part, "\n--- PASS: "+name+" (") {
			t.Errorf("rank %d failed %s:\n%s", r.Rank, name, part)
			continue
		}
		for _, l := range strings.Split(part, "\n") {
			if strings.Contains(l, "error:") {
				t.Logf("rank %d: %s", r.Rank, strings.TrimSpace(l))
			}
		}
	}
}

// selectedPairTests returns the tests of pairTests that this process's
// -test.run and -test.skip select at the top level.
func selectedPairTests() []string {
	match := func(flagName string) *regexp.Regexp {
		f := flag.Lookup(flagName)
		if f == nil || f.Value.String() == "" {
			return nil
		}
		re, err := regexp.Compile(strings.Split(f.Value.String(), "/")[0])
		if err != nil {
			return nil
		}
		return re
	}
	run, skip := match("test.run"), match("test.skip")
	var tests []string
	for _, name := range pairTests {
		if (run == nil || run.MatchString(name)) && (skip == nil || !skip.MatchString(name)) {
			tests = append(tests, name)
		}
	}
	return tests
}

// testOutput returns the part of a -test.v output that a top-level test
// wrote, from its "=== RUN" line to its "--- PASS/FAIL/SKIP" line, and
// whether that ending line is there.
func testOutput(out, name string) (string, bool) {
	start := strings.Index(out, "=== RUN   "+name+"\n")
	if start < 0 {
		return "", false
	}
	out = out[start:]
	end := regexp.MustCompile(`(?m)^--- (PASS|FAIL|SKIP): ` + regexp.QuoteMeta(name) + ` \(.*\n`).FindStringIndex(out)
	if end == nil {
		return out, false
	}
	return out[:end[1]], true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// storeFile is the FileStore of the current (sub)test's process group:
// $STORE_FILE in a job of its own, a file named by the test in $STORE_DIR
// in the shared job.
func storeFile(t *testing.T) string {
	if dir := os.Getenv("STORE_DIR"); dir != "" {
		return filepath.Join(dir, strings.NewReplacer("/", "_", "=", "-", ",", "_").Replace(t.Name()))
	}
	return os.Getenv("STORE_FILE")
}
