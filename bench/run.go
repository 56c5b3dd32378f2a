package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// jobSpec is one interleaved workload.
type jobSpec struct {
	Name       string // the protocol's job name
	Title      string
	Part       string // ops, mlp or cnn (for -only)
	Iters      int    // iterations per repetition
	QuickIters int
	Batch      int      // samples per step, 0 for single ops
	Impls      []string // the workers that have it
	// MaxRounds and Reps, when set, replace -rounds and -reps for a job
	// whose step takes seconds.
	MaxRounds, Reps int
}

var (
	opImpls    = []string{"cxx", "go", "gop", "python"}
	trainImpls = []string{"cxx", "go", "gop", "python"}
)

var jobs = []jobSpec{
	{"add4", "add, 4×4", "ops", 10000, 2000, 0, opImpls, 0, 0},
	{"add4g", "add, 4×4, requires_grad", "ops", 10000, 2000, 0, opImpls, 0, 0},
	{"mm4", "mm, 4×4", "ops", 10000, 2000, 0, opImpls, 0, 0},
	{"mm4g", "mm, 4×4, requires_grad", "ops", 10000, 2000, 0, opImpls, 0, 0},
	{"add256", "add, 256×256", "ops", 1000, 100, 0, opImpls, 0, 0},
	{"add256g", "add, 256×256, requires_grad", "ops", 1000, 100, 0, opImpls, 0, 0},
	{"mm256", "mm, 256×256", "ops", 60, 8, 0, opImpls, 0, 0},
	{"mm256g", "mm, 256×256, requires_grad", "ops", 60, 8, 0, opImpls, 0, 0},
	{"mlp", "MLP 784-512-512-10, SGD step, batch 64", "mlp", 30, 3, 64, trainImpls, 0, 0},
	{"cnn", "Fashion-MNIST CNN, Adam step, batch 64", "cnn", 6, 1, 64, trainImpls, 0, 0},
	// 15–20 s a step on two cores: two rounds of one timed step each.
	{"trans", "Transformer encoder 6 × (512, 8 heads, 2048), AdamW step, 32 × 256 tokens", "trans", 1, 1, 32 * 256,
		trainImpls, 2, 1},
}

// memJobs are the mem part's jobs and their steps: enough for GoTorch's
// GC() to let garbage grow to its limit (SetGCPercent) and collect.
var memJobs = []struct {
	Name  string
	Steps int
	Impls []string
}{
	{"mlp", 400, trainImpls},
	{"cnn", 100, trainImpls},
	{"trans", 2, trainImpls},
}

// memResult is one worker's peak memory on one job of the mem part.
type memResult struct {
	Peak int64 // bytes of tensor storage live at once (bench/cxx/countalloc.h)
	HWM  int64 // the process's peak RSS
}

// allImpls in the order of each round.
var allImpls = []impl{
	{Name: "cxx", Label: "C++"},
	{Name: "go", Label: "Go"},
	{Name: "gop", Label: "Go+"},
	{Name: "python", Label: "Python"},
}

func (c config) iters(j jobSpec) int {
	n := j.Iters
	if c.Quick {
		n = j.QuickIters
	}
	return max(1, int(math.Round(float64(n)*c.IterScale)))
}

// rssPoint is one sample of the RSS run.
type rssPoint struct {
	Step int
	RSS  int64
	Live int64 // -1 where the worker cannot count tensors
}

// results is everything a run measured.
type results struct {
	Config   config
	Command  string
	Start    time.Time
	Duration time.Duration
	Machine  machine
	Impls    []impl // the workers that ran
	CxxBuild string // the C++ worker's compile command
	// Samples[job][impl] are the times per iteration (ns) of every timed
	// repetition of every round; SampleRounds[job][impl] the round of
	// each (absent in results saved before it existed).
	Samples      map[string]map[string][]float64
	SampleRounds map[string]map[string][]int `json:",omitempty"`
	// GC[job] are the Go worker's torch.GC() pauses (ns), one per step.
	GC map[string][]float64
	// Startup[impl] are the times (ns) from exec to the end of the first op.
	Startup map[string][]float64
	// RSS[impl] are the RSS run's samples; RSSStep[impl] its mean step
	// time (ns); RSSGC the Go worker's GC pauses in it.
	RSS     map[string][]rssPoint
	RSSStep map[string]float64
	RSSGC   []float64
	// Others is the average number of cores other processes kept busy.
	// Peak[job][impl] is the largest peak of allocated GPU bytes over the
	// rounds (-device cuda).
	Peak map[string]map[string]int64 `json:",omitempty"`
	// Phases[job][impl] are the phases of the training steps summed over
	// all timed steps (message.Phases), PhaseSteps[job][impl] those steps.
	Phases     map[string]map[string][]int64 `json:",omitempty"`
	PhaseSteps map[string]map[string]int     `json:",omitempty"`
	// Mem[job][impl] is the mem part's measure (CPU).
	Mem                map[string]map[string]memResult `json:",omitempty"`
	Others             float64
	LoadStart, LoadEnd string
	Errors             []string
}

func (r *results) errorf(format string, args ...any) {
	r.Errors = append(r.Errors, fmt.Sprintf(format, args...))
}

func (r *results) impl(name string) (impl, bool) {
	for _, im := range r.Impls {
		if im.Name == name {
			return im, true
		}
	}
	return impl{}, false
}

// run builds the workers, runs the benchmarks and writes the report.
func run(cfg config, logw io.Writer) (*results, error) {
	t0 := time.Now()
	logf := func(format string, args ...any) {
		fmt.Fprintf(logw, "[%s] %s\n", elapsed(time.Since(t0)), fmt.Sprintf(format, args...))
	}
	res := &results{
		Config: cfg, Command: command(os.Args[1:]), Start: t0, Machine: describeMachine(),
		Samples: map[string]map[string][]float64{}, SampleRounds: map[string]map[string][]int{}, GC: map[string][]float64{},
		Startup: map[string][]float64{}, RSS: map[string][]rssPoint{}, RSSStep: map[string]float64{},
	}
	outDir := filepath.Join(cfg.Root, "bench", "out")
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	b := &builder{root: cfg.Root, outDir: outDir, log: logf, cuda: cfg.onCUDA()}
	bins := map[string][]string{}
	env := modelShapesEnv(deviceEnv(workerEnv(os.Environ(), cfg.Threads, cfg.OMPWait), cfg.Device), cfg.Quick)
	if cfg.onCUDA() {
		// Fail before the C++ build when there is no GPU.
		gow, err := b.gowork()
		if err != nil {
			return nil, err
		}
		if err := cudaPreflight(gow, cfg.Root, env); err != nil {
			return nil, err
		}
		res.Machine.GPU = gpuName()
	}
	cxx, cmdline, err := b.cxx(cfg.CXX)
	if err != nil {
		return nil, err
	}
	res.CxxBuild = cmdline
	bins["cxx"] = []string{cxx}
	gow, err := b.gowork()
	if err != nil {
		return nil, err
	}
	bins["go"] = []string{gow}
	gop, err := b.gopwork()
	if err != nil {
		return nil, err
	}
	bins["gop"] = []string{gop}
	if cfg.Python != "" {
		py, err := b.python(cfg.Python)
		if err != nil {
			res.errorf("Python left out: %v", err)
			logf("Python left out: %v", err)
		} else {
			bins["python"] = py
		}
	}
	for _, im := range allImpls {
		if cmd, ok := bins[im.Name]; ok {
			im.Cmd = cmd
			res.Impls = append(res.Impls, im)
		}
	}
	res.Machine.Compiler = compilerID(cfg.CXX)
	if cfg.Python != "" {
		res.Machine.Python = commandVersion(cfg.Python, "--version")
	}
	res.Machine.Env = relevantEnv(env)

	res.LoadStart = loadAvg()
	meter := startMeter()
	if err := interleaved(cfg, res, env, logf, t0); err != nil {
		return nil, err
	}
	over := func(part string) bool {
		if cfg.pastTimeLimit(t0) {
			res.errorf("%s left out: -time-limit %v reached", part, cfg.TimeLimit)
			logf("%s left out: time limit %v reached", part, cfg.TimeLimit)
			return true
		}
		return false
	}
	if cfg.wants("mem") && !cfg.onCUDA() && !over("memory run") {
		memRuns(cfg, res, b, env, logf)
	}
	if cfg.wants("startup") && !over("start-up") {
		startups(cfg, res, env, logf)
	}
	if cfg.wants("rss") && !over("RSS run") {
		rssRuns(cfg, res, env, logf)
	}
	if cfg.wants("ddp") && !cfg.onCUDA() && !over("DDP run") {
		if _, err := ddpPart(cfg, logf); err != nil { // bench/ddp.go; its report is bench/out/ddp.md
			res.errorf("DDP run: %v", err)
			logf("DDP run: %v", err)
		}
	}
	res.Others = meter.others()
	res.LoadEnd = loadAvg()
	res.Duration = time.Since(t0)

	if err := saveResults(res, cfg.Saved); err != nil {
		return res, err
	}
	if cfg.onCUDA() {
		if err := writeGPUReport(res); err != nil {
			return res, err
		}
		logf("wrote %s and %s", rel(cfg.Root, cfg.Out), rel(cfg.Root, cfg.Saved))
		return res, nil
	}
	if err := writeReport(res); err != nil {
		return res, err
	}
	logf("wrote %s, %s and %s", rel(cfg.Root, cfg.Out), rel(cfg.Root, cfg.Chart), rel(cfg.Root, cfg.Saved))
	if cfg.Readme != "" {
		if err := updateReadme(res, cfg.Readme); err != nil {
			logf("%v", err)
		} else {
			logf("updated the benchmark block of %s", rel(cfg.Root, cfg.Readme))
		}
	}
	return res, nil
}

// saveResults writes the results as JSON, for -replot.
func saveResults(r *results, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// replot reads saved results and writes their report and chart to the
// places the flags name; the measurements and their settings are the
// saved ones.
func replot(cfg config) (*results, error) {
	b, err := os.ReadFile(cfg.Replot)
	if err != nil {
		return nil, err
	}
	var r results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", cfg.Replot, err)
	}
	r.Config.Root, r.Config.Out, r.Config.Chart, r.Config.Notes = cfg.Root, cfg.Out, cfg.Chart, cfg.Notes
	if r.Config.onCUDA() {
		if cfg.Out == filepath.Join(cfg.Root, "docs/benchmarks.md") {
			r.Config.Out = filepath.Join(cfg.Root, "bench/out/gpu/benchmarks.md")
		}
		return &r, writeGPUReport(&r)
	}
	if err := writeReport(&r); err != nil {
		return &r, err
	}
	if cfg.Readme != "" {
		if err := updateReadme(&r, cfg.Readme); err != nil {
			return &r, err
		}
	}
	return &r, nil
}

// pastTimeLimit reports whether -time-limit has passed since t0, the
// run's start.
func (c config) pastTimeLimit(t0 time.Time) bool {
	return c.TimeLimit > 0 && time.Since(t0) > c.TimeLimit
}

// interleaved runs the rounds: every job on every worker in turn.
func interleaved(cfg config, res *results, env []string, logf func(string, ...any), t0 time.Time) error {
	var selected []jobSpec
	for _, j := range cfg.jobList() {
		if cfg.wants(j.Part) {
			selected = append(selected, j)
		}
	}
	procs := map[string]*process{}
	defer func() {
		for _, p := range procs {
			p.kill()
			p.cmd.Wait()
		}
	}()
	var versions, threads []string
	var libs []string
	for _, im := range res.Impls {
		p, err := serve(im, env, cfg.Root)
		if err != nil {
			res.errorf("%s worker did not start: %v", im.Label, err)
			logf("%s worker did not start: %v", im.Label, err)
			continue
		}
		procs[im.Name] = p
		versions = append(versions, fmt.Sprintf("%s: %s", im.Label, p.hello.Version))
		threads = append(threads, fmt.Sprintf("%s: %d", im.Label, p.hello.Threads))
		for _, l := range loadedLibs(p.pid(), "blas", "lapack", "libtorch_cpu", "libgomp", "mkl", "jemalloc", "tcmalloc") {
			if !slices.Contains(libs, l) {
				libs = append(libs, l)
			}
		}
	}
	res.Machine.Libtorch = versions
	res.Machine.Threads = threads
	res.Machine.BLAS = describeLibs(libs)
	if d := cfg.modelsEstimate(countImpls(procs, modelImpls)); d > 0 {
		logf("models part: about %s on an idle 2-core machine, longer under load (%d rounds of %d jobs, every worker in turn)",
			elapsed(d), min(cfg.Rounds, modelJobs[0].MaxRounds), len(modelJobs))
	}
	timeout := 10 * time.Minute
rounds:
	for round := 1; round <= cfg.Rounds && len(selected) > 0; round++ {
		logf("round %d/%d", round, cfg.Rounds)
		for _, j := range selected {
			if cfg.pastTimeLimit(t0) {
				res.errorf("stopped at -time-limit %v in round %d, before %s: later jobs and rounds are missing", cfg.TimeLimit, round, j.Name)
				logf("time limit %v reached: stopping in round %d, before %s", cfg.TimeLimit, round, j.Name)
				break rounds
			}
			if j.MaxRounds > 0 && round > j.MaxRounds {
				continue
			}
			reps := cfg.Reps
			if j.Reps > 0 {
				reps = j.Reps
			}
			line := fmt.Sprintf("  %-8s", j.Name)
			for _, im := range roundOrder(res.Impls, round) {
				p := procs[im.Name]
				if p == nil || !slices.Contains(j.Impls, im.Name) {
					continue
				}
				iters := cfg.iters(j)
				m, err := p.run(j.Name, iters, cfg.Warmup, reps, timeout)
				if err != nil {
					res.errorf("round %d, %s: %v", round, j.Name, err)
					logf("%s: %v", j.Name, err)
					if errors.Is(err, errExited) || p.cmd.ProcessState != nil {
						delete(procs, im.Name)
					}
					continue
				}
				if res.Samples[j.Name] == nil {
					res.Samples[j.Name] = map[string][]float64{}
					res.SampleRounds[j.Name] = map[string][]int{}
				}
				var sum float64
				for _, ns := range m.NS {
					v := float64(ns) / float64(iters)
					res.Samples[j.Name][im.Name] = append(res.Samples[j.Name][im.Name], v)
					res.SampleRounds[j.Name][im.Name] = append(res.SampleRounds[j.Name][im.Name], round)
					sum += v
				}
				res.recordPeak(j.Name, im.Name, m.PeakBytes)
				res.recordPhases(j.Name, im.Name, m.Phases, iters*reps)
				if im.Name == "go" {
					for _, g := range m.GCNS {
						res.GC[j.Name] = append(res.GC[j.Name], float64(g))
					}
				}
				line += fmt.Sprintf("  %s %s", im.Label, fmtDuration(sum/float64(len(m.NS))))
				if m.PeakBytes != nil {
					line += fmt.Sprintf(" (peak %.1f MiB)", float64(*m.PeakBytes)/(1<<20))
				}
			}
			logf("%s", line)
		}
	}
	for name, p := range procs {
		if err := p.close(); err != nil {
			res.errorf("%s worker: %v", p.impl.Label, err)
		}
		delete(procs, name)
	}
	return nil
}

// roundOrder is the order of the workers in a round: round 1 takes them
// as listed, and each later round starts one further along, so that no
// worker always runs right after the same other one (whose job may leave
// the machine's caches or clock in a state of its own) or always first.
func roundOrder(ims []impl, round int) []impl {
	if len(ims) == 0 {
		return nil
	}
	k := (round - 1) % len(ims)
	return append(slices.Clone(ims[k:]), ims[:k]...)
}

// countImpls is how many of the workers named run.
func countImpls(procs map[string]*process, names []string) int {
	n := 0
	for _, name := range names {
		if procs[name] != nil {
			n++
		}
	}
	return n
}

// startups measures process start-up to the end of the first op, the
// workers taking turns.
func startups(cfg config, res *results, env []string, logf func(string, ...any)) {
	logf("start-up: %d rounds", cfg.StartupRounds)
	for round := 0; round < cfg.StartupRounds; round++ {
		for _, im := range res.Impls {
			begin := time.Now().UnixNano()
			var first int64
			err := runOnce(im, env, cfg.Root, 2*time.Minute, func(m message) {
				if m.FirstOp > 0 {
					first = m.FirstOp
				}
			}, "startup")
			if err != nil || first == 0 {
				res.errorf("start-up, %s: %v", im.Label, err)
				continue
			}
			res.Startup[im.Name] = append(res.Startup[im.Name], float64(first-begin))
		}
	}
}

// rssEvery is the sampling interval of an RSS run of steps steps.
func rssEvery(steps int) int { return max(1, steps/20) }

// rssBase is the step from which RSS growth is measured: a tenth of the
// run (step 1,000 of 10,000).
func rssBase(steps int) int {
	e := rssEvery(steps)
	return max(e, steps/10/e*e)
}

// rssRuns runs the long training run once per worker.
func rssRuns(cfg config, res *results, env []string, logf func(string, ...any)) {
	every := rssEvery(cfg.RSSSteps)
	for _, im := range res.Impls {
		logf("RSS run: %s, %d MLP steps", im.Label, cfg.RSSSteps)
		var pts []rssPoint
		var total int64
		var gc []int64
		err := runOnce(im, env, cfg.Root, 30*time.Minute, func(m message) {
			switch {
			case m.Done:
				total, gc = m.TotalNS, m.GCNS
			case m.Step > 0:
				live := int64(-1)
				if m.Live != nil {
					live = *m.Live
				}
				pts = append(pts, rssPoint{Step: m.Step, RSS: m.RSS, Live: live})
			}
		}, "rss", fmt.Sprint(cfg.RSSSteps), fmt.Sprint(every))
		if err != nil {
			res.errorf("RSS run, %s: %v", im.Label, err)
			continue
		}
		res.RSS[im.Name] = pts
		if total > 0 {
			res.RSSStep[im.Name] = float64(total) / float64(cfg.RSSSteps)
		}
		if im.Name == "go" {
			for _, g := range gc {
				res.RSSGC = append(res.RSSGC, float64(g))
			}
		}
	}
}

// memRuns measures each worker's peak memory on the mem part's jobs: a
// fresh process per worker and job, with the counting allocator of
// bench/cxx/countalloc.h installed (BENCH_COUNT_ALLOC), one warm-up-free
// repetition of the job's steps. Its times are not reported: counting
// costs an atomic add per allocation and per free.
func memRuns(cfg config, res *results, b *builder, env []string, logf func(string, ...any)) {
	lib, err := b.countLib(cfg.CXX)
	if err != nil {
		res.errorf("memory run: %v", err)
		logf("memory run left out: %v", err)
		return
	}
	env = append(append([]string{}, env...), "BENCH_COUNT_ALLOC=1", "BENCH_COUNT_ALLOC_LIB="+lib)
	res.Mem = map[string]map[string]memResult{}
	// -only mem measures every job; -only mem,mlp the MLP only.
	some := slices.ContainsFunc(memJobs, func(j struct {
		Name  string
		Steps int
		Impls []string
	}) bool {
		return slices.Contains(cfg.Only, j.Name)
	})
	for _, j := range memJobs {
		if some && !cfg.wants(j.Name) {
			continue
		}
		steps := j.Steps
		if cfg.Quick {
			steps = max(1, steps/10)
		}
		line := fmt.Sprintf("memory: %-6s %d steps", j.Name, steps)
		for _, im := range res.Impls {
			if !slices.Contains(j.Impls, im.Name) {
				continue
			}
			p, err := serve(im, env, cfg.Root)
			if err != nil {
				res.errorf("memory run, %s, %s: %v", j.Name, im.Label, err)
				continue
			}
			m, err := p.run(j.Name, steps, 0, 1, 30*time.Minute)
			if err == nil {
				err = p.close()
			} else {
				p.kill()
				p.cmd.Wait()
			}
			if err != nil || m.PeakBytes == nil || *m.PeakBytes < 0 {
				res.errorf("memory run, %s, %s: no peak (%v)", j.Name, im.Label, err)
				continue
			}
			if res.Mem[j.Name] == nil {
				res.Mem[j.Name] = map[string]memResult{}
			}
			res.Mem[j.Name][im.Name] = memResult{Peak: *m.PeakBytes, HWM: m.HWMBytes}
			line += fmt.Sprintf("  %s %s (RSS %s)", im.Label, fmtBytes(float64(*m.PeakBytes)), fmtBytes(float64(m.HWMBytes)))
		}
		logf("%s", line)
	}
}

// transRounds and transReps are the transformer job's rounds and timed
// steps per round.
func transRounds() int { return jobByName("trans").MaxRounds }
func transReps() int   { return jobByName("trans").Reps }

func jobByName(name string) jobSpec {
	for _, j := range jobs {
		if j.Name == name {
			return j
		}
	}
	return jobSpec{}
}

// memSteps is the mem part's number of steps of a job.
func memSteps(name string) int {
	for _, j := range memJobs {
		if j.Name == name {
			return j.Steps
		}
	}
	return 0
}

// recordPhases adds one answer's training phases.
func (r *results) recordPhases(job, im string, phases []int64, steps int) {
	if len(phases) == 0 {
		return
	}
	if r.Phases == nil {
		r.Phases, r.PhaseSteps = map[string]map[string][]int64{}, map[string]map[string]int{}
	}
	if r.Phases[job] == nil {
		r.Phases[job], r.PhaseSteps[job] = map[string][]int64{}, map[string]int{}
	}
	sum := r.Phases[job][im]
	if sum == nil {
		sum = make([]int64, len(phases))
	}
	for i := range min(len(sum), len(phases)) {
		sum[i] += phases[i]
	}
	r.Phases[job][im] = sum
	r.PhaseSteps[job][im] += steps
}
