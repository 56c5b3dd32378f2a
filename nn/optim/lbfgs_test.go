package optim_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

type lbfgsConfig struct {
	Options map[string]any `json:"options"`
	DType   string         `json:"dtype"`
	Steps   []struct {
		Loss      float64              `json:"loss"`
		Params    map[string][]float64 `json:"params"`
		FuncEvals int                  `json:"func_evals"`
		NIter     int                  `json:"n_iter"`
		StateDict pyStateDict          `json:"state_dict"`
	} `json:"steps"`
	// ResumeStable says whether PyTorch's second step holds under a
	// last-bits change of its state (optim.py checks it); a chaotic one
	// cannot be matched to any tolerance.
	ResumeStable bool `json:"resume_stable"`
	// Step1Spread is how far PyTorch's own first step moves when the
	// starting parameters change in their last bits (optim.py's
	// lbfgs_step1_spread).
	Step1Spread float64 `json:"step1_spread"`
}

func lbfgsOptions(kw map[string]any) []optim.Option {
	var opts []optim.Option
	for k, x := range kw {
		if k == "line_search_fn" {
			opts = append(opts, optim.WithLineSearchFn(x.(string)))
			continue
		}
		v := x.(float64)
		switch k {
		case "lr":
			opts = append(opts, optim.WithLR(v))
		case "max_iter":
			opts = append(opts, optim.WithMaxIter(int(v)))
		case "max_eval":
			opts = append(opts, optim.WithMaxEval(int(v)))
		case "history_size":
			opts = append(opts, optim.WithHistorySize(int(v)))
		case "tolerance_change":
			opts = append(opts, optim.WithToleranceChange(v))
		case "tolerance_grad":
			opts = append(opts, optim.WithToleranceGrad(v))
		default:
			panic("unknown LBFGS option " + k)
		}
	}
	return opts
}

// LBFGS's trajectory against PyTorch's: each step runs many iterations,
// so the whole of a few steps is compared, at a tolerance that allows for
// rounding (the ops are PyTorch's, in its order).
// lbfgsTol is the tolerance of an LBFGS step: the one under which optim.py
// calls a step stable (PyTorch repeats it under a relative 1e-6 change of
// its search direction, lbfgs_resume_stable). An LBFGS step runs up to 20
// inner iterations (and line searches) whose rounding compounds: under CI's
// rerun on scalar ATen and Prescott OpenBLAS, step 1 of the strong Wolfe
// config moved by 2e-4 and the resumed step 2 of the default config by
// 3e-4 relative, beyond float32's golden tolerance.
var lbfgsTol = golden.Tolerance{Atol: 1e-4, Rtol: 1e-3}

func TestLBFGSMatchesPyTorch(t *testing.T) {
	r := loadReference(t)
	require.NotEmpty(t, r.LBFGS)
	for _, name := range sortedKeys(r.LBFGS) {
		c := r.LBFGS[name]
		t.Run(name, func(t *testing.T) {
			dt := dtypeOf(c.DType)
			p := newProblem(r, dt)
			o := optim.LBFGS(p.list(), lbfgsOptions(c.Options)...)
			closure := func() torch.Tensor {
				o.ZeroGrad()
				l := p.loss()
				l.Backward()
				return l
			}
			// One Step only: it already runs max_iter inner iterations,
			// and the steps after it amplify last-bit differences between
			// CPUs beyond any fixed tolerance (under CI's scalar ATen and
			// Prescott OpenBLAS, W was off by 2.5 at step 3, float64 too),
			// as docs/testing.md says of trajectories.
			// The 20 inner iterations of that step amplify rounding too:
			// float64 moved by 1e-11 under CI's rerun, 20 times float64's
			// tolerance; and on that path the strong Wolfe config's step 1
			// moved W by 2e-4 relative in float32. So LBFGS is compared at
			// lbfgsTol, or at twice PyTorch's own spread under last-bit
			// changes of the start where that is wider: libtorch 2.6's
			// rerun moved the strong Wolfe config's step 1 by 4.9e-4, and
			// PyTorch 1.13 itself moves it by 2.7e-3 when the start
			// changes by a few epsilons.
			require.Positive(t, c.Step1Spread, "optim.json lacks step1_spread: rerun optim.py")
			tol := lbfgsTol
			if s := 2 * c.Step1Spread; s > tol.Atol {
				tol.Atol = s
			}
			for i, want := range c.Steps[:1] {
				loss := o.Step(closure)
				tol.AllClose(t, []float64{want.Loss}, []float64{loss.Item()}, "loss of step %d", i+1)
				for _, n := range p.names {
					tol.AllClose(t, asDType(want.Params[n], dt), p.params[n].Float64s(), "%s after step %d", n, i+1)
				}
				assert.Equal(t, want.FuncEvals, o.FuncEvals(), "func_evals after step %d", i+1)
				assert.Equal(t, want.NIter, o.NIter(), "n_iter after step %d", i+1)
			}
		})
	}
}

// The second step of each configuration, taken from PyTorch's state dict
// and parameters after the first: loading PyTorch's LBFGS state gives
// PyTorch's next step. Where that step is chaotic (optim.py's
// resume_stable), only the loading is checked.
func TestLBFGSLoadPyTorchStateDict(t *testing.T) {
	r := loadReference(t)
	stable := 0
	for _, name := range sortedKeys(r.LBFGS) {
		c := r.LBFGS[name]
		if c.ResumeStable {
			stable++
		}
		t.Run(name, func(t *testing.T) {
			dt := dtypeOf(c.DType)
			p := newProblem(r, dt)
			torch.NoGrad(func() {
				for _, n := range p.names {
					p.params[n].Copy_(tensorOf(c.Steps[0].Params[n], dt, p.params[n].Shape()...))
				}
			})
			o := optim.LBFGS(p.list(), lbfgsOptions(c.Options)...)
			require.NoError(t, o.LoadStateDict(lbfgsPyState(t, c.Steps[0].StateDict)))
			assert.Equal(t, c.Steps[0].FuncEvals, o.FuncEvals())
			assert.Equal(t, c.Steps[0].NIter, o.NIter())
			if !c.ResumeStable {
				t.Logf("PyTorch's second step is chaotic here: only the load is compared")
				return
			}
			want := c.Steps[1]
			loss := o.Step(func() torch.Tensor {
				o.ZeroGrad()
				l := p.loss()
				l.Backward()
				return l
			})
			tol := lbfgsTol
			tol.AllClose(t, []float64{want.Loss}, []float64{loss.Item()}, "loss of step 2")
			for _, n := range p.names {
				tol.AllClose(t, asDType(want.Params[n], dt), p.params[n].Float64s(), "%s after step 2", n)
			}
			assert.Equal(t, want.FuncEvals, o.FuncEvals(), "func_evals after step 2")
			assert.Equal(t, want.NIter, o.NIter(), "n_iter after step 2")
		})
	}
	assert.GreaterOrEqual(t, stable, 5, "configurations whose second step can be compared")
}

// lbfgsPyState is pyState with LBFGS's lists of tensors.
func lbfgsPyState(t *testing.T, psd pyStateDict) optim.StateDict {
	sd := pyState(t, psd)
	for k, st := range psd.State {
		i, err := strconv.Atoi(k)
		require.NoError(t, err)
		for key, v := range st {
			if l, ok := v.([]any); ok {
				ts := make([]torch.Tensor, len(l))
				for j, e := range l {
					ts[j] = pyTensor(e.(map[string]any))
				}
				sd.State[i][key] = ts
			}
		}
	}
	return sd
}

// A Go state dict round-trips: a second optimizer loaded from the first's
// state takes the same next step, and the state dict has PyTorch's keys.
func TestLBFGSStateRoundTrip(t *testing.T) {
	r := loadReference(t)
	for _, ls := range []string{"", "strong_wolfe"} {
		t.Run("line_search="+ls, func(t *testing.T) {
			p1, p2 := newProblem(r, torch.Float64), newProblem(r, torch.Float64)
			opts := []optim.Option{optim.WithHistorySize(4), optim.WithMaxIter(5), optim.WithLineSearchFn(ls)}
			o1, o2 := optim.LBFGS(p1.list(), opts...), optim.LBFGS(p2.list())
			closure := func(o *optim.LBFGSOptimizer, p *problem) func() torch.Tensor {
				return func() torch.Tensor {
					o.ZeroGrad()
					l := p.loss()
					l.Backward()
					return l
				}
			}
			sd := o2.StateDict()
			assert.Empty(t, sd.State, "no state before the first step")
			o1.Step(closure(o1, p1))
			o1.Step(closure(o1, p1))
			sd = o1.StateDict()
			require.Contains(t, sd.State, 0)
			for _, k := range []string{"func_evals", "n_iter", "d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss"} {
				assert.Contains(t, sd.State[0], k)
			}
			assert.Equal(t, 4, sd.ParamGroups[0]["history_size"])
			torch.NoGrad(func() {
				for _, n := range p1.names {
					p2.params[n].Copy_(p1.params[n])
				}
			})
			require.NoError(t, o2.LoadStateDict(sd))
			assert.Equal(t, o1.String(), o2.String())
			l1, l2 := o1.Step(closure(o1, p1)), o2.Step(closure(o2, p2))
			assert.Equal(t, l1.Item(), l2.Item())
			for _, n := range p1.names {
				assert.Equal(t, p1.params[n].Float64s(), p2.params[n].Float64s(), n)
			}
			assert.Equal(t, o1.FuncEvals(), o2.FuncEvals())
			assert.Equal(t, o1.NIter(), o2.NIter())
		})
	}
}

func TestLBFGSLoadStateDictErrors(t *testing.T) {
	r := loadReference(t)
	p := newProblem(r, torch.Float32)
	o := optim.LBFGS(p.list())
	o.Step(func() torch.Tensor {
		o.ZeroGrad()
		l := p.loss()
		l.Backward()
		return l
	})
	good := o.StateDict()
	edit := func(f func(sd *optim.StateDict)) optim.StateDict {
		sd := optim.StateDict{State: map[int]map[string]any{0: {}}, ParamGroups: []map[string]any{{}}}
		for k, v := range good.State[0] {
			sd.State[0][k] = v
		}
		for k, v := range good.ParamGroups[0] {
			sd.ParamGroups[0][k] = v
		}
		f(&sd)
		return sd
	}
	before := o.String()
	for name, sd := range map[string]optim.StateDict{
		"two groups":    edit(func(sd *optim.StateDict) { sd.ParamGroups = append(sd.ParamGroups, sd.ParamGroups[0]) }),
		"params":        edit(func(sd *optim.StateDict) { sd.ParamGroups[0]["params"] = []int{0} }),
		"lr":            edit(func(sd *optim.StateDict) { sd.ParamGroups[0]["lr"] = "x" }),
		"negative lr":   edit(func(sd *optim.StateDict) { sd.ParamGroups[0]["lr"] = -1.0 }),
		"max_iter":      edit(func(sd *optim.StateDict) { sd.ParamGroups[0]["max_iter"] = 1.5 }),
		"line search":   edit(func(sd *optim.StateDict) { sd.ParamGroups[0]["line_search_fn"] = "backtracking" }),
		"unknown hyper": edit(func(sd *optim.StateDict) { sd.ParamGroups[0]["momentum"] = 0.9 }),
		"state index":   edit(func(sd *optim.StateDict) { sd.State[1] = sd.State[0] }),
		"unknown key":   edit(func(sd *optim.StateDict) { sd.State[0]["exp_avg"] = 1.0 }),
		"missing key":   edit(func(sd *optim.StateDict) { delete(sd.State[0], "ro") }),
		"d shape":       edit(func(sd *optim.StateDict) { sd.State[0]["d"] = torch.Zeros([]int64{3}) }),
		"d type":        edit(func(sd *optim.StateDict) { sd.State[0]["d"] = 1.0 }),
		"list":          edit(func(sd *optim.StateDict) { sd.State[0]["old_dirs"] = 3.0 }),
		"list lengths":  edit(func(sd *optim.StateDict) { sd.State[0]["ro"] = []torch.Tensor{} }),
		"func_evals":    edit(func(sd *optim.StateDict) { sd.State[0]["func_evals"] = -1 }),
		"t":             edit(func(sd *optim.StateDict) { sd.State[0]["t"] = "x" }),
		"undefined d":   edit(func(sd *optim.StateDict) { sd.State[0]["d"] = torch.Tensor{} }),
		"orphan t":      edit(func(sd *optim.StateDict) { delete(sd.State[0], "d") }),
	} {
		err := o.LoadStateDict(sd)
		assert.Error(t, err, name)
		if err != nil {
			assert.Contains(t, err.Error(), "optim.LBFGS: load state dict", name)
		}
	}
	assert.Equal(t, before, o.String(), "nothing changes on error")
}

func TestLBFGSErrors(t *testing.T) {
	a := param(2)
	for name, opts := range map[string][]optim.Option{
		"line search": {optim.WithLineSearchFn("backtracking")},
		"negative lr": {optim.WithLR(-1)},
		"max_iter":    {optim.WithMaxIter(0)},
		"history":     {optim.WithHistorySize(0)},
		"option":      {optim.WithMomentum(0.9)},
	} {
		_, err := optim.TryLBFGS([]torch.Tensor{a}, opts...)
		assert.Error(t, err, name)
	}
	_, err := optim.TryLBFGS(nil)
	assert.Error(t, err)
	_, err = optim.TryLBFGS([]torch.Tensor{a, a})
	assert.Error(t, err)

	o := optim.LBFGS([]torch.Tensor{a})
	_, err = o.TryStep(nil)
	assert.Error(t, err)
	// A closure that fails is an error, not a crash.
	_, err = o.TryStep(func() torch.Tensor { return torch.Tensor{}.Neg() })
	assert.Error(t, err)
	o.ParamGroups()[0].SetLR(-1)
	_, err = o.TryStep(func() torch.Tensor { return a.Sum() })
	assert.Error(t, err)
	assert.Contains(t, o.String(), "LBFGS (")
}
