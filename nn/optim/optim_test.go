package optim_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// run takes the steps from..to of a configuration, calling check after
// each.
func run(o optim.Optimizer, p *problem, negate bool, from, to int, check func(step int)) {
	for step := from; step <= to; step++ {
		o.ZeroGrad()
		p.backward(negate)
		o.Step()
		if check != nil {
			check(step)
		}
	}
}

// atCheckpoint builds configuration c's optimizer over parameters, gradients
// and optimizer state that are PyTorch's just before the step of cp, and
// takes that one step. Every step so starts where PyTorch's did and the
// comparison sees the rounding of one step, never of a trajectory, whose
// differences between CPUs compound (docs/testing.md). At step 1 the
// optimizer is fresh: its own initial state is under test.
func atCheckpoint(t *testing.T, r *reference, c *optConfig, cp *checkpoint) (*problem, optim.Optimizer) {
	t.Helper()
	dt := dtypeOf(c.DType)
	p := newProblem(r, dt)
	o := c.build(t, p)
	p.set(cp.Before.Params)
	if cp.Step > 1 {
		require.NoError(t, o.LoadStateDict(pyState(t, cp.Before.StateDict)))
	}
	p.setGrads(cp.Before.Grads)
	o.Step()
	return p, o
}

// TestOptimizersMatchPyTorch takes, for every configuration of optim.py,
// the steps it recorded (1, 2, 3, 10, 50, 100), each from PyTorch's state
// just before it, and compares the parameters after it with PyTorch's.
func TestOptimizersMatchPyTorch(t *testing.T) {
	r := loadReference(t)
	for _, name := range sortedKeys(r.Optimizers) {
		c := r.Optimizers[name]
		require.NotEmpty(t, c.Checkpoints, name)
		t.Run(name, func(t *testing.T) {
			dt := dtypeOf(c.DType)
			for i := range c.Checkpoints {
				cp := &c.Checkpoints[i]
				p, _ := atCheckpoint(t, r, c, cp)
				for _, n := range p.names {
					golden.AllClose(t, asDType(cp.After.Params[n], dt), p.params[n].Float64s(), dt, "%s after step %d", n, cp.Step)
				}
				// u never has a gradient: it stays put.
				assert.Equal(t, asDType(r.Data.Init.U, dt), p.params["u"].Float64s())
			}
		})
	}
}

// TestGradientsMatchPyTorch: the loss of optim.py, at PyTorch's parameters
// of each checkpoint, has PyTorch's gradients. (The optimizer tests set
// PyTorch's gradients; this checks that they are the loss's.)
func TestGradientsMatchPyTorch(t *testing.T) {
	r := loadReference(t)
	for _, name := range sortedKeys(r.Optimizers) {
		c := r.Optimizers[name]
		t.Run(name, func(t *testing.T) {
			dt := dtypeOf(c.DType)
			p := newProblem(r, dt)
			for _, cp := range c.Checkpoints {
				p.set(cp.Before.Params)
				for _, x := range p.params {
					x.ZeroGrad()
				}
				p.backward(c.Negate)
				require.ElementsMatch(t, []string{"W", "b", "v"}, sortedKeys(cp.Before.Grads))
				for _, n := range sortedKeys(cp.Before.Grads) {
					golden.AllClose(t, asDType(cp.Before.Grads[n], dt), p.params[n].Grad().Float64s(), dt, "grad of %s at step %d", n, cp.Step)
				}
				assert.False(t, p.params["u"].Grad().Defined(), "u has no gradient")
			}
		})
	}
}

// pyState turns optim.py's JSON state dict into a StateDict, as a
// checkpoint reader would.
func pyState(t *testing.T, psd pyStateDict) optim.StateDict {
	t.Helper()
	sd := optim.StateDict{State: map[int]map[string]any{}}
	for k, st := range psd.State {
		i, err := strconv.Atoi(k)
		require.NoError(t, err)
		m := map[string]any{}
		for key, v := range st {
			if tv, ok := v.(map[string]any); ok && tv["tensor"] == true {
				m[key] = pyTensor(tv)
			} else {
				m[key] = v
			}
		}
		sd.State[i] = m
	}
	for _, g := range psd.ParamGroups {
		m := map[string]any{}
		for k, v := range g {
			m[k] = v
		}
		sd.ParamGroups = append(sd.ParamGroups, m)
	}
	return sd
}

func pyTensor(tv map[string]any) torch.Tensor {
	var shape []int64
	for _, s := range tv["shape"].([]any) {
		shape = append(shape, int64(s.(float64)))
	}
	var data []float64
	for _, x := range tv["data"].([]any) {
		data = append(data, x.(float64))
	}
	if shape == nil {
		shape = []int64{}
	}
	return tensorOf(data, dtypeOf(tv["dtype"].(string)), shape...)
}

// requireStateDict compares a state dict with PyTorch's: the same
// parameter indices, state keys, hyper-parameter keys and values; state
// tensors within the tolerance of their dtype, or to the bit if exact.
func requireStateDict(t *testing.T, want pyStateDict, sd optim.StateDict, what string, exact bool) {
	t.Helper()
	require.Len(t, sd.State, len(want.State), "%s: parameters with state", what)
	for k, wst := range want.State {
		i, _ := strconv.Atoi(k)
		gst, ok := sd.State[i]
		require.True(t, ok, "%s: state of parameter %d", what, i)
		require.ElementsMatch(t, sortedKeys(wst), sortedKeys(gst), "%s: state keys of parameter %d", what, i)
		for key, wv := range wst {
			gv := gst[key]
			switch w := wv.(type) {
			case nil:
				assert.Nil(t, gv, "%s: %d.%s", what, i, key)
			case float64: // RMSprop's int step
				assert.Equal(t, int(w), gv, "%s: %d.%s", what, i, key)
			case map[string]any:
				gt, ok := gv.(torch.Tensor)
				require.True(t, ok, "%s: %d.%s is a %T", what, i, key, gv)
				wt := pyTensor(w)
				assert.Equal(t, wt.Shape(), gt.Shape(), "%s: %d.%s shape", what, i, key)
				assert.Equal(t, wt.DType(), gt.DType(), "%s: %d.%s dtype", what, i, key)
				if exact {
					assert.Equal(t, wt.Float64s(), gt.Float64s(), "%s: %d.%s", what, i, key)
				} else {
					golden.TensorClose(t, wt.Float64s(), gt, "%s: %d.%s", what, i, key)
				}
			default:
				t.Fatalf("unexpected reference value %T", wv)
			}
		}
	}

	require.Len(t, sd.ParamGroups, len(want.ParamGroups), what)
	for gi, wg := range want.ParamGroups {
		gg := sd.ParamGroups[gi]
		require.ElementsMatch(t, sortedKeys(wg), sortedKeys(gg), "%s: keys of group %d", what, gi)
		for k, wv := range wg {
			gv := gg[k]
			switch w := wv.(type) {
			case nil:
				assert.Nil(t, gv, "%s: group %d %s", what, gi, k)
			case bool:
				assert.Equal(t, w, gv, "%s: group %d %s", what, gi, k)
			case float64:
				// PyTorch's defaults are ints (weight_decay=0) or floats
				// (lr=1.0), kept as such for the repr; compare the value.
				switch g := gv.(type) {
				case int:
					assert.Equal(t, w, float64(g), "%s: group %d %s", what, gi, k)
				default:
					assert.Equal(t, w, gv, "%s: group %d %s", what, gi, k)
				}
			case []any:
				if k == "params" {
					var ids []int
					for _, x := range w {
						ids = append(ids, int(x.(float64)))
					}
					assert.Equal(t, ids, gv, "%s: group %d params", what, gi)
				} else {
					var fs []float64
					for _, x := range w {
						fs = append(fs, x.(float64))
					}
					got := gv
					if l, ok := gv.([]any); ok { // a loaded state dict keeps the values it was given
						var g []float64
						for _, x := range l {
							f, _ := x.(float64)
							g = append(g, f)
						}
						got = g
					}
					assert.Equal(t, fs, got, "%s: group %d %s", what, gi, k)
				}
			default:
				t.Fatalf("unexpected reference value %T", wv)
			}
		}
	}
}

// TestStateDictMatchesPyTorch compares the state dict after each recorded
// step, taken from PyTorch's state before it, with PyTorch's.
func TestStateDictMatchesPyTorch(t *testing.T) {
	r := loadReference(t)
	for _, name := range sortedKeys(r.Optimizers) {
		c := r.Optimizers[name]
		t.Run(name, func(t *testing.T) {
			for i := range c.Checkpoints {
				cp := &c.Checkpoints[i]
				_, o := atCheckpoint(t, r, c, cp)
				requireStateDict(t, cp.After.StateDict, o.StateDict(), fmt.Sprintf("after step %d", cp.Step), false)
			}
		})
	}
}

// TestLoadPyTorchStateDict loads PyTorch's state dict of each checkpoint
// and gives it back unchanged, to the bit: loading converts nothing.
func TestLoadPyTorchStateDict(t *testing.T) {
	r := loadReference(t)
	for _, name := range sortedKeys(r.Optimizers) {
		c := r.Optimizers[name]
		t.Run(name, func(t *testing.T) {
			for _, cp := range c.Checkpoints {
				p := newProblem(r, dtypeOf(c.DType))
				o := c.build(t, p)
				require.NoError(t, o.LoadStateDict(pyState(t, cp.After.StateDict)))
				requireStateDict(t, cp.After.StateDict, o.StateDict(), fmt.Sprintf("loaded after step %d", cp.Step), true)
			}
		})
	}
}

// TestStateRoundTrip: 50 steps, save, a new optimizer loads the state and
// takes 50 more: the same parameters, to the bit, as 100 straight steps.
func TestStateRoundTrip(t *testing.T) {
	r := loadReference(t)
	for _, name := range sortedKeys(r.Optimizers) {
		c := r.Optimizers[name]
		t.Run(name, func(t *testing.T) {
			dt := dtypeOf(c.DType)
			straight := newProblem(r, dt)
			run(c.build(t, straight), straight, c.Negate, 1, r.Steps, nil)

			first := newProblem(r, dt)
			o1 := c.build(t, first)
			run(o1, first, c.Negate, 1, r.SaveAt, nil)
			sd := o1.StateDict()

			second := newProblem(r, dt)
			second.set(first.values())
			o2 := c.build(t, second)
			require.NoError(t, o2.LoadStateDict(sd))
			// The loaded state is a copy: the first optimizer going on
			// does not disturb the second.
			run(o1, first, c.Negate, r.SaveAt+1, r.Steps, nil)
			run(o2, second, c.Negate, r.SaveAt+1, r.Steps, nil)
			for _, n := range straight.names {
				want := straight.params[n].Float64s()
				assert.Equal(t, want, second.params[n].Float64s(), "resumed %s", n)
				assert.Equal(t, want, first.params[n].Float64s(), "saved-from %s", n)
			}
		})
	}
}

// TestOptimizerErrorsMatchPyTorch: invalid options fail with PyTorch's
// ValueError messages.
func TestOptimizerErrorsMatchPyTorch(t *testing.T) {
	r := loadReference(t)
	for _, name := range sortedKeys(r.Errors) {
		c := r.Errors[name]
		t.Run(name, func(t *testing.T) {
			params := []torch.Tensor{torch.Zeros([]int64{2}).SetRequiresGrad(true)}
			if c.Empty {
				params = nil
			}
			o, err := newOptimizer(c.Optimizer, params, optionsOf(t, c.Options)...)
			require.Error(t, err)
			assert.Nil(t, o)
			assert.Contains(t, strings.ToLower(err.Error()), strings.ToLower(c.Message))
			assert.True(t, strings.HasPrefix(err.Error(), "optim."+c.Optimizer+": "), err.Error())
		})
	}
}

func param(n int64) torch.Tensor { return torch.Zeros([]int64{n}).SetRequiresGrad(true) }

func TestOptimizerErrors(t *testing.T) {
	a, b := param(2), param(3)
	tests := []struct {
		name string
		make func() (optim.Optimizer, error)
		want string
	}{
		{"sgd needs lr", func() (optim.Optimizer, error) { return nilIfErr(optim.TrySGD([]torch.Tensor{a})) },
			"optim.SGD: param group 0: parameter group didn't specify a value of required optimization parameter lr"},
		{"unexpected option", func() (optim.Optimizer, error) {
			return nilIfErr(optim.TrySGD([]torch.Tensor{a}, optim.WithLR(0.1), optim.WithBetas(0.9, 0.99)))
		}, "optim.SGD: unexpected option betas"},
		{"scheduler option", func() (optim.Optimizer, error) {
			return nilIfErr(optim.TryAdam([]torch.Tensor{a}, optim.WithGamma(0.1)))
		}, "optim.Adam: unexpected option gamma"},
		{"zero option", func() (optim.Optimizer, error) {
			return nilIfErr(optim.TryAdam([]torch.Tensor{a}, optim.Option{}))
		}, "optim.Adam: zero Option"},
		{"group lr", func() (optim.Optimizer, error) {
			return nilIfErr(optim.TrySGD([]optim.ParamGroup{{Params: []torch.Tensor{a}}, {Params: []torch.Tensor{b}, Options: []optim.Option{optim.WithLR(-1)}}}, optim.WithLR(0.1)))
		}, "optim.SGD: param group 1: invalid learning rate: -1"},
		{"group nesterov", func() (optim.Optimizer, error) {
			return nilIfErr(optim.TrySGD([]optim.ParamGroup{{Params: []torch.Tensor{a}, Options: []optim.Option{optim.WithNesterov(true)}}}, optim.WithLR(0.1)))
		}, "optim.SGD: param group 0: Nesterov momentum requires a momentum and zero dampening"},
		{"group option", func() (optim.Optimizer, error) {
			return nilIfErr(optim.TryRMSprop([]optim.ParamGroup{{Params: []torch.Tensor{a}, Options: []optim.Option{optim.WithAmsgrad(true)}}}))
		}, "optim.RMSprop: param group 0: unexpected option amsgrad"},
		{"group betas", func() (optim.Optimizer, error) {
			return nilIfErr(optim.TryAdamW([]optim.ParamGroup{{Params: []torch.Tensor{a}, Options: []optim.Option{optim.WithBetas(0.9, 1)}}}))
		}, "optim.AdamW: param group 0: invalid beta parameter at index 1: 1"},
		{"nan lr", func() (optim.Optimizer, error) {
			return nilIfErr(optim.TryAdagrad([]torch.Tensor{a}, optim.WithLR(math.NaN())))
		},
			"optim.Adagrad: invalid learning rate: NaN"},
		{"duplicate", func() (optim.Optimizer, error) { return nilIfErr(optim.TryAdam([]torch.Tensor{a, b, a})) },
			"optim.Adam: param group 0: parameter 2 appears twice in the group"},
		{"two groups", func() (optim.Optimizer, error) {
			return nilIfErr(optim.TryAdam([]optim.ParamGroup{{Params: []torch.Tensor{a}}, {Params: []torch.Tensor{b, a}}}))
		}, "optim.Adam: param group 1: some parameters appear in more than one parameter group"},
		{"non-leaf", func() (optim.Optimizer, error) {
			return nilIfErr(optim.TryAdam([]torch.Tensor{a.MulScalar(torch.S(2))}))
		}, "optim.Adam: param group 0: parameter 0: can't optimize a non-leaf Tensor"},
		{"undefined", func() (optim.Optimizer, error) { return nilIfErr(optim.TryAdam([]torch.Tensor{a, {}})) },
			"optim.Adam: param group 0: parameter 1 is an undefined or freed tensor"},
		{"empty", func() (optim.Optimizer, error) { return nilIfErr(optim.TryAdam([]optim.ParamGroup{})) },
			"optim.Adam: optimizer got an empty parameter list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := tt.make()
			require.EqualError(t, err, tt.want)
			assert.Nil(t, o)
		})
	}
	assert.PanicsWithError(t, "optim.SGD: invalid momentum value: -1", func() {
		optim.SGD([]torch.Tensor{a}, optim.WithLR(0.1), optim.WithMomentum(-1))
	})
}

func TestAddParamGroup(t *testing.T) {
	a, b, c := param(2), param(3), param(1)
	o := optim.Adagrad([]torch.Tensor{a}, optim.WithLR(0.5))
	require.NoError(t, o.AddParamGroup(optim.ParamGroup{Params: []torch.Tensor{b}, Options: []optim.Option{optim.WithLR(0.25)}}))
	assert.EqualError(t, o.AddParamGroup(optim.ParamGroup{Params: []torch.Tensor{c, a}}),
		"optim.Adagrad: param group 2: some parameters appear in more than one parameter group")
	assert.EqualError(t, o.AddParamGroup(optim.ParamGroup{Params: []torch.Tensor{c}, Options: []optim.Option{optim.WithLRDecay(-1)}}),
		"optim.Adagrad: param group 2: invalid lr_decay value: -1")
	groups := o.ParamGroups()
	require.Len(t, groups, 2)
	assert.Equal(t, 0.5, groups[0].LR())
	assert.Equal(t, 0.25, groups[1].LR())
	// Adagrad's state is made for every parameter, the added ones too.
	sd := o.StateDict()
	assert.Len(t, sd.State, 2)
	assert.Equal(t, []int{1}, sd.ParamGroups[1]["params"])
}

// TestParamGroupsAreLive: changing a group's hyper-parameters changes the
// next steps, and a bad value is an error of TryStep.
func TestParamGroupsAreLive(t *testing.T) {
	p := param(2)
	o := optim.SGD([]torch.Tensor{p}, optim.WithLR(0.5))
	step := func() error {
		o.ZeroGrad()
		p.Sum().Backward()
		return o.TryStep()
	}
	require.NoError(t, step())
	assert.Equal(t, []float32{-0.5, -0.5}, p.Float32s())
	g := o.ParamGroups()[0]
	g.SetLR(0.25)
	require.NoError(t, step())
	assert.Equal(t, []float32{-0.75, -0.75}, p.Float32s())
	g.Set("momentum", "much")
	assert.EqualError(t, step(), "optim.SGD: param group 0: momentum must be a number, got string")
	g.Set("momentum", 0)
	require.NoError(t, step())
	assert.Equal(t, []float32{-1, -1}, p.Float32s())

	// No gradients, no change.
	o.ZeroGrad()
	assert.False(t, p.Grad().Defined())
	o.Step()
	assert.Equal(t, []float32{-1, -1}, p.Float32s())

	assert.Equal(t, []string{"dampening", "differentiable", "foreach", "lr", "maximize", "momentum", "nesterov", "weight_decay"}, g.Keys())
	assert.Equal(t, "SGD (\nParameter Group 0\n    dampening: 0\n    differentiable: False\n    foreach: None\n    lr: 0.25\n    maximize: False\n    momentum: 0\n    nesterov: False\n    weight_decay: 0\n)",
		fmt.Sprint(o))
}

func TestLoadStateDictErrors(t *testing.T) {
	a, b := param(2), param(3)
	newOpt := func() *optim.AdamOptimizer {
		return optim.Adam([]optim.ParamGroup{{Params: []torch.Tensor{a}}, {Params: []torch.Tensor{b}, Options: []optim.Option{optim.WithAmsgrad(true)}}})
	}
	o := newOpt()
	a.Sum().Backward()
	b.Sum().Backward()
	o.Step()
	good := o.StateDict()
	before := a.Float64s()

	mutate := func(f func(sd *optim.StateDict)) optim.StateDict {
		sd := optim.StateDict{State: map[int]map[string]any{}}
		for i, st := range good.State {
			c := map[string]any{}
			for k, v := range st {
				c[k] = v
			}
			sd.State[i] = c
		}
		for _, g := range good.ParamGroups {
			c := map[string]any{}
			for k, v := range g {
				c[k] = v
			}
			sd.ParamGroups = append(sd.ParamGroups, c)
		}
		f(&sd)
		return sd
	}
	tests := []struct {
		name string
		sd   optim.StateDict
		want string
	}{
		{"groups", mutate(func(sd *optim.StateDict) { sd.ParamGroups = sd.ParamGroups[:1] }),
			"optim.Adam: load state dict: loaded state dict has a different number of parameter groups (1, the optimizer has 2)"},
		{"group size", mutate(func(sd *optim.StateDict) { sd.ParamGroups[1]["params"] = []int{1, 2} }),
			"optim.Adam: load state dict: loaded state dict contains a parameter group that doesn't match the size of optimizer's group (group 1: 2 parameters saved, 1 in the optimizer)"},
		{"shape", mutate(func(sd *optim.StateDict) { sd.State[1]["exp_avg"] = torch.Zeros([]int64{2}) }),
			"optim.Adam: load state dict: state of parameter 1: exp_avg: shape [2], the parameter's is [3]"},
		{"not a tensor", mutate(func(sd *optim.StateDict) { sd.State[0]["exp_avg_sq"] = 1.5 }),
			"optim.Adam: load state dict: state of parameter 0: exp_avg_sq: want a tensor, got float64"},
		{"unknown key", mutate(func(sd *optim.StateDict) { sd.State[0]["momentum_buffer"] = torch.Zeros([]int64{2}) }),
			`optim.Adam: load state dict: state of parameter 0: unexpected key "momentum_buffer" for Adam`},
		{"missing key", mutate(func(sd *optim.StateDict) { delete(sd.State[1], "exp_avg") }),
			"optim.Adam: load state dict: state of parameter 1 lacks exp_avg"},
		{"unknown parameter", mutate(func(sd *optim.StateDict) { sd.State[7] = sd.State[0] }),
			"optim.Adam: load state dict: state for parameter 7, which no parameter group lists"},
		{"bad lr", mutate(func(sd *optim.StateDict) { sd.ParamGroups[0]["lr"] = -0.5 }),
			"optim.Adam: load state dict: param group 0: invalid learning rate: -0.5"},
		{"bad betas", mutate(func(sd *optim.StateDict) { sd.ParamGroups[0]["betas"] = []float64{0.9} }),
			"optim.Adam: load state dict: param group 0: betas must be two numbers, got [0.9]"},
		{"step", mutate(func(sd *optim.StateDict) { sd.State[0]["step"] = "one" }),
			"optim.Adam: load state dict: state of parameter 0: step: want a tensor or a number, got string"},
		{"params", mutate(func(sd *optim.StateDict) { sd.ParamGroups[0]["params"] = "all" }),
			"optim.Adam: load state dict: param group 0: params: want a list of integers, got string"},
		{"duplicate index", mutate(func(sd *optim.StateDict) { sd.ParamGroups[1]["params"] = []int{0} }),
			"optim.Adam: load state dict: parameter index 0 appears more than once in param_groups"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o2 := newOpt()
			require.EqualError(t, o2.LoadStateDict(tt.sd), tt.want)
			// Nothing changed.
			assert.Empty(t, o2.StateDict().State)
			assert.Equal(t, 1e-3, o2.ParamGroups()[0].LR())
		})
	}
	// A number as the step, as PyTorch before 1.12 saved it.
	o2 := newOpt()
	require.NoError(t, o2.LoadStateDict(mutate(func(sd *optim.StateDict) { sd.State[0]["step"] = 1 })))
	st := o2.StateDict().State[0]["step"].(torch.Tensor)
	assert.Equal(t, torch.Float32, st.DType())
	assert.Equal(t, 1.0, st.Item())
	assert.Equal(t, before, a.Float64s())
}

// TestLoadStateDictConverts: state tensors take their parameter's dtype.
func TestLoadStateDictConverts(t *testing.T) {
	p := torch.Zeros([]int64{2}, torch.WithDtype(torch.Float64)).SetRequiresGrad(true)
	o := optim.SGD([]torch.Tensor{p}, optim.WithLR(0.1), optim.WithMomentum(0.9))
	buf := torch.FromSlice([]float32{1, 2})
	require.NoError(t, o.LoadStateDict(optim.StateDict{
		State:       map[int]map[string]any{0: {"momentum_buffer": buf}},
		ParamGroups: []map[string]any{{"lr": 0.1, "momentum": 0.9, "dampening": 0, "weight_decay": 0, "nesterov": false, "maximize": false, "params": []any{0.0}}},
	}))
	got := o.StateDict().State[0]["momentum_buffer"].(torch.Tensor)
	assert.Equal(t, torch.Float64, got.DType())
	assert.Equal(t, []float64{1, 2}, got.Float64s())
	buf.FillScalar_(torch.S(7)) // a copy
	assert.Equal(t, []float64{1, 2}, got.Float64s())
}

// TestComplexParams: a complex parameter is optimized as its real view,
// as in PyTorch.
func TestComplexParams(t *testing.T) {
	makers := map[string]func(ps []torch.Tensor) optim.Optimizer{
		"SGD": func(ps []torch.Tensor) optim.Optimizer {
			return optim.SGD(ps, optim.WithLR(0.1), optim.WithMomentum(0.9), optim.WithWeightDecay(0.1))
		},
		"Adam": func(ps []torch.Tensor) optim.Optimizer {
			return optim.Adam(ps, optim.WithAmsgrad(true), optim.WithWeightDecay(0.1))
		},
		"AdamW": func(ps []torch.Tensor) optim.Optimizer { return optim.AdamW(ps) },
		"RMSprop": func(ps []torch.Tensor) optim.Optimizer {
			return optim.RMSprop(ps, optim.WithCentered(true), optim.WithMomentum(0.5))
		},
		"Adagrad": func(ps []torch.Tensor) optim.Optimizer {
			return optim.Adagrad(ps, optim.WithInitialAccumulatorValue(0.5))
		},
	}
	for _, name := range sortedKeys(makers) {
		t.Run(name, func(t *testing.T) {
			re := torch.FromSlice([]float32{0.5, -1, 2, 0.25}, 2, 2)
			z := torch.ViewAsComplex(re.Clone()).Clone().SetRequiresGrad(true)
			r := re.Clone().SetRequiresGrad(true)
			oz, or := makers[name]([]torch.Tensor{z}), makers[name]([]torch.Tensor{r})
			for i := 0; i < 5; i++ {
				oz.ZeroGrad()
				or.ZeroGrad()
				torch.ViewAsReal(z).PowTensorScalar(torch.S(3)).Sum().Backward()
				r.PowTensorScalar(torch.S(3)).Sum().Backward()
				oz.Step()
				or.Step()
			}
			// SGD works on the complex numbers themselves, whose
			// arithmetic rounds a little differently.
			golden.RequireAllClose(t, r.Float64s(), torch.ViewAsReal(z).Float64s(), torch.Float32, "parameters")
		})
	}
}

// TestStateMadeLate: turning on a flag whose state is missing makes that
// state as zeros (PyTorch fails with a KeyError).
func TestStateMadeLate(t *testing.T) {
	p, q := param(2), param(2)
	adam := optim.Adam([]torch.Tensor{p})
	rms := optim.RMSprop([]torch.Tensor{q})
	for i := 0; i < 3; i++ {
		if i == 2 {
			adam.ParamGroups()[0].Set("amsgrad", true)
			rms.ParamGroups()[0].Set("momentum", 0.5)
			rms.ParamGroups()[0].Set("centered", true)
		}
		adam.ZeroGrad()
		rms.ZeroGrad()
		p.Mul(p).Sub(p).Sum().Backward()
		q.Mul(q).Sub(q).Sum().Backward()
		adam.Step()
		rms.Step()
	}
	assert.Contains(t, adam.StateDict().State[0], "max_exp_avg_sq")
	st := rms.StateDict().State[0]
	assert.Contains(t, st, "momentum_buffer")
	assert.Contains(t, st, "grad_avg")
	assert.Equal(t, 3, st["step"])
}

// TestStepError: a failing op is an error of TryStep naming the group and
// parameter, and a panic of Step.
func TestStepError(t *testing.T) {
	p, q := param(2), param(2)
	o := optim.SGD([]torch.Tensor{p, q}, optim.WithLR(0.1))
	q.Sum().Backward()
	q.Free()
	err := o.TryStep()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "optim.SGD: param group 0, parameter 1: torch.")
	assert.ErrorIs(t, err, torch.ErrFreed)
	assert.Panics(t, o.Step)
}
