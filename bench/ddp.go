package main

// The ddp part: GoTorch's DDP (nn/parallel on c10d's Reducer and Gloo)
// against PyTorch's DistributedDataParallel, on this machine's loopback.
//
//	go run ./bench -only ddp           # this part alone (no other worker is built)
//	go run ./bench -only ddp -quick    # a smoke run: one round, a few steps
//
// Both sides run bench/cmd/ddpstep's step (ddpstep for Go, ddp_step.py for
// PyTorch): the same model (the Fashion-MNIST CNN with Adam, the MLP with
// SGD), the same global batch (64, random), the same bucket size
// (bucket_cap_mb 25) and the same threads per rank (-threads split across
// the ranks, so that 1 and 2 processes use the same cores). Each round
// runs, for each model, one after the other: one process without DDP, 2
// DDP ranks, for Go then PyTorch, and PyTorch's 2 ranks again with a
// timing comm hook (its all-reduce time; Go's C++ hook times every run).
// The ranks are started here with torchrun's variables on 127.0.0.1.
//
// Reported, per model, medians over the rounds: step time, all-reduce
// time per step (each bucket's all-reduce from its start to its end,
// summed; they overlap backward), and scaling efficiency: the
// one-process step time over the 2-rank step time on the same global
// batch and cores (1 means no loss; on an otherwise idle machine).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ddpRun is one launch's result, the JSON that rank 0 of ddpstep or
// ddp_step.py prints.
type ddpRun struct {
	Impl     string  `json:"impl"`
	Model    string  `json:"model"`
	World    int     `json:"world"`
	Threads  int     `json:"threads"`
	Batch    int     `json:"batch"`
	Buckets  int     `json:"buckets"`
	Steps    int     `json:"steps"`
	StepMS   float64 `json:"step_ms"`
	CommMS   float64 `json:"comm_ms"`
	BucketMB float64 `json:"bucket_mb"`
	Hook     bool    `json:"hook,omitempty"` // PyTorch with the timing comm hook
}

// ddpResults are the part's measurements, saved to bench/out/ddp.json.
type ddpResults struct {
	Start          time.Time
	Threads        int
	Rounds         int
	Steps, Warmup  int
	BucketMB       float64
	LoadStart      string
	LoadEnd        string
	Runs           []ddpRun
	Errors         []string
	ReportMarkdown string
}

// ddpSettings are the part's sizes: a smoke run with -quick.
func ddpSettings(cfg config) (rounds, steps, warmup int) {
	if cfg.Quick {
		return 1, 3, 1
	}
	return min(cfg.Rounds, 5), 40, 10
}

// ddpMain runs the ddp part alone (-only ddp): it builds ddpstep only.
func ddpMain(cfg config, logw io.Writer) error {
	t0 := time.Now()
	logf := func(format string, args ...any) {
		fmt.Fprintf(logw, "[%s] %s\n", elapsed(time.Since(t0)), fmt.Sprintf(format, args...))
	}
	res, err := ddpPart(cfg, logf)
	if err != nil {
		return err
	}
	fmt.Print(res.ReportMarkdown)
	return nil
}

// ddpPart builds ddpstep, runs the rounds and writes bench/out/ddp.json
// and bench/out/ddp.md (the section for docs/distributed.md).
func ddpPart(cfg config, logf func(string, ...any)) (*ddpResults, error) {
	outDir := filepath.Join(cfg.Root, "bench", "out")
	if cfg.Quick {
		outDir = filepath.Join(outDir, "quick")
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	b := &builder{root: cfg.Root, outDir: outDir, log: logf}
	bin := filepath.Join(outDir, "ddpstep")
	logf("building bench/cmd/ddpstep")
	if err := b.goCmd("build", "-o", bin, "./bench/cmd/ddpstep"); err != nil {
		return nil, err
	}
	rounds, steps, warmup := ddpSettings(cfg)
	res := &ddpResults{Start: time.Now(), Threads: cfg.Threads, Rounds: rounds, Steps: steps, Warmup: warmup,
		BucketMB: 25, LoadStart: loadAvg()}
	script := filepath.Join(cfg.Root, "bench/cmd/ddpstep/ddp_step.py")
	type launch struct {
		label string
		world int
		hook  bool
		argv  func(model string, perRank int) []string
	}
	common := func(model string, perRank int) []string {
		return []string{"-model", model, "-steps", strconv.Itoa(steps), "-warmup", strconv.Itoa(warmup),
			"-threads", strconv.Itoa(perRank), "-bucket-mb", "25", "-json"}
	}
	goCmd := func(extra ...string) func(string, int) []string {
		return func(m string, n int) []string { return append(append([]string{bin}, common(m, n)...), extra...) }
	}
	pyCmd := func(extra ...string) func(string, int) []string {
		return func(m string, n int) []string {
			var args []string
			for _, a := range common(m, n) {
				if strings.HasPrefix(a, "-") {
					a = "-" + a // argparse's --long options
				}
				args = append(args, a)
			}
			return append(append([]string{cfg.Python, script}, args...), extra...)
		}
	}
	launches := []launch{
		{"Go, 1 process", 1, false, goCmd("-plain")},
		{"Go, 2 ranks", 2, false, goCmd()},
	}
	if cfg.Python != "" {
		launches = append(launches,
			launch{"PyTorch, 1 process", 1, false, pyCmd("--plain")},
			launch{"PyTorch, 2 ranks", 2, false, pyCmd()},
			launch{"PyTorch, 2 ranks, timing hook", 2, true, pyCmd("--comm-hook")})
	}
	for r := 0; r < rounds; r++ {
		for _, model := range []string{"cnn", "mlp"} {
			for _, l := range launches {
				perRank := max(1, cfg.Threads/l.world)
				env := workerEnv(os.Environ(), perRank, cfg.OMPWait)
				run, err := launchRanks(l.world, l.argv(model, perRank), env, cfg.Root, 5*time.Minute)
				if err != nil {
					msg := fmt.Sprintf("round %d, %s, %s: %v", r+1, model, l.label, err)
					res.Errors = append(res.Errors, msg)
					logf("ddp: %s", msg)
					continue
				}
				run.Hook = l.hook
				res.Runs = append(res.Runs, run)
				logf("ddp round %d/%d %s %s: %.1f ms/step, all-reduce %.1f ms/step", r+1, rounds, model, l.label, run.StepMS, run.CommMS)
			}
		}
	}
	res.LoadEnd = loadAvg()
	res.ReportMarkdown = ddpReport(res)
	js, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return nil, err
	}
	for name, data := range map[string][]byte{"ddp.json": js, "ddp.md": []byte(res.ReportMarkdown)} {
		if err := writeAtomic(filepath.Join(outDir, name), data); err != nil {
			return nil, err
		}
	}
	logf("wrote %s and %s", rel(cfg.Root, filepath.Join(outDir, "ddp.md")), rel(cfg.Root, filepath.Join(outDir, "ddp.json")))
	return res, nil
}

// writeAtomic writes data to a temporary file beside path and renames it.
func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// launchRanks starts world copies of argv with torchrun's variables on
// loopback and returns rank 0's JSON line; any rank failing (or the
// timeout) stops the others.
func launchRanks(world int, argv, env []string, dir string, timeout time.Duration) (ddpRun, error) {
	port, err := freePort()
	if err != nil {
		return ddpRun{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	outs := make([]bytes.Buffer, world)
	errs := make([]error, world)
	var wg sync.WaitGroup
	for r := 0; r < world; r++ {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = append(append([]string{}, env...), "RANK="+strconv.Itoa(r), "LOCAL_RANK="+strconv.Itoa(r),
			"WORLD_SIZE="+strconv.Itoa(world), "LOCAL_WORLD_SIZE="+strconv.Itoa(world),
			"MASTER_ADDR=127.0.0.1", "MASTER_PORT="+strconv.Itoa(port))
		cmd.Stdout, cmd.Stderr = &outs[r], &outs[r]
		if err := cmd.Start(); err != nil {
			cancel()
			wg.Wait()
			return ddpRun{}, err
		}
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			if errs[r] = cmd.Wait(); errs[r] != nil {
				cancel() // a failed rank stops the others
			}
		}(r)
	}
	wg.Wait()
	for r, e := range errs {
		if e != nil {
			return ddpRun{}, fmt.Errorf("rank %d of %d: %v: %s", r, world, e, truncate(outs[r].String(), 600))
		}
	}
	sc := bufio.NewScanner(&outs[0])
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var run ddpRun
		if err := json.Unmarshal([]byte(line), &run); err == nil && run.StepMS > 0 {
			return run, nil
		}
	}
	return ddpRun{}, fmt.Errorf("rank 0 printed no result: %s", truncate(outs[0].String(), 600))
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ddpReport is the Markdown section of the part: per model, medians over
// the rounds, and every run.
func ddpReport(res *ddpResults) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### DDP: GoTorch against PyTorch DDP (2 ranks on loopback)\n\n")
	fmt.Fprintf(&b, "%s; %d round(s), each %d warm-up and %d timed steps a launch; global batch 64; bucket_cap_mb %g; %d intra-op threads in all (%d a rank with 2 ranks); load average %s at the start, %s at the end. Medians over the rounds.\n\n",
		res.Start.UTC().Format("2006-01-02 15:04 UTC"), res.Rounds, res.Warmup, res.Steps, res.BucketMB, res.Threads, max(1, res.Threads/2), res.LoadStart, res.LoadEnd)
	b.WriteString("| model | | 1 process, ms/step | 2 ranks, ms/step | all-reduce, ms/step | scaling efficiency |\n|---|---|---|---|---|---|\n")
	med := func(impl, model string, world int, hook bool, f func(ddpRun) float64) float64 {
		var xs []float64
		for _, r := range res.Runs {
			if r.Impl == impl && r.Model == model && r.World == world && r.Hook == hook {
				xs = append(xs, f(r))
			}
		}
		return summarize(xs).Median
	}
	step := func(r ddpRun) float64 { return r.StepMS }
	comm := func(r ddpRun) float64 { return r.CommMS }
	num := func(v float64, format string) string {
		if v == 0 {
			return "–"
		}
		return fmt.Sprintf(format, v)
	}
	for _, model := range []string{"cnn", "mlp"} {
		name := map[string]string{"cnn": "Fashion-MNIST CNN, Adam", "mlp": "MLP 784-512-512-10, SGD"}[model]
		for _, impl := range []string{"go", "python"} {
			one, two := med(impl, model, 1, false, step), med(impl, model, 2, false, step)
			c := med(impl, model, 2, false, comm)
			label := "GoTorch"
			if impl == "python" {
				label = "PyTorch"
				c = med(impl, model, 2, true, comm)
			}
			eff := 0.0
			if one > 0 && two > 0 {
				eff = one / two
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", name, label, num(one, "%.1f"), num(two, "%.1f"), num(c, "%.1f"), num(eff, "%.2f"))
		}
		g, p := med("go", model, 2, false, step), med("python", model, 2, false, step)
		if g > 0 && p > 0 {
			verdict := "meets"
			if g > p {
				verdict = "misses"
			}
			fmt.Fprintf(&b, "| %s | Go/PyTorch, 2 ranks | | %.2f× | | %s the goal (Go ≤ PyTorch) |\n", name, g/p, verdict)
		}
	}
	b.WriteString("\nPyTorch's all-reduce time comes from separate runs with a timing comm hook (divide, all-reduce, as its built-in one does); its step times are those of runs without it. 1 process: plain training, no DDP and no process group.\n")
	if len(res.Errors) > 0 {
		b.WriteString("\nErrors:\n\n")
		for _, e := range res.Errors {
			fmt.Fprintf(&b, "- %s\n", e)
		}
	}
	return b.String()
}
