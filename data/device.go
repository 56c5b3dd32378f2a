package data

import (
	"fmt"
	"sync"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/cuda"
)

// toDevice pins a collated batch (Options.PinMemory, with a GPU present)
// and copies it to Options.Device with non_blocking copies. It runs on the
// loading goroutine, so with Workers the next batches are prepared while
// the caller computes. On a CUDA device the copies go to the loader's own
// side stream (copyStream), so that they overlap the caller's kernels on
// its stream instead of queueing behind them; ready is an event recorded
// on the side stream after the copies, which the consumer's stream waits
// for before it uses the batch (awaitBatch). On the CPU it does nothing
// and ready is nil.
func (l *Loader) toDevice(x, y torch.Tensor) (_, _ torch.Tensor, ready *cuda.Event, err error) {
	pin := l.opts.PinMemory && cuda.IsAvailable()
	dev := l.opts.Device
	move := dev.Type != torch.CPUDevice
	if !pin && !move {
		return x, y, nil, nil
	}
	var side *cuda.Stream
	if move && dev.Type == torch.CUDADevice {
		if side, err = l.copies.stream(dev); err != nil {
			return x, y, nil, fmt.Errorf("data: copying the batch's input to %v: %w", dev, err)
		}
	}
	one := func(t torch.Tensor, what string) (torch.Tensor, error) {
		if !t.Defined() || t.Device().Type != torch.CPUDevice {
			return t, nil
		}
		if pin {
			p, err := cuda.PinMemory(t)
			if err != nil {
				return t, fmt.Errorf("data: pinning the batch's %s: %w", what, err)
			}
			t = p // the unpinned batch is left to the collector: a dataset may share it
		}
		if move {
			m, err := cuda.To(t, dev, pin)
			if err != nil {
				return t, fmt.Errorf("data: copying the batch's %s to %v: %w", what, dev, err)
			}
			// The source is left to the collector; a pinned one stays
			// valid for the copy, as CUDA's caching host allocator keeps
			// pinned blocks until the copy's stream has passed them.
			t = m
		}
		return t, nil
	}
	copyBoth := func() {
		if x, err = one(x, "input"); err == nil {
			y, err = one(y, "target")
		}
	}
	if side == nil {
		copyBoth()
		return x, y, nil, err
	}
	if e := cuda.WithStream(side, copyBoth); e != nil {
		return x, y, nil, fmt.Errorf("data: copying the batch to %v on the loader's stream: %w", dev, e)
	}
	if err != nil {
		return x, y, nil, err
	}
	if ready, err = cuda.NewEvent(false); err == nil {
		err = ready.Record(side)
	}
	if err != nil {
		return x, y, nil, fmt.Errorf("data: recording the batch's copy to %v: %w", dev, err)
	}
	return x, y, ready, nil
}

// awaitBatch makes the consumer's current stream on the batch's device
// wait for its copies (ready, from toDevice), and records the batch's
// tensors on that stream, so that the caching allocator does not hand
// their memory, allocated on the side stream, to a later copy before the
// consumer's kernels are done with them (PyTorch's
// current_stream().wait_stream(s) and Tensor.record_stream). It runs on
// the consumer's goroutine; a nil ready (the CPU, no copy) does nothing.
func (l *Loader) awaitBatch(ready *cuda.Event, b Batch) error {
	if ready == nil {
		return nil
	}
	cur, err := cuda.CurrentStream(deviceIndex(l.opts.Device))
	if err == nil {
		err = cur.WaitEvent(ready)
	}
	for _, t := range []torch.Tensor{b.Input, b.Target} {
		if err == nil && t.Defined() && t.Device().Type == torch.CUDADevice {
			err = cuda.RecordStream(t, cur)
		}
	}
	if err != nil {
		return fmt.Errorf("data: waiting for the batch's copy to %v: %w", l.opts.Device, err)
	}
	return nil
}

// copyStream is a loader's side stream for its copies to a CUDA device,
// made at the first copy.
type copyStream struct {
	once sync.Once
	s    *cuda.Stream
	err  error
}

func (c *copyStream) stream(dev torch.Device) (*cuda.Stream, error) {
	c.once.Do(func() { c.s, c.err = cuda.NewStream(deviceIndex(dev), false) })
	return c.s, c.err
}

// deviceIndex is dev's index, or cuda.Current for "cuda" without one.
func deviceIndex(dev torch.Device) int {
	if dev.Index < 0 {
		return cuda.Current
	}
	return dev.Index
}
