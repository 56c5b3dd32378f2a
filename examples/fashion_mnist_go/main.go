// Command fashion_mnist_go trains a small CNN on Fashion-MNIST in plain Go:
// the plain-Go twin of the Go+ main job. It evaluates on the test set after
// each epoch, saves a checkpoint, and can predict from it.
//
//	go run ./examples/fashion_mnist_go                  # train (5 epochs)
//	go run ./examples/fashion_mnist_go -predict -n 10   # classify test images
//
// The data comes from Debian's dataset-fashion-mnist package
// (/usr/share/datasets/fashion-mnist); -data names another directory.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"runtime"
	"time"

	"github.com/gotorch/gotorch/data"
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/progress"
	"github.com/gotorch/gotorch/torch"
)

var classes = []string{"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"}

// Net is conv-bn-relu-pool twice, then a dropout-regularised classifier.
type Net struct {
	nn.Module
	Features   *nn.SequentialModule
	Classifier *nn.SequentialModule
}

func NewNet() *Net {
	n := &Net{
		Features: nn.Sequential(
			nn.Conv2d(1, 32, 3, nn.WithPadding(1)), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
			nn.Conv2d(32, 64, 3, nn.WithPadding(1)), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
		),
		Classifier: nn.Sequential(
			nn.Flatten(), nn.Dropout(nn.WithP(0.25)),
			nn.Linear(64*7*7, 128), nn.ReLU(), nn.Dropout(nn.WithP(0.5)),
			nn.Linear(128, 10),
		),
	}
	n.Init(n)
	return n
}

func (n *Net) Forward(x torch.Tensor) torch.Tensor {
	return n.Classifier.Forward(n.Features.Forward(x))
}

var (
	dataDir   = flag.String("data", "", "Fashion-MNIST directory (default: Debian's /usr/share/datasets/fashion-mnist)")
	epochs    = flag.Int("epochs", 5, "training epochs")
	batchSize = flag.Int("batch", 64, "batch size")
	lr        = flag.Float64("lr", 1e-3, "Adam learning rate")
	workers   = flag.Int("workers", 2, "data-loading goroutines")
	seed      = flag.Uint64("seed", 1, "random seed")
	ckpt      = flag.String("checkpoint", "fashion_mnist_cnn.safetensors", "checkpoint file")
	predict   = flag.Bool("predict", false, "classify test images with the checkpoint instead of training")
	count     = flag.Int("n", 10, "with -predict: how many test images")
)

func normalize() data.Transform {
	return data.Compose(data.ToTensor(), data.Normalize([]float32{0.2860}, []float32{0.3530}))
}

func main() {
	// Run the training loop's ops from one OS thread, as C++ and Python do:
	// every thread that starts a parallel op gets its own OpenMP team, and
	// teams left behind by a goroutine that Go moved make every parallel op
	// slower (docs/memory.md, "OpenMP teams"). *_train.gox scripts get this
	// from the classfile framework.
	runtime.LockOSThread()
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	torch.ManualSeed(*seed)
	var err error
	if *predict {
		err = runPredict()
	} else {
		err = train(ctx)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func train(ctx context.Context) error {
	trainSet, err := data.LoadFashionMNIST(*dataDir, data.Train)
	if err != nil {
		return err
	}
	testSet, err := data.LoadFashionMNIST(*dataDir, data.Test)
	if err != nil {
		return err
	}
	loader, err := data.NewLoader(trainSet, data.Options{
		BatchSize: *batchSize, Shuffle: true, Seed: *seed, Workers: *workers, Transform: normalize(),
	})
	if err != nil {
		return err
	}
	net := NewNet()
	opt := optim.Adam(net.Parameters(), optim.WithLR(*lr))
	// The learning rate follows half a cosine from lr to 0 over the run,
	// stepped once per epoch (PyTorch's CosineAnnealingLR).
	sched := optim.CosineAnnealingLR(opt, *epochs)
	log.Printf("%d training and %d test images, %d threads\n%v", trainSet.Len(), testSet.Len(), torch.GetNumThreads(), net)
	for epoch := 1; epoch <= *epochs; epoch++ {
		net.Train()
		start := time.Now()
		bar := progress.New(trainSet.Len(), progress.Options{Description: fmt.Sprintf("epoch %d/%d", epoch, *epochs)})
		for loader.ScanContext(ctx) { // calls torch.GC() before each batch
			x, y := loader.Batch()
			loss := F.CrossEntropy(net.Forward(x), y)
			opt.ZeroGrad()
			loss.Backward()
			opt.Step()
			bar.Add(int(x.Size(0)), loss.Item())
		}
		stats := bar.Finish()
		if err := loader.Err(); err != nil {
			return err
		}
		acc, err := evaluate(ctx, net, testSet)
		if err != nil {
			return err
		}
		log.Printf("epoch %d: %v, test accuracy %.2f%%, %.1f s", epoch, stats, 100*acc, time.Since(start).Seconds())
		if err := nn.Save(net, *ckpt); err != nil {
			return err
		}
		sched.Step()
	}
	log.Printf("checkpoint saved to %s", *ckpt)
	return nil
}

func evaluate(ctx context.Context, net *Net, ds data.Dataset) (float64, error) {
	net.Eval()
	loader, err := data.NewLoader(ds, data.Options{BatchSize: 500, Workers: *workers, Transform: normalize()})
	if err != nil {
		return 0, err
	}
	correct, total := int64(0), int64(0)
	torch.NoGrad(func() {
		for loader.ScanContext(ctx) {
			x, y := loader.Batch()
			pred := net.Forward(x).Argmax(torch.WithDim(1))
			correct += pred.Eq(y).Sum().ItemInt()
			total += y.Size(0)
		}
	})
	if err := loader.Err(); err != nil {
		return 0, err
	}
	return float64(correct) / float64(total), nil
}

func runPredict() error {
	testSet, err := data.LoadFashionMNIST(*dataDir, data.Test)
	if err != nil {
		return err
	}
	net := NewNet()
	if err := nn.Load(net, *ckpt, true); err != nil {
		return fmt.Errorf("%w (train first: go run ./examples/fashion_mnist_go)", err)
	}
	net.Eval()
	tf := normalize()
	right := 0
	for i := 0; i < *count && i < testSet.Len(); i++ {
		ex, err := testSet.Get(i)
		if err != nil {
			return err
		}
		in, err := tf.Apply(ex.Input, nil)
		if err != nil {
			return err
		}
		x, err := data.CollateValues([]any{in})
		if err != nil {
			return err
		}
		var p int64
		torch.NoGrad(func() { p = net.Forward(x).Argmax().ItemInt() })
		label := ex.Target.(int)
		mark := "✗"
		if int(p) == label {
			mark, right = "✓", right+1
		}
		fmt.Printf("%s image %4d: predicted %-12s actual %s\n", mark, i, classes[p], classes[label])
	}
	fmt.Printf("%d of %d right\n", right, *count)
	return nil
}
