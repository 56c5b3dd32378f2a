package optim

import (
	"fmt"
	"math"
	"sort"

	"github.com/gotorch/gotorch/torch"
)

// lbfgsStateKeys are the keys of PyTorch's LBFGS state; "al" is scratch
// space PyTorch keeps there too, accepted and ignored on load.
var lbfgsStateKeys = map[string]bool{
	"func_evals": true, "n_iter": true, "d": true, "t": true, "old_dirs": true, "old_stps": true,
	"ro": true, "H_diag": true, "prev_flat_grad": true, "prev_loss": true, "al": true,
}

// StateDict returns the optimizer's state laid out as PyTorch's
// LBFGS.state_dict(): one param group with lr, max_iter, max_eval,
// tolerance_grad, tolerance_change, history_size and line_search_fn (nil
// for None), and the state under the first parameter's index 0:
// "func_evals" and "n_iter" (int), "t" and "prev_loss" (float64), "d" and
// "prev_flat_grad" (tensors of all parameters' size), "old_dirs",
// "old_stps" and "ro" ([]torch.Tensor) and "H_diag" (a 0-dim tensor, or
// float64 1 before the first curvature update), as PyTorch keeps them.
// PyTorch's scratch list "al" is left out. As for the other optimizers,
// the tensors are the optimizer's own: save them before the next Step.
func (o *LBFGSOptimizer) StateDict() StateDict {
	g := map[string]any{}
	for k, v := range o.group.hyper {
		g[k] = cloneValue(v)
	}
	g["params"] = seq(len(o.group.Params))
	sd := StateDict{State: map[int]map[string]any{}, ParamGroups: []map[string]any{g}}
	if o.funcEvals == 0 && o.nIter == 0 {
		return sd
	}
	st := map[string]any{"func_evals": o.funcEvals, "n_iter": o.nIter}
	if o.hasPrevLoss {
		st["d"], st["t"], st["prev_flat_grad"], st["prev_loss"] = o.d, o.t, o.prevFlatGrad, o.prevLoss
		st["old_dirs"] = append([]torch.Tensor{}, o.oldDirs...)
		st["old_stps"] = append([]torch.Tensor{}, o.oldStps...)
		st["ro"] = append([]torch.Tensor{}, o.ro...)
		if o.hDiag.Defined() {
			st["H_diag"] = o.hDiag
		} else {
			st["H_diag"] = 1.0
		}
	}
	sd.State[0] = st
	return sd
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// LoadStateDict checks sd against the optimizer (one group with as many
// parameters, valid settings, known state keys, tensors of the right
// size) and, if all is well, replaces the settings and state with copies
// of sd's, converted to the first parameter's dtype and device. A state
// dict of PyTorch's LBFGS loads too: numbers may come as any Go number,
// "t" and "H_diag" as 0-dim tensors, lists as []any. Nothing changes on
// error.
func (o *LBFGSOptimizer) LoadStateDict(sd StateDict) (err error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("optim.LBFGS: load state dict: "+format, args...)
	}
	if len(sd.ParamGroups) != 1 {
		return fail("LBFGS has one parameter group, the state dict has %d", len(sd.ParamGroups))
	}
	saved := sd.ParamGroups[0]
	ids, err := toInts(saved["params"])
	if err != nil {
		return fail("params: %v", err)
	}
	if len(ids) != len(o.group.Params) {
		return fail("loaded state dict contains a parameter group that doesn't match the size of optimizer's group (%d parameters saved, %d in the optimizer)", len(ids), len(o.group.Params))
	}
	h := map[string]any{}
	var opts []Option
	for _, k := range []string{"lr", "tolerance_grad", "tolerance_change"} {
		f, ok := toFloat(saved[k])
		if !ok {
			return fail("%s must be a number, got %T", k, saved[k])
		}
		h[k] = f
	}
	for _, k := range []string{"max_iter", "max_eval", "history_size"} {
		f, ok := toFloat(saved[k])
		if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<40 {
			return fail("%s must be an integer, got %v", k, saved[k])
		}
		h[k] = int(f)
		opts = append(opts, Option{k, int(f)})
	}
	switch ls := saved["line_search_fn"].(type) {
	case nil:
		h["line_search_fn"] = nil
	case string:
		if ls != "strong_wolfe" {
			return fail("line_search_fn must be None or 'strong_wolfe', got %q", ls)
		}
		h["line_search_fn"] = ls
		opts = append(opts, WithLineSearchFn(ls))
	default:
		return fail("line_search_fn must be None or a string, got %T", ls)
	}
	for k := range saved {
		if _, ok := h[k]; !ok && k != "params" {
			return fail("unknown hyper-parameter %q", k)
		}
	}
	opts = append(opts, WithLR(h["lr"].(float64)), WithToleranceGrad(h["tolerance_grad"].(float64)),
		WithToleranceChange(h["tolerance_change"].(float64)))
	fresh, err := TryLBFGS(o.group.Params, opts...)
	if err != nil {
		return fail("%v", err)
	}
	if lr, ok := saved["lr"].(int); ok {
		fresh.group.hyper["lr"] = lr // an int, as PyTorch's default 1: its repr stays 1
	}
	for id := range sd.State {
		if id != ids[0] {
			return fail("LBFGS keeps its state under its first parameter (%d), the state dict has state for %d", ids[0], id)
		}
	}
	if st, ok := sd.State[ids[0]]; ok {
		if err := fresh.loadState(st); err != nil {
			return fail("state: %v", err)
		}
	}
	*o = *fresh
	return nil
}

// loadState fills a fresh optimizer's state from st.
func (o *LBFGSOptimizer) loadState(st map[string]any) (err error) {
	keys := make([]string, 0, len(st))
	for k := range st {
		if !lbfgsStateKeys[k] {
			return fmt.Errorf("unknown state key %q", k)
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	count := func(k string) (int, error) {
		f, ok := toFloat(st[k])
		if !ok || f != math.Trunc(f) || f < 0 || f > 1<<40 {
			return 0, fmt.Errorf("%s must be a non-negative integer, got %v", k, st[k])
		}
		return int(f), nil
	}
	if o.funcEvals, err = count("func_evals"); err != nil {
		return err
	}
	if o.nIter, err = count("n_iter"); err != nil {
		return err
	}
	if _, ok := st["d"]; !ok {
		// The first Step returned before any iteration.
		for _, k := range keys {
			if k != "func_evals" && k != "n_iter" && k != "al" {
				return fmt.Errorf("%s without d", k)
			}
		}
		return nil
	}
	for _, k := range []string{"d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss"} {
		if _, ok := st[k]; !ok {
			return fmt.Errorf("no %s", k)
		}
	}
	p0 := o.group.Params[0]
	n := o.numel()
	return catch(func() {
		torch.NoGrad(func() {
			vec := func(k string, v any) torch.Tensor {
				t, ok := v.(torch.Tensor)
				if !ok || !t.Defined() {
					panic(fmt.Errorf("%s must be a defined tensor, got %T", k, v))
				}
				if t.Dim() != 1 || t.Size(0) != n {
					panic(fmt.Errorf("%s has shape %v, want [%d] (the parameters' total size)", k, t.Shape(), n))
				}
				c := torch.EmptyLike(t, torch.WithDtype(p0.DType()), torch.WithDevice(p0.Device()))
				c.Copy_(t)
				return torch.Keep(c)
			}
			scalar := func(k string, v any) float64 {
				if t, ok := v.(torch.Tensor); ok && t.Defined() && t.Numel() == 1 {
					return t.Item()
				}
				f, ok := toFloat(v)
				if !ok {
					panic(fmt.Errorf("%s must be a number, got %T", k, v))
				}
				return f
			}
			list := func(k string, each func(i int, t any) torch.Tensor) []torch.Tensor {
				var items []any
				switch x := st[k].(type) {
				case []torch.Tensor:
					for _, t := range x {
						items = append(items, t)
					}
				case []any:
					items = x
				default:
					panic(fmt.Errorf("%s must be a list of tensors, got %T", k, st[k]))
				}
				out := make([]torch.Tensor, len(items))
				for i, t := range items {
					out[i] = each(i, t)
				}
				return out
			}
			o.d, o.prevFlatGrad = vec("d", st["d"]), vec("prev_flat_grad", st["prev_flat_grad"])
			o.t, o.prevLoss, o.hasT, o.hasPrevLoss = scalar("t", st["t"]), scalar("prev_loss", st["prev_loss"]), true, true
			o.oldDirs = list("old_dirs", func(i int, t any) torch.Tensor { return vec(fmt.Sprintf("old_dirs[%d]", i), t) })
			o.oldStps = list("old_stps", func(i int, t any) torch.Tensor { return vec(fmt.Sprintf("old_stps[%d]", i), t) })
			num := func(v float64) torch.Tensor {
				return torch.Keep(torch.ScalarTensor(torch.S(v), torch.WithDtype(p0.DType()), torch.WithDevice(p0.Device())))
			}
			o.ro = list("ro", func(i int, t any) torch.Tensor { return num(scalar(fmt.Sprintf("ro[%d]", i), t)) })
			if len(o.oldDirs) != len(o.oldStps) || len(o.oldDirs) != len(o.ro) {
				panic(fmt.Errorf("old_dirs, old_stps and ro have %d, %d and %d entries, want as many", len(o.oldDirs), len(o.oldStps), len(o.ro)))
			}
			if len(o.oldDirs) > o.history {
				panic(fmt.Errorf("%d history entries, more than history_size %d", len(o.oldDirs), o.history))
			}
			if t, ok := st["H_diag"].(torch.Tensor); ok {
				o.hDiag = num(scalar("H_diag", t))
			} else if h := scalar("H_diag", st["H_diag"]); h != 1 {
				o.hDiag = num(h)
			}
		})
	})
}
