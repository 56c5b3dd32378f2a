package main

import (
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/data"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// The loader's cost in a training loop: the same model and optimizer fed
// by data.Loader (decoding and normalising in goroutines, as main does)
// and by batches cut from tensors already in memory (what the PyTorch twin
// does). Blocks of steps alternate between the two, so that both see the
// same machine load:
//
//	go test ./examples/fashion_mnist_go -run '^$' -bench LoaderOverhead -benchtime 600x
//
// It reports the milliseconds per step of each and the loader's overhead
// in percent of the in-memory step.

func fashionOrSkip(tb testing.TB) (*data.MNIST, *data.MNIST) {
	tb.Helper()
	dir := *dataDir
	if dir == "" {
		dir = data.FashionMNISTDir
	}
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("no Fashion-MNIST at %s (apt-get install dataset-fashion-mnist)", dir)
	}
	train, err := data.LoadFashionMNIST(*dataDir, data.Train)
	require.NoError(tb, err)
	test, err := data.LoadFashionMNIST(*dataDir, data.Test)
	require.NoError(tb, err)
	return train, test
}

// inMemory holds a normalised copy of a dataset as two tensors and cuts
// shuffled batches from them with index_select.
type inMemory struct {
	x, y torch.Tensor
	perm []int64
	pos  int
	rng  *rand.Rand
}

func newInMemory(tb testing.TB, ds *data.MNIST) *inMemory {
	images, labels, err := ds.Tensors()
	require.NoError(tb, err)
	x := images.To(torch.Float32).DivScalar(torch.S(255 * 0.3530)).SubScalar(torch.S(0.2860 / 0.3530))
	m := &inMemory{x: torch.Keep(x), y: torch.Keep(labels.To(torch.Int64)), rng: rand.New(rand.NewPCG(1, 2))}
	m.perm = make([]int64, ds.Len())
	for i := range m.perm {
		m.perm[i] = int64(i)
	}
	return m
}

func (m *inMemory) next(batch int) (x, y torch.Tensor) {
	if m.pos+batch > len(m.perm) {
		m.rng.Shuffle(len(m.perm), func(i, j int) { m.perm[i], m.perm[j] = m.perm[j], m.perm[i] })
		m.pos = 0
	}
	idx := torch.FromSlice(m.perm[m.pos : m.pos+batch])
	m.pos += batch
	return m.x.IndexSelect(0, idx), m.y.IndexSelect(0, idx)
}

func BenchmarkLoaderOverhead(b *testing.B) {
	trainSet, _ := fashionOrSkip(b)
	const batch, block = 64, 50
	mem := newInMemory(b, trainSet)
	loader, err := data.NewLoader(trainSet, data.Options{
		BatchSize: batch, Shuffle: true, Seed: 1, Workers: *workers, Transform: normalize(), DropLast: true,
	})
	require.NoError(b, err)
	torch.ManualSeed(1)
	net := NewNet()
	net.Train()
	opt := optim.Adam(net.Parameters(), optim.WithLR(1e-3))
	step := func(x, y torch.Tensor) {
		loss := F.CrossEntropy(net.Forward(x), y)
		opt.ZeroGrad()
		loss.Backward()
		opt.Step()
	}
	// Warm up both paths.
	for range 20 {
		torch.GC()
		step(mem.next(batch))
	}
	torch.FinishGC()
	var memTime, loaderTime float64
	var memSteps, loaderSteps int
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(block, b.N-done)
		start := time.Now()
		for range n {
			torch.GC()
			step(mem.next(batch))
		}
		torch.FinishGC()
		memTime += time.Since(start).Seconds()
		memSteps += n

		start = time.Now()
		for k := 0; k < n; {
			if !loader.Scan() { // calls torch.GC() before each batch
				require.NoError(b, loader.Err())
				continue // the next epoch starts
			}
			step(loader.Batch())
			k++
		}
		loaderTime += time.Since(start).Seconds()
		loaderSteps += n
		done += n
	}
	loader.Stop()
	torch.FinishGC()
	b.StopTimer()
	memMS := memTime / float64(memSteps) * 1e3
	loaderMS := loaderTime / float64(loaderSteps) * 1e3
	b.ReportMetric(memMS, "inmem-ms/step")
	b.ReportMetric(loaderMS, "loader-ms/step")
	b.ReportMetric(100*(loaderMS-memMS)/memMS, "overhead-%")
}
