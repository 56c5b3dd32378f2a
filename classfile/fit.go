package classfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/gotorch/gotorch/torch"
)

// Metrics are the results of an evaluation.
type Metrics struct {
	Loss     float64 // mean loss per example
	Accuracy float64 // fraction of examples whose argmax is the target; NaN if not a classification
	N        int     // examples
}

// String prints the metrics: "loss 0.3521, accuracy 87.41% (10000 examples)".
func (m Metrics) String() string {
	if m.Accuracy != m.Accuracy { // NaN
		return fmt.Sprintf("loss %.4f (%d examples)", m.Loss, m.N)
	}
	return fmt.Sprintf("loss %.4f, accuracy %.2f%% (%d examples)", m.Loss, 100*m.Accuracy, m.N)
}

// Evaluate__0 evaluates the model on the test set: evaluate. The model is
// in eval mode and gradients are off meanwhile.
func (t *Trainer) Evaluate__0() Metrics {
	return t.Evaluate__1(t.forward("evaluate"))
}

// Evaluate__1 evaluates a forward function on the test set:
// evaluate x => net.forward(x).
func (t *Trainer) Evaluate__1(forward func(x torch.Tensor) torch.Tensor) Metrics {
	return t.evaluate(t.TestLoader(), forward)
}

type trainable interface {
	Train(on ...bool)
	IsTraining() bool
}

func (t *Trainer) evaluate(b *Batches, forward func(torch.Tensor) torch.Tensor) Metrics {
	if m, ok := t.model.(trainable); ok && m.IsTraining() {
		m.Train(false)
		defer m.Train(true)
	}
	lossFn := t.lossFunc()
	var sum float64
	var correct int64
	var n int
	classify := true
	b.each(func(x, y torch.Tensor) {
		torch.NoGrad(func() {
			var out, loss torch.Tensor
			t.autocast(func() { out = forward(x); loss = lossFn(out, y) }) // amp "bf16"
			k := int(x.Size(0))
			sum += loss.Item() * float64(k)
			t.freeLoss(loss, x, y, out)
			n += k
			if classify && out.Dim() == 2 && y.Dim() == 1 && !y.DType().IsFloatingPoint() {
				// Three tensors of the framework's own, freed at once.
				pred := out.ArgmaxAlong(1)
				hits := pred.Eq(y)
				c := hits.Sum()
				correct += c.ItemInt()
				pred.Free()
				hits.Free()
				c.Free()
			} else {
				classify = false
			}
		})
	})
	sum, correct, n, classify = t.reduceMetrics(sum, correct, n, classify)
	m := Metrics{N: n, Accuracy: nan()}
	if n > 0 {
		m.Loss = sum / float64(n)
		if classify {
			m.Accuracy = float64(correct) / float64(n)
		}
	}
	return m
}

// freeLoss frees a loss that fit or evaluate computed with one of the
// named losses, which return a new tensor that nothing else holds, once
// its value has been read (autograd keeps what backward needs). A custom
// loss function may return a tensor it keeps, so its result is left to
// the collector, as is anything that is one of the batch's tensors.
func (t *Trainer) freeLoss(loss torch.Tensor, batch ...torch.Tensor) {
	if t.lossName == "custom" {
		return
	}
	for _, b := range batch {
		if b == loss {
			return
		}
	}
	loss.Free()
}

func nan() float64 {
	var zero float64
	return zero / zero
}

// Fit trains the model for the remaining epochs: for each, one pass over
// the training set (forward, loss, Step), then an evaluation on the test
// set if there is one, a line of results and, if checkpoint is set, a
// checkpoint. With a checkpoint file that exists, it resumes from it.
//
//	epochs 3
//	dataset "fashion-mnist"
//	model new(Net)
//	fit
func (t *Trainer) Fit() {
	forward := t.forward("fit")
	lossFn := t.lossFunc()
	t.flagUsed("checkpoint")
	if t.checkpoint != "" {
		if _, err := os.Stat(t.checkpoint); err == nil {
			t.LoadCheckpoint(t.checkpoint)
			t.Log(fmt.Sprintf("resumed from %s after epoch %d", t.checkpoint, t.epoch)) // rank 0 only
		} else if !errors.Is(err, fs.ErrNotExist) {
			panic(fmt.Errorf("classfile: checkpoint: %w", err))
		}
	}
	model, _ := t.model.(trainable)
	for t.epoch < t.Epochs__0() {
		if model != nil {
			model.Train(true)
		}
		start := time.Now()
		var sum float64
		var n int
		t.TrainLoader().each(func(x, y torch.Tensor) {
			var out, loss torch.Tensor
			t.autocast(func() { out = forward(x); loss = lossFn(out, y) }) // amp "bf16"
			t.Step(loss)
			sum += loss.Item()
			t.freeLoss(loss, x, y, out)
			n++
		})
		sum, _, n, _ = t.reduceMetrics(sum, 0, n, false) // the ranks' mean
		line := fmt.Sprintf("epoch %d/%d: train loss %.4f", t.epoch, t.Epochs__0(), sum/float64(max(n, 1)))
		if t.testSet != nil {
			line += ", test " + t.evaluate(t.TestLoader(), forward).String()
		}
		line += fmt.Sprintf(", %.1fs", time.Since(start).Seconds())
		t.Log(line)
		if t.checkpoint != "" {
			t.SaveCheckpoint(t.checkpoint)
		}
	}
}
