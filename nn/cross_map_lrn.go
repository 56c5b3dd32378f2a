package nn

import (
	"math"

	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// CrossMapLRN2dModule is PyTorch's legacy cross-channel response
// normalization of (N, C, H, W) input (torch.nn.CrossMapLRN2d):
//
//	out = x · (K + Alpha/Size · Σ x²)^-Beta
//
// the sum running over a window of channels. It computes what PyTorch's
// autograd.Function (torch/nn/modules/_functions.py) computes, which is
// not LocalResponseNorm:
//
//   - the forward pass: with pre = (Size-1)/2 + 1, the window of channel c
//     is c-pre+1 … c+pre-1, that is Size channels for an odd Size and
//     Size-1 for an even one, and, as PyTorch's running sum never takes it
//     out again, channel 0 stays in the sum of every channel c ≥ pre;
//   - the backward pass: PyTorch's hand-written backward, not the gradient
//     of that forward. With the saved scale s = K + Alpha/Size · Σ x² and
//     output y, the gradient of channel c is
//     g_c·s_c^-Beta − 2·Alpha·Beta/Size · x_c · Σ_j g_j·y_j/s_j, j running
//     over c-ipp … c+Size-1-ipp with ipp = (Size+1)/2: a window shifted by
//     one channel from the forward's for an odd Size, and without channel
//     0's term. This layer gives that gradient (so a model trained with
//     PyTorch's trains the same here): its output is x·s^-Beta, with s
//     held constant, plus a term whose value is exactly zero and whose
//     gradient is the second one above. Like PyTorch's, the gradient is
//     not differentiable again (no double backward through s). PyTorch's
//     backward fails for Size 1, so TryForward returns an error for Size
//     1 when it records gradients.
type CrossMapLRN2dModule struct {
	Module
	Size           int64
	Alpha, Beta, K float64
}

// CrossMapLRN2d returns a CrossMapLRN2dModule over windows of size
// channels.
//
// Options: WithAlpha (1e-4), WithBeta (0.75), WithK (1).
func CrossMapLRN2d(size int64, opts ...Option) *CrossMapLRN2dModule {
	a := mustParseArgs("CrossMapLRN2d", opts, "alpha", "beta", "k")
	if size < 1 {
		layerPanic("CrossMapLRN2d", "size must be positive, got %d", size)
	}
	m := &CrossMapLRN2dModule{Size: size, Alpha: a.float("alpha", 1e-4), Beta: a.float("beta", 0.75), K: a.float("k", 1)}
	m.Init(m)
	return m
}

// Forward normalizes x, (N, C, H, W).
func (m *CrossMapLRN2dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *CrossMapLRN2dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	if !x.Defined() {
		return torch.Tensor{}, layerError("CrossMapLRN2d", "input is an undefined tensor (the zero Tensor{})")
	}
	if d := x.Dim(); d != 4 {
		return torch.Tensor{}, layerError("CrossMapLRN2d", "expected a 4D input (N, C, H, W), got %dD %v", d, x.Shape())
	}
	if !x.DType().IsFloatingPoint() {
		return torch.Tensor{}, layerError("CrossMapLRN2d", "expected a floating-point input, got %s", x.DType())
	}
	grad := x.RequiresGrad() && torch.IsGradEnabled()
	if grad && m.Size == 1 {
		return torch.Tensor{}, layerError("CrossMapLRN2d", "size 1 has no gradient in PyTorch, whose backward fails (its buffer "+
			"of C+size-1 channels is one short): run it without gradients (torch.NoGrad) or use LocalResponseNorm")
	}
	c := x.Shape()[1]
	return temps.Run([]torch.Tensor{x}, func(tmp *temps.List) torch.Tensor {
		t := tmp.Add
		// mix(v, w) sums v over channels by the 0/1 matrix w: out[…, j] =
		// Σ_c v[…, c]·w[c][j], computed with channels last.
		mix := func(v torch.Tensor, w []float64) torch.Tensor {
			wt := t(t(torch.FromSlice(w, c, c)).To(x.DType(), x.Device()))
			last := t(v.Permute([]int64{0, 2, 3, 1}))
			return t(t(last.Matmul(wt)).Permute([]int64{0, 3, 1, 2}))
		}
		x0 := t(x.Detach())
		sum := mix(t(x0.PowTensorScalar(torch.S(2))), crossMapForwardWindow(c, m.Size))
		scale := t(t(sum.MulScalar(torch.S(m.Alpha / float64(m.Size)))).AddScalar(torch.S(m.K)))
		out := x.Mul(t(scale.PowTensorScalar(torch.S(-m.Beta))))
		if !grad {
			return out
		}
		t(out)
		// The second term of the gradient: l's gradient with respect to x
		// is −2·Alpha·Beta/Size · x_c · Σ_j g_j·y_j/s_j, and l − l.detach()
		// is exactly zero.
		coef := t(t(t(out.Detach()).Div(scale)).MulScalar(torch.S(-2 * m.Alpha * m.Beta / float64(m.Size))))
		l := t(coef.Mul(mix(t(x.Mul(x0)), crossMapBackwardWindow(c, m.Size))))
		return out.Add(t(l.Sub(t(l.Detach()))))
	})
}

// crossMapForwardWindow is the (C, C) 0/1 matrix, row j for the channel
// summed and column c for the channel normalized, of the channels that
// PyTorch's running sum adds for each channel.
func crossMapForwardWindow(channels, size int64) []float64 {
	pre := (size-1)/2 + 1
	w := make([]float64, channels*channels)
	for c := range channels {
		for j := max(0, c-pre+1); j <= min(channels-1, c+pre-1); j++ {
			w[j*channels+c] = 1
		}
		if c >= pre {
			w[c] = 1 // channel 0, never subtracted
		}
	}
	return w
}

// crossMapBackwardWindow is the (C, C) 0/1 matrix, row c for the channel
// whose gradient is computed and column j for the channel whose ratio
// g_j·y_j/s_j it adds, of PyTorch's backward.
func crossMapBackwardWindow(channels, size int64) []float64 {
	ipp := (size + 1) / 2
	w := make([]float64, channels*channels)
	for c := range channels {
		for j := max(0, c-ipp); j <= min(channels-1, c+size-1-ipp); j++ {
			w[c*channels+j] = 1
		}
	}
	return w
}

// ExtraRepr is "3, alpha=0.0001, beta=0.75, k=1": an integral K prints as
// PyTorch prints its default, the int 1.
func (m *CrossMapLRN2dModule) ExtraRepr() string {
	k := pyFloat(m.K)
	if m.K == math.Trunc(m.K) && math.Abs(m.K) < 1e15 {
		k = itoa(int64(m.K))
	}
	return itoa(m.Size) + ", alpha=" + pyFloat(m.Alpha) + ", beta=" + pyFloat(m.Beta) + ", k=" + k
}
