package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The ddp part's report: medians per model and implementation, PyTorch's
// all-reduce time from its hooked runs only, scaling efficiency as the
// one-process step over the 2-rank step, and the goal's verdict.
func TestDDPReport(t *testing.T) {
	res := &ddpResults{Rounds: 3, Steps: 40, Warmup: 10, BucketMB: 25, Threads: 2, LoadStart: "0.1", LoadEnd: "0.2"}
	add := func(impl, model string, world int, hook bool, steps ...float64) {
		for _, s := range steps {
			res.Runs = append(res.Runs, ddpRun{Impl: impl, Model: model, World: world, Hook: hook, StepMS: s, CommMS: s / 10})
		}
	}
	add("go", "cnn", 1, false, 60, 62, 100)
	add("go", "cnn", 2, false, 70, 75, 71)
	add("python", "cnn", 1, false, 66, 64, 65)
	add("python", "cnn", 2, false, 80, 82, 81)
	add("python", "cnn", 2, true, 90, 90, 90)
	add("go", "mlp", 1, false, 3)
	res.Errors = []string{"round 1, mlp, PyTorch, 2 ranks: boom"}
	md := ddpReport(res)
	t.Log(md)
	require.Contains(t, md, "| Fashion-MNIST CNN, Adam | GoTorch | 62.0 | 71.0 | 7.1 | 0.87 |")
	require.Contains(t, md, "| Fashion-MNIST CNN, Adam | PyTorch | 65.0 | 81.0 | 9.0 | 0.80 |")
	assert.Contains(t, md, "| Fashion-MNIST CNN, Adam | Go/PyTorch, 2 ranks | | 0.88× | | meets the goal (Go ≤ PyTorch) |")
	assert.Contains(t, md, "| MLP 784-512-512-10, SGD | GoTorch | 3.0 | – | – | – |")
	assert.NotContains(t, md, "MLP 784-512-512-10, SGD | Go/PyTorch")
	assert.Contains(t, md, "- round 1, mlp, PyTorch, 2 ranks: boom")
}

func TestDDPSettings(t *testing.T) {
	cfg, err := parseFlags([]string{"-only", "ddp"})
	require.NoError(t, err)
	assert.Equal(t, []string{"ddp"}, cfg.Only)
	r, s, w := ddpSettings(cfg)
	assert.Equal(t, []int{5, 40, 10}, []int{r, s, w})
	cfg, err = parseFlags([]string{"-only", "ddp", "-quick"})
	require.NoError(t, err)
	r, s, w = ddpSettings(cfg)
	assert.Equal(t, []int{1, 3, 1}, []int{r, s, w})
}
