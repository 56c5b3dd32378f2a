package optim

import "fmt"

// Option is an optional (keyword) argument of an optimizer, a parameter
// group, a scheduler or ClipGradNorm_, named after PyTorch's keyword with a
// With prefix:
//
//	optim.SGD(params, optim.WithLR(0.1), optim.WithMomentum(0.9)) // torch.optim.SGD(params, lr=0.1, momentum=0.9)
//
// Each constructor's doc lists the options it takes; any other option is an
// error naming the constructor and the option.
type Option struct {
	key string // PyTorch's keyword
	val any
}

// Key is the PyTorch keyword the option sets ("lr", "betas", …).
func (o Option) Key() string { return o.key }

func (o Option) String() string { return fmt.Sprintf("%s=%v", o.key, o.val) }

// Optimizer hyper-parameters.

// WithLR sets the learning rate (lr).
func WithLR(v float64) Option { return Option{"lr", v} }

// WithMomentum sets the momentum factor of SGD and RMSprop (momentum).
func WithMomentum(v float64) Option { return Option{"momentum", v} }

// WithDampening sets SGD's dampening for momentum (dampening).
func WithDampening(v float64) Option { return Option{"dampening", v} }

// WithWeightDecay sets the weight decay (weight_decay): an L2 penalty, or
// AdamW's decoupled decay.
func WithWeightDecay(v float64) Option { return Option{"weight_decay", v} }

// WithNesterov enables SGD's Nesterov momentum (nesterov).
func WithNesterov(v bool) Option { return Option{"nesterov", v} }

// WithMaximize maximizes the objective instead of minimizing it (maximize).
func WithMaximize(v bool) Option { return Option{"maximize", v} }

// WithBetas sets Adam's and AdamW's coefficients for the running averages
// of the gradient and its square (betas).
func WithBetas(beta1, beta2 float64) Option { return Option{"betas", []float64{beta1, beta2}} }

// WithEps sets the term added to the denominator for numerical stability
// (eps).
func WithEps(v float64) Option { return Option{"eps", v} }

// WithAmsgrad enables the AMSGrad variant of Adam and AdamW (amsgrad).
func WithAmsgrad(v bool) Option { return Option{"amsgrad", v} }

// WithAlpha sets RMSprop's smoothing constant (alpha).
func WithAlpha(v float64) Option { return Option{"alpha", v} }

// WithCentered makes RMSprop normalize by the estimated variance of the
// gradient (centered).
func WithCentered(v bool) Option { return Option{"centered", v} }

// WithLRDecay sets Adagrad's learning-rate decay (lr_decay).
func WithLRDecay(v float64) Option { return Option{"lr_decay", v} }

// WithInitialAccumulatorValue sets the starting value of Adagrad's sum of
// squared gradients (initial_accumulator_value).
func WithInitialAccumulatorValue(v float64) Option {
	return Option{"initial_accumulator_value", v}
}

// Scheduler arguments.

// WithGamma sets the multiplicative decay factor of StepLR and MultiStepLR
// (gamma, default 0.1).
func WithGamma(v float64) Option { return Option{"gamma", v} }

// WithEtaMin sets CosineAnnealingLR's minimum learning rate (eta_min,
// default 0).
func WithEtaMin(v float64) Option { return Option{"eta_min", v} }

// WithStartFactor sets LinearLR's factor of the first step (start_factor,
// default 1/3).
func WithStartFactor(v float64) Option { return Option{"start_factor", v} }

// WithEndFactor sets LinearLR's factor at the end (end_factor, default 1).
func WithEndFactor(v float64) Option { return Option{"end_factor", v} }

// WithTotalIters sets the number of steps of LinearLR and ConstantLR
// (total_iters, default 5).
func WithTotalIters(v int) Option { return Option{"total_iters", v} }

// WithFactor sets ConstantLR's factor (factor, default 1/3).
func WithFactor(v float64) Option { return Option{"factor", v} }

// WithLastEpoch sets the index of the last epoch when resuming a schedule
// (last_epoch, default -1: start from the beginning). The optimizer's
// groups must then hold "initial_lr", as they do after loading the state
// of an optimizer that a scheduler drove.
func WithLastEpoch(v int) Option { return Option{"last_epoch", v} }

// WithPctStart sets the fraction of OneCycleLR's cycle spent increasing
// the learning rate (pct_start, default 0.3).
func WithPctStart(v float64) Option { return Option{"pct_start", v} }

// WithAnnealStrategy sets OneCycleLR's annealing, "cos" (the default) or
// "linear" (anneal_strategy).
func WithAnnealStrategy(v string) Option { return Option{"anneal_strategy", v} }

// WithCycleMomentum turns OneCycleLR's inverse cycling of momentum (or of
// Adam's beta1) on or off (cycle_momentum, default true).
func WithCycleMomentum(v bool) Option { return Option{"cycle_momentum", v} }

// WithBaseMomentum sets OneCycleLR's lower momentum boundary: one value,
// or one per parameter group (base_momentum, default 0.85).
func WithBaseMomentum(v ...float64) Option { return Option{"base_momentum", v} }

// WithMaxMomentum sets OneCycleLR's upper momentum boundary: one value, or
// one per parameter group (max_momentum, default 0.95).
func WithMaxMomentum(v ...float64) Option { return Option{"max_momentum", v} }

// WithDivFactor sets OneCycleLR's initial_lr = max_lr/div_factor
// (div_factor, default 25).
func WithDivFactor(v float64) Option { return Option{"div_factor", v} }

// WithFinalDivFactor sets OneCycleLR's min_lr = initial_lr/final_div_factor
// (final_div_factor, default 1e4).
func WithFinalDivFactor(v float64) Option { return Option{"final_div_factor", v} }

// WithThreePhase gives OneCycleLR a third phase that annihilates the
// learning rate, as in the original paper (three_phase, default false).
func WithThreePhase(v bool) Option { return Option{"three_phase", v} }

// Gradient clipping.

// WithErrorIfNonfinite makes ClipGradNorm_ fail when the total norm is
// NaN or infinite (error_if_nonfinite, default false).
func WithErrorIfNonfinite(v bool) Option { return Option{"error_if_nonfinite", v} }

// WithNormType sets ClipGradNorm_'s norm_type, the p of the p-norm (2;
// math.Inf(1) for the max norm).
func WithNormType(v float64) Option { return Option{"norm_type", v} }

// optionSet reads a constructor's options: each known key once, anything
// else an error naming the constructor.
type optionSet struct {
	who  string
	vals map[string]any
	err  error
}

func readOptions(who string, opts []Option, allowed ...string) *optionSet {
	s := &optionSet{who: who, vals: map[string]any{}}
	ok := map[string]bool{}
	for _, k := range allowed {
		ok[k] = true
	}
	for _, o := range opts {
		switch {
		case o.key == "":
			s.err = fmt.Errorf("%s: zero Option", who)
		case !ok[o.key]:
			s.err = fmt.Errorf("%s: unexpected option %s", who, o.key)
		default:
			s.vals[o.key] = o.val
			continue
		}
		return s
	}
	return s
}

func (s *optionSet) float(key string, def float64) float64 {
	if v, ok := s.vals[key]; ok {
		return v.(float64)
	}
	return def
}

func (s *optionSet) int(key string, def int) int {
	if v, ok := s.vals[key]; ok {
		return v.(int)
	}
	return def
}

func (s *optionSet) bool(key string, def bool) bool {
	if v, ok := s.vals[key]; ok {
		return v.(bool)
	}
	return def
}

func (s *optionSet) string(key string, def string) string {
	if v, ok := s.vals[key]; ok {
		return v.(string)
	}
	return def
}

func (s *optionSet) floats(key string, def []float64) []float64 {
	if v, ok := s.vals[key]; ok {
		return v.([]float64)
	}
	return def
}

// WithMomentumDecay sets NAdam's momentum decay (momentum_decay, default
// 4e-3).
func WithMomentumDecay(v float64) Option { return Option{"momentum_decay", v} }

// WithRho sets Adadelta's coefficient of the running averages (rho,
// default 0.9).
func WithRho(v float64) Option { return Option{"rho", v} }

// WithPower sets PolynomialLR's power (power, default 1).
func WithPower(v float64) Option { return Option{"power", v} }

// WithStepSizeUp sets the number of batches CyclicLR's learning rate rises
// over (step_size_up, default 2000).
func WithStepSizeUp(v int) Option { return Option{"step_size_up", v} }

// WithStepSizeDown sets the number of batches CyclicLR's learning rate
// falls over (step_size_down, default step_size_up).
func WithStepSizeDown(v int) Option { return Option{"step_size_down", v} }

// WithMode sets CyclicLR's policy, "triangular", "triangular2" or
// "exp_range", and ReduceLROnPlateau's, "min" or "max" (mode).
func WithMode(v string) Option { return Option{"mode", v} }

// WithScaleFn gives CyclicLR a custom scaling policy in place of its mode
// (scale_fn); WithScaleMode says what it is applied to.
func WithScaleFn(f func(x float64) float64) Option { return Option{"scale_fn", f} }

// WithScaleMode sets what CyclicLR's scale_fn takes, the cycle number
// ("cycle", the default) or the iteration ("iterations") (scale_mode).
func WithScaleMode(v string) Option { return Option{"scale_mode", v} }

// WithPatience sets how many epochs without improvement
// ReduceLROnPlateau waits before lowering the learning rate (patience,
// default 10).
func WithPatience(v int) Option { return Option{"patience", v} }

// WithThreshold sets how much ReduceLROnPlateau's metric must improve to
// count (threshold, default 1e-4).
func WithThreshold(v float64) Option { return Option{"threshold", v} }

// WithThresholdMode sets whether ReduceLROnPlateau's threshold is relative
// ("rel", the default) or absolute ("abs") (threshold_mode).
func WithThresholdMode(v string) Option { return Option{"threshold_mode", v} }

// WithCooldown sets how many epochs ReduceLROnPlateau waits after lowering
// the learning rate before it counts bad epochs again (cooldown, default
// 0).
func WithCooldown(v int) Option { return Option{"cooldown", v} }

// WithMinLR sets ReduceLROnPlateau's lower bound of the learning rate: one
// value, or one per parameter group (min_lr, default 0).
func WithMinLR(v ...float64) Option { return Option{"min_lr", v} }

// L-BFGS settings.

// WithMaxIter sets LBFGS's iterations per Step (max_iter, default 20).
func WithMaxIter(v int) Option { return Option{"max_iter", v} }

// WithMaxEval sets LBFGS's closure calls per Step (max_eval, default
// max_iter·5/4).
func WithMaxEval(v int) Option { return Option{"max_eval", v} }

// WithToleranceGrad sets LBFGS's first-order optimality tolerance
// (tolerance_grad, default 1e-7).
func WithToleranceGrad(v float64) Option { return Option{"tolerance_grad", v} }

// WithToleranceChange sets LBFGS's tolerance on changes of the loss and
// the parameters (tolerance_change, default 1e-9).
func WithToleranceChange(v float64) Option { return Option{"tolerance_change", v} }

// WithHistorySize sets how many updates LBFGS remembers (history_size,
// default 100).
func WithHistorySize(v int) Option { return Option{"history_size", v} }

// WithLineSearchFn sets LBFGS's line search (line_search_fn): "" (None,
// the fixed step lr) or "strong_wolfe".
func WithLineSearchFn(v string) Option { return Option{"line_search_fn", v} }
