package main

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFlagsModels(t *testing.T) {
	c, err := parseFlags([]string{"-only", "models"})
	require.NoError(t, err)
	assert.True(t, c.wants("models"))
	assert.False(t, c.wants("ops"))
	names := map[string]bool{}
	for _, j := range c.jobList() {
		names[j.Name] = true
	}
	for _, j := range []string{"r18b1", "r18b32", "r18train", "gpt2gen", "bert", "mlp", "add4"} {
		assert.True(t, names[j], "the CPU run has %s", j)
	}
	c, err = parseFlags(nil)
	require.NoError(t, err)
	assert.True(t, c.wants("models"), "the full run has the models part")

	c, err = parseFlags([]string{"-device", "cuda", "-only", "models"})
	require.NoError(t, err)
	assert.True(t, c.wants("models"))
	var gpu []string
	for _, j := range c.jobList() {
		if j.Part == "models" {
			gpu = append(gpu, j.Name)
			assert.Equal(t, modelImpls, j.Impls, "no Go+ worker for %s", j.Name)
		}
	}
	assert.Equal(t, []string{"r18b1", "r18b32", "r18train", "gpt2gen", "bert"}, gpu)
}

func TestModelJobs(t *testing.T) {
	for _, j := range modelJobs {
		assert.True(t, isModelJob(j.Name))
		assert.Equal(t, "models", j.Part)
		assert.Equal(t, modelRounds, j.MaxRounds, j.Name)
		assert.Positive(t, j.Batch, j.Name)
		_, ok := modelCost[j.Name]
		assert.True(t, ok, "modelCost has %s", j.Name)
	}
	assert.Equal(t, "gpt2gen", modelJobs[3].Name)
	assert.Equal(t, 64, modelJobs[3].Iters, "64 tokens a generation")
	assert.False(t, isModelJob("mlp"))
	assert.Equal(t, "images/s", modelUnit("r18train"))
	assert.Equal(t, "tokens/s", modelUnit("gpt2gen"))
	assert.Equal(t, "sequences/s", modelUnit("bert"))
}

func TestModelShapesEnv(t *testing.T) {
	base := []string{"PATH=/bin", "BENCH_MODEL_SHAPES=small"}
	assert.Equal(t, []string{"PATH=/bin", "BENCH_MODEL_SHAPES=full"}, modelShapesEnv(base, false), "a full run drops a stray setting")
	assert.Equal(t, []string{"PATH=/bin", "BENCH_MODEL_SHAPES=small"}, modelShapesEnv(base[:1], true))
	assert.Equal(t, []string{"PATH=/bin", "BENCH_MODEL_SHAPES=small"}, base, "the caller's slice is unchanged")
	assert.Contains(t, relevantEnv(modelShapesEnv(base, false)), "BENCH_MODEL_SHAPES=full", "the report lists it")
}

func TestModelsEstimate(t *testing.T) {
	c, err := parseFlags(nil)
	require.NoError(t, err)
	// Per worker, 6 rounds of: a model built (1 s), then warm-up and
	// timed repetitions: r18b1 3 × 10 × 0.08 s, r18b32 2 × 2.2, r18train
	// 2 × 3.5, gpt2gen 2 × 64 × 0.05, bert 2 × 3.5.
	perWorker := 6 * (5*1.0 + 3*10*0.08 + 2*2.2 + 2*3.5 + 2*64*0.05 + 2*3.5)
	assert.InDelta(t, 3*perWorker, c.modelsEstimate(3).Seconds(), 1e-6)
	assert.InDelta(t, perWorker, c.modelsEstimate(1).Seconds(), 1e-6)

	q, err := parseFlags([]string{"-quick"})
	require.NoError(t, err)
	// -quick: 2 rounds, small shapes, quick iterations.
	quick := 2 * (5*1.0 + 3*2*0.01 + 2*1*0.2 + 2*1*0.35 + 2*16*0.01 + 2*1*0.1)
	assert.InDelta(t, 3*quick, q.modelsEstimate(3).Seconds(), 1e-6)

	o, err := parseFlags([]string{"-only", "mlp"})
	require.NoError(t, err)
	assert.Zero(t, o.modelsEstimate(3), "no models part, no estimate")
	g, err := parseFlags([]string{"-device", "cuda"})
	require.NoError(t, err)
	assert.Zero(t, g.modelsEstimate(3), "no estimate on the GPU")
}

// modelResults are a run's results with the models measured.
func modelResults() *results {
	r := fakeResults()
	r.Samples["r18b32"] = map[string][]float64{"cxx": {2e9, 2.2e9, 2.4e9}, "go": {2.1e9, 2.2e9, 2.3e9}, "python": {2.6e9, 2.0e9, 2.5e9}}
	r.Samples["gpt2gen"] = map[string][]float64{"cxx": {40e6}, "go": {50e6}, "python": {45e6}}
	r.GC["r18b32"] = []float64{10e3, 20e3, 30e3}
	return r
}

func TestModelsReport(t *testing.T) {
	r := modelResults()
	md := markdown(r, "")
	for _, want := range []string{
		"### Models: time per forward, training step or generated token: median (min)",
		"| ResNet-18 inference, batch 32, 224×224 | 2.20 s (2.00 s) | 2.20 s (2.10 s) | — | 2.50 s (2.00 s) | 1.00× (1.05×) | 0.88× (1.05×) |",
		"| GPT-2 small, greedy generation with the KV cache, 64 tokens: per token | 40.0 ms (40.0 ms) | 50.0 ms (50.0 ms) | — | 45.0 ms (45.0 ms) | 1.25× (1.25×) | 1.11× (1.11×) |",
		"| ResNet-18 inference, batch 32, 224×224 | images/s | 14.5 | 14.5 | 12.8 |",
		"| GPT-2 small, greedy generation with the KV cache, 64 tokens: per token | tokens/s | 25.0 | 20.0 | 22.2 |",
		"Go's median `torch.GC()` pause: r18b32 20.0 µs (3 calls)",
		"- **Models** (`-only models`)",
	} {
		assert.Contains(t, md, want)
	}
	assert.NotContains(t, md, "BERT-base encoder forward, batch 8 × 128 tokens |", "jobs without samples are left out")
	assert.NotContains(t, md, "smoke run: reduced shapes")

	got := map[string]target{}
	for _, tg := range r.targets() {
		got[tg.Name] = tg
	}
	cxx := got["ResNet-18 inference, batch 32, 224×224: Go time / C++ time"]
	assert.InDelta(t, 1.0, cxx.Measured, 1e-9)
	assert.Equal(t, "PASS", cxx.verdict())
	py := got["GPT-2 small, greedy generation with the KV cache, 64 tokens: per token: Go time / Python time"]
	assert.InDelta(t, 50.0/45, py.Measured, 1e-9)
	assert.Equal(t, "MISS", py.verdict())
	_, ok := got["BERT-base encoder forward, batch 8 × 128 tokens: Go time / C++ time"]
	assert.False(t, ok, "no BERT figures, no BERT target")

	r.Config.Quick = true
	assert.Contains(t, markdown(r, ""), "**A `-quick` smoke run: reduced shapes** (64×64 images, 2 GPT-2 and BERT layers, 16 generated tokens, BERT sequences of 32)")
	assert.Contains(t, summaryText(r), "ResNet-18 inference, batch 32, 224×224")
	assert.Contains(t, summaryText(r), "(the models at -quick's reduced shapes: 64×64 images")

	none := fakeResults()
	assert.Empty(t, none.modelsMarkdown())
	assert.Empty(t, none.modelTargets())
}

func TestFmtRate(t *testing.T) {
	assert.Equal(t, "1234", fmtRate(1234.4))
	assert.Equal(t, "14.5", fmtRate(14.54))
	assert.Equal(t, "0.40", fmtRate(0.4))
	assert.Equal(t, "3.00", fmtRate(3))
	assert.Equal(t, "n/a", fmtRate(0))
	assert.Equal(t, "n/a", fmtRate(math.Inf(1)))
}

func TestGPUModelsReport(t *testing.T) {
	r := &results{
		Config:  config{Device: "cuda", Rounds: 1, Reps: 2, Warmup: 1},
		Impls:   allImpls,
		Samples: map[string]map[string][]float64{"gpt2gen": {"cxx": {4e6}, "go": {5e6}, "python": {4.5e6}}},
		Peak:    map[string]map[string]int64{"gpt2gen": {"cxx": 600 << 20, "go": 660 << 20, "python": 600 << 20}},
	}
	md := gpuMarkdown(r)
	assert.Contains(t, md, "| GPT-2 small, greedy generation with the KV cache, 64 tokens: per token | 4.00 ms (4.00 ms) | 5.00 ms (5.00 ms) | — | 4.50 ms (4.50 ms) | 1.25× | 1.11× |")
	assert.Contains(t, md, "| GPT-2 small, greedy generation with the KV cache, 64 tokens: per token | 600 MiB | 660 MiB | — | 600 MiB | 1.10× | — |")
	assert.Contains(t, md, "Models (`-only models`, C++, Go and Python)")
}
