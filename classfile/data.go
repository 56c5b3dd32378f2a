package classfile

import (
	"fmt"
	"strings"

	"github.com/gotorch/gotorch/data"
	"github.com/gotorch/gotorch/torch"
)

// Dataset is a map-style dataset, data.Dataset.
type Dataset = data.Dataset

// The mean and standard deviation of the pixels of MNIST's and
// Fashion-MNIST's training sets, which the PyTorch examples normalize
// with.
var mnistStats = map[string][2]float64{
	"mnist":         {0.1307, 0.3081},
	"fashion-mnist": {0.2860, 0.3530},
}

// Dataset__0 picks a built-in dataset: dataset "fashion-mnist" loads
// Fashion-MNIST from Debian's dataset-fashion-mnist package
// (/usr/share/datasets/fashion-mnist), dataset "mnist:DIR" MNIST's IDX
// files from DIR ("fashion-mnist:DIR" works too). Images come as Float32
// batches of shape [N, 1, 28, 28], scaled to [0, 1] and normalized with
// the training set's mean and standard deviation; labels as Int64 [N].
func (t *Trainer) Dataset__0(name string) {
	name, dir, _ := strings.Cut(name, ":")
	t.Dataset__1(name, dir)
}

// Dataset__1 picks a built-in dataset and the folder of its files:
// dataset "mnist", "/data/mnist".
func (t *Trainer) Dataset__1(name, dir string) {
	key := strings.ToLower(strings.ReplaceAll(name, "_", "-"))
	stats, ok := mnistStats[key]
	if !ok {
		panic(fmt.Sprintf("classfile: unknown dataset %q (want fashion-mnist or mnist; pass other datasets with dataset train, test)", name))
	}
	if key == "mnist" && dir == "" {
		panic(`classfile: dataset "mnist" needs the folder of its IDX files: dataset "mnist", DIR`)
	}
	load := func(split data.Split) Dataset {
		var m *data.MNIST
		var err error
		if key == "mnist" {
			m, err = data.LoadMNIST(dir, split)
		} else {
			m, err = data.LoadFashionMNIST(dir, split)
		}
		if err != nil {
			panic(fmt.Errorf("classfile: dataset %s: %w", name, err))
		}
		images, labels, err := m.Tensors()
		if err != nil {
			panic(fmt.Errorf("classfile: dataset %s: %w", name, err))
		}
		ds, err := data.NewTensorDataset(images, labels)
		if err != nil {
			panic(fmt.Errorf("classfile: dataset %s: %w", name, err))
		}
		return ds
	}
	t.setDatasets(load(data.Train), load(data.Test))
	mean, std := stats[0], stats[1]
	norm := func(x torch.Tensor) torch.Tensor {
		// uint8 pixels to normalized floats, ToTensor and Normalize.
		return x.To(torch.Float32).DivScalar(torch.S(255 * std)).SubScalar(torch.S(mean / std))
	}
	t.trainTransform, t.testTransform = norm, norm
}

// Dataset__2 sets the training and test sets: dataset train, test. Either
// may be nil.
func (t *Trainer) Dataset__2(train, test Dataset) {
	t.setDatasets(train, test)
	t.trainTransform, t.testTransform = nil, nil
}

func (t *Trainer) setDatasets(train, test Dataset) {
	t.trainSet, t.testSet = train, test
	t.train, t.test = nil, nil
}

// TrainSet is the training set, nil before dataset.
func (t *Trainer) TrainSet() Dataset { return t.trainSet }

// TestSet is the test set, nil before dataset.
func (t *Trainer) TestSet() Dataset { return t.testSet }

// TrainLoader is the training set in shuffled batches of batchSize:
//
//	for x, y in trainLoader {
//		step loss(net.forward(x), y)
//	}
//
// Each loop over it is one epoch, with a new order, and counts in Epoch.
func (t *Trainer) TrainLoader() *Batches {
	if t.train == nil {
		t.train = t.newBatches("train", t.trainSet, true)
	}
	return t.train
}

// TestLoader is the test set in batches of batchSize, in order.
func (t *Trainer) TestLoader() *Batches {
	if t.test == nil {
		t.test = t.newBatches("test", t.testSet, false)
	}
	return t.test
}

func (t *Trainer) newBatches(name string, ds Dataset, training bool) *Batches {
	if ds == nil {
		panic(fmt.Sprintf("classfile: no %s set: call dataset first", name))
	}
	opts := data.Options{
		BatchSize: t.BatchSize__0(),
		Shuffle:   training,
		Seed:      t.loaderSeed(),
		Workers:   t.Workers__0(),
		// The batches' iterators mark the GC steps themselves (or leave
		// them to gop-torch's inserted calls).
		NoGC: true,
	}
	if t.dist != nil {
		opts.Shuffle, opts.Seed, opts.Sampler = false, t.sharedSeed(), t.sampler(training)
	}
	l, err := data.NewLoader(ds, opts)
	if err != nil {
		panic(fmt.Errorf("classfile: %s loader: %w", name, err))
	}
	tr := t.testTransform
	if training {
		tr = t.trainTransform
	}
	return &Batches{t: t, name: name, set: ds, loader: l, transform: tr, training: training}
}

// Batches is a dataset in batches, which a Go+ for loop iterates:
// for x, y in trainLoader { ... }. The inputs and targets are on the
// trainer's device.
type Batches struct {
	t         *Trainer
	name      string
	set       Dataset
	loader    *data.Loader
	transform func(torch.Tensor) torch.Tensor
	training  bool
}

// Len is the number of batches in an epoch.
func (b *Batches) Len() int { return b.loader.Len() }

// Loader is the underlying data.Loader.
func (b *Batches) Loader() *data.Loader { return b.loader }

// XGo_Enum starts an epoch for XGo's for-in loop.
func (b *Batches) XGo_Enum() *BatchIter {
	b.loader.Stop() // a loop that broke out early leaves its epoch open
	t := b.t
	if b.training {
		t.epoch++
		b.loader.SetEpoch(t.epoch - 1)
		t.startSchedule()
	}
	it := &BatchIter{b: b}
	t.flagUsed("limit-batches") // Next stops at it
	if t.Progress__0() {
		label := "eval"
		if b.training {
			label = fmt.Sprintf("epoch %d/%d", t.epoch, t.Epochs__0())
		}
		if t.bar != nil {
			t.bar.finish()
		}
		total := b.loader.Len()
		if lim := t.limitBatches; lim > 0 && lim < total {
			total = lim
		}
		samples := b.set.Len()
		if bs := b.loader.Options().BatchSize; total*bs < samples {
			samples = total * bs
		}
		t.bar = newBar(label, samples, b.training)
		it.bar = t.bar
	}
	return it
}

// Gop_Enum is XGo_Enum under gop v1.4's name.
func (b *Batches) Gop_Enum() *BatchIter { return b.XGo_Enum() }

// BatchIter is one epoch of Batches.
type BatchIter struct {
	b    *Batches
	bar  *bar
	n    int
	done bool
}

// Next returns the next batch's inputs and targets, and false at the end
// of the epoch. A loading error panics.
//
// If the script was not compiled by gop-torch, Next marks the GC steps:
// torch.GC() before each batch and torch.FinishGC() at the end.
func (it *BatchIter) Next() (x, y torch.Tensor, ok bool) {
	if it.done {
		return
	}
	t := it.b.t
	l := it.b.loader
	if lim := t.limitBatches; lim > 0 && it.n >= lim {
		l.Stop()
		it.end()
		return
	}
	if !t.instrumented {
		torch.GC()
	}
	if !l.Scan() {
		it.end()
		if err := l.Err(); err != nil {
			panic(fmt.Errorf("classfile: %s loader: %w", it.b.name, err))
		}
		return
	}
	x, y = it.b.prepare(l.Batch())
	it.n++
	if it.bar != nil {
		it.bar.advance(int(x.Size(0)))
	}
	return x, y, true
}

func (it *BatchIter) end() {
	it.done = true
	t := it.b.t
	if it.b.training {
		t.endEpoch()
	}
	if it.bar != nil {
		it.bar.finish()
		if t.bar == it.bar {
			t.bar = nil
		}
	}
	if !t.instrumented {
		torch.FinishGC()
	}
}

// prepare moves a batch to the device and transforms its inputs.
func (b *Batches) prepare(x, y torch.Tensor) (torch.Tensor, torch.Tensor) {
	t := b.t
	if d := t.Device__0(); d.Type != torch.CPUDevice {
		x = x.To(d)
		if y.Defined() {
			y = y.To(d)
		}
	}
	if b.transform != nil {
		x = b.transform(x)
	}
	return x, y
}

// each runs f on every batch of an epoch, marking the GC steps itself: it
// is library code, which gop-torch does not instrument.
func (b *Batches) each(f func(x, y torch.Tensor)) {
	it := b.XGo_Enum()
	t := b.t
	instrumented := t.instrumented
	t.instrumented = false // Next marks the steps
	defer func() { t.instrumented = instrumented }()
	for {
		x, y, ok := it.Next()
		if !ok {
			return
		}
		f(x, y)
	}
}
