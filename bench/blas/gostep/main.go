// Command gostep times a matmul-heavy training step through GoTorch, so
// that the BLAS comparison in docs/blas.md can be checked in a Go process
// (Go's runtime threads next to libtorch's and OpenBLAS's) and not only in
// Python. It prints one JSON line in the format of blas_bench.py --child:
//
//	go build -o /tmp/gostep ./bench/blas/gostep
//	/usr/bin/python3 bench/blas/blas_bench.py --child-cmd /tmp/gostep
//
// The step is a two-layer linear network, 784-256-10 at batch 64, forward
// and backward (torch has no ReLU or loss yet): five matrix products.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gotorch/gotorch/torch"
)

func main() {
	threads := flag.Int("threads", 2, "torch.SetNumThreads")
	steps := flag.Int("steps", 200, "steps per repeat")
	repeats := flag.Int("repeats", 5, "repeats; the median is printed")
	flag.Parse()
	torch.SetNumThreads(*threads)
	torch.ManualSeed(0)

	x := torch.Randn([]int64{64, 784})
	w1 := torch.Randn([]int64{784, 256}).SetRequiresGrad(true)
	w2 := torch.Randn([]int64{256, 10}).SetRequiresGrad(true)
	g := torch.Ones([]int64{64, 10})
	step := func() {
		w1.ZeroGrad()
		w2.ZeroGrad()
		torch.Mm(torch.Mm(x, w1), w2).Backward(torch.WithGradient(g))
	}
	for range max(1, *steps/5) {
		step()
	}
	var per []float64
	for range *repeats {
		t0 := time.Now()
		for range *steps {
			step()
		}
		per = append(per, float64(time.Since(t0).Microseconds())/1e3/float64(*steps))
	}
	sort.Float64s(per)
	out := map[string]any{
		"threads":  torch.GetNumThreads(),
		"go_mm_ms": per[len(per)/2],
		"loaded":   loadedBLAS(),
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}

// loadedBLAS lists the BLAS and LAPACK files mapped into this process.
func loadedBLAS() []string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return nil
	}
	defer f.Close()
	var libs []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		p := fields[len(fields)-1]
		base := filepath.Base(p)
		if !strings.HasPrefix(base, "libblas") && !strings.HasPrefix(base, "liblapack") && !strings.HasPrefix(base, "libopenblas") {
			continue
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if !slices.Contains(libs, p) {
			libs = append(libs, p)
		}
	}
	sort.Strings(libs)
	return libs
}
