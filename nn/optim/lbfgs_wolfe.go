package optim

import (
	"math"

	"github.com/gotorch/gotorch/torch"
)

// cubicInterpolate is PyTorch's _cubic_interpolate: the minimizer of the
// cubic through (x1, f1) and (x2, f2) with slopes g1 and g2, clamped to
// [lo, hi] (the two points when bounded is false), or the middle of the
// interval when the cubic has no minimum.
func cubicInterpolate(x1, f1, g1, x2, f2, g2 float64, bounded bool, lo, hi float64) float64 {
	if !bounded {
		if x1 <= x2 {
			lo, hi = x1, x2
		} else {
			lo, hi = x2, x1
		}
	}
	d1 := g1 + g2 - 3*(f1-f2)/(x1-x2)
	d2sq := d1*d1 - g1*g2
	if !(d2sq >= 0) {
		return (lo + hi) / 2
	}
	d2 := math.Sqrt(d2sq)
	var minPos float64
	if x1 <= x2 {
		minPos = x2 - (x2-x1)*((g2+d2-d1)/(g2-g1+2*d2))
	} else {
		minPos = x1 - (x1-x2)*((g1+d2-d1)/(g1-g2+2*d2))
	}
	// min(max(min_pos, lo), hi), with Python's min and max: NaN compares
	// false, so a NaN min_pos is kept.
	if lo > minPos {
		minPos = lo
	}
	if hi < minPos {
		minPos = hi
	}
	return minPos
}

// strongWolfe is PyTorch's _strong_wolfe (ported there from torch/optim's
// lswolfe.lua) with c1 = 1e-4, c2 = 0.9 and max_ls = 25: starting at step
// t along d from a point of loss f, gradient g and directional derivative
// gtd, it brackets a step that satisfies the strong Wolfe conditions and
// zooms in on it. obj evaluates the loss and flat gradient at step t; it
// returns the loss, gradient and step it settled on and the evaluations.
func strongWolfe(obj func(t float64, d torch.Tensor) (float64, torch.Tensor), t float64, d torch.Tensor,
	f float64, g torch.Tensor, gtd float64, tolChange float64) (float64, torch.Tensor, float64, int) {
	const c1, c2, maxLS = 1e-4, 0.9, 25
	var dNorm float64
	torch.NoGrad(func() {
		dNorm = absMax(d)
		g = g.Clone(torch.WithMemoryFormat(torch.ContiguousFormat))
	})
	dot := func(a torch.Tensor) (v float64) {
		torch.NoGrad(func() { v = a.Dot(d).Item() })
		return v
	}
	clone := func(a torch.Tensor) (c torch.Tensor) {
		torch.NoGrad(func() { c = a.Clone(torch.WithMemoryFormat(torch.ContiguousFormat)) })
		return c
	}
	fNew, gNew := obj(t, d)
	evals := 1
	gtdNew := dot(gNew)

	// Bracket an interval that holds a point satisfying the conditions.
	tPrev, fPrev, gPrev, gtdPrev := 0.0, f, g, gtd
	done := false
	lsIter := 0
	var bracket, bracketF, bracketGtd []float64
	var bracketG []torch.Tensor
	for lsIter < maxLS {
		if fNew > f+c1*t*gtd || (lsIter > 1 && fNew >= fPrev) {
			bracket, bracketF = []float64{tPrev, t}, []float64{fPrev, fNew}
			bracketG, bracketGtd = []torch.Tensor{gPrev, clone(gNew)}, []float64{gtdPrev, gtdNew}
			break
		}
		if math.Abs(gtdNew) <= -c2*gtd {
			bracket, bracketF, bracketG = []float64{t}, []float64{fNew}, []torch.Tensor{gNew}
			done = true
			break
		}
		if gtdNew >= 0 {
			bracket, bracketF = []float64{tPrev, t}, []float64{fPrev, fNew}
			bracketG, bracketGtd = []torch.Tensor{gPrev, clone(gNew)}, []float64{gtdPrev, gtdNew}
			break
		}
		// Interpolate.
		minStep := t + 0.01*(t-tPrev)
		maxStep := t * 10
		tmp := t
		t = cubicInterpolate(tPrev, fPrev, gtdPrev, t, fNew, gtdNew, true, minStep, maxStep)
		tPrev, fPrev, gPrev, gtdPrev = tmp, fNew, clone(gNew), gtdNew
		fNew, gNew = obj(t, d)
		evals++
		gtdNew = dot(gNew)
		lsIter++
	}
	if lsIter == maxLS {
		bracket, bracketF, bracketG = []float64{0, t}, []float64{f, fNew}, []torch.Tensor{g, gNew}
	}

	// Zoom: refine the bracket until a point satisfies the conditions.
	insufProgress := false
	low, high := 0, 1
	if !(bracketF[0] <= bracketF[len(bracketF)-1]) {
		low, high = 1, 0
	}
	for !done && lsIter < maxLS {
		if math.Abs(bracket[1]-bracket[0])*dNorm < tolChange {
			break
		}
		t = cubicInterpolate(bracket[0], bracketF[0], bracketGtd[0], bracket[1], bracketF[1], bracketGtd[1], false, 0, 0)
		// Too close to an end of the bracket: move t 0.1 of its length
		// away from it when progress was already insufficient or t is
		// outside.
		bmax, bmin := math.Max(bracket[0], bracket[1]), math.Min(bracket[0], bracket[1])
		eps := 0.1 * (bmax - bmin)
		if math.Min(bmax-t, t-bmin) < eps {
			if insufProgress || t >= bmax || t <= bmin {
				if math.Abs(t-bmax) < math.Abs(t-bmin) {
					t = bmax - eps
				} else {
					t = bmin + eps
				}
				insufProgress = false
			} else {
				insufProgress = true
			}
		} else {
			insufProgress = false
		}
		fNew, gNew = obj(t, d)
		evals++
		gtdNew = dot(gNew)
		lsIter++
		if fNew > f+c1*t*gtd || fNew >= bracketF[low] {
			// Armijo's condition fails, or no lower than the low end.
			bracket[high], bracketF[high], bracketG[high], bracketGtd[high] = t, fNew, clone(gNew), gtdNew
			low, high = 0, 1
			if !(bracketF[0] <= bracketF[1]) {
				low, high = 1, 0
			}
		} else {
			if math.Abs(gtdNew) <= -c2*gtd {
				done = true
			} else if gtdNew*(bracket[high]-bracket[low]) >= 0 {
				// The old high end becomes the new low one.
				bracket[high], bracketF[high], bracketG[high], bracketGtd[high] = bracket[low], bracketF[low], bracketG[low], bracketGtd[low]
			}
			bracket[low], bracketF[low], bracketG[low], bracketGtd[low] = t, fNew, clone(gNew), gtdNew
		}
	}
	return bracketF[low], bracketG[low], bracket[low], evals
}
