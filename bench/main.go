// Command bench runs GoTorch's benchmarks side by side with C++ libtorch
// and Python PyTorch and writes docs/benchmarks.md and its chart:
//
//	go run ./bench            # the full run, about 5–10 minutes
//	go run ./bench -quick     # a smoke run, under a minute once built
//	make bench                # the same as go run ./bench
//
// It builds what it needs: the C++ worker (bench/cxx/work.cc, compiled
// with g++ -O2 against libtorch, $LIBTORCH when set, cached under
// bench/out/), the Go worker (bench/cmd/gowork), the Go+ worker (the
// training script bench/gopwork, built with gop-torch) and, for Python,
// bench/py/work.py run by /usr/bin/python3. The workers run with the same
// thread settings and take their turns: each round runs every workload on
// every worker, one after the other (C++, Go, Go+, Python, C++, Go, …),
// each time with a warm-up repetition first. The report gives the min and
// median of each and the ratios Go/C++ and Go/Python, and checks the
// targets (PASS or MISS, with the margin).
//
// Workloads: per-op overhead (add and mm, 4×4 and 256×256, with and
// without requires_grad), an MLP 784-512-512-10 SGD step and the
// Fashion-MNIST CNN's Adam step (batch 64, synthetic data), the GC()
// pause per step, RSS and live tensors over a long training run, and
// process start-up to the first op; and the models part (models.go):
// ResNet-18 inference and training, GPT-2 generation with the key/value
// cache and a BERT encoder, C++ beside Go and Python.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// config is what the flags set.
type config struct {
	Root          string // the module's root
	Rounds        int
	Reps          int // timed repetitions per worker, job and round
	Warmup        int // untimed repetitions before them
	IterScale     float64
	Quick         bool
	RSSSteps      int
	StartupRounds int
	Threads       int
	OMPWait       string
	Python        string
	CXX           string
	Out           string // the Markdown report
	Chart         string // the PNG chart
	Only          []string
	Notes         string        // hand-written notes included in the report
	Replot        string        // a saved results file to report instead of measuring
	Readme        string        // the file whose marked block gets the headline figures
	Saved         string        // where the results are saved
	Device        string        // cpu or cuda (-device)
	TimeLimit     time.Duration // stop starting jobs after this long (-time-limit); 0: none
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if slices.Equal(cfg.Only, []string{"ddp"}) { // bench/ddp.go alone: no other worker is built
		if err := ddpMain(cfg, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	var res *results
	if cfg.Replot != "" {
		res, err = replot(cfg)
	} else {
		res, err = run(cfg, os.Stderr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	fmt.Print(summaryText(res))
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	var c config
	fs.BoolVar(&c.Quick, "quick", false, "smoke run: 2 rounds, few iterations, a short RSS run, the models at reduced shapes; writes under bench/out/quick unless -out is given")
	fs.IntVar(&c.Rounds, "rounds", 0, "interleaved rounds (default 10, 2 with -quick)")
	fs.IntVar(&c.Reps, "reps", 0, "timed repetitions per workload, worker and round (default 3, 1 with -quick)")
	fs.IntVar(&c.Warmup, "warmup", 1, "untimed warm-up repetitions before them")
	fs.Float64Var(&c.IterScale, "scale", 1, "multiply the iterations per repetition")
	fs.IntVar(&c.RSSSteps, "rss-steps", 0, "training steps of the RSS run (default 10000, 400 with -quick)")
	fs.IntVar(&c.StartupRounds, "startup-rounds", 0, "start-up measurements per worker (default 8, 2 with -quick)")
	fs.IntVar(&c.Threads, "threads", 2, "intra-op threads of every worker")
	fs.StringVar(&c.OMPWait, "omp-wait-policy", "", "OMP_WAIT_POLICY of every worker (active or passive); default: the runtime's")
	fs.StringVar(&c.Python, "python", "/usr/bin/python3", "Python with PyTorch; empty to leave Python out")
	fs.StringVar(&c.CXX, "cxx", "", "C++ compiler (default $CXX or g++)")
	fs.StringVar(&c.Out, "out", "", "Markdown report (default docs/benchmarks.md; bench/out/quick/benchmarks.md with -quick)")
	fs.StringVar(&c.Chart, "chart", "", "PNG chart (default: the report's name with .png)")
	only := fs.String("only", "", "comma-separated parts to run: "+strings.Join(cpuParts, ",")+" (default all; with -device cuda: "+strings.Join(gpuParts, ",")+")")
	device := fs.String("device", "cpu", "cpu: the CPU benchmark; cuda: the GPU jobs on cuda:0 (per-op add/mm, MLP, CNN, transformer, models, with peak memory), reported to bench/out/gpu/benchmarks.md unless -out is given")
	fs.DurationVar(&c.TimeLimit, "time-limit", 0, "start no job once this long has passed since the start, builds included, and report what was measured (for a machine lent for minutes); 0: no limit")
	fs.StringVar(&c.Notes, "notes", "bench/NOTES.md", "hand-written notes to include in the report, if the file exists")
	fs.StringVar(&c.Replot, "replot", "", "rewrite the report and chart from a saved results file (bench/out/results.json) instead of measuring")
	fs.StringVar(&c.Readme, "readme", "", "file whose <!-- bench:begin --> ... <!-- bench:end --> block gets the headline figures (default README.md for a full run to docs/benchmarks.md, none otherwise)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	def := func(v *int, full, quick int) {
		if *v <= 0 {
			*v = full
			if c.Quick {
				*v = quick
			}
		}
	}
	def(&c.Rounds, 10, 2)
	def(&c.Reps, 3, 1)
	def(&c.RSSSteps, 10000, 400)
	def(&c.StartupRounds, 8, 2)
	if c.Warmup < 0 || c.Threads < 1 || c.IterScale <= 0 {
		return c, fmt.Errorf("-warmup, -threads and -scale must be positive")
	}
	var err error
	if c.Device, err = parseDevice(*device); err != nil {
		return c, err
	}
	parts := cpuParts
	if c.onCUDA() {
		parts = gpuParts
	}
	if *only != "" {
		for _, p := range strings.Split(*only, ",") {
			p = strings.TrimSpace(p)
			if !slices.Contains(parts, p) {
				return c, fmt.Errorf("-only: unknown part %q with -device %s (want %s)", p, c.Device, strings.Join(parts, ", "))
			}
			c.Only = append(c.Only, p)
		}
	}
	if c.onCUDA() && len(c.Only) == 0 {
		c.Only = parts // no start-up or RSS run on the GPU
	}
	if c.CXX == "" {
		c.CXX = os.Getenv("CXX")
	}
	if c.CXX == "" {
		c.CXX = "g++"
	}
	root, err := moduleRoot()
	if err != nil {
		return c, err
	}
	c.Root = root
	if c.Out == "" && c.onCUDA() {
		c.Out = "bench/out/gpu/benchmarks.md"
		c.Saved = "bench/out/gpu/results.json"
	} else if c.Out == "" {
		c.Out = "docs/benchmarks.md"
		c.Saved = "bench/out/results.json"
		if c.Quick {
			c.Out = "bench/out/quick/benchmarks.md"
			c.Saved = "bench/out/quick/results.json"
		} else if c.Readme == "" {
			c.Readme = "README.md"
		}
	} else {
		c.Saved = strings.TrimSuffix(c.Out, filepath.Ext(c.Out)) + ".json"
	}
	for _, p := range []*string{&c.Saved, &c.Readme, &c.Replot} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(root, *p)
		}
	}
	if !filepath.IsAbs(c.Out) {
		c.Out = filepath.Join(root, c.Out)
	}
	if c.Chart == "" {
		c.Chart = strings.TrimSuffix(c.Out, filepath.Ext(c.Out)) + ".png"
	} else if !filepath.IsAbs(c.Chart) {
		c.Chart = filepath.Join(root, c.Chart)
	}
	if c.Notes != "" && !filepath.IsAbs(c.Notes) {
		c.Notes = filepath.Join(root, c.Notes)
	}
	return c, nil
}

// wants reports whether a part of the run is selected by -only.
func (c config) wants(part string) bool {
	if len(c.Only) == 0 {
		return true
	}
	for _, p := range c.Only {
		if p == part {
			return true
		}
	}
	return false
}

// moduleRoot is the directory of GoTorch's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command(goTool(), "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("run the benchmarks inside the GoTorch module (go run ./bench)")
	}
	return filepath.Dir(gomod), nil
}

// command is the command line that ran the harness, for the report.
func command(args []string) string {
	parts := []string{"go run ./bench"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}

// elapsed formats a duration for the progress lines.
func elapsed(d time.Duration) string { return d.Round(time.Second).String() }
