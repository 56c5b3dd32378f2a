package optim

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Scheduler adjusts the learning rates of an optimizer's parameter groups
// each time it steps, as PyTorch's torch.optim.lr_scheduler schedulers do.
// A scheduler takes its first step when it is made, so that LastLR is the
// learning rate of epoch 0; call Step after each epoch (or batch, for
// OneCycleLR), after the optimizer's Step.
type Scheduler interface {
	// Step advances the schedule by one epoch and sets the groups' "lr".
	// It panics on failure; TryStep returns the error.
	Step()
	TryStep() error
	// LastLR returns the learning rates the last step set, one per group
	// (PyTorch's get_last_lr()).
	LastLR() []float64
	// Optimizer returns the optimizer the scheduler drives.
	Optimizer() Optimizer
	// StateDict returns the scheduler's state by PyTorch's attribute names
	// ("last_epoch", "base_lrs", "_step_count", "_last_lr" and the
	// scheduler's settings), for checkpoints.
	StateDict() map[string]any
	// LoadStateDict restores a state from StateDict.
	LoadStateDict(map[string]any) error
}

// LRScheduler is a scheduler that computes the learning rates from the
// epoch count: every scheduler of this package but SequentialLR and
// ChainedScheduler. Like PyTorch's chainable schedulers, most compute the
// next rate from the group's current "lr", so that several can drive one
// optimizer (ChainedScheduler).
type LRScheduler struct {
	name      string
	opt       Optimizer
	baseLRs   []float64
	lastEpoch int
	stepCount int
	lastLR    []float64

	getLR      func() ([]float64, error) // the chainable form
	closedForm func() []float64          // nil if none (OneCycleLR, LambdaLR's is getLR)
	config     map[string]any            // settings by PyTorch's names: int, float64, []int, bool, string
	loadable   map[string]int            // settings LoadStateDict restores, by kind (cfgInt, …)
	validate   func(cfg map[string]any) error
}

// Kinds of loadable settings.
const (
	cfgInt = iota
	cfgPosInt
	cfgFloat
	cfgInts
)

func (s *LRScheduler) f(key string) float64 { return s.config[key].(float64) }
func (s *LRScheduler) i(key string) int     { return s.config[key].(int) }

func (s *LRScheduler) errorf(format string, args ...any) error {
	return fmt.Errorf("optim.%s: "+format, append([]any{s.name}, args...)...)
}

// newScheduler sets the groups' "initial_lr" and the base learning rates,
// as PyTorch's _LRScheduler constructor does before its first step.
func newScheduler(name string, opt Optimizer, lastEpoch int) (*LRScheduler, error) {
	s := &LRScheduler{name: name, opt: opt, lastEpoch: lastEpoch, config: map[string]any{}}
	if opt == nil {
		return nil, s.errorf("nil optimizer")
	}
	groups := opt.ParamGroups()
	for i, g := range groups {
		if lastEpoch == -1 {
			if _, ok := g.Get("initial_lr"); !ok {
				lr, ok := g.Float("lr")
				if !ok {
					return nil, s.errorf("param_groups[%d] has no lr", i)
				}
				g.Set("initial_lr", lr)
			}
		} else if _, ok := g.Float("initial_lr"); !ok {
			return nil, s.errorf("param 'initial_lr' is not specified in param_groups[%d] when resuming an optimizer", i)
		}
		v, _ := g.Float("initial_lr")
		s.baseLRs = append(s.baseLRs, v)
	}
	return s, nil
}

// start takes the scheduler's first step.
func (s *LRScheduler) start() (*LRScheduler, error) {
	if err := s.initialStep(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *LRScheduler) initialStep() error {
	s.stepCount = 0
	return s.step(nil)
}

func (s *LRScheduler) step(epoch *int) error {
	prevEpoch, prevCount := s.lastEpoch, s.stepCount
	s.stepCount++
	var values []float64
	var err error
	if epoch == nil {
		s.lastEpoch++
		values, err = s.getLR()
	} else {
		s.lastEpoch = *epoch
		if s.closedForm != nil {
			values = s.closedForm()
		} else {
			values, err = s.getLR()
		}
	}
	if err != nil {
		s.lastEpoch, s.stepCount = prevEpoch, prevCount
		return err
	}
	groups := s.opt.ParamGroups()
	for i := 0; i < len(groups) && i < len(values); i++ {
		groups[i].SetLR(values[i])
	}
	s.lastLR = groupLRs(groups)
	return nil
}

func groupLRs(groups []*Group) []float64 {
	out := make([]float64, len(groups))
	for i, g := range groups {
		out[i] = g.LR()
	}
	return out
}

// lrs returns the groups' current learning rates times f(i, lr).
func (s *LRScheduler) mapLRs(f func(i int, lr float64) float64) []float64 {
	groups := s.opt.ParamGroups()
	out := make([]float64, len(groups))
	for i, g := range groups {
		out[i] = f(i, g.LR())
	}
	return out
}

func (s *LRScheduler) currentLRs() []float64 { return groupLRs(s.opt.ParamGroups()) }

// Step advances the schedule; it panics on failure.
func (s *LRScheduler) Step() {
	if err := s.TryStep(); err != nil {
		panic(err)
	}
}

// TryStep advances the schedule by one epoch.
func (s *LRScheduler) TryStep() error { return s.step(nil) }

// LastLR returns the learning rates the last step set.
func (s *LRScheduler) LastLR() []float64 { return append([]float64(nil), s.lastLR...) }

// LastEpoch returns the index of the last epoch (0 after construction).
func (s *LRScheduler) LastEpoch() int { return s.lastEpoch }

// BaseLRs returns the groups' initial learning rates.
func (s *LRScheduler) BaseLRs() []float64 { return append([]float64(nil), s.baseLRs...) }

// Optimizer returns the optimizer the scheduler drives.
func (s *LRScheduler) Optimizer() Optimizer { return s.opt }

// StateDict returns the scheduler's state.
func (s *LRScheduler) StateDict() map[string]any {
	sd := map[string]any{
		"base_lrs":    append([]float64(nil), s.baseLRs...),
		"last_epoch":  s.lastEpoch,
		"_step_count": s.stepCount,
		"_last_lr":    append([]float64(nil), s.lastLR...),
	}
	for k, v := range s.config {
		sd[k] = cloneValue(v)
	}
	return sd
}

// LoadStateDict restores a state from StateDict: the epoch and step
// counts, the base and last learning rates, and the settings present in
// sd. It does not change the optimizer; load its state too.
func (s *LRScheduler) LoadStateDict(sd map[string]any) error {
	fail := func(format string, args ...any) error {
		return s.errorf("load state dict: "+format, args...)
	}
	baseLRs, lastLR := s.baseLRs, s.lastLR
	lastEpoch, stepCount := s.lastEpoch, s.stepCount
	var err error
	if v, ok := sd["base_lrs"]; ok {
		if baseLRs, err = toFloats(v); err != nil {
			return fail("base_lrs: %v", err)
		}
		if len(baseLRs) != len(s.baseLRs) {
			return fail("base_lrs has %d values, the optimizer has %d groups", len(baseLRs), len(s.baseLRs))
		}
	}
	if v, ok := sd["_last_lr"]; ok {
		if lastLR, err = toFloats(v); err != nil {
			return fail("_last_lr: %v", err)
		}
	}
	if v, ok := sd["last_epoch"]; ok {
		if lastEpoch, err = toInt(v); err != nil {
			return fail("last_epoch: %v", err)
		}
	}
	if v, ok := sd["_step_count"]; ok {
		if stepCount, err = toInt(v); err != nil {
			return fail("_step_count: %v", err)
		}
	}
	config := map[string]any{}
	for k, v := range s.config {
		config[k] = cloneValue(v)
	}
	for k, kind := range s.loadable {
		v, ok := sd[k]
		if !ok {
			continue
		}
		switch kind {
		case cfgInt, cfgPosInt:
			n, err := toInt(v)
			if err != nil {
				return fail("%s: %v", k, err)
			}
			if kind == cfgPosInt && n <= 0 {
				return fail("%s: want a positive integer, got %d", k, n)
			}
			config[k] = n
		case cfgFloat:
			f, ok := toFloat(v)
			if !ok {
				return fail("%s: want a number, got %T", k, v)
			}
			config[k] = f
		case cfgInts:
			ns, err := toInts(v)
			if err != nil {
				return fail("%s: %v", k, err)
			}
			ns = append([]int(nil), ns...)
			sort.Ints(ns)
			config[k] = ns
		}
	}
	if s.validate != nil {
		if err := s.validate(config); err != nil {
			return fail("%v", err)
		}
	}
	s.config = config
	s.baseLRs = append([]float64(nil), baseLRs...)
	s.lastLR = append([]float64(nil), lastLR...)
	s.lastEpoch, s.stepCount = lastEpoch, stepCount
	return nil
}

func toInt(v any) (int, error) {
	f, ok := toFloat(v)
	if !ok || f != math.Trunc(f) {
		return 0, fmt.Errorf("want an integer, got %v", v)
	}
	return int(f), nil
}

// StepLR decays each group's learning rate by gamma every stepSize epochs
// (torch.optim.lr_scheduler.StepLR). It panics on invalid arguments;
// TryStepLR returns the error.
//
// Options: WithGamma (0.1), WithLastEpoch (-1).
func StepLR(opt Optimizer, stepSize int, opts ...Option) *LRScheduler {
	return must(TryStepLR(opt, stepSize, opts...))
}

// TryStepLR is StepLR that returns its error.
func TryStepLR(opt Optimizer, stepSize int, opts ...Option) (*LRScheduler, error) {
	set := readOptions("optim.StepLR", opts, "gamma", "last_epoch")
	if set.err != nil {
		return nil, set.err
	}
	if stepSize <= 0 {
		return nil, fmt.Errorf("optim.StepLR: step_size must be positive, got %d", stepSize)
	}
	gamma := set.float("gamma", 0.1)
	s, err := newScheduler("StepLR", opt, set.int("last_epoch", -1))
	if err != nil {
		return nil, err
	}
	s.config = map[string]any{"step_size": stepSize, "gamma": gamma}
	s.loadable = map[string]int{"step_size": cfgPosInt, "gamma": cfgFloat}
	s.getLR = func() ([]float64, error) {
		if s.lastEpoch == 0 || s.lastEpoch%s.i("step_size") != 0 {
			return s.currentLRs(), nil
		}
		gamma := s.f("gamma")
		return s.mapLRs(func(_ int, lr float64) float64 { return lr * gamma }), nil
	}
	s.closedForm = func() []float64 {
		out := make([]float64, len(s.baseLRs))
		for i, b := range s.baseLRs {
			out[i] = b * math.Pow(s.f("gamma"), float64(floorDiv(s.lastEpoch, s.i("step_size"))))
		}
		return out
	}
	return s.start()
}

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// MultiStepLR decays each group's learning rate by gamma when the epoch
// reaches one of the milestones; a milestone given twice decays by gamma²
// (torch.optim.lr_scheduler.MultiStepLR). It panics on invalid arguments;
// TryMultiStepLR returns the error.
//
// Options: WithGamma (0.1), WithLastEpoch (-1).
func MultiStepLR(opt Optimizer, milestones []int, opts ...Option) *LRScheduler {
	return must(TryMultiStepLR(opt, milestones, opts...))
}

// TryMultiStepLR is MultiStepLR that returns its error.
func TryMultiStepLR(opt Optimizer, milestones []int, opts ...Option) (*LRScheduler, error) {
	set := readOptions("optim.MultiStepLR", opts, "gamma", "last_epoch")
	if set.err != nil {
		return nil, set.err
	}
	gamma := set.float("gamma", 0.1)
	sorted := append([]int(nil), milestones...)
	sort.Ints(sorted)
	s, err := newScheduler("MultiStepLR", opt, set.int("last_epoch", -1))
	if err != nil {
		return nil, err
	}
	s.config = map[string]any{"milestones": sorted, "gamma": gamma}
	s.loadable = map[string]int{"milestones": cfgInts, "gamma": cfgFloat}
	count := func(epoch int) int {
		n := 0
		for _, m := range s.config["milestones"].([]int) {
			if m == epoch {
				n++
			}
		}
		return n
	}
	s.getLR = func() ([]float64, error) {
		n := count(s.lastEpoch)
		if n == 0 {
			return s.currentLRs(), nil
		}
		k := math.Pow(s.f("gamma"), float64(n))
		return s.mapLRs(func(_ int, lr float64) float64 { return lr * k }), nil
	}
	s.closedForm = func() []float64 {
		n := sort.SearchInts(s.config["milestones"].([]int), s.lastEpoch+1) // bisect_right
		out := make([]float64, len(s.baseLRs))
		for i, b := range s.baseLRs {
			out[i] = b * math.Pow(s.f("gamma"), float64(n))
		}
		return out
	}
	return s.start()
}

// ExponentialLR decays each group's learning rate by gamma every epoch
// (torch.optim.lr_scheduler.ExponentialLR). It panics on invalid
// arguments; TryExponentialLR returns the error.
//
// Options: WithLastEpoch (-1).
func ExponentialLR(opt Optimizer, gamma float64, opts ...Option) *LRScheduler {
	return must(TryExponentialLR(opt, gamma, opts...))
}

// TryExponentialLR is ExponentialLR that returns its error.
func TryExponentialLR(opt Optimizer, gamma float64, opts ...Option) (*LRScheduler, error) {
	set := readOptions("optim.ExponentialLR", opts, "last_epoch")
	if set.err != nil {
		return nil, set.err
	}
	s, err := newScheduler("ExponentialLR", opt, set.int("last_epoch", -1))
	if err != nil {
		return nil, err
	}
	s.config = map[string]any{"gamma": gamma}
	s.loadable = map[string]int{"gamma": cfgFloat}
	s.getLR = func() ([]float64, error) {
		if s.lastEpoch == 0 {
			return s.currentLRs(), nil
		}
		gamma := s.f("gamma")
		return s.mapLRs(func(_ int, lr float64) float64 { return lr * gamma }), nil
	}
	s.closedForm = func() []float64 {
		out := make([]float64, len(s.baseLRs))
		for i, b := range s.baseLRs {
			out[i] = b * math.Pow(s.f("gamma"), float64(s.lastEpoch))
		}
		return out
	}
	return s.start()
}

// CosineAnnealingLR anneals each group's learning rate from its initial
// value to etaMin along a cosine over tMax epochs, and back up over the
// next tMax (torch.optim.lr_scheduler.CosineAnnealingLR). Like PyTorch it
// uses the recursive (chainable) form, step by step, so its values are
// PyTorch's to the last bit rather than the closed form's. It panics on
// invalid arguments; TryCosineAnnealingLR returns the error.
//
// Options: WithEtaMin (0), WithLastEpoch (-1).
func CosineAnnealingLR(opt Optimizer, tMax int, opts ...Option) *LRScheduler {
	return must(TryCosineAnnealingLR(opt, tMax, opts...))
}

// TryCosineAnnealingLR is CosineAnnealingLR that returns its error.
func TryCosineAnnealingLR(opt Optimizer, tMax int, opts ...Option) (*LRScheduler, error) {
	set := readOptions("optim.CosineAnnealingLR", opts, "eta_min", "last_epoch")
	if set.err != nil {
		return nil, set.err
	}
	if tMax <= 0 {
		return nil, fmt.Errorf("optim.CosineAnnealingLR: T_max must be positive, got %d", tMax)
	}
	etaMin := set.float("eta_min", 0)
	s, err := newScheduler("CosineAnnealingLR", opt, set.int("last_epoch", -1))
	if err != nil {
		return nil, err
	}
	s.config = map[string]any{"T_max": tMax, "eta_min": etaMin}
	s.loadable = map[string]int{"T_max": cfgPosInt, "eta_min": cfgFloat}
	s.getLR = func() ([]float64, error) {
		tMax, etaMin := s.i("T_max"), s.f("eta_min")
		e, T := float64(s.lastEpoch), float64(tMax)
		switch {
		case s.lastEpoch == 0:
			return s.currentLRs(), nil
		case s.stepCount == 1 && s.lastEpoch > 0:
			return s.mapLRs(func(i int, _ float64) float64 {
				return etaMin + (s.baseLRs[i]-etaMin)*(1+math.Cos(e*math.Pi/T))/2
			}), nil
		case (s.lastEpoch-1-tMax)%(2*tMax) == 0:
			return s.mapLRs(func(i int, lr float64) float64 {
				return lr + (s.baseLRs[i]-etaMin)*(1-math.Cos(math.Pi/T))/2
			}), nil
		}
		return s.mapLRs(func(_ int, lr float64) float64 {
			return (1+math.Cos(math.Pi*e/T))/(1+math.Cos(math.Pi*(e-1)/T))*(lr-etaMin) + etaMin
		}), nil
	}
	s.closedForm = func() []float64 {
		etaMin := s.f("eta_min")
		e, T := float64(s.lastEpoch), float64(s.i("T_max"))
		out := make([]float64, len(s.baseLRs))
		for i, b := range s.baseLRs {
			out[i] = etaMin + (b-etaMin)*(1+math.Cos(math.Pi*e/T))/2
		}
		return out
	}
	return s.start()
}

// LinearLR multiplies each group's learning rate by a factor that goes
// linearly from startFactor to endFactor over totalIters epochs, a linear
// warm-up by default (torch.optim.lr_scheduler.LinearLR). It panics on
// invalid arguments; TryLinearLR returns the error.
//
// Options: WithStartFactor (1/3), WithEndFactor (1), WithTotalIters (5),
// WithLastEpoch (-1).
func LinearLR(opt Optimizer, opts ...Option) *LRScheduler {
	return must(TryLinearLR(opt, opts...))
}

// TryLinearLR is LinearLR that returns its error.
func TryLinearLR(opt Optimizer, opts ...Option) (*LRScheduler, error) {
	set := readOptions("optim.LinearLR", opts, "start_factor", "end_factor", "total_iters", "last_epoch")
	if set.err != nil {
		return nil, set.err
	}
	start := set.float("start_factor", 1.0/3)
	end := set.float("end_factor", 1.0)
	total := set.int("total_iters", 5)
	// PyTorch 1.13 accepts a start factor of 0 and then divides by zero
	// on the second step; 2.x rejects it, as this does.
	if !(start > 0 && start <= 1) {
		return nil, fmt.Errorf("optim.LinearLR: starting multiplicative factor expected to be greater than 0 and less or equal to 1, got %v", start)
	}
	if !(end >= 0 && end <= 1) {
		return nil, fmt.Errorf("optim.LinearLR: ending multiplicative factor expected to be between 0 and 1, got %v", end)
	}
	if total <= 0 {
		return nil, fmt.Errorf("optim.LinearLR: total_iters must be positive, got %d", total)
	}
	s, err := newScheduler("LinearLR", opt, set.int("last_epoch", -1))
	if err != nil {
		return nil, err
	}
	s.config = map[string]any{"start_factor": start, "end_factor": end, "total_iters": total}
	s.loadable = map[string]int{"start_factor": cfgFloat, "end_factor": cfgFloat, "total_iters": cfgPosInt}
	s.validate = func(cfg map[string]any) error {
		if f := cfg["start_factor"].(float64); !(f > 0 && f <= 1) {
			return fmt.Errorf("start_factor %v not in (0, 1]", f)
		}
		if f := cfg["end_factor"].(float64); !(f >= 0 && f <= 1) {
			return fmt.Errorf("end_factor %v not in [0, 1]", f)
		}
		return nil
	}
	s.getLR = func() ([]float64, error) {
		start, end, total := s.f("start_factor"), s.f("end_factor"), s.i("total_iters")
		if s.lastEpoch == 0 {
			return s.mapLRs(func(_ int, lr float64) float64 { return lr * start }), nil
		}
		if s.lastEpoch > total {
			return s.currentLRs(), nil
		}
		return s.mapLRs(func(_ int, lr float64) float64 {
			return lr * (1 + (end-start)/(float64(total)*start+float64(s.lastEpoch-1)*(end-start)))
		}), nil
	}
	s.closedForm = func() []float64 {
		start, end, total := s.f("start_factor"), s.f("end_factor"), s.i("total_iters")
		out := make([]float64, len(s.baseLRs))
		for i, b := range s.baseLRs {
			out[i] = b * (start + (end-start)*float64(min(total, s.lastEpoch))/float64(total))
		}
		return out
	}
	return s.start()
}

// ConstantLR multiplies each group's learning rate by factor until epoch
// totalIters (torch.optim.lr_scheduler.ConstantLR). It panics on invalid
// arguments; TryConstantLR returns the error.
//
// Options: WithFactor (1/3), WithTotalIters (5), WithLastEpoch (-1).
func ConstantLR(opt Optimizer, opts ...Option) *LRScheduler {
	return must(TryConstantLR(opt, opts...))
}

// TryConstantLR is ConstantLR that returns its error.
func TryConstantLR(opt Optimizer, opts ...Option) (*LRScheduler, error) {
	set := readOptions("optim.ConstantLR", opts, "factor", "total_iters", "last_epoch")
	if set.err != nil {
		return nil, set.err
	}
	factor := set.float("factor", 1.0/3)
	total := set.int("total_iters", 5)
	if !(factor >= 0 && factor <= 1) {
		return nil, fmt.Errorf("optim.ConstantLR: constant multiplicative factor expected to be between 0 and 1, got %v", factor)
	}
	s, err := newScheduler("ConstantLR", opt, set.int("last_epoch", -1))
	if err != nil {
		return nil, err
	}
	s.config = map[string]any{"factor": factor, "total_iters": total}
	s.loadable = map[string]int{"factor": cfgFloat, "total_iters": cfgInt}
	s.validate = func(cfg map[string]any) error {
		if f := cfg["factor"].(float64); !(f >= 0 && f <= 1) {
			return fmt.Errorf("factor %v not in [0, 1]", f)
		}
		return nil
	}
	s.getLR = func() ([]float64, error) {
		factor, total := s.f("factor"), s.i("total_iters")
		switch {
		case s.lastEpoch == 0:
			return s.mapLRs(func(_ int, lr float64) float64 { return lr * factor }), nil
		case s.lastEpoch != total:
			return s.currentLRs(), nil
		}
		return s.mapLRs(func(_ int, lr float64) float64 { return lr * (1.0 / factor) }), nil
	}
	s.closedForm = func() []float64 {
		factor, total := s.f("factor"), s.i("total_iters")
		out := make([]float64, len(s.baseLRs))
		for i, b := range s.baseLRs {
			k := 0.0
			if s.lastEpoch >= total {
				k = 1
			}
			out[i] = b * (factor + k*(1-factor))
		}
		return out
	}
	return s.start()
}

// LambdaLR sets each group's learning rate to its initial value times
// lrLambda(epoch) (torch.optim.lr_scheduler.LambdaLR). It panics on invalid
// arguments; TryLambdaLR returns the error.
//
// Options: WithLastEpoch (-1).
func LambdaLR(opt Optimizer, lrLambda func(epoch int) float64, opts ...Option) *LRScheduler {
	return must(TryLambdaLR(opt, lrLambda, opts...))
}

// TryLambdaLR is LambdaLR that returns its error.
func TryLambdaLR(opt Optimizer, lrLambda func(epoch int) float64, opts ...Option) (*LRScheduler, error) {
	set := readOptions("optim.LambdaLR", opts, "last_epoch")
	if set.err != nil {
		return nil, set.err
	}
	if lrLambda == nil {
		return nil, errors.New("optim.LambdaLR: nil lr_lambda")
	}
	s, err := newScheduler("LambdaLR", opt, set.int("last_epoch", -1))
	if err != nil {
		return nil, err
	}
	s.getLR = func() ([]float64, error) {
		out := make([]float64, len(s.baseLRs))
		for i, b := range s.baseLRs {
			out[i] = b * lrLambda(s.lastEpoch)
		}
		return out, nil
	}
	return s.start()
}

// MaxLR is OneCycleLR's max_lr: one value for every group, or one per
// group.
type MaxLR interface{ float64 | []float64 }

// OneCycleLR is the 1cycle policy: each group's learning rate rises from
// maxLR/div_factor to maxLR over the first pct_start of totalSteps steps,
// then falls to maxLR/div_factor/final_div_factor, while the momentum (or
// Adam's beta1) cycles the other way between max_momentum and
// base_momentum (torch.optim.lr_scheduler.OneCycleLR). Step it after every
// batch; stepping more than totalSteps times is an error. It panics on
// invalid arguments; TryOneCycleLR returns the error.
//
// Options: WithPctStart (0.3), WithAnnealStrategy ("cos"),
// WithCycleMomentum (true), WithBaseMomentum (0.85), WithMaxMomentum
// (0.95), WithDivFactor (25), WithFinalDivFactor (1e4), WithThreePhase
// (false), WithLastEpoch (-1).
func OneCycleLR[F MaxLR](opt Optimizer, maxLR F, totalSteps int, opts ...Option) *LRScheduler {
	return must(TryOneCycleLR(opt, maxLR, totalSteps, opts...))
}

// TryOneCycleLR is OneCycleLR that returns its error.
func TryOneCycleLR[F MaxLR](opt Optimizer, maxLR F, totalSteps int, opts ...Option) (*LRScheduler, error) {
	const who = "optim.OneCycleLR"
	set := readOptions(who, opts, "pct_start", "anneal_strategy", "cycle_momentum", "base_momentum",
		"max_momentum", "div_factor", "final_div_factor", "three_phase", "last_epoch")
	if set.err != nil {
		return nil, set.err
	}
	if opt == nil {
		return nil, errors.New(who + ": nil optimizer")
	}
	if totalSteps <= 0 {
		return nil, fmt.Errorf("%s: expected positive integer total_steps, but got %d", who, totalSteps)
	}
	pctStart := set.float("pct_start", 0.3)
	if !(pctStart >= 0 && pctStart <= 1) {
		return nil, fmt.Errorf("%s: expected float between 0 and 1 pct_start, but got %v", who, pctStart)
	}
	strategy := set.string("anneal_strategy", "cos")
	var anneal func(start, end, pct float64) float64
	switch strategy {
	case "cos":
		anneal = func(start, end, pct float64) float64 {
			cosOut := math.Cos(math.Pi*pct) + 1
			return end + (start-end)/2.0*cosOut
		}
	case "linear":
		anneal = func(start, end, pct float64) float64 { return (end-start)*pct + start }
	default:
		return nil, fmt.Errorf("%s: anneal_strategy must by one of 'cos' or 'linear', instead got %s", who, strategy)
	}
	groups := opt.ParamGroups()
	perGroup := func(name string, v []float64) ([]float64, error) {
		if len(v) == 1 {
			out := make([]float64, len(groups))
			for i := range out {
				out[i] = v[0]
			}
			return out, nil
		}
		if len(v) != len(groups) {
			return nil, fmt.Errorf("%s: expected %d values for %s, got %d", who, len(groups), name, len(v))
		}
		return v, nil
	}
	var maxLRs []float64
	switch v := any(maxLR).(type) {
	case float64:
		maxLRs = []float64{v}
	case []float64:
		maxLRs = v
	}
	maxLRs, err := perGroup("max_lr", maxLRs)
	if err != nil {
		return nil, err
	}
	divFactor := set.float("div_factor", 25)
	finalDivFactor := set.float("final_div_factor", 1e4)
	threePhase := set.bool("three_phase", false)
	lastEpoch := set.int("last_epoch", -1)

	type phase struct {
		endStep                      float64
		startLR, endLR, startM, endM string
	}
	total := float64(totalSteps)
	var phases []phase
	if threePhase {
		phases = []phase{
			{pctStart*total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
			{2*pctStart*total - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"},
			{total - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"},
		}
	} else {
		phases = []phase{
			{pctStart*total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
			{total - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"},
		}
	}

	cycleMomentum := set.bool("cycle_momentum", true)
	useBeta1 := false
	var maxMs, baseMs []float64
	if cycleMomentum {
		_, hasBetas := groups[0].Get("betas")
		_, hasMomentum := groups[0].Get("momentum")
		if !hasBetas && !hasMomentum {
			return nil, errors.New(who + ": optimizer must support momentum with `cycle_momentum` option enabled")
		}
		useBeta1 = hasBetas
		if maxMs, err = perGroup("max_momentum", set.floats("max_momentum", []float64{0.95})); err != nil {
			return nil, err
		}
		if baseMs, err = perGroup("base_momentum", set.floats("base_momentum", []float64{0.85})); err != nil {
			return nil, err
		}
		if useBeta1 {
			for i, g := range groups {
				v, _ := g.Get("betas")
				if b, err := toFloats(v); err != nil || len(b) < 1 {
					return nil, fmt.Errorf("%s: param_groups[%d]: betas: want numbers, got %v", who, i, v)
				}
			}
		}
	}
	if lastEpoch == -1 {
		for i, g := range groups {
			initial := maxLRs[i] / divFactor
			g.Set("initial_lr", initial)
			g.Set("max_lr", maxLRs[i])
			g.Set("min_lr", initial/finalDivFactor)
		}
		if cycleMomentum {
			for i, g := range groups {
				if useBeta1 {
					setBeta1(g, maxMs[i])
				} else {
					g.Set("momentum", maxMs[i])
				}
				g.Set("max_momentum", maxMs[i])
				g.Set("base_momentum", baseMs[i])
			}
		}
	}
	s, err := newScheduler("OneCycleLR", opt, lastEpoch)
	if err != nil {
		return nil, err
	}
	s.getLR = func() ([]float64, error) {
		stepNum := float64(s.lastEpoch)
		if s.lastEpoch > totalSteps {
			return nil, fmt.Errorf("%s: tried to step %d times. The specified number of total steps is %d", who, s.lastEpoch+1, totalSteps)
		}
		groups := s.opt.ParamGroups()
		lrs := make([]float64, len(groups))
		moms := make([]float64, len(groups))
		for gi, g := range groups {
			get := func(key string) (float64, error) {
				v, ok := g.Float(key)
				if !ok {
					return 0, fmt.Errorf("%s: param_groups[%d] has no %s", who, gi, key)
				}
				return v, nil
			}
			startStep := 0.0
			for i, ph := range phases {
				if stepNum <= ph.endStep || i == len(phases)-1 {
					pct := (stepNum - startStep) / (ph.endStep - startStep)
					a, err := get(ph.startLR)
					if err != nil {
						return nil, err
					}
					b, err := get(ph.endLR)
					if err != nil {
						return nil, err
					}
					lrs[gi] = anneal(a, b, pct)
					if cycleMomentum {
						a, err := get(ph.startM)
						if err != nil {
							return nil, err
						}
						b, err := get(ph.endM)
						if err != nil {
							return nil, err
						}
						moms[gi] = anneal(a, b, pct)
					}
					break
				}
				startStep = ph.endStep
			}
		}
		if cycleMomentum {
			for gi, g := range groups {
				if useBeta1 {
					setBeta1(g, moms[gi])
				} else {
					g.Set("momentum", moms[gi])
				}
			}
		}
		return lrs, nil
	}
	s.config = map[string]any{
		"total_steps": totalSteps, "cycle_momentum": cycleMomentum, "use_beta1": useBeta1,
		"anneal_strategy": strategy, "pct_start": pctStart, "three_phase": threePhase,
	}
	return s.start()
}

// setBeta1 replaces the first of a group's betas.
func setBeta1(g *Group, beta1 float64) {
	v, _ := g.Get("betas")
	old, _ := toFloats(v)
	b := append([]float64{beta1}, old[min(1, len(old)):]...)
	g.Set("betas", b)
}
