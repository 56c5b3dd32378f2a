package optim

import (
	"fmt"
	"math"

	"github.com/gotorch/gotorch/torch"
)

// ClipGradNorm_ scales the gradients of params in place so that their
// total norm, taken as if they were one vector, is at most maxNorm, and
// returns that total norm (before clipping) as a 0-dim tensor, as PyTorch's
// torch.nn.utils.clip_grad_norm_ does. Parameters without a gradient are
// skipped; with none, the total norm is 0. It panics on failure;
// TryClipGradNorm_ returns the error.
//
// Options, with PyTorch's defaults:
//   - WithNormType (2): the p of the p-norm; math.Inf(1) gives the max norm;
//   - WithErrorIfNonfinite (false): fail, clipping nothing, when the total
//     norm is NaN or infinite.
func ClipGradNorm_(params []torch.Tensor, maxNorm float64, opts ...Option) torch.Tensor {
	return must(TryClipGradNorm_(params, maxNorm, opts...))
}

// TryClipGradNorm_ is ClipGradNorm_ that returns its error.
func TryClipGradNorm_(params []torch.Tensor, maxNorm float64, opts ...Option) (total torch.Tensor, err error) {
	set := readOptions("optim.ClipGradNorm_", opts, "norm_type", "error_if_nonfinite")
	if set.err != nil {
		return torch.Tensor{}, set.err
	}
	normType := set.float("norm_type", 2)
	errorIfNonfinite := set.bool("error_if_nonfinite", false)
	torch.NoGrad(func() {
		if e := catch(func() {
			var grads []torch.Tensor
			for _, p := range params {
				if g := p.Grad(); g.Defined() {
					grads = append(grads, g)
				}
			}
			defer func() {
				for _, g := range grads {
					g.Free()
				}
			}()
			if len(grads) == 0 {
				total = torch.ScalarTensor(torch.S(0.0), torch.WithDtype(torch.Float32))
				return
			}
			device := grads[0].Device()
			var tmp temps
			defer tmp.free()
			norms := make([]torch.Tensor, len(grads))
			if math.IsInf(normType, 1) {
				for i, g := range grads {
					norms[i] = tmp.add(tmp.add(tmp.add(g.Detach()).Abs()).Max().To(device))
				}
				if len(norms) == 1 {
					total = norms[0].Share()
				} else {
					total = torch.Stack(norms).Max()
				}
			} else {
				for i, g := range grads {
					d := tmp.add(g.Detach())
					all := make([]int64, d.Dim())
					for j := range all {
						all[j] = int64(j)
					}
					norms[i] = tmp.add(tmp.add(torch.NormScalarOptDim(d, all, torch.WithP(normType))).To(device))
				}
				st := tmp.add(torch.Stack(norms))
				total = torch.NormScalarOptDim(st, []int64{0}, torch.WithP(normType))
			}
			if errorIfNonfinite && tmp.add(tmp.add(total.Isnan()).LogicalOr(tmp.add(total.Isinf()))).ItemBool() {
				err = fmt.Errorf("optim.ClipGradNorm_: the total norm of order %v for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set WithErrorIfNonfinite(false)", normType)
				total.Free()
				total = torch.Tensor{}
				return
			}
			// clip_coef = max_norm / (total_norm + 1e-6), which Python
			// computes as reciprocal(total_norm + 1e-6) * max_norm.
			coef := tmp.add(tmp.add(tmp.add(total.AddScalar(torch.S(1e-6))).Reciprocal()).MulScalar(torch.S(maxNorm)))
			clamped := tmp.add(coef.Clamp(torch.WithMax(1.0)))
			for _, g := range grads {
				tmp.add(g.Detach()).Mul_(tmp.add(clamped.To(g.Device())))
			}
		}); e != nil {
			err = e
		}
	})
	return total, err
}

// ClipGradValue_ clamps the gradients of params in place to [-clipValue,
// clipValue], as PyTorch's torch.nn.utils.clip_grad_value_ does.
// Parameters without a gradient are skipped. It panics on failure;
// TryClipGradValue_ returns the error.
func ClipGradValue_(params []torch.Tensor, clipValue float64) {
	if err := TryClipGradValue_(params, clipValue); err != nil {
		panic(err)
	}
}

// TryClipGradValue_ is ClipGradValue_ that returns its error.
func TryClipGradValue_(params []torch.Tensor, clipValue float64) (err error) {
	torch.NoGrad(func() {
		err = catch(func() {
			for _, p := range params {
				g := p.Grad()
				if !g.Defined() {
					continue
				}
				g.Clamp_(torch.WithMin(-clipValue), torch.WithMax(clipValue))
				g.Free()
			}
		})
	})
	return err
}
