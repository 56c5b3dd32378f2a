package optim

import (
	"errors"
	"fmt"
	"math"

	"github.com/gotorch/gotorch/torch"
)

// LBFGSOptimizer is L-BFGS (torch.optim.LBFGS). Its Step takes a closure
// that reevaluates the loss, so it is not an Optimizer.
type LBFGSOptimizer struct {
	group    *Group
	maxIter  int
	maxEval  int
	history  int
	tolGrad  float64
	tolDelta float64

	// State, as PyTorch keeps it in the first parameter's state.
	funcEvals, nIter int
	d, prevFlatGrad  torch.Tensor
	t                float64
	hasT             bool
	oldDirs, oldStps []torch.Tensor
	ro               []torch.Tensor
	hDiag            torch.Tensor // undefined: 1
	prevLoss         float64
	hasPrevLoss      bool
}

// LBFGS returns an L-BFGS optimizer of params, PyTorch's
// torch.optim.LBFGS: each Step runs up to max_iter iterations of the
// algorithm, calling the closure to reevaluate the loss. It panics on
// invalid options; TryLBFGS returns the error.
//
// Options: WithLR (1), WithMaxIter (20), WithMaxEval (max_iter·5/4),
// WithToleranceGrad (1e-7), WithToleranceChange (1e-9), WithHistorySize
// (100), WithLineSearchFn ("", PyTorch's None: the fixed step lr; or
// "strong_wolfe", PyTorch's line search for a step that satisfies the
// strong Wolfe conditions).
func LBFGS(params []torch.Tensor, opts ...Option) *LBFGSOptimizer {
	return must(TryLBFGS(params, opts...))
}

// TryLBFGS is LBFGS that returns its error.
func TryLBFGS(params []torch.Tensor, opts ...Option) (*LBFGSOptimizer, error) {
	const who = "optim.LBFGS"
	set := readOptions(who, opts, "lr", "max_iter", "max_eval", "tolerance_grad", "tolerance_change",
		"history_size", "line_search_fn")
	if set.err != nil {
		return nil, set.err
	}
	if len(params) == 0 {
		return nil, errors.New(who + ": optimizer got an empty parameter list")
	}
	seen := map[torch.Tensor]bool{}
	for i, p := range params {
		if !p.Defined() {
			return nil, fmt.Errorf("%s: parameter %d is an undefined or freed tensor", who, i)
		}
		if !p.IsLeaf() && !p.RetainsGrad() {
			return nil, fmt.Errorf("%s: parameter %d: can't optimize a non-leaf Tensor", who, i)
		}
		if seen[p] {
			return nil, fmt.Errorf("%s: parameter %d appears twice", who, i)
		}
		seen[p] = true
	}
	o := &LBFGSOptimizer{
		maxIter:  set.int("max_iter", 20),
		history:  set.int("history_size", 100),
		tolGrad:  set.float("tolerance_grad", 1e-7),
		tolDelta: set.float("tolerance_change", 1e-9),
	}
	o.maxEval = set.int("max_eval", o.maxIter*5/4)
	lr := set.float("lr", 1)
	ls := set.string("line_search_fn", "")
	switch {
	case ls != "" && ls != "strong_wolfe":
		return nil, fmt.Errorf("%s: only 'strong_wolfe' is supported as line_search_fn, got %q", who, ls)
	case !(lr >= 0):
		return nil, fmt.Errorf("%s: invalid learning rate: %v", who, lr)
	case o.maxIter < 1 || o.maxEval < 1 || o.history < 1:
		return nil, fmt.Errorf("%s: max_iter, max_eval and history_size must be positive, got %d, %d and %d", who, o.maxIter, o.maxEval, o.history)
	}
	var lsVal any
	if ls != "" {
		lsVal = ls
	}
	// PyTorch's default lr is the int 1, which its repr prints as 1.
	var lrVal any = lr
	if _, given := set.vals["lr"]; !given {
		lrVal = 1
	}
	o.group = &Group{Params: append([]torch.Tensor(nil), params...), hyper: map[string]any{
		"lr": lrVal, "max_iter": o.maxIter, "max_eval": o.maxEval, "tolerance_grad": o.tolGrad,
		"tolerance_change": o.tolDelta, "history_size": o.history, "line_search_fn": lsVal,
	}}
	return o, nil
}

// ParamGroups returns the one parameter group (L-BFGS has no per-group
// options); its "lr" may be changed between steps.
func (o *LBFGSOptimizer) ParamGroups() []*Group { return []*Group{o.group} }

// ZeroGrad drops the gradients of all parameters.
func (o *LBFGSOptimizer) ZeroGrad() {
	for _, p := range o.group.Params {
		p.ZeroGrad()
	}
}

// FuncEvals and NIter are PyTorch's state['func_evals'] and
// state['n_iter']: the closure calls and iterations so far.
func (o *LBFGSOptimizer) FuncEvals() int { return o.funcEvals }

// NIter is the number of iterations so far (state['n_iter']).
func (o *LBFGSOptimizer) NIter() int { return o.nIter }

// Step runs one L-BFGS step and returns the loss the closure gave first.
// The closure must clear the gradients, compute the loss, call Backward
// and return the loss; it runs with gradient recording on. Step panics on
// failure; TryStep returns the error.
func (o *LBFGSOptimizer) Step(closure func() torch.Tensor) torch.Tensor {
	return must(o.TryStep(closure))
}

// TryStep is Step that returns its error.
func (o *LBFGSOptimizer) TryStep(closure func() torch.Tensor) (loss torch.Tensor, err error) {
	if closure == nil {
		return torch.Tensor{}, errors.New("optim.LBFGS: nil closure")
	}
	lr, ok := o.group.Float("lr")
	if !ok || !(lr >= 0) {
		return torch.Tensor{}, fmt.Errorf("optim.LBFGS: invalid learning rate: %v", o.group.hyper["lr"])
	}
	err = catch(func() { loss = o.step(closure, lr) })
	if err != nil {
		return torch.Tensor{}, fmt.Errorf("optim.LBFGS: %w", err)
	}
	return loss, nil
}

func (o *LBFGSOptimizer) numel() int64 {
	var n int64
	for _, p := range o.group.Params {
		n += p.Numel()
	}
	return n
}

// flatGrad is _gather_flat_grad: the gradients in one vector, zeros for
// parameters without one.
func (o *LBFGSOptimizer) flatGrad() torch.Tensor {
	views := make([]torch.Tensor, len(o.group.Params))
	for i, p := range o.group.Params {
		g := p.Grad()
		if !g.Defined() {
			views[i] = torch.Zeros([]int64{p.Numel()}, torch.WithDtype(p.DType()), torch.WithDevice(p.Device()))
		} else {
			views[i] = g.View([]int64{-1})
		}
	}
	return torch.Cat(views)
}

// addGrad is _add_grad: p += step·update, piece by piece.
func (o *LBFGSOptimizer) addGrad(step float64, update torch.Tensor) {
	torch.NoGrad(func() {
		var off int64
		for _, p := range o.group.Params {
			n := p.Numel()
			p.Add_(update.Narrow(0, off, n).ViewAs(p), torch.WithAlpha(step))
			off += n
		}
	})
}

func absMax(t torch.Tensor) float64 { return t.Abs().Max().Item() }

// lineSearch is the group's line_search_fn: "" (None) or "strong_wolfe".
func (o *LBFGSOptimizer) lineSearch() string {
	s, _ := o.group.hyper["line_search_fn"].(string)
	return s
}

// cloneParams is _clone_param: a copy of every parameter.
func (o *LBFGSOptimizer) cloneParams() []torch.Tensor {
	x := make([]torch.Tensor, len(o.group.Params))
	torch.NoGrad(func() {
		for i, p := range o.group.Params {
			x[i] = p.Clone(torch.WithMemoryFormat(torch.ContiguousFormat))
		}
	})
	return x
}

// directionalEvaluate is _directional_evaluate: the loss and flat
// gradient at params + t·d, the parameters restored to x afterwards.
func (o *LBFGSOptimizer) directionalEvaluate(closure func() torch.Tensor, x []torch.Tensor, t float64, d torch.Tensor) (float64, torch.Tensor) {
	o.addGrad(t, d)
	loss := closure().Item()
	var g torch.Tensor
	torch.NoGrad(func() {
		g = o.flatGrad()
		for i, p := range o.group.Params {
			p.Copy_(x[i])
		}
	})
	return loss, g
}

// step is PyTorch 1.13's LBFGS.step, op for op.
func (o *LBFGSOptimizer) step(closure func() torch.Tensor, lr float64) torch.Tensor {
	origLoss := closure()
	loss := origLoss.Item()
	currentEvals := 1
	o.funcEvals++
	var flatGrad torch.Tensor
	torch.NoGrad(func() { flatGrad = o.flatGrad() })
	if absMax(flatGrad) <= o.tolGrad {
		return origLoss
	}
	d, t := o.d, o.t
	prevFlatGrad, prevLoss := o.prevFlatGrad, o.prevLoss
	nIter := 0
	for nIter < o.maxIter {
		nIter++
		o.nIter++
		torch.NoGrad(func() {
			if o.nIter == 1 {
				d = flatGrad.Neg()
				o.oldDirs, o.oldStps, o.ro = nil, nil, nil
				o.hDiag = torch.Tensor{}
			} else {
				y := flatGrad.Sub(prevFlatGrad)
				s := d.MulScalar(torch.S(t))
				ys := y.Dot(s)
				if ys.Item() > 1e-10 {
					if len(o.oldDirs) == o.history {
						o.oldDirs, o.oldStps, o.ro = o.oldDirs[1:], o.oldStps[1:], o.ro[1:]
					}
					o.oldDirs = append(o.oldDirs, y)
					o.oldStps = append(o.oldStps, s)
					o.ro = append(o.ro, ys.Reciprocal())
					o.hDiag = ys.Div(y.Dot(y))
				}
				num := len(o.oldDirs)
				al := make([]torch.Tensor, num)
				q := flatGrad.Neg()
				for i := num - 1; i >= 0; i-- {
					al[i] = o.oldStps[i].Dot(q).Mul(o.ro[i])
					q.Add_(o.oldDirs[i], torch.WithAlpha(-al[i].Item()))
				}
				var r torch.Tensor
				if o.hDiag.Defined() {
					r = q.Mul(o.hDiag)
				} else {
					r = q.MulScalar(torch.S(1))
				}
				d = r
				for i := 0; i < num; i++ {
					be := o.oldDirs[i].Dot(r).Mul(o.ro[i])
					r.Add_(o.oldStps[i], torch.WithAlpha(al[i].Sub(be).Item()))
				}
			}
			if !prevFlatGrad.Defined() {
				prevFlatGrad = flatGrad.Clone(torch.WithMemoryFormat(torch.ContiguousFormat))
			} else {
				prevFlatGrad.Copy_(flatGrad)
			}
		})
		prevLoss = loss
		if o.nIter == 1 {
			// min(1., 1./|g|₁)·lr: a tensor product when 1/|g|₁ < 1.
			inv := flatGrad.Abs().Sum().Reciprocal()
			if inv.Item() < 1 {
				t = inv.MulScalar(torch.S(lr)).Item()
			} else {
				t = lr
			}
		} else {
			t = lr
		}
		o.hasT = true
		gtd := flatGrad.Dot(d).Item()
		if gtd > -o.tolDelta {
			break
		}
		lsEvals := 0
		optCond := false
		if o.lineSearch() == "strong_wolfe" {
			x := o.cloneParams()
			obj := func(t float64, d torch.Tensor) (float64, torch.Tensor) {
				return o.directionalEvaluate(closure, x, t, d)
			}
			loss, flatGrad, t, lsEvals = strongWolfe(obj, t, d, loss, flatGrad, gtd, o.tolDelta)
			o.addGrad(t, d)
			optCond = absMax(flatGrad) <= o.tolGrad
		} else {
			o.addGrad(t, d)
		}
		if o.lineSearch() == "" && nIter != o.maxIter {
			loss = closure().Item()
			torch.NoGrad(func() { flatGrad = o.flatGrad() })
			optCond = absMax(flatGrad) <= o.tolGrad
			lsEvals = 1
		}
		currentEvals += lsEvals
		o.funcEvals += lsEvals
		if nIter == o.maxIter || currentEvals >= o.maxEval || optCond {
			break
		}
		if absMax(d.MulScalar(torch.S(t))) <= o.tolDelta {
			break
		}
		if math.Abs(loss-prevLoss) < o.tolDelta {
			break
		}
	}
	o.d, o.t = d, t
	o.prevFlatGrad, o.prevLoss = prevFlatGrad, prevLoss
	o.hasPrevLoss = true
	// The state outlives the caller's torch.Scoped, as PyTorch's does.
	for _, t := range append(append(append([]torch.Tensor{o.d, o.prevFlatGrad, o.hDiag}, o.oldDirs...), o.oldStps...), o.ro...) {
		torch.Keep(t)
	}
	return origLoss
}

// String prints the optimizer the way PyTorch does.
func (o *LBFGSOptimizer) String() string {
	return (&optimizer{algo: &algorithm{name: "LBFGS"}, groups: []*Group{o.group}}).String()
}
