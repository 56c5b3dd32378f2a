package robustness

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/data"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// The concurrency tests are meant for go test -race: each runs 10,000
// iterations in all, spread over goroutines, under a watchdog that fails
// the test if they do not finish (a deadlock) instead of hanging it.

const (
	iterations = 10000
	watchdog   = 3 * time.Minute
)

// within runs f and fails the test if it does not return within d.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("not done after %v: a deadlock? goroutines:\n%s", d, buf[:n])
	}
}

// mlp is the shared model of the tests.
type mlp struct {
	nn.Module
	FC1, FC2 *nn.LinearModule
	Norm     *nn.BatchNorm1dModule
}

func newMLP() *mlp {
	m := &mlp{FC1: nn.Linear(8, 16), Norm: nn.BatchNorm1d(16), FC2: nn.Linear(16, 3)}
	m.Init(m)
	return m
}

func (m *mlp) Forward(x torch.Tensor) torch.Tensor {
	return m.FC2.Forward(m.Norm.Forward(m.FC1.Forward(x)).Relu())
}

// TestConcurrentInference runs a shared model in eval mode from many
// goroutines, each under its own NoGrad, and checks every output against
// the one computed alone.
func TestConcurrentInference(t *testing.T) {
	torch.ManualSeed(1)
	m := newMLP()
	m.Eval()
	const goroutines = 8
	inputs := make([]torch.Tensor, goroutines)
	want := make([][]float32, goroutines)
	for g := range inputs {
		inputs[g] = torch.Randn(shape(4, 8))
		torch.NoGrad(func() { want[g] = m.Forward(inputs[g]).Float32s() })
	}
	var done atomic.Int64
	within(t, watchdog, func() {
		var wg sync.WaitGroup
		errs := make(chan error, goroutines)
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < iterations/goroutines; i++ {
					var got []float32
					torch.NoGrad(func() {
						y := m.Forward(inputs[g])
						if y.RequiresGrad() {
							errs <- fmt.Errorf("goroutine %d: output requires grad under NoGrad", g)
						}
						got = y.Float32s()
					})
					if fmt.Sprint(got) != fmt.Sprint(want[g]) {
						errs <- fmt.Errorf("goroutine %d, iteration %d: %v, want %v", g, i, got, want[g])
						return
					}
					done.Add(1)
					if i%100 == 0 {
						torch.GC()
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
	torch.FinishGC()
	assert.Equal(t, int64(iterations), done.Load())
	// The model is untouched.
	assert.True(t, torch.IsGradEnabled())
	for _, p := range m.Parameters() {
		assert.False(t, p.Grad().Defined())
	}
}

// rowsDataset gives example i as (a row of 8 values, class i%3), built in
// Go on each Get, as a file-backed dataset would.
type rowsDataset struct{ n int }

func (d rowsDataset) Len() int { return d.n }
func (d rowsDataset) Get(i int) (data.Example, error) {
	row := make([]float32, 8)
	for j := range row {
		row[j] = float32((i*7+j)%11) / 11
	}
	return data.Example{Input: row, Target: i % 3}, nil
}

// TestTrainingBesideLoaders trains a model in one goroutine on batches of
// a loader with parallel workers (whose Scan calls torch.GC at each step)
// while two other goroutines run loaders of their own over the same
// dataset, an evaluation pass and a prefetching reader: 10,000 batches in
// all.
func TestTrainingBesideLoaders(t *testing.T) {
	torch.ManualSeed(2)
	ds := rowsDataset{n: 4500}
	const trainBatches = 1000
	const otherBatches = (iterations - trainBatches) / 2
	m := newMLP()
	opt := optim.SGD(m.Parameters(), optim.WithLR(0.05), optim.WithMomentum(0.9))
	loss := nn.CrossEntropyLoss()
	var batches atomic.Int64
	within(t, watchdog, func() {
		var wg sync.WaitGroup
		errs := make(chan error, 3)
		wg.Add(1)
		go func() { // training
			defer wg.Done()
			l, err := data.NewLoader(ds, data.Options{BatchSize: 8, Shuffle: true, Seed: 1, Workers: 3})
			if err != nil {
				errs <- err
				return
			}
			var losses []float64
			for epoch := 0; len(losses) < trainBatches; epoch++ {
				for len(losses) < trainBatches && l.Scan() {
					x, y := l.Batch()
					opt.ZeroGrad()
					out := loss.Forward(m.Forward(x), y)
					out.Backward()
					opt.Step()
					losses = append(losses, out.Item())
					batches.Add(1)
				}
				l.Stop()
				if err := l.Err(); err != nil {
					errs <- err
					return
				}
			}
			mean := func(v []float64) float64 {
				s := 0.0
				for _, x := range v {
					s += x
				}
				return s / float64(len(v))
			}
			if first, last := mean(losses[:100]), mean(losses[len(losses)-100:]); !(last < first) {
				errs <- fmt.Errorf("training did not learn: mean loss %v over the first 100 steps, %v over the last", first, last)
			}
		}()
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() { // other loaders
				defer wg.Done()
				l, err := data.NewLoader(ds, data.Options{BatchSize: 1, Workers: 2, Prefetch: 3, Seed: uint64(w), NoGC: true})
				if err != nil {
					errs <- err
					return
				}
				for n := 0; n < otherBatches && l.Scan(); n++ {
					x, _ := l.Batch()
					if x.Shape()[1] != 8 {
						errs <- fmt.Errorf("batch of shape %v", x.Shape())
						return
					}
					batches.Add(1)
				}
				l.Stop()
				if err := l.Err(); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
	torch.FinishGC()
	assert.Equal(t, int64(iterations), batches.Load())
}

// TestGCFromManyGoroutines calls torch.GC from several goroutines at once
// (every fifth of 10,000 iterations) while they make tensors, some kept
// across steps; the live tensor count comes back to its baseline.
func TestGCFromManyGoroutines(t *testing.T) {
	torch.FinishGC()
	before := torch.ReadMemStats().LiveTensors
	const goroutines = 4
	within(t, watchdog, func() {
		var wg sync.WaitGroup
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				kept := torch.Zeros(shape(2))
				for i := 0; i < iterations/goroutines; i++ {
					a := torch.Ones(shape(2))
					kept = torch.Add(kept, a) // survives the step: GC must not wait for it
					if i%3 == 0 {
						a.Free() // mixed with explicit frees
					}
					if i%5 == 0 {
						torch.GC()
					}
				}
				if got := kept.Float32s(); got[0] != float32(iterations/goroutines) {
					t.Errorf("goroutine %d: sum %v", g, got)
				}
			}()
		}
		wg.Wait()
	})
	torch.FinishGC()
	runtime.GC()
	torch.FinishGC()
	require.LessOrEqual(t, torch.ReadMemStats().LiveTensors, before+8, "tensors leaked")
}
