package distributed

/*
#include <stdlib.h>
#include "distributed.h"
*/
import "C"

import (
	"runtime"
	"unsafe"

	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/internal/native"
)

// SyncBatchNorm is batch norm in training over the whole group: x (N, C,
// ...) is normalized with the mean and variance of every rank's batch
// together, and runningMean and runningVar (when defined) move towards them
// by momentum, with the unbiased variance of all the ranks' values. It is
// the autograd function of PyTorch's nn.SyncBatchNorm: forward
// all-gathers each rank's per-channel mean, inverse standard deviation and
// count; the backward of the result all-reduces the sums the input's
// gradient needs, while weight's and bias's gradients stay this rank's
// (DDP averages them). weight, bias, runningMean and runningVar may be the
// zero Tensor. Every rank must call it, with the same number of channels,
// in the same order relative to the group's other collectives; the group
// must outlive the backward. nn/parallel's SyncBatchNormModule calls it.
func SyncBatchNorm(pg *ProcessGroup, x, weight, bias, runningMean, runningVar torch.Tensor, eps, momentum float64) (torch.Tensor, error) {
	const op = "SyncBatchNorm"
	p, err := pg.handle(op)
	if err != nil {
		return torch.Tensor{}, err
	}
	names := []string{"input", "weight", "bias", "running_mean", "running_var"}
	ts := []torch.Tensor{x, weight, bias, runningMean, runningVar}
	var cs [5]C.gt_tensor
	for i, t := range ts {
		if i > 0 && !t.Defined() {
			continue
		}
		h, err := native.Borrow(t, "distributed."+op, names[i])
		if err != nil {
			for _, u := range ts[:i] {
				if u.Defined() {
					native.Release(u)
				}
			}
			return torch.Tensor{}, err
		}
		cs[i] = C.gt_tensor(h)
	}
	var out C.gt_tensor
	e := C.gt_dist_sync_batch_norm(p, cs[0], cs[1], cs[2], cs[3], cs[4], C.double(eps), C.double(momentum), &out)
	for _, t := range ts {
		if t.Defined() {
			native.Release(t)
		}
	}
	runtime.KeepAlive(pg)
	if err := cerr(op, e); err != nil {
		return torch.Tensor{}, err
	}
	return native.Adopt(unsafe.Pointer(out)).(torch.Tensor), nil
}
