package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []float64
		want summary
	}{
		{"empty", nil, summary{}},
		{"one", []float64{3}, summary{N: 1, Min: 3, Median: 3, P90: 3, Max: 3, Mean: 3}},
		{"odd", []float64{5, 1, 3}, summary{N: 3, Min: 1, Median: 3, P90: 5, Max: 5, Mean: 3}},
		{"even", []float64{4, 1, 3, 2}, summary{N: 4, Min: 1, Median: 2.5, P90: 4, Max: 4, Mean: 2.5}},
		{"p90 of ten", []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, summary{N: 10, Min: 1, Median: 5.5, P90: 9, Max: 10, Mean: 5.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := append([]float64(nil), tc.in...)
			assert.Equal(t, tc.want, summarize(tc.in))
			assert.Equal(t, in, tc.in, "summarize must not reorder its input")
		})
	}
}

func TestRatio(t *testing.T) {
	for _, tc := range []struct {
		a, b, want float64
	}{
		{2, 1, 2},
		{1, 4, 0.25},
		{0, 1, math.NaN()},
		{1, 0, math.NaN()},
		{math.NaN(), 1, math.NaN()},
		{-1, 1, math.NaN()},
	} {
		got := ratio(tc.a, tc.b)
		if math.IsNaN(tc.want) {
			assert.True(t, math.IsNaN(got), "ratio(%v, %v) = %v", tc.a, tc.b, got)
		} else {
			assert.InDelta(t, tc.want, got, 1e-12)
		}
	}
}

func TestTarget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		t       target
		verdict string
		margin  string
	}{
		{"at most, met", target{Measured: 1.1, Limit: 1.3, AtMost: true, Unit: "×"}, "PASS", "15% under the limit"},
		{"at most, exactly", target{Measured: 1.3, Limit: 1.3, AtMost: true, Unit: "×"}, "PASS", "0% under the limit"},
		{"at most, missed", target{Measured: 2.6, Limit: 1.3, AtMost: true, Unit: "×"}, "MISS", "100% over the limit"},
		{"at least, met", target{Measured: 1.9, Limit: 0.95, Unit: "×"}, "PASS", "100% above the minimum"},
		{"at least, missed", target{Measured: 0.475, Limit: 0.95, Unit: "×"}, "MISS", "50% short of the minimum"},
		{"percentage, met", target{Measured: -1.5, Limit: 5, AtMost: true, Unit: "%"}, "PASS", "6.5 points under the limit"},
		{"percentage, missed", target{Measured: 7, Limit: 5, AtMost: true, Unit: "%"}, "MISS", "2.0 points over the limit"},
		{"not measured", target{Measured: math.NaN(), Limit: 5, AtMost: true, Unit: "%"}, "n/a", "not measured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.verdict, tc.t.verdict())
			assert.Equal(t, tc.margin, tc.t.margin())
			assert.Contains(t, tc.t.String(), tc.verdict)
		})
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		ns   float64
		want string
	}{
		{550, "550 ns"},
		{1234, "1.23 µs"},
		{56789, "56.8 µs"},
		{2.5e6, "2.50 ms"},
		{35.14e6, "35.1 ms"},
		{1.5e9, "1.50 s"},
		{0, "n/a"},
		{math.NaN(), "n/a"},
	} {
		assert.Equal(t, tc.want, fmtDuration(tc.ns), "fmtDuration(%v)", tc.ns)
	}
	assert.Equal(t, "1.30×", fmtRatio(1.3))
	assert.Equal(t, "n/a", fmtRatio(math.NaN()))
	assert.Equal(t, "+4.2%", fmtValue(4.2, "%"))
	assert.Equal(t, "0.474 ms", fmtValue(0.474, " ms"))
	assert.Equal(t, "2.0 MiB", fmtBytes(2<<20))
}

func TestParseMessage(t *testing.T) {
	m, err := parseMessage(`{"job":"add4","iters":10,"ns":[100,200],"gc_ns":null}`)
	require.NoError(t, err)
	assert.Equal(t, "add4", m.Job)
	assert.Equal(t, []int64{100, 200}, m.NS)
	assert.Nil(t, m.GCNS)

	m, err = parseMessage(`{"step":500,"rss":1048576,"live":8}`)
	require.NoError(t, err)
	require.NotNil(t, m.Live)
	assert.Equal(t, int64(8), *m.Live)

	m, err = parseMessage(`{"step": 500, "rss": 1048576}`) // Python spacing, no live count
	require.NoError(t, err)
	assert.Nil(t, m.Live)

	m, err = parseMessage(`{"done":true,"total_ns":12345}`)
	require.NoError(t, err)
	assert.True(t, m.Done)
	assert.Equal(t, int64(12345), m.TotalNS)

	_, err = parseMessage("Traceback (most recent call last):")
	assert.Error(t, err)
}

func TestWorkerEnv(t *testing.T) {
	base := []string{"PATH=/bin", "OMP_NUM_THREADS=8", "OPENBLAS_CORETYPE=Haswell", "HOME=/root"}
	env := workerEnv(base, 2, "passive")
	assert.Contains(t, env, "PATH=/bin")
	assert.Contains(t, env, "OMP_NUM_THREADS=2")
	assert.NotContains(t, env, "OMP_NUM_THREADS=8")
	assert.Contains(t, env, "GOTORCH_NUM_THREADS=2")
	assert.Contains(t, env, "BENCH_THREADS=2")
	assert.Contains(t, env, "OPENBLAS_NUM_THREADS=1")
	assert.Contains(t, env, "OMP_WAIT_POLICY=passive")
	assert.NotContains(t, workerEnv(base, 2, ""), "OMP_WAIT_POLICY=passive")
	rel := relevantEnv(env)
	assert.Contains(t, rel, "OPENBLAS_CORETYPE=Haswell")
	assert.NotContains(t, rel, "PATH=/bin")
	assert.NotContains(t, rel, "HOME=/root")
}

func TestLibtorchFlags(t *testing.T) {
	cxx, ld := libtorchFlags("")
	assert.Contains(t, cxx, "-O2")
	assert.Contains(t, cxx, "-I/usr/include/torch/csrc/api/include")
	assert.Contains(t, ld, "-ltorch_cpu")

	dir := t.TempDir()
	cmake := filepath.Join(dir, "share/cmake/Torch")
	require.NoError(t, os.MkdirAll(cmake, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cmake, "TorchConfig.cmake"),
		[]byte(`set(TORCH_CXX_FLAGS "-D_GLIBCXX_USE_CXX11_ABI=0")`), 0o644))
	cxx, ld = libtorchFlags(dir)
	assert.Contains(t, cxx, "-I"+dir+"/include")
	assert.Contains(t, cxx, "-I"+dir+"/include/torch/csrc/api/include")
	assert.Contains(t, cxx, "-D_GLIBCXX_USE_CXX11_ABI=0")
	assert.Contains(t, ld, "-Wl,-rpath,"+dir+"/lib")
	assert.Equal(t, "-L"+dir+"/lib", ld[0])
}

func TestRSSBase(t *testing.T) {
	for _, tc := range []struct{ steps, every, base int }{
		{10000, 500, 1000},
		{400, 20, 40},
		{20, 1, 2},
		{5, 1, 1},
	} {
		assert.Equal(t, tc.every, rssEvery(tc.steps), "rssEvery(%d)", tc.steps)
		assert.Equal(t, tc.base, rssBase(tc.steps), "rssBase(%d)", tc.steps)
	}
}

func TestParseFlags(t *testing.T) {
	c, err := parseFlags([]string{"-quick"})
	require.NoError(t, err)
	assert.Equal(t, 2, c.Rounds)
	assert.Equal(t, 400, c.RSSSteps)
	assert.True(t, strings.HasSuffix(c.Out, "bench/out/quick/benchmarks.md"), c.Out)
	assert.True(t, strings.HasSuffix(c.Chart, "bench/out/quick/benchmarks.png"), c.Chart)

	c, err = parseFlags([]string{"-rounds", "3", "-only", "mlp,rss"})
	require.NoError(t, err)
	assert.Equal(t, 3, c.Rounds)
	assert.Equal(t, 10000, c.RSSSteps)
	assert.True(t, strings.HasSuffix(c.Out, "docs/benchmarks.md"), c.Out)
	assert.True(t, c.wants("mlp"))
	assert.False(t, c.wants("ops"))

	_, err = parseFlags([]string{"-only", "everything"})
	assert.Error(t, err)
}

// fakeResults are results as a run would leave them, with round numbers.
func fakeResults() *results {
	r := &results{
		Config:  config{Rounds: 2, Reps: 1, Warmup: 1, Threads: 2, RSSSteps: 10000, StartupRounds: 2, Root: "/repo", Out: "/repo/docs/benchmarks.md"},
		Command: "go run ./bench", Start: time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC), Duration: 5 * time.Minute,
		Machine: machine{CPU: "Test CPU", Cores: 2},
		Impls:   allImpls,
		Samples: map[string]map[string][]float64{
			"add4": {"cxx": {500, 600}, "go": {1000, 1200}, "python": {900, 1000}},
			"mlp":  {"cxx": {2e6, 2e6}, "go": {2e6, 2.2e6}, "gop": {2.1e6, 2.1e6}, "python": {3e6, 3e6}},
		},
		GC:      map[string][]float64{"mlp": {300e3, 400e3, 500e3}},
		Startup: map[string][]float64{"cxx": {100e6}, "go": {150e6}, "gop": {160e6}, "python": {1.5e9}},
		RSS: map[string][]rssPoint{
			"go":     {{500, 100 << 20, 8}, {1000, 100 << 20, 8}, {10000, 103 << 20, 8}},
			"python": {{500, 200 << 20, -1}, {1000, 200 << 20, -1}, {10000, 220 << 20, -1}},
		},
		RSSStep: map[string]float64{"go": 2e6},
	}
	return r
}

func TestTargets(t *testing.T) {
	r := fakeResults()
	got := map[string]target{}
	for _, tg := range r.targets() {
		got[tg.Name] = tg
	}
	add := got["per-op add, 4×4: Go time / C++ time"]
	assert.InDelta(t, 2.0, add.Measured, 1e-9)
	assert.Equal(t, "MISS", add.verdict())
	py := got["per-op add, 4×4: Go speed-up over Python"]
	assert.InDelta(t, 950.0/1100, py.Measured, 1e-9)
	assert.Equal(t, "MISS", py.verdict())
	mlp := got["MLP 784-512-512-10, SGD step, batch 64: Go throughput / C++"]
	assert.InDelta(t, 2.0/2.1, mlp.Measured, 1e-9)
	assert.Equal(t, "PASS", mlp.verdict())
	gc := got["median torch.GC() pause, MLP steps, interleaved rounds"]
	assert.InDelta(t, 0.4, gc.Measured, 1e-9)
	assert.Equal(t, "PASS", gc.verdict())
	rss := got["Go RSS growth from step 1000 to 10000"]
	assert.InDelta(t, 3.0, rss.Measured, 1e-9)
	assert.Equal(t, "PASS", rss.verdict())
	_, ok := got["Go+ RSS growth from step 1000 to 10000"]
	assert.False(t, ok, "no Go+ RSS run, no target")
}

func TestMarkdown(t *testing.T) {
	md := markdown(fakeResults(), "benchmarks.png")
	for _, want := range []string{
		"go run ./bench",
		"Test CPU, 2 logical CPUs",
		"| add, 4×4 | 550 ns (500 ns) | 1.10 µs (1.00 µs) | — | 950 ns (900 ns) | 2.00× (2.00×) | — | 1.16× (1.11×) |",
		"| MLP 784-512-512-10, SGD step, batch 64 | 2.00 ms (2.00 ms) | 2.10 ms (2.00 ms) | 2.10 ms (2.10 ms) | 3.00 ms (3.00 ms) |",
		"| Go | 100.0 MiB | 103.0 MiB (step 10000) | +3.0% | 8 → 8 |",
		"| Python | 200.0 MiB | 220.0 MiB (step 10000) | +10.0% | n/a |",
		"| Python | 1 | 1.50 s | 1.50 s | 15.00× |",
		"**MISS**",
		"**PASS**",
		"![median time relative to C++, and RSS over the long run](benchmarks.png)",
	} {
		assert.Contains(t, md, want)
	}
	assert.NotContains(t, md, "The machine was busy")
	r := fakeResults()
	r.Others = 1
	assert.Contains(t, markdown(r, ""), "The machine was busy")
}

func TestChart(t *testing.T) {
	r := fakeResults()
	path := filepath.Join(t.TempDir(), "chart.png")
	require.NoError(t, writeChart(r, path))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "\x89PNG", string(b[:4]))
}

// TestSmoke builds the workers and runs the whole harness with -quick,
// writing its report to a temporary directory. It compiles the C++ worker
// (a minute, cached in bench/out) and needs /usr/bin/python3 with torch
// for the Python column, so it runs only when GOTORCH_BENCH_SMOKE=1.
func TestSmoke(t *testing.T) {
	if os.Getenv("GOTORCH_BENCH_SMOKE") != "1" {
		t.Skip("set GOTORCH_BENCH_SMOKE=1 to build and run the harness with -quick")
	}
	out := filepath.Join(t.TempDir(), "bench.md")
	cfg, err := parseFlags([]string{"-quick", "-rounds", "1", "-startup-rounds", "1", "-rss-steps", "60", "-out", out})
	require.NoError(t, err)
	var log strings.Builder
	res, err := run(cfg, &log)
	require.NoError(t, err, log.String())
	md, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(md), "## Targets")
	assert.FileExists(t, strings.TrimSuffix(out, ".md")+".png")
	for _, j := range jobs {
		assert.NotEmpty(t, res.Samples[j.Name]["go"], j.Name)
		assert.NotEmpty(t, res.Samples[j.Name]["cxx"], j.Name)
	}
	assert.NotEmpty(t, res.Samples["mlp"]["gop"])
	for _, j := range modelJobs { // at -quick's reduced shapes
		for _, im := range modelImpls {
			assert.NotEmpty(t, res.Samples[j.Name][im], "%s on %s", j.Name, im)
		}
	}
	assert.NotEmpty(t, res.RSS["go"])
	assert.Empty(t, res.Errors)
}

func TestUpdateReadme(t *testing.T) {
	path := filepath.Join(t.TempDir(), "README.md")
	require.NoError(t, os.WriteFile(path, []byte("# X\n\n## Benchmarks\n\n"+readmeBegin+"\nold\n"+readmeEnd+"\n\n## Next\n"), 0o644))
	require.NoError(t, updateReadme(fakeResults(), path))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	s := string(b)
	assert.NotContains(t, s, "old")
	assert.Contains(t, s, "| add, 4×4 | 550 ns | 1.10 µs | — | 950 ns | 2.00× | n/a | 1.16× |")
	assert.Contains(t, s, "Go RSS +3.0% from step 1000 to 10000")
	assert.True(t, strings.HasSuffix(s, readmeEnd+"\n\n## Next\n"))

	require.NoError(t, os.WriteFile(path, []byte("# X\n"), 0o644))
	assert.Error(t, updateReadme(fakeResults(), path))
}

func TestSaveAndReplot(t *testing.T) {
	dir := t.TempDir()
	r := fakeResults()
	saved := filepath.Join(dir, "results.json")
	require.NoError(t, saveResults(r, saved))
	cfg := config{Root: dir, Replot: saved, Out: filepath.Join(dir, "b.md"), Chart: filepath.Join(dir, "b.png")}
	got, err := replot(cfg)
	require.NoError(t, err)
	assert.Equal(t, r.Samples, got.Samples)
	assert.Equal(t, r.RSS, got.RSS)
	md, err := os.ReadFile(cfg.Out)
	require.NoError(t, err)
	assert.Equal(t, markdown(got, "b.png"), string(md))
	assert.FileExists(t, cfg.Chart)
}

func TestCommand(t *testing.T) {
	assert.Equal(t, "go run ./bench", command(nil))
	assert.Equal(t, "go run ./bench -quick -rounds 3", command([]string{"-quick", "-rounds", "3"}))
	assert.Equal(t, "go run ./bench -python ''", command([]string{"-python", ""}))
	assert.Equal(t, "go run ./bench -out 'a b.md'", command([]string{"-out", "a b.md"}))
}

// TestTimeLimitStopsRounds: with -time-limit passed, the rounds start no
// job and the results say why they are short.
func TestTimeLimitStopsRounds(t *testing.T) {
	c, err := parseFlags([]string{"-time-limit", "1ms", "-only", "ops,mlp"})
	require.NoError(t, err)
	assert.Equal(t, time.Millisecond, c.TimeLimit)
	res := &results{Samples: map[string]map[string][]float64{}}
	var log strings.Builder
	logf := func(format string, args ...any) { fmt.Fprintf(&log, format+"\n", args...) }
	require.NoError(t, interleaved(c, res, nil, logf, time.Now().Add(-time.Second)))
	require.Len(t, res.Errors, 1)
	assert.Contains(t, res.Errors[0], "stopped at -time-limit 1ms in round 1, before ")
	assert.Contains(t, log.String(), "time limit 1ms reached")
	assert.Empty(t, res.Samples)

	c.TimeLimit = 0
	res = &results{Samples: map[string]map[string][]float64{}}
	require.NoError(t, interleaved(c, res, nil, logf, time.Now().Add(-time.Hour)))
	assert.Empty(t, res.Errors, "no limit: every round runs (here with no workers)")
}

func TestMachineFaultsAndISA(t *testing.T) {
	assert.Equal(t, "AVX-512", vectorISA(": fpu avx2 avx512f sse4_1"))
	assert.Equal(t, "AVX2", vectorISA(": fpu avx2 sse4_1"))
	assert.Equal(t, "SSE4.1 or older", vectorISA(": fpu sse4_1"))
	assert.Equal(t, "", vectorISA(""))
	// A fresh page costs something, and far less than a millisecond.
	d := pageFaultCost()
	t.Logf("a fresh 4 KiB page: %v", d)
	assert.Greater(t, d, time.Duration(0))
	assert.Less(t, d, time.Millisecond)
}

// The notes' headings move two levels down under the report's "Notes";
// a shell comment inside a code block stays as it is.
func TestDemoteHeadings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"# Top\ntext", "### Top\ntext"},
		{"## Part\n### Sub", "### Part\n### Sub"},
		{"```sh\n# a comment\n## another\n```\n# After", "```sh\n# a comment\n## another\n```\n### After"},
		{"  ```\n# in an indented fence\n  ```", "  ```\n# in an indented fence\n  ```"},
	} {
		assert.Equal(t, tc.want, string(demoteHeadings([]byte(tc.in))), "%q", tc.in)
	}
}

func TestRoundOrder(t *testing.T) {
	ims := []impl{{Name: "cxx"}, {Name: "go"}, {Name: "gop"}, {Name: "python"}}
	names := func(round int) string {
		var s []string
		for _, im := range roundOrder(ims, round) {
			s = append(s, im.Name)
		}
		return strings.Join(s, ",")
	}
	assert.Equal(t, "cxx,go,gop,python", names(1))
	assert.Equal(t, "go,gop,python,cxx", names(2))
	assert.Equal(t, "python,cxx,go,gop", names(4))
	assert.Equal(t, "cxx,go,gop,python", names(5))
	assert.Equal(t, "cxx,go,gop,python", names(1), "roundOrder must not change its input")
	assert.Empty(t, roundOrder(nil, 3))
}

func TestPairedRatio(t *testing.T) {
	// Round 2 is a slow spell for both workers; Go is 1.1× C++ in every
	// round. The ratio of the medians over all rounds sees less of it.
	r := &results{
		Samples: map[string]map[string][]float64{"mlp": {
			"cxx": {100, 100, 200, 200, 100, 100},
			"go":  {110, 110, 220, 220, 110, 110},
		}},
		SampleRounds: map[string]map[string][]int{"mlp": {
			"cxx": {1, 1, 2, 2, 3, 3},
			"go":  {1, 1, 2, 2, 3, 3},
		}},
	}
	assert.InDelta(t, 1.1, r.pairedRatio("mlp", "go", "cxx"), 1e-12)
	// Fewer than 3 rounds with both workers: no figure.
	r.SampleRounds["mlp"]["go"] = []int{1, 1, 2, 2, 4, 4}
	assert.True(t, math.IsNaN(r.pairedRatio("mlp", "go", "cxx")))
	// Results saved before rounds were recorded.
	delete(r.SampleRounds, "mlp")
	assert.True(t, math.IsNaN(r.pairedRatio("mlp", "go", "cxx")))
}
