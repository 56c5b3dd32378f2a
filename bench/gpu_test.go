package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFlagsDevice(t *testing.T) {
	c, err := parseFlags(nil)
	require.NoError(t, err)
	assert.Equal(t, "cpu", c.Device)
	assert.Equal(t, cpuJobs(), c.jobList())
	assert.Empty(t, c.Only, "a CPU run keeps every part")
	assert.True(t, c.wants("startup") && c.wants("rss"))

	c, err = parseFlags([]string{"-device", "cuda"})
	require.NoError(t, err)
	assert.Equal(t, "cuda", c.Device)
	assert.Equal(t, gpuJobs, c.jobList())
	assert.True(t, strings.HasSuffix(c.Out, "bench/out/gpu/benchmarks.md"), c.Out)
	assert.True(t, strings.HasSuffix(c.Saved, "bench/out/gpu/results.json"), c.Saved)
	assert.Empty(t, c.Readme, "a GPU run never rewrites the README")
	assert.True(t, c.wants("transformer"))
	assert.False(t, c.wants("startup"), "no start-up run on the GPU")
	assert.False(t, c.wants("rss"), "no RSS run on the GPU")

	c, err = parseFlags([]string{"-device", "cuda:0", "-only", "ops,transformer"})
	require.NoError(t, err)
	assert.Equal(t, "cuda", c.Device)
	assert.True(t, c.wants("transformer"))
	assert.False(t, c.wants("mlp"))

	_, err = parseFlags([]string{"-device", "gpu"})
	assert.ErrorContains(t, err, `-device "gpu": want cpu or cuda`)
	_, err = parseFlags([]string{"-device", "cuda", "-only", "rss"})
	assert.ErrorContains(t, err, `unknown part "rss" with -device cuda`)
	_, err = parseFlags([]string{"-only", "transformer"})
	assert.ErrorContains(t, err, `unknown part "transformer" with -device cpu`)
}

func TestDeviceEnv(t *testing.T) {
	base := []string{"PATH=/bin", "BENCH_DEVICE=cuda", "HOME=/h"}
	assert.Equal(t, []string{"PATH=/bin", "HOME=/h"}, deviceEnv(base, "cpu"), "a CPU run drops a stray BENCH_DEVICE")
	assert.Equal(t, []string{"PATH=/bin", "HOME=/h", "BENCH_DEVICE=cuda"}, deviceEnv(base, "cuda"))
	assert.Equal(t, []string{"PATH=/bin", "BENCH_DEVICE=cuda", "HOME=/h"}, base, "the caller's slice is unchanged")
}

func TestCudaCxxFlags(t *testing.T) {
	cxx, ld := cudaCxxFlags("-I/t/include -DGOTORCH_LIBTORCH=20600")
	assert.Empty(t, cxx, "no -DBENCH_CUDA without the CUDA headers")
	assert.Equal(t, []string{"-Wl,--no-as-needed", "-ltorch_cuda", "-lc10_cuda", "-Wl,--as-needed"}, ld)
	cxx, _ = cudaCxxFlags("-I/t/include -DGOTORCH_CUDA -I/usr/local/cuda/include")
	assert.Equal(t, []string{"-DBENCH_CUDA", "-I/t/include", "-I/usr/local/cuda/include"}, cxx)
}

func TestRecordPeak(t *testing.T) {
	r := &results{}
	p := func(v int64) *int64 { return &v }
	r.recordPeak("gmlp", "go", nil)
	r.recordPeak("gmlp", "cxx", p(-1))
	assert.Empty(t, r.Peak, "no peak or an unknown one (-1) is not recorded")
	r.recordPeak("gmlp", "go", p(300<<20))
	r.recordPeak("gmlp", "go", p(200<<20))
	r.recordPeak("gmlp", "python", p(250<<20))
	assert.Equal(t, int64(300<<20), r.Peak["gmlp"]["go"], "the largest over the rounds")
	assert.Equal(t, "300 MiB", r.peakCell("gmlp", "go"))
	assert.Equal(t, "—", r.peakCell("gmlp", "cxx"))
	assert.Equal(t, "1.20×", r.peakRatio("gmlp", "go", "python"))
	assert.Equal(t, "—", r.peakRatio("gmlp", "cxx", "python"))
}

func TestGPUReport(t *testing.T) {
	dir := t.TempDir()
	r := &results{
		Config:  config{Device: "cuda", Rounds: 2, Reps: 1, Warmup: 1, Root: dir, Out: filepath.Join(dir, "gpu", "benchmarks.md")},
		Command: "go run ./bench -device cuda", Start: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC), Duration: time.Minute,
		Machine: machine{GPU: "Test GPU, 580.00, 81559 MiB", Cores: 16},
		Impls:   allImpls,
		Samples: map[string]map[string][]float64{
			"gadd4": {"cxx": {5000, 6000}, "go": {10000, 11000}, "python": {9000, 10000}},
			"gmlp":  {"cxx": {1.2e6}, "go": {1.5e6}, "gop": {1.6e6}, "python": {1.6e6}},
		},
		Peak: map[string]map[string]int64{"gmlp": {"cxx": 100 << 20, "go": 110 << 20, "gop": 120 << 20, "python": 100 << 20}},
	}
	require.NoError(t, writeGPUReport(r))
	b, err := os.ReadFile(r.Config.Out)
	require.NoError(t, err)
	md := string(b)
	assert.Contains(t, md, "GPU: Test GPU, 580.00, 81559 MiB")
	assert.Contains(t, md, "| add, 4×4, per op | 5.50 µs (5.00 µs) | 10.5 µs (10.0 µs) | — | 9.50 µs (9.00 µs) |")
	assert.Contains(t, md, "| MLP 784-512-512-10, Adam step, batch 1024 | 100 MiB | 110 MiB | 120 MiB | 100 MiB | 1.10× | 1.20× |")
	assert.NotContains(t, md, "mm, 4×4", "jobs without samples are left out")
	s := summaryText(r)
	assert.Contains(t, s, "peak C++ 100 MiB Go 110 MiB Go+ 120 MiB Python 100 MiB")
}
