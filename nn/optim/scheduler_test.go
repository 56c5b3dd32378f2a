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
