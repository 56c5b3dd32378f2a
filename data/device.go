package data

import (
	"fmt"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/cuda"
)

// toDevice pins a collated batch (Options.PinMemory, with a GPU present)
// and copies it to Options.Device with non_blocking copies. It runs on the
// loading goroutine, so with Workers the next batches are prepared while
// the caller computes. The copies go to the loading thread's current
// stream, CUDA's default stream, so they are ordered before the caller's
// kernels on it; overlapping them with those kernels on a side stream is
// left to a later change (docs/gpu.md).
func (l *Loader) toDevice(x, y torch.Tensor) (torch.Tensor, torch.Tensor, error) {
	pin := l.opts.PinMemory && cuda.IsAvailable()
	dev := l.opts.Device
	move := dev.Type != torch.CPUDevice
	if !pin && !move {
		return x, y, nil
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
	x, err := one(x, "input")
	if err != nil {
		return x, y, err
	}
	y, err = one(y, "target")
	return x, y, err
}
