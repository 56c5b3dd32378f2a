package optim_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// The optimizers of optim.py's scheduler runs.
var schedOptimizers = map[string]func() optim.Optimizer{
	"sgd": func() optim.Optimizer {
		return optim.SGD([]optim.ParamGroup{
			{Params: []torch.Tensor{param(2)}},
			{Params: []torch.Tensor{param(2)}, Options: []optim.Option{optim.WithLR(0.02)}},
		}, optim.WithLR(0.1), optim.WithMomentum(0.9))
	},
	"adam": func() optim.Optimizer {
		return optim.Adam([]optim.ParamGroup{
			{Params: []torch.Tensor{param(2)}},
			{Params: []torch.Tensor{param(2)}, Options: []optim.Option{optim.WithLR(0.002)}},
		}, optim.WithLR(0.01))
	},
	"adagrad": func() optim.Optimizer { return optim.Adagrad([]torch.Tensor{param(2)}, optim.WithLR(0.1)) },
}

// The schedulers of optim.py, by name.
var schedMakers = map[string]func(o optim.Optimizer) optim.Scheduler{
	"step":         func(o optim.Optimizer) optim.Scheduler { return optim.StepLR(o, 7, optim.WithGamma(0.5)) },
	"step_default": func(o optim.Optimizer) optim.Scheduler { return optim.StepLR(o, 30) },
	"multistep": func(o optim.Optimizer) optim.Scheduler {
		return optim.MultiStepLR(o, []int{10, 25, 25, 60}, optim.WithGamma(0.3))
	},
	"exponential": func(o optim.Optimizer) optim.Scheduler { return optim.ExponentialLR(o, 0.97) },
	"cosine": func(o optim.Optimizer) optim.Scheduler {
		return optim.CosineAnnealingLR(o, 30, optim.WithEtaMin(0.001))
	},
	"cosine_default": func(o optim.Optimizer) optim.Scheduler { return optim.CosineAnnealingLR(o, 100) },
	"linear_warmup": func(o optim.Optimizer) optim.Scheduler {
		return optim.LinearLR(o, optim.WithStartFactor(0.1), optim.WithTotalIters(10))
	},
	"linear_default": func(o optim.Optimizer) optim.Scheduler { return optim.LinearLR(o) },
	"linear_decay": func(o optim.Optimizer) optim.Scheduler {
		return optim.LinearLR(o, optim.WithStartFactor(1), optim.WithEndFactor(0.05), optim.WithTotalIters(80))
	},
	"constant": func(o optim.Optimizer) optim.Scheduler {
		return optim.ConstantLR(o, optim.WithFactor(0.5), optim.WithTotalIters(8))
	},
	"lambda": func(o optim.Optimizer) optim.Scheduler {
		return optim.LambdaLR(o, func(e int) float64 { return math.Pow(0.95, float64(e)) })
	},
	"onecycle": func(o optim.Optimizer) optim.Scheduler { return optim.OneCycleLR(o, []float64{0.5, 0.2}, 100) },
	"onecycle_linear_three_phase": func(o optim.Optimizer) optim.Scheduler {
		return optim.OneCycleLR(o, 0.3, 100, optim.WithAnnealStrategy("linear"), optim.WithThreePhase(true),
			optim.WithDivFactor(10), optim.WithFinalDivFactor(100), optim.WithPctStart(0.25))
	},
	"onecycle_three_phase_cos": func(o optim.Optimizer) optim.Scheduler {
		return optim.OneCycleLR(o, 0.3, 100, optim.WithThreePhase(true), optim.WithBaseMomentum(0.8, 0.7), optim.WithMaxMomentum(0.9))
	},
	"onecycle_adam": func(o optim.Optimizer) optim.Scheduler {
		return optim.OneCycleLR(o, 0.01, 100, optim.WithBaseMomentum(0.8), optim.WithMaxMomentum(0.9))
	},
	"onecycle_no_momentum": func(o optim.Optimizer) optim.Scheduler {
		return optim.OneCycleLR(o, 0.1, 100, optim.WithCycleMomentum(false), optim.WithPctStart(0.5))
	},
	"sequential_warmup_cosine": func(o optim.Optimizer) optim.Scheduler {
		return optim.SequentialLR(o, []optim.Scheduler{
			optim.LinearLR(o, optim.WithStartFactor(0.1), optim.WithTotalIters(5)),
			optim.CosineAnnealingLR(o, 95),
		}, []int{5})
	},
	"sequential_three": func(o optim.Optimizer) optim.Scheduler {
		return optim.SequentialLR(o, []optim.Scheduler{
			optim.ConstantLR(o, optim.WithFactor(0.5), optim.WithTotalIters(3)),
			optim.ExponentialLR(o, 0.9),
			optim.StepLR(o, 10, optim.WithGamma(0.5)),
		}, []int{10, 40})
	},
	"chained": func(o optim.Optimizer) optim.Scheduler {
		return optim.ChainedScheduler(
			optim.LinearLR(o, optim.WithStartFactor(0.2), optim.WithTotalIters(10)),
			optim.ExponentialLR(o, 0.98))
	},
	"polynomial": func(o optim.Optimizer) optim.Scheduler {
		return optim.PolynomialLR(o, optim.WithTotalIters(30), optim.WithPower(2))
	},
	"polynomial_default": func(o optim.Optimizer) optim.Scheduler { return optim.PolynomialLR(o) },
	"cyclic": func(o optim.Optimizer) optim.Scheduler {
		return optim.CyclicLR(o, 0.01, []float64{0.1, 0.05}, optim.WithStepSizeUp(7))
	},
	"cyclic_triangular2": func(o optim.Optimizer) optim.Scheduler {
		return optim.CyclicLR(o, []float64{0.001, 0.002}, 0.1, optim.WithStepSizeUp(5),
			optim.WithStepSizeDown(10), optim.WithMode("triangular2"),
			optim.WithBaseMomentum(0.7), optim.WithMaxMomentum(0.95, 0.9))
	},
	"cyclic_exp_range": func(o optim.Optimizer) optim.Scheduler {
		return optim.CyclicLR(o, 0.001, 0.1, optim.WithStepSizeUp(4), optim.WithMode("exp_range"), optim.WithGamma(0.97))
	},
	"cyclic_no_momentum": func(o optim.Optimizer) optim.Scheduler {
		return optim.CyclicLR(o, 0.01, 0.2, optim.WithStepSizeUp(6), optim.WithStepSizeDown(3), optim.WithCycleMomentum(false))
	},
}

// momenta returns each group's momentum, or Adam's beta1.
func momenta(o optim.Optimizer) []float64 {
	var out []float64
	for _, g := range o.ParamGroups() {
		if b, ok := g.Get("betas"); ok {
			out = append(out, b.([]float64)[0])
		} else {
			m, _ := g.Float("momentum")
			out = append(out, m)
		}
	}
	return out
}

func TestSchedulersMatchPyTorch(t *testing.T) {
	r := loadReference(t)
	require.Len(t, schedMakers, len(r.Schedulers))
	for _, name := range sortedKeys(r.Schedulers) {
		c := r.Schedulers[name]
		t.Run(name, func(t *testing.T) {
			mk, ok := schedMakers[name]
			require.True(t, ok, "no Go scheduler for %s", name)
			o := schedOptimizers[c.Optimizer]()
			s := mk(o)
			require.Len(t, c.LRs, r.Steps+1)
			for epoch := 0; epoch <= r.Steps; epoch++ {
				if epoch > 0 {
					o.Step()
					s.Step()
				}
				// Python floats, float64 in Go.
				golden.RequireAllClose(t, c.LRs[epoch], s.LastLR(), torch.Float64, "lr at epoch %d", epoch)
				golden.RequireAllClose(t, c.LRs[epoch], groupLRs(o), torch.Float64, "group lr at epoch %d", epoch)
				golden.RequireAllClose(t, c.Momentum[epoch], momenta(o), torch.Float64, "momentum at epoch %d", epoch)
			}
		})
	}
}

func groupLRs(o optim.Optimizer) []float64 {
	var out []float64
	for _, g := range o.ParamGroups() {
		out = append(out, g.LR())
	}
	return out
}

func TestOneCycleTooManySteps(t *testing.T) {
	o := schedOptimizers["sgd"]()
	s := optim.OneCycleLR(o, 0.1, 10)
	for i := 0; i < 10; i++ {
		require.NoError(t, s.TryStep())
	}
	last := s.LastLR()
	assert.EqualError(t, s.TryStep(), "optim.OneCycleLR: tried to step 12 times. The specified number of total steps is 10")
	assert.Equal(t, last, s.LastLR())
	assert.Equal(t, 10, s.LastEpoch())
	assert.Panics(t, s.Step)
}

// TestSchedulerStateRoundTrip: 40 steps, save the optimizer's and the
// scheduler's state, load both into new ones and take 60 more steps: the
// same learning rates as 100 straight steps.
func TestSchedulerStateRoundTrip(t *testing.T) {
	r := loadReference(t)
	for _, name := range sortedKeys(r.Schedulers) {
		c := r.Schedulers[name]
		t.Run(name, func(t *testing.T) {
			newOpt, mk := schedOptimizers[c.Optimizer], schedMakers[name]
			o1 := newOpt()
			s1 := mk(o1)
			for i := 0; i < 40; i++ {
				o1.Step()
				s1.Step()
			}
			osd, ssd := o1.StateDict(), s1.StateDict()
			o2 := newOpt()
			s2 := mk(o2)
			require.NoError(t, o2.LoadStateDict(osd))
			require.NoError(t, s2.LoadStateDict(ssd))
			assert.Equal(t, s1.LastLR(), s2.LastLR())
			for i := 40; i < r.Steps; i++ {
				o1.Step()
				s1.Step()
				o2.Step()
				s2.Step()
				require.Equal(t, s1.LastLR(), s2.LastLR(), "epoch %d", i+1)
				require.Equal(t, momenta(o1), momenta(o2), "epoch %d", i+1)
			}
		})
	}
}

func TestSchedulerResume(t *testing.T) {
	o1 := schedOptimizers["sgd"]()
	s1 := optim.StepLR(o1, 7, optim.WithGamma(0.5))
	o2 := schedOptimizers["sgd"]()
	s2 := optim.StepLR(o2, 7, optim.WithGamma(0.5))
	for i := 0; i < 20; i++ {
		s1.Step()
		s2.Step()
	}
	s1.Step()
	// A scheduler made with WithLastEpoch goes on from the groups' lr.
	s3 := optim.StepLR(o2, 7, optim.WithGamma(0.5), optim.WithLastEpoch(20))
	assert.Equal(t, 21, s3.LastEpoch())
	assert.Equal(t, s1.LastLR(), s3.LastLR())
	assert.Equal(t, []float64{0.1, 0.02}, s3.BaseLRs())

	_, err := optim.TryStepLR(schedOptimizers["sgd"](), 7, optim.WithLastEpoch(3))
	assert.EqualError(t, err, "optim.StepLR: param 'initial_lr' is not specified in param_groups[0] when resuming an optimizer")
}

func TestSchedulerErrors(t *testing.T) {
	sgd, adagrad := schedOptimizers["sgd"](), schedOptimizers["adagrad"]()
	other := schedOptimizers["sgd"]()
	tests := []struct {
		name string
		make func() error
		want string
	}{
		{"step size", func() error { _, err := optim.TryStepLR(sgd, 0); return err },
			"optim.StepLR: step_size must be positive, got 0"},
		{"option", func() error { _, err := optim.TryStepLR(sgd, 3, optim.WithLR(0.1)); return err },
			"optim.StepLR: unexpected option lr"},
		{"nil optimizer", func() error { _, err := optim.TryExponentialLR(nil, 0.9); return err },
			"optim.ExponentialLR: nil optimizer"},
		{"cosine T_max", func() error { _, err := optim.TryCosineAnnealingLR(sgd, -1); return err },
			"optim.CosineAnnealingLR: T_max must be positive, got -1"},
		{"linear start", func() error { _, err := optim.TryLinearLR(sgd, optim.WithStartFactor(0)); return err },
			"optim.LinearLR: starting multiplicative factor expected to be greater than 0 and less or equal to 1, got 0"},
		{"linear end", func() error { _, err := optim.TryLinearLR(sgd, optim.WithEndFactor(1.5)); return err },
			"optim.LinearLR: ending multiplicative factor expected to be between 0 and 1, got 1.5"},
		{"constant factor", func() error { _, err := optim.TryConstantLR(sgd, optim.WithFactor(-0.5)); return err },
			"optim.ConstantLR: constant multiplicative factor expected to be between 0 and 1, got -0.5"},
		{"lambda", func() error { _, err := optim.TryLambdaLR(sgd, nil); return err },
			"optim.LambdaLR: nil lr_lambda"},
		{"onecycle steps", func() error { _, err := optim.TryOneCycleLR(sgd, 0.1, 0); return err },
			"optim.OneCycleLR: expected positive integer total_steps, but got 0"},
		{"onecycle pct", func() error { _, err := optim.TryOneCycleLR(sgd, 0.1, 10, optim.WithPctStart(1.5)); return err },
			"optim.OneCycleLR: expected float between 0 and 1 pct_start, but got 1.5"},
		{"onecycle anneal", func() error {
			_, err := optim.TryOneCycleLR(sgd, 0.1, 10, optim.WithAnnealStrategy("cubic"))
			return err
		}, "optim.OneCycleLR: anneal_strategy must by one of 'cos' or 'linear', instead got cubic"},
		{"onecycle max_lr", func() error { _, err := optim.TryOneCycleLR(sgd, []float64{1, 2, 3}, 10); return err },
			"optim.OneCycleLR: expected 2 values for max_lr, got 3"},
		{"onecycle momentum values", func() error {
			_, err := optim.TryOneCycleLR(sgd, 0.1, 10, optim.WithMaxMomentum(0.9, 0.8, 0.7))
			return err
		}, "optim.OneCycleLR: expected 2 values for max_momentum, got 3"},
		{"onecycle momentum", func() error { _, err := optim.TryOneCycleLR(adagrad, 0.1, 10); return err },
			"optim.OneCycleLR: optimizer must support momentum with `cycle_momentum` option enabled"},
		{"sequential milestones", func() error {
			_, err := optim.TrySequentialLR(sgd, []optim.Scheduler{optim.ExponentialLR(sgd, 0.9)}, []int{3})
			return err
		}, "optim.SequentialLR: Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone points, but got number of schedulers 1 and the number of milestones to be equal to 1"},
		{"sequential optimizer", func() error {
			_, err := optim.TrySequentialLR(sgd, []optim.Scheduler{optim.ExponentialLR(sgd, 0.9), optim.ExponentialLR(other, 0.9)}, []int{3})
			return err
		}, "optim.SequentialLR: Sequential Schedulers expects all schedulers to belong to the same optimizer, but got schedulers at index 1 to be different than the optimizer passed in"},
		{"sequential nested", func() error {
			_, err := optim.TrySequentialLR(sgd, []optim.Scheduler{optim.ChainedScheduler(optim.ExponentialLR(sgd, 0.9))}, nil)
			return err
		}, "optim.SequentialLR: scheduler 0 is a *optim.ChainedLRScheduler; SequentialLR takes simple schedulers"},
		{"chained optimizer", func() error {
			_, err := optim.TryChainedScheduler(optim.ExponentialLR(sgd, 0.9), optim.ExponentialLR(other, 0.9))
			return err
		}, "optim.ChainedScheduler: ChainedScheduler expects all schedulers to belong to the same optimizer, but got schedulers at index 0 and 1 to be different"},
		{"chained empty", func() error { _, err := optim.TryChainedScheduler(); return err },
			"optim.ChainedScheduler: no schedulers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.EqualError(t, tt.make(), tt.want)
		})
	}
	assert.Panics(t, func() { optim.StepLR(sgd, -3) })
}

func TestSchedulerLoadStateDictErrors(t *testing.T) {
	o := schedOptimizers["sgd"]()
	s := optim.StepLR(o, 7)
	assert.EqualError(t, s.LoadStateDict(map[string]any{"step_size": 0}),
		"optim.StepLR: load state dict: step_size: want a positive integer, got 0")
	assert.EqualError(t, s.LoadStateDict(map[string]any{"base_lrs": []float64{1}}),
		"optim.StepLR: load state dict: base_lrs has 1 values, the optimizer has 2 groups")
	assert.EqualError(t, s.LoadStateDict(map[string]any{"last_epoch": 1.5}),
		"optim.StepLR: load state dict: last_epoch: want an integer, got 1.5")
	assert.Equal(t, 0, s.LastEpoch())
	assert.Equal(t, map[string]any{
		"base_lrs": []float64{0.1, 0.02}, "last_epoch": 0, "_step_count": 1, "_last_lr": []float64{0.1, 0.02},
		"step_size": 7, "gamma": 0.1,
	}, s.StateDict())

	seq := optim.SequentialLR(o, []optim.Scheduler{optim.ExponentialLR(o, 0.9), s}, []int{4})
	sd := seq.StateDict()
	sd["_schedulers"] = []map[string]any{{}, {"gamma": "x"}}
	assert.EqualError(t, seq.LoadStateDict(sd),
		"optim.SequentialLR: load state dict: _schedulers[1]: optim.StepLR: load state dict: gamma: want a number, got string")
	assert.Equal(t, 0.1, s.StateDict()["gamma"])
}

// ReduceLROnPlateau against PyTorch's on a metric that falls, stalls,
// rises and falls again.
func TestReduceLROnPlateauMatchesPyTorch(t *testing.T) {
	r := loadReference(t)
	makers := map[string][]optim.Option{
		"plateau": {optim.WithPatience(3)},
		"plateau_max_abs_cooldown": {optim.WithMode("max"), optim.WithThresholdMode("abs"), optim.WithThreshold(0.001),
			optim.WithPatience(2), optim.WithCooldown(4), optim.WithFactor(0.5)},
		"plateau_min_lr": {optim.WithPatience(0), optim.WithFactor(0.5), optim.WithMinLR(0.01, 0.015), optim.WithEps(1e-3)},
	}
	require.Len(t, r.Plateau.Configs, len(makers))
	for _, name := range sortedKeys(r.Plateau.Configs) {
		c := r.Plateau.Configs[name]
		t.Run(name, func(t *testing.T) {
			o := schedOptimizers[c.Optimizer]()
			s := optim.ReduceLROnPlateau(o, makers[name]...)
			assert.Empty(t, s.LastLR())
			for i, m := range r.Plateau.Metrics {
				o.Step()
				s.Step(m)
				golden.RequireAllClose(t, c.LRs[i], s.LastLR(), torch.Float64, "lr after step %d", i+1)
				golden.RequireAllClose(t, c.LRs[i], groupLRs(o), torch.Float64, "group lr after step %d", i+1)
			}
			assert.Equal(t, len(r.Plateau.Metrics), s.LastEpoch())
		})
	}
}

// A ReduceLROnPlateau saved halfway and loaded into a fresh one goes on
// as the original does.
func TestReduceLROnPlateauStateDict(t *testing.T) {
	r := loadReference(t)
	opts := []optim.Option{optim.WithPatience(2), optim.WithCooldown(1), optim.WithFactor(0.5)}
	o1 := schedOptimizers["sgd"]()
	s1 := optim.ReduceLROnPlateau(o1, opts...)
	metrics := r.Plateau.Metrics
	for _, m := range metrics[:50] {
		s1.Step(m)
	}
	o2 := schedOptimizers["sgd"]()
	for i, g := range o2.ParamGroups() {
		g.SetLR(o1.ParamGroups()[i].LR())
	}
	s2 := optim.ReduceLROnPlateau(o2)
	require.NoError(t, s2.LoadStateDict(s1.StateDict()))
	for _, m := range metrics[50:] {
		s1.Step(m)
		s2.Step(m)
		assert.Equal(t, s1.LastLR(), s2.LastLR())
	}
	assert.Equal(t, s1.StateDict(), s2.StateDict())

	assert.Error(t, s2.LoadStateDict(map[string]any{"mode": "sideways"}))
	assert.Error(t, s2.LoadStateDict(map[string]any{"patience": "x"}))
	assert.Error(t, s2.LoadStateDict(map[string]any{"min_lrs": []float64{1}}))
	assert.Error(t, s2.LoadStateDict(map[string]any{"what": 1}))
	assert.Equal(t, s1.StateDict(), s2.StateDict(), "a failed load changes nothing")
}

func TestNewSchedulerErrors(t *testing.T) {
	sgd := schedOptimizers["sgd"]()
	for name, f := range map[string]func() error{
		"plateau factor":       func() error { _, err := optim.TryReduceLROnPlateau(sgd, optim.WithFactor(1)); return err },
		"plateau mode":         func() error { _, err := optim.TryReduceLROnPlateau(sgd, optim.WithMode("up")); return err },
		"plateau thresh mode":  func() error { _, err := optim.TryReduceLROnPlateau(sgd, optim.WithThresholdMode("x")); return err },
		"plateau min_lr count": func() error { _, err := optim.TryReduceLROnPlateau(sgd, optim.WithMinLR(1, 2, 3)); return err },
		"plateau option":       func() error { _, err := optim.TryReduceLROnPlateau(sgd, optim.WithGamma(1)); return err },
		"plateau nil":          func() error { _, err := optim.TryReduceLROnPlateau(nil); return err },
		"poly total":           func() error { _, err := optim.TryPolynomialLR(sgd, optim.WithTotalIters(0)); return err },
		"cyclic mode":          func() error { _, err := optim.TryCyclicLR(sgd, 0.1, 1.0, optim.WithMode("square")); return err },
		"cyclic lrs":           func() error { _, err := optim.TryCyclicLR(sgd, []float64{1, 2, 3}, 1.0); return err },
		"cyclic steps":         func() error { _, err := optim.TryCyclicLR(sgd, 0.1, 1.0, optim.WithStepSizeUp(0)); return err },
		"cyclic scale_mode": func() error {
			_, err := optim.TryCyclicLR(sgd, 0.1, 1.0, optim.WithScaleFn(func(float64) float64 { return 1 }), optim.WithScaleMode("x"))
			return err
		},
		"cyclic no momentum": func() error {
			_, err := optim.TryCyclicLR(schedOptimizers["adagrad"](), 0.1, 1.0)
			return err
		},
		"cyclic nil": func() error { _, err := optim.TryCyclicLR(nil, 0.1, 1.0); return err },
	} {
		assert.Error(t, f(), name)
	}
}

// A custom scale_fn over iterations.
func TestCyclicLRScaleFn(t *testing.T) {
	o := schedOptimizers["adagrad"]()
	s := optim.CyclicLR(o, 0.0, 1.0, optim.WithStepSizeUp(2), optim.WithCycleMomentum(false),
		optim.WithScaleFn(func(x float64) float64 { return 1 / (1 + x) }), optim.WithScaleMode("iterations"))
	var got []float64
	for i := 0; i < 5; i++ {
		got = append(got, s.LastLR()[0])
		s.Step()
	}
	assert.InDeltaSlice(t, []float64{0, 0.5 / 2, 1.0 / 3, 0.5 / 4, 0}, got, 1e-15)
}
