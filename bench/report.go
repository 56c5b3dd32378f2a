package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Limits of the targets (issue #8).
const (
	opVsCxxMax      = 1.3  // per-op time, Go/C++
	opVsPythonMin   = 1.3  // per-op speed-up of Go over Python
	trainVsCxxMin   = 0.95 // training throughput, Go/C++
	trainVsPyMin    = 1.0  // training throughput, Go/Python
	gcPauseMaxMS    = 0.5  // median torch.GC() pause
	gcPauseMaxPct   = 2    // median torch.GC() pause, % of the median Go step
	peakVsCxxMax    = 1.05 // peak live tensor bytes of a training job, Go/C++
	rssGrowthMaxPct = 5.0  // RSS growth over the long run
)

// sum returns the summary of a job's samples on a worker.
func (r *results) sum(job, im string) summary { return summarize(r.Samples[job][im]) }

// medianRatio is the ratio of the medians of a and b on a job.
func (r *results) medianRatio(job, a, b string) float64 {
	return ratio(r.sum(job, a).Median, r.sum(job, b).Median)
}

// pairedRatio is the median over rounds of the ratio of a's and b's
// median in the same round: the two ran seconds apart, so a slow spell of
// the machine that lasts a round moves both. NaN without per-round
// samples, or with fewer than 3 rounds that have both.
func (r *results) pairedRatio(job, a, b string) float64 {
	ra, rb := r.SampleRounds[job][a], r.SampleRounds[job][b]
	sa, sb := r.Samples[job][a], r.Samples[job][b]
	if len(ra) != len(sa) || len(rb) != len(sb) {
		return math.NaN()
	}
	byRound := func(rounds []int, samples []float64) map[int][]float64 {
		m := map[int][]float64{}
		for i, rd := range rounds {
			m[rd] = append(m[rd], samples[i])
		}
		return m
	}
	ma, mb := byRound(ra, sa), byRound(rb, sb)
	var ratios []float64
	for rd, xs := range ma {
		if ys, ok := mb[rd]; ok {
			if q := ratio(summarize(xs).Median, summarize(ys).Median); !math.IsNaN(q) {
				ratios = append(ratios, q)
			}
		}
	}
	if len(ratios) < 3 {
		return math.NaN()
	}
	return summarize(ratios).Median
}

func (r *results) minRatio(job, a, b string) float64 {
	return ratio(r.sum(job, a).Min, r.sum(job, b).Min)
}

// rssGrowth returns RSS at the base step and at the end of a worker's RSS
// run, and the growth between them in percent.
func (r *results) rssGrowth(im string) (base, end rssPoint, pct float64) {
	pts := r.RSS[im]
	pct = math.NaN()
	if len(pts) == 0 {
		return base, end, pct
	}
	b := rssBase(r.Config.RSSSteps)
	base = pts[0]
	for _, p := range pts {
		if p.Step <= b {
			base = p
		}
	}
	end = pts[len(pts)-1]
	if base.RSS > 0 && end.Step > base.Step {
		pct = (float64(end.RSS)/float64(base.RSS) - 1) * 100
	}
	return base, end, pct
}

// targets are the goals checked, in the report's order.
func (r *results) targets() []target {
	var ts []target
	for _, j := range jobs {
		if j.Batch != 0 || r.Samples[j.Name] == nil {
			continue
		}
		ts = append(ts,
			target{Name: "per-op " + j.Title + ": Go time / C++ time", Measured: r.medianRatio(j.Name, "go", "cxx"), Limit: opVsCxxMax, AtMost: true, Unit: "×"}.paired(r.pairedRatio(j.Name, "go", "cxx")),
			target{Name: "per-op " + j.Title + ": Go speed-up over Python", Measured: r.medianRatio(j.Name, "python", "go"), Limit: opVsPythonMin, Unit: "×"}.paired(r.pairedRatio(j.Name, "python", "go")))
		if r.sum(j.Name, "gop").ok() {
			ts = append(ts, target{Name: "per-op " + j.Title + ": Go+ time / C++ time", Measured: r.medianRatio(j.Name, "gop", "cxx"), Limit: opVsCxxMax, AtMost: true, Unit: "×"}.paired(r.pairedRatio(j.Name, "gop", "cxx")))
		}
	}
	for _, j := range jobs {
		if j.Batch == 0 || r.Samples[j.Name] == nil {
			continue
		}
		for _, im := range []string{"go", "gop"} {
			if !r.sum(j.Name, im).ok() {
				continue
			}
			label := map[string]string{"go": "Go", "gop": "Go+"}[im]
			ts = append(ts,
				target{Name: j.Title + ": " + label + " throughput / C++", Measured: r.medianRatio(j.Name, "cxx", im), Limit: trainVsCxxMin, Unit: "×"}.paired(r.pairedRatio(j.Name, "cxx", im)),
				target{Name: j.Title + ": " + label + " throughput / Python", Measured: r.medianRatio(j.Name, "python", im), Limit: trainVsPyMin, Unit: "×"}.paired(r.pairedRatio(j.Name, "python", im)))
		}
	}
	for _, g := range r.gcRows() {
		ts = append(ts, target{Name: "median torch.GC() pause, " + g.name, Measured: g.s.Median / 1e6, Limit: gcPauseMaxMS, AtMost: true, Unit: " ms"})
	}
	for _, j := range jobs {
		gc, step := summarize(r.GC[j.Name]), r.sum(j.Name, "go")
		if gc.ok() && step.ok() {
			ts = append(ts, target{Name: "median torch.GC() pause / median Go step, " + j.Title, Measured: 100 * gc.Median / step.Median, Limit: gcPauseMaxPct, AtMost: true, Unit: "%"})
		}
	}
	ts = append(ts, r.modelTargets()...) // models.go
	for _, j := range memJobs {
		cxx, ok := r.Mem[j.Name]["cxx"]
		if !ok || cxx.Peak <= 0 {
			continue
		}
		for _, im := range []string{"go", "gop"} {
			if m, ok := r.Mem[j.Name][im]; ok {
				ts = append(ts, target{Name: "peak live tensor bytes, " + label(im) + " / C++, " + memTitle(j.Name), Measured: float64(m.Peak) / float64(cxx.Peak), Limit: peakVsCxxMax, AtMost: true, Unit: "×"})
			}
		}
	}
	for _, im := range []string{"go", "gop"} {
		if len(r.RSS[im]) == 0 {
			continue
		}
		base, end, pct := r.rssGrowth(im)
		label := map[string]string{"go": "Go", "gop": "Go+"}[im]
		ts = append(ts, target{Name: fmt.Sprintf("%s RSS growth from step %d to %d", label, base.Step, end.Step), Measured: pct, Limit: rssGrowthMaxPct, AtMost: true, Unit: "%"})
	}
	return ts
}

type gcRow struct {
	name string
	s    summary
}

func (r *results) gcRows() []gcRow {
	var rows []gcRow
	for _, j := range jobs {
		if s := summarize(r.GC[j.Name]); s.ok() {
			rows = append(rows, gcRow{strings.ToUpper(j.Name) + " steps, interleaved rounds", s})
		}
	}
	if s := summarize(r.RSSGC); s.ok() {
		rows = append(rows, gcRow{fmt.Sprintf("MLP steps, %d-step run", r.Config.RSSSteps), s})
	}
	return rows
}

// memTitle is the title of the training job named name.
func memTitle(name string) string {
	for _, j := range jobs {
		if j.Name == name {
			return j.Title
		}
	}
	return name
}

// cell is "median (min)" of a job on a worker.
func (r *results) cell(job, im string) string {
	s := r.sum(job, im)
	if !s.ok() {
		return "—"
	}
	return fmt.Sprintf("%s (%s)", fmtDuration(s.Median), fmtDuration(s.Min))
}

// ratioCell is "median ratio (min ratio)" of a/b.
func (r *results) ratioCell(job, a, b string) string {
	m := r.medianRatio(job, a, b)
	if math.IsNaN(m) {
		return "—"
	}
	return fmt.Sprintf("%s (%s)", fmtRatio(m), fmtRatio(r.minRatio(job, a, b)))
}

func label(im string) string {
	for _, i := range allImpls {
		if i.Name == im {
			return i.Label
		}
	}
	return im
}

// markdown renders the report.
func markdown(r *results, chart string) string {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	c := r.Config
	w("# Benchmarks: GoTorch beside C++ libtorch and Python PyTorch\n\n")
	w("Generated by the benchmark harness in [`bench/`](../bench) on %s; rerun it rather than editing this file:\n\n", r.Start.Format("2006-01-02 15:04 MST"))
	w("```sh\n%s\n```\n\n", r.Command)
	w("The run took %s. `make bench` runs the same command; `go run ./bench -quick` is a smoke run.\n\n", elapsed(r.Duration))

	m := r.Machine
	w("## Machine\n\n")
	w("- CPU: %s, %d logical CPUs (%s); memory %s\n", orNA(m.CPU), m.Cores, orNA(m.VectorISA), orNA(m.Memory))
	w("- Memory faults: %s a fresh 4 KiB page (measured at the start); transparent huge pages: %s. C++ and Python run with glibc's malloc defaults, GoTorch with its own thresholds and block caches (docs/memory.md), so a step that maps its memory afresh pays this per page in C++ and Python until glibc raises its mmap threshold\n", faultCost(m.PageFault), orNA(m.THP))
	w("- OS: %s, kernel %s\n", orNA(m.OS), orNA(m.Kernel))
	w("- libtorch, as each worker reports it: %s\n", orNA(strings.Join(m.Libtorch, ", ")))
	w("- Libraries the workers loaded (libtorch, BLAS, OpenMP, a replacement malloc): %s\n", orNA(strings.Join(m.BLAS, ", ")))
	w("- Intra-op threads, as each worker reports them: %s\n", orNA(strings.Join(m.Threads, ", ")))
	w("- Environment of every worker (the same for all): %s\n", orNA(codeList(m.Env)))
	w("- Go %s; C++ worker built with `%s` (%s); %s\n", m.Go, r.CxxBuild, orNA(m.Compiler), orNA(m.Python))
	w("- Load: other processes kept %.2f cores busy on average during the measurements (load average %s at the start, %s at the end).", r.Others, orNA(r.LoadStart), orNA(r.LoadEnd))
	if r.Others > 0.2 {
		w(" **The machine was busy**: absolute times are inflated and noisy; the ratios, taken from one interleaved run, are the fairer figures.")
	}
	w("\n\n")

	w("## Method\n\n")
	w("Each implementation is a worker process: C++ on libtorch's C++ frontend ([`bench/cxx/work.cc`](../bench/cxx/work.cc)), ")
	w("Go on GoTorch ([`bench/cmd/gowork`](../bench/cmd/gowork/main.go)), a Go+ training script compiled by gop-torch ")
	w("([`bench/gopwork`](../bench/gopwork/main_train.gox)), and PyTorch ([`bench/py/work.py`](../bench/py/work.py)). ")
	w("All use the same libtorch build, %d intra-op threads (`at::set_num_threads`, `torch.SetNumThreads`, `torch.set_num_threads`) and the environment above. ", c.Threads)
	w("The workers take turns: each of %d rounds runs every workload on every worker, round 1 in the order C++, Go, Go+, Python and each later round starting one worker further along (Go, Go+, Python, C++ in round 2), so that none always runs first or right after the same other; ", c.Rounds)
	w("each time a worker runs %d untimed warm-up repetition(s), then %d timed ones. ", c.Warmup, c.Reps)
	w("A figure is the min or median over all timed repetitions of all rounds, divided by the iterations per repetition; a ratio is of medians, with the ratio of minimums in parentheses.\n\n")
	w("- **Per-op**: `add` or `mm` of two fixed random tensors, the result dropped. Go has no `Free`: a repetition is a step that starts with `torch.GC()` (freeing the previous repetition's results) and its time includes that call; the memory budget frees more often if needed. Go+ is the loop a script writes, `s = a + b` (or `a.Mm(b)`) with no `Free`: gop-torch frees the old `s` at each assignment (`torch.Rebind`, docs/memory.md) and puts `torch.GC()` at the top of every iteration, timed. Python calls `torch.add`/`torch.mm`, C++ `torch::add`/`torch::mm`.\n")
	w("- **Training steps**: forward, cross-entropy, zero_grad (gradients set to none in all workers, GoTorch's behaviour), backward, optimizer step, on one fixed synthetic batch (64 standard-normal inputs and random labels, made once; no data loading). ")
	w("MLP 784-512-512-10 with ReLU and SGD (lr 0.01); the CNN of `examples/fashion_mnist_go` (conv-BN-ReLU-pool twice, dropout, 3136-128-10) with Adam (lr 1e-3) in training mode. ")
	w("Go calls `torch.GC()` at the top of every step and `torch.FinishGC()` after each repetition, both timed; gop-torch inserts the same calls into the Go+ script's loops. Samples/s = 64 / median step time.\n")
	w("- **Transformer step**: `nn.TransformerEncoder` of 6 `TransformerEncoderLayer(512, 8 heads, feed-forward 2048)` in training mode (dropout 0.1), input (256, 32, 512), MSE loss against a random target, AdamW (lr 1e-4), every step ending with `loss.item()`: the GPU harness's job on the CPU. A step takes seconds, so it runs in the first %d rounds only, %d timed step(s) each.\n", transRounds(), transReps())
	w("- **Peak memory**: a fresh process per worker and job with a counting CPU allocator ([`bench/cxx/countalloc.h`](../bench/cxx/countalloc.h), the same code in every worker, wrapped around the process's own allocator) that adds up the blocks handed to live tensors (`malloc_usable_size`): parameters, gradients, optimizer state, activations and what autograd saves, from the model's creation to the end of the job (MLP %d steps, CNN %d, transformer %d; Go and Go+ with `torch.GC()` as above, so tensors that wait for a later collection count). Blocks an allocator caches after a free are not live. Peak RSS is the process's `VmHWM`. These runs are not timed.\n", memSteps("mlp"), memSteps("cnn"), memSteps("trans"))
	w("%s", modelsMethod())
	w("- **GC() pause**: the Go worker times each `torch.GC()` call of the training steps above, and of the long run below.\n")
	w("- **RSS**: one run of %d MLP training steps per worker; RSS from `/proc/self/statm` every %d steps (Go and Go+ right after the step's `torch.GC()`), and GoTorch's live-tensor count (`torch.ReadMemStats`).\n", c.RSSSteps, rssEvery(c.RSSSteps))
	w("- **Start-up**: wall-clock time from just before the harness starts a fresh worker process to the end of its first op (a 4×4 add, after setting the threads); Python includes `import torch`. %d rounds, the workers taking turns.\n\n", c.StartupRounds)

	w("## Results\n\n")
	if r.Samples["add4"] != nil || r.Samples["mm256"] != nil {
		w("### Per-op overhead, time per op: median (min)\n\n")
		w("| op | C++ | Go | Go+ | Python | Go/C++ | Go+/C++ | Go/Python |\n|---|---|---|---|---|---|---|---|\n")
		for _, j := range jobs {
			if j.Batch != 0 || r.Samples[j.Name] == nil {
				continue
			}
			w("| %s | %s | %s | %s | %s | %s | %s | %s |\n", j.Title, r.cell(j.Name, "cxx"), r.cell(j.Name, "go"), r.cell(j.Name, "gop"), r.cell(j.Name, "python"),
				r.ratioCell(j.Name, "go", "cxx"), r.ratioCell(j.Name, "gop", "cxx"), r.ratioCell(j.Name, "go", "python"))
		}
		w("\n")
	}
	if r.Samples["mlp"] != nil || r.Samples["cnn"] != nil || r.Samples["trans"] != nil {
		w("### Training steps, time per step: median (min)\n\n")
		w("| workload | C++ | Go | Go+ | Python | Go/C++ | Go+/C++ | Go/Python | Go+/Python |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, j := range jobs {
			if j.Batch == 0 || r.Samples[j.Name] == nil {
				continue
			}
			w("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", j.Title, r.cell(j.Name, "cxx"), r.cell(j.Name, "go"), r.cell(j.Name, "gop"), r.cell(j.Name, "python"),
				r.ratioCell(j.Name, "go", "cxx"), r.ratioCell(j.Name, "gop", "cxx"), r.ratioCell(j.Name, "go", "python"), r.ratioCell(j.Name, "gop", "python"))
		}
		w("\nThroughput, samples/s at the median step time:\n\n")
		w("| workload | C++ | Go | Go+ | Python |\n|---|---|---|---|---|\n")
		for _, j := range jobs {
			if j.Batch == 0 || r.Samples[j.Name] == nil {
				continue
			}
			w("| %s |", j.Title)
			for _, im := range []string{"cxx", "go", "gop", "python"} {
				s := r.sum(j.Name, im)
				if !s.ok() {
					w(" — |")
					continue
				}
				w(" %.0f |", float64(j.Batch)/(s.Median/1e9))
			}
			w("\n")
		}
		w("\n")
	}
	w("%s", r.modelsMarkdown())
	if len(r.Phases) > 0 {
		w("### Where a training step's time goes: mean per step\n\n")
		w("Each worker times the phases of every timed step; Go also its `torch.GC()` call. \"Rest\" is the step's mean time less the mean phases: the loop, `torch.FinishGC()` after each repetition (Go), and the loss's graph freed at the end of the step in C++ (at the next step's forward in Python). The mean of `torch.GC()` includes the collection that the first `GC()` after each repetition's `FinishGC()` makes. Go+ runs the same calls through the classfile's `step` and is timed as a whole.\n\n")
		names := []string{"forward and loss", "zero_grad", "backward", "optimizer step"}
		for _, j := range cpuJobs() {
			ph := r.Phases[j.Name]
			if len(ph) == 0 {
				continue
			}
			w("**%s**\n\n| phase | C++ | Go | Python | Go − C++ |\n|---|---|---|---|---|\n", j.Title)
			mean := func(im string, i int) (float64, bool) {
				p, n := ph[im], r.PhaseSteps[j.Name][im]
				if i >= len(p) || n == 0 {
					return 0, false
				}
				return float64(p[i]) / float64(n), true
			}
			cell := func(v float64, ok bool) string {
				if !ok {
					return "—"
				}
				return fmtDuration(v)
			}
			diff := func(a, b float64, oka, okb bool) string {
				if !oka || !okb {
					return "—"
				}
				if a >= b {
					return "+" + fmtDuration(a-b)
				}
				return "−" + fmtDuration(b-a)
			}
			var tot = map[string]float64{}
			for i, name := range names {
				c, okc := mean("cxx", i)
				g, okg := mean("go", i)
				p, okp := mean("python", i)
				tot["cxx"] += c
				tot["go"] += g
				tot["python"] += p
				w("| %s | %s | %s | %s | %s |\n", name, cell(c, okc), cell(g, okg), cell(p, okp), diff(g, c, okg, okc))
			}
			gc := summarize(r.GC[j.Name])
			if gc.ok() {
				w("| `torch.GC()` (mean) | — | %s | — | +%s |\n", fmtDuration(gc.Mean), fmtDuration(gc.Mean))
				tot["go"] += gc.Mean
			}
			rest := func(im string) (float64, bool) {
				s := r.sum(j.Name, im)
				if !s.ok() || len(ph[im]) == 0 {
					return 0, false
				}
				return s.Mean - tot[im], true
			}
			signed := func(v float64, ok bool) string {
				if !ok {
					return "—"
				}
				if v < 0 {
					return "−" + fmtDuration(-v)
				}
				return fmtDuration(v)
			}
			rc, okc := rest("cxx")
			rg, okg := rest("go")
			rp, okp := rest("python")
			w("| rest | %s | %s | %s | %s |\n", signed(rc, okc), signed(rg, okg), signed(rp, okp), diff(rg, rc, okg, okc))
			stepMean := func(im string) string {
				if s := r.sum(j.Name, im); s.ok() {
					return fmtDuration(s.Mean)
				}
				return "—"
			}
			w("| **step (mean)** | %s | %s | %s | |\n", stepMean("cxx"), stepMean("go"), stepMean("python"))
			w("| step (median, min) | %s | %s | %s | %s |\n\n", r.cell(j.Name, "cxx"), r.cell(j.Name, "go"), r.cell(j.Name, "python"), r.ratioCell(j.Name, "go", "cxx"))
		}
	}
	if len(r.Mem) > 0 {
		w("### Peak memory of a training job: live tensor bytes (peak RSS)\n\n")
		w("| workload | C++ | Go | Go+ | Python | Go/C++ | Go+/C++ | Python/C++ |\n|---|---|---|---|---|---|---|---|\n")
		for _, j := range memJobs {
			m := r.Mem[j.Name]
			if len(m) == 0 {
				continue
			}
			w("| %s |", memTitle(j.Name))
			for _, im := range []string{"cxx", "go", "gop", "python"} {
				if v, ok := m[im]; ok {
					w(" %s (%s) |", fmtBytes(float64(v.Peak)), fmtBytes(float64(v.HWM)))
				} else {
					w(" — |")
				}
			}
			for _, im := range []string{"go", "gop", "python"} {
				v, ok := m[im]
				c, okc := m["cxx"]
				if !ok || !okc || c.Peak <= 0 {
					w(" — |")
					continue
				}
				w(" %s |", fmtRatio(float64(v.Peak)/float64(c.Peak)))
			}
			w("\n")
		}
		w("\n")
	}
	if rows := r.gcRows(); len(rows) > 0 {
		w("### `torch.GC()` pause per step (Go)\n\n")
		w("| steps | pauses | min | median | p90 | max |\n|---|---|---|---|---|---|\n")
		for _, g := range rows {
			w("| %s | %d | %s | %s | %s | %s |\n", g.name, g.s.N, fmtDuration(g.s.Min), fmtDuration(g.s.Median), fmtDuration(g.s.P90), fmtDuration(g.s.Max))
		}
		w("\n")
	}
	if len(r.RSS) > 0 {
		w("### Memory over %d MLP training steps\n\n", c.RSSSteps)
		w("| worker | RSS at step %d | RSS at the end | growth | live tensors then → at the end | peak RSS | mean step |\n|---|---|---|---|---|---|---|\n", rssBase(c.RSSSteps))
		for _, im := range r.Impls {
			pts := r.RSS[im.Name]
			if len(pts) == 0 {
				continue
			}
			base, end, pct := r.rssGrowth(im.Name)
			peak := int64(0)
			for _, p := range pts {
				peak = max(peak, p.RSS)
			}
			live := "n/a"
			if base.Live >= 0 {
				live = fmt.Sprintf("%d → %d", base.Live, end.Live)
			}
			w("| %s | %s | %s (step %d) | %s | %s | %s | %s |\n", im.Label, fmtBytes(float64(base.RSS)), fmtBytes(float64(end.RSS)), end.Step,
				fmtValue(pct, "%"), live, fmtBytes(float64(peak)), fmtDuration(r.RSSStep[im.Name]))
		}
		w("\n")
	}
	if len(r.Startup) > 0 {
		w("### Process start-up to the end of the first op\n\n")
		w("| worker | runs | min | median | / C++ (median) |\n|---|---|---|---|---|\n")
		cxx := summarize(r.Startup["cxx"])
		for _, im := range r.Impls {
			s := summarize(r.Startup[im.Name])
			if !s.ok() {
				continue
			}
			w("| %s | %d | %s | %s | %s |\n", im.Label, s.N, fmtDuration(s.Min), fmtDuration(s.Median), fmtRatio(ratio(s.Median, cxx.Median)))
		}
		w("\n")
	}

	ts := r.targets()
	if len(ts) > 0 {
		w("## Targets\n\n")
		w("Checked on the medians of this run. For a ratio of times, \"per round\" is the same ratio taken in each round (the two workers' medians in that round, seconds apart) and its median over the rounds: a slow spell of the machine then moves both sides of each ratio. It is shown, not checked.\n\n")
		w("| target | measured | per round | limit | verdict | margin |\n|---|---|---|---|---|---|\n")
		for _, t := range ts {
			op := "≥"
			if t.AtMost {
				op = "≤"
			}
			pr := ""
			if t.HasPaired {
				pr = fmtValue(t.Paired, t.Unit)
			}
			w("| %s | %s | %s | %s %s | **%s** | %s |\n", t.Name, fmtValue(t.Measured, t.Unit), pr, op, fmtValue(t.Limit, t.Unit), t.verdict(), t.margin())
		}
		w("\n")
	}
	if chart != "" {
		w("## Chart\n\n![median time relative to C++, and RSS over the long run](%s)\n\n", chart)
	}
	if c.Notes != "" {
		if notes, err := os.ReadFile(c.Notes); err == nil && len(bytes.TrimSpace(notes)) > 0 {
			w("## Notes\n\n")
			w("Written by hand from profiles (not regenerated by the harness; [`%s`](../%s)):\n\n", rel(c.Root, c.Notes), rel(c.Root, c.Notes))
			b.Write(bytes.TrimSpace(demoteHeadings(notes)))
			w("\n\n")
		}
	}
	if len(r.Errors) > 0 {
		w("## Errors during the run\n\n")
		for _, e := range r.Errors {
			w("- %s\n", strings.ReplaceAll(e, "\n", " "))
		}
		w("\n")
	}
	return b.String()
}

// demoteHeadings turns the notes' level-1 and level-2 headings into
// level-3 ones, under the report's Notes heading.
func demoteHeadings(md []byte) []byte {
	lines := strings.Split(string(md), "\n")
	fenced := false // inside a code block, "# " is a shell comment
	for i, l := range lines {
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "```"):
			fenced = !fenced
		case fenced:
		case strings.HasPrefix(l, "# "):
			lines[i] = "###" + l[1:]
		case strings.HasPrefix(l, "## "):
			lines[i] = "#" + l
		}
	}
	return []byte(strings.Join(lines, "\n"))
}

func faultCost(d time.Duration) string {
	if d <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
}

func orNA(s string) string {
	if strings.TrimSpace(s) == "" {
		return "n/a"
	}
	return s
}

func codeList(items []string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = "`" + s + "`"
	}
	return strings.Join(out, ", ")
}

// writeReport writes the Markdown report and the chart.
func writeReport(r *results) error {
	c := r.Config
	if err := os.MkdirAll(filepath.Dir(c.Out), 0o755); err != nil {
		return err
	}
	chartRef := ""
	if err := writeChart(r, c.Chart); err != nil {
		r.errorf("chart: %v", err)
	} else if ref, err := filepath.Rel(filepath.Dir(c.Out), c.Chart); err == nil {
		chartRef = filepath.ToSlash(ref)
	}
	return os.WriteFile(c.Out, []byte(markdown(r, chartRef)), 0o644)
}

// summaryText is what the harness prints at the end: the headline
// figures and the targets.
func summaryText(r *results) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s (%s, %d rounds; other load %.2f cores)\n", r.Command, elapsed(r.Duration), r.Config.Rounds, r.Others)
	for _, j := range r.Config.jobList() {
		if r.Samples[j.Name] == nil {
			continue
		}
		fmt.Fprintf(&b, "%-40s", j.Title)
		for _, im := range r.Impls {
			if s := r.sum(j.Name, im.Name); s.ok() {
				fmt.Fprintf(&b, " %s %s", im.Label, fmtDuration(s.Median))
			}
		}
		fmt.Fprintf(&b, "  Go/C++ %s", fmtRatio(r.medianRatio(j.Name, "go", "cxx")))
		if r.Peak[j.Name] != nil {
			fmt.Fprintf(&b, "  peak C++ %s Go %s Go+ %s Python %s", r.peakCell(j.Name, "cxx"), r.peakCell(j.Name, "go"),
				r.peakCell(j.Name, "gop"), r.peakCell(j.Name, "python"))
		}
		fmt.Fprintln(&b)
	}
	if r.Config.Quick && r.modelsMarkdown() != "" {
		fmt.Fprintf(&b, "(the models at -quick's reduced shapes: %s)\n", quickShapes)
	}
	for _, t := range r.targets() {
		fmt.Fprintln(&b, t)
	}
	for _, e := range r.Errors {
		fmt.Fprintln(&b, "error:", e)
	}
	fmt.Fprintf(&b, "report: %s\n", r.Config.Out)
	return b.String()
}

// The block of the README that a full run rewrites.
const (
	readmeBegin = "<!-- bench:begin -->"
	readmeEnd   = "<!-- bench:end -->"
)

// headline is the README's short version of the report.
func headline(r *results) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	cpu := orNA(r.Machine.CPU)
	w("Measured by `%s` on %s (%s, %d logical CPUs, %d intra-op threads", r.Command, r.Start.Format("2006-01-02"), cpu, r.Machine.Cores, r.Config.Threads)
	if r.Others > 0.2 {
		w("; the machine was busy: other processes used %.1f cores", r.Others)
	}
	w("). Medians; a ratio is Go's time over the other's, so below 1 means Go is faster, and \"per round\" is Go/C++ taken in each round, its median over the rounds (a slow spell of the machine moves both sides of it):\n\n")
	w("| workload | C++ | Go | Go+ | Python | Go/C++ | per round | Go/Python |\n|---|---|---|---|---|---|---|---|\n")
	for _, name := range []string{"add4", "mm4", "add256", "mm256", "mlp", "cnn", "trans"} {
		if r.Samples[name] == nil {
			continue
		}
		var j jobSpec
		for _, js := range jobs {
			if js.Name == name {
				j = js
			}
		}
		w("| %s |", j.Title)
		for _, im := range []string{"cxx", "go", "gop", "python"} {
			if s := r.sum(name, im); s.ok() {
				w(" %s |", fmtDuration(s.Median))
			} else {
				w(" — |")
			}
		}
		w(" %s | %s | %s |\n", fmtRatio(r.medianRatio(name, "go", "cxx")), fmtRatio(r.pairedRatio(name, "go", "cxx")), fmtRatio(r.medianRatio(name, "go", "python")))
	}
	if len(r.Startup) > 0 {
		w("| start-up to the first op |")
		for _, im := range []string{"cxx", "go", "gop", "python"} {
			if s := summarize(r.Startup[im]); s.ok() {
				w(" %s |", fmtDuration(s.Median))
			} else {
				w(" — |")
			}
		}
		cxx, g, py := summarize(r.Startup["cxx"]).Median, summarize(r.Startup["go"]).Median, summarize(r.Startup["python"]).Median
		w(" %s | — | %s |\n", fmtRatio(ratio(g, cxx)), fmtRatio(ratio(g, py)))
	}
	w("\n")
	var parts []string
	for _, j := range memJobs {
		c, okc := r.Mem[j.Name]["cxx"]
		g, okg := r.Mem[j.Name]["go"]
		if okc && okg && c.Peak > 0 {
			parts = append(parts, fmt.Sprintf("peak live tensor memory, %s: Go/C++ %s", memTitle(j.Name), fmtRatio(float64(g.Peak)/float64(c.Peak))))
		}
	}
	if rows := r.gcRows(); len(rows) > 0 {
		parts = append(parts, fmt.Sprintf("median `torch.GC()` pause %s (%s)", fmtDuration(rows[0].s.Median), rows[0].name))
	}
	if len(r.RSS["go"]) > 0 {
		base, end, pct := r.rssGrowth("go")
		parts = append(parts, fmt.Sprintf("Go RSS %s from step %d to %d", fmtValue(pct, "%"), base.Step, end.Step))
	}
	ts := r.targets()
	met := 0
	for _, t := range ts {
		if t.pass() {
			met++
		}
	}
	parts = append(parts, fmt.Sprintf("%d of %d targets met", met, len(ts)))
	w("%s. The tables, the targets, the machine and the method are in [docs/benchmarks.md](docs/benchmarks.md).\n", upperFirst(strings.Join(parts, "; ")))
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// updateReadme replaces the marked block of path with the headline.
func updateReadme(r *results, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	i := strings.Index(s, readmeBegin)
	j := strings.Index(s, readmeEnd)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %s ... %s block; not updated", path, readmeBegin, readmeEnd)
	}
	s = s[:i+len(readmeBegin)] + "\n" + headline(r) + s[j:]
	return os.WriteFile(path, []byte(s), 0o644)
}
