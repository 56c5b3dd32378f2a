package main

// The models part (-only models; issue #35): ResNet-18 inference and
// training, GPT-2 generation with the key/value cache and a BERT encoder,
// in the C++ (bench/cxx/models.h, written by hand on the C++ frontend), Go
// (models/vision, models/text) and Python (torchvision and
// models/text/testdata/gen.py) workers, interleaved with the other parts'
// jobs. The workers' side is described in bench/internal/worker/models.go.
// Go+ has no models jobs: its cells are "—".

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"
)

var modelImpls = []string{"cxx", "go", "python"}

// modelJobs are the models part's jobs on the CPU. A step takes seconds
// (ResNet-18 at batch 32 about 2 s, BERT about 3.5 s on two cores), so they
// run in the first modelRounds rounds, one timed repetition each (two for
// the batch-1 forward), after the warm-up.
var modelJobs = []jobSpec{
	{"r18b1", "ResNet-18 inference, batch 1, 224×224", "models", 10, 2, 1, modelImpls, modelRounds, 2},
	{"r18b32", "ResNet-18 inference, batch 32, 224×224", "models", 1, 1, 32, modelImpls, modelRounds, 1},
	{"r18train", "ResNet-18 training step, SGD with momentum, batch 16, 224×224", "models", 1, 1, 16, modelImpls, modelRounds, 1},
	{"gpt2gen", "GPT-2 small, greedy generation with the KV cache, 64 tokens: per token", "models", 64, 16, 1, modelImpls, modelRounds, 1},
	{"bert", "BERT-base encoder forward, batch 8 × 128 tokens", "models", 1, 1, 8, modelImpls, modelRounds, 1},
}

// modelRounds is how many rounds run the models jobs. With three, one
// timed repetition each, a median rested on three samples and the Go/C++
// ratios moved by ±5% between full runs (bench/NOTES.md, sessions 17 and
// 19), as much as the goals' margin; six cost about 2 minutes more.
const modelRounds = 6

// gpuModelJobs are the same on cuda:0 (-device cuda), where a forward
// takes milliseconds: more iterations per repetition, every round.
var gpuModelJobs = []jobSpec{
	{"r18b1", "ResNet-18 inference, batch 1, 224×224", "models", 50, 5, 1, modelImpls, 0, 0},
	{"r18b32", "ResNet-18 inference, batch 32, 224×224", "models", 20, 2, 32, modelImpls, 0, 0},
	{"r18train", "ResNet-18 training step, SGD with momentum, batch 16", "models", 20, 2, 16, modelImpls, 0, 0},
	{"gpt2gen", "GPT-2 small, greedy generation with the KV cache, 64 tokens: per token", "models", 64, 16, 1, modelImpls, 0, 0},
	{"bert", "BERT-base encoder forward, batch 8 × 128 tokens", "models", 10, 2, 8, modelImpls, 0, 0},
}

// modelsVsCxxMax and modelsVsPythonMax are issue #35's goals: Go at most
// 5% slower than C++ and no slower than Python on each workload.
const (
	modelsVsCxxMax    = 1.05
	modelsVsPythonMax = 1.0
)

// modelUnit is what a models job's throughput counts.
func modelUnit(name string) string {
	switch {
	case strings.HasPrefix(name, "r18"):
		return "images/s"
	case name == "gpt2gen":
		return "tokens/s"
	}
	return "sequences/s"
}

// cpuJobs are the CPU run's jobs: the other parts', then the models part's.
func cpuJobs() []jobSpec { return append(append([]jobSpec{}, jobs...), modelJobs...) }

// isModelJob reports whether name is one of the models part's jobs.
func isModelJob(name string) bool {
	for _, j := range modelJobs {
		if j.Name == name {
			return true
		}
	}
	return false
}

// quickShapes says how -quick reduces the models part's workloads.
var quickShapes = fmt.Sprintf("64×64 images, 2 GPT-2 and BERT layers, %d generated tokens, BERT sequences of 32", modelJobs[3].QuickIters)

// modelShapesEnv sets BENCH_MODEL_SHAPES for every worker: small (64×64
// images, 2 GPT-2 and BERT layers, BERT sequences of 32) for -quick's smoke
// run, full otherwise, whatever the caller's environment holds.
func modelShapesEnv(env []string, quick bool) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "BENCH_MODEL_SHAPES=") {
			out = append(out, kv)
		}
	}
	shapes := "full"
	if quick {
		shapes = "small"
	}
	return append(out, "BENCH_MODEL_SHAPES="+shapes)
}

// modelCost is a models job's rough C++ time per iteration on an idle
// 2-core machine, in seconds, at full and at small shapes; modelSetup is
// the time to build a model with random weights (GPT-2 small and BERT-base
// have 124 and 109 million), per worker and job. They only size the
// expected duration that the harness prints, and are estimates: the
// workloads' FLOPs at the 50 GFLOP/s of the transformer step in
// docs/benchmarks.md (BERT 179 GFLOP a forward, ResNet-18 3.6 GFLOP an
// image), GPT-2's 500 MB of weights read per token; the busy machine they
// were written on could not time them.
var modelCost = map[string][2]float64{
	"r18b1":    {0.08, 0.01},
	"r18b32":   {2.2, 0.2},
	"r18train": {3.5, 0.35},
	"gpt2gen":  {0.05, 0.01},
	"bert":     {3.5, 0.1},
}

const modelSetup = 1.0

// modelsEstimate is the expected wall time of the models part with the
// given number of workers, from modelCost: every selected job's warm-up
// and timed repetitions in each of its rounds, on each worker.
func (c config) modelsEstimate(workers int) time.Duration {
	if c.onCUDA() || !c.wants("models") {
		return 0
	}
	var s float64
	for _, j := range modelJobs {
		cost := modelCost[j.Name][0]
		if c.Quick {
			cost = modelCost[j.Name][1]
		}
		rounds, reps := c.Rounds, c.Reps
		if j.MaxRounds > 0 {
			rounds = min(rounds, j.MaxRounds)
		}
		if j.Reps > 0 {
			reps = j.Reps
		}
		s += float64(rounds) * (modelSetup + float64(c.Warmup+reps)*float64(c.iters(j))*cost)
	}
	return time.Duration(s * float64(workers) * float64(time.Second))
}

// modelTargets are issue #35's goals on the models measured.
func (r *results) modelTargets() []target {
	var ts []target
	for _, j := range modelJobs {
		if !r.sum(j.Name, "go").ok() {
			continue
		}
		ts = append(ts,
			target{Name: j.Title + ": Go time / C++ time", Measured: r.medianRatio(j.Name, "go", "cxx"), Limit: modelsVsCxxMax, AtMost: true, Unit: "×"}.paired(r.pairedRatio(j.Name, "go", "cxx")),
			target{Name: j.Title + ": Go time / Python time", Measured: r.medianRatio(j.Name, "go", "python"), Limit: modelsVsPythonMax, AtMost: true, Unit: "×"}.paired(r.pairedRatio(j.Name, "go", "python")))
	}
	return ts
}

// modelsMarkdown is the report's models section, "" when none was measured.
func (r *results) modelsMarkdown() string {
	var b bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	any := false
	for _, j := range modelJobs {
		any = any || r.Samples[j.Name] != nil
	}
	if !any {
		return ""
	}
	w("### Models: time per forward, training step or generated token: median (min)\n\n")
	if r.Config.Quick {
		w("**A `-quick` smoke run: reduced shapes** (%s), not the workloads named below.\n\n", quickShapes)
	}
	w("| workload | C++ | Go | Go+ | Python | Go/C++ | Go/Python |\n|---|---|---|---|---|---|---|\n")
	for _, j := range modelJobs {
		if r.Samples[j.Name] == nil {
			continue
		}
		w("| %s | %s | %s | %s | %s | %s | %s |\n", j.Title, r.cell(j.Name, "cxx"), r.cell(j.Name, "go"), r.cell(j.Name, "gop"), r.cell(j.Name, "python"),
			r.ratioCell(j.Name, "go", "cxx"), r.ratioCell(j.Name, "go", "python"))
	}
	w("\nThroughput at the median time:\n\n| workload | unit | C++ | Go | Python |\n|---|---|---|---|---|\n")
	for _, j := range modelJobs {
		if r.Samples[j.Name] == nil {
			continue
		}
		w("| %s | %s |", j.Title, modelUnit(j.Name))
		for _, im := range modelImpls {
			s := r.sum(j.Name, im)
			if !s.ok() {
				w(" — |")
				continue
			}
			w(" %s |", fmtRate(float64(j.Batch)/(s.Median/1e9)))
		}
		w("\n")
	}
	var gc []string
	for _, j := range modelJobs {
		if s := summarize(r.GC[j.Name]); s.ok() {
			gc = append(gc, fmt.Sprintf("%s %s (%d calls)", j.Name, fmtDuration(s.Median), s.N))
		}
	}
	if len(gc) > 0 {
		w("\nGo's median `torch.GC()` pause: %s (per forward or step; per generation for GPT-2).\n", strings.Join(gc, ", "))
	}
	w("\n")
	return b.String()
}

// modelsMethod is the models part's bullet of the report's Method.
func modelsMethod() string {
	return "- **Models** (`-only models`): C++ on models written by hand on the C++ frontend ([`bench/cxx/models.h`](../bench/cxx/models.h)), " +
		"Go on `models/vision` and `models/text`, Python on `torchvision.models.resnet18` and the PyTorch references of `models/text/testdata/gen.py` " +
		"([`bench/py/modeljobs.py`](../bench/py/modeljobs.py)); random weights, the same shapes in every worker; Go+ has none. " +
		"ResNet-18 (224×224, 1,000 classes) in eval mode without gradients at batch 1 and 32, and a training step at batch 16 " +
		"(cross-entropy, SGD lr 0.01 with momentum 0.9, zero_grad to none, `loss.item()`); GPT-2 small (12 layers, 768 wide, 12 heads, vocabulary 50,257, " +
		"1,024 positions, head tied to the embeddings) generating 64 tokens greedily with the key/value cache from an 8-token prompt, " +
		"the figure being the generation's time divided by 64; BERT-base (12 layers, 768, 12 heads, feed-forward 3,072) encoder and pooler " +
		"at batch 8 × 128 with an all-ones attention mask, eval mode, no gradients. Go calls `torch.GC()` before every forward, step or generation " +
		"and `torch.FinishGC()` after each repetition, both timed. A step takes seconds, so these jobs run in the first " +
		fmt.Sprint(modelJobs[0].MaxRounds) + " rounds only, one timed repetition each (two for batch 1). Goals (issue #35): Go at most 1.05× C++'s time and no slower than Python.\n"
}

// fmtRate formats a throughput with three significant digits.
func fmtRate(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0) || v <= 0:
		return "n/a"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
