package optim

import (
	"errors"
	"fmt"
	"math"
)

// PolynomialLR decays each group's learning rate to 0 along (1 -
// epoch/totalIters)^power over totalIters epochs
// (torch.optim.lr_scheduler.PolynomialLR). It panics on invalid
// arguments; TryPolynomialLR returns the error.
//
// Options: WithTotalIters (5), WithPower (1), WithLastEpoch (-1).
func PolynomialLR(opt Optimizer, opts ...Option) *LRScheduler {
	return must(TryPolynomialLR(opt, opts...))
}

// TryPolynomialLR is PolynomialLR that returns its error.
func TryPolynomialLR(opt Optimizer, opts ...Option) (*LRScheduler, error) {
	set := readOptions("optim.PolynomialLR", opts, "total_iters", "power", "last_epoch")
	if set.err != nil {
		return nil, set.err
	}
	total := set.int("total_iters", 5)
	// PyTorch 1.13 divides by zero on the first step.
	if total <= 0 {
		return nil, fmt.Errorf("optim.PolynomialLR: total_iters must be positive, got %d", total)
	}
	s, err := newScheduler("PolynomialLR", opt, set.int("last_epoch", -1))
	if err != nil {
		return nil, err
	}
	s.config = map[string]any{"total_iters": total, "power": set.float("power", 1.0)}
	s.loadable = map[string]int{"total_iters": cfgPosInt, "power": cfgFloat}
	s.getLR = func() ([]float64, error) {
		total, power := float64(s.i("total_iters")), s.f("power")
		e := float64(s.lastEpoch)
		if s.lastEpoch == 0 || e > total {
			return s.currentLRs(), nil
		}
		decay := math.Pow((1.0-e/total)/(1.0-(e-1)/total), power)
		return s.mapLRs(func(_ int, lr float64) float64 { return lr * decay }), nil
	}
	s.closedForm = func() []float64 {
		total, power := float64(s.i("total_iters")), s.f("power")
		out := make([]float64, len(s.baseLRs))
		for i, b := range s.baseLRs {
			out[i] = b * math.Pow(1.0-math.Min(total, float64(s.lastEpoch))/total, power)
		}
		return out
	}
	return s.start()
}

// CyclicLR cycles each group's learning rate between baseLR and maxLR
// (one value, or one per group), rising over step_size_up batches and
// falling over step_size_down, while the momentum cycles the other way
// between max_momentum and base_momentum
// (torch.optim.lr_scheduler.CyclicLR). Step it after every batch. Like
// PyTorch it sets the groups' lr to baseLR (and their momentum to
// base_momentum) when it starts. It panics on invalid arguments;
// TryCyclicLR returns the error.
//
// Options: WithStepSizeUp (2000), WithStepSizeDown (step_size_up),
// WithMode ("triangular", "triangular2" or "exp_range"), WithGamma (1,
// for exp_range), WithScaleFn and WithScaleMode ("cycle"), in place of a
// mode), WithCycleMomentum (true; the optimizer must have a momentum),
// WithBaseMomentum (0.8), WithMaxMomentum (0.9), WithLastEpoch (-1).
func CyclicLR[B, M MaxLR](opt Optimizer, baseLR B, maxLR M, opts ...Option) *LRScheduler {
	return must(TryCyclicLR(opt, baseLR, maxLR, opts...))
}

// TryCyclicLR is CyclicLR that returns its error.
func TryCyclicLR[B, M MaxLR](opt Optimizer, baseLR B, maxLR M, opts ...Option) (*LRScheduler, error) {
	const who = "optim.CyclicLR"
	set := readOptions(who, opts, "step_size_up", "step_size_down", "mode", "gamma", "scale_fn",
		"scale_mode", "cycle_momentum", "base_momentum", "max_momentum", "last_epoch")
	if set.err != nil {
		return nil, set.err
	}
	if opt == nil {
		return nil, errors.New(who + ": nil optimizer")
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
		return append([]float64(nil), v...), nil
	}
	asList := func(v any) []float64 {
		switch x := v.(type) {
		case float64:
			return []float64{x}
		case []float64:
			return x
		}
		return nil
	}
	baseLRs, err := perGroup("base_lr", asList(baseLR))
	if err != nil {
		return nil, err
	}
	maxLRs, err := perGroup("max_lr", asList(maxLR))
	if err != nil {
		return nil, err
	}
	up := float64(set.int("step_size_up", 2000))
	down := up
	if _, ok := set.vals["step_size_down"]; ok {
		down = float64(set.int("step_size_down", 0))
	}
	if up < 0 || down < 0 || up+down <= 0 {
		return nil, fmt.Errorf("%s: step_size_up and step_size_down must be non-negative with a positive sum, got %v and %v", who, up, down)
	}
	totalSize := up + down
	stepRatio := up / totalSize
	gamma := set.float("gamma", 1.0)
	mode := set.string("mode", "triangular")
	var scaleFn func(x float64) float64
	scaleMode := "cycle"
	if f, ok := set.vals["scale_fn"]; ok {
		scaleFn = f.(func(float64) float64)
		if scaleFn == nil {
			return nil, errors.New(who + ": nil scale_fn")
		}
		scaleMode = set.string("scale_mode", "cycle")
		if scaleMode != "cycle" && scaleMode != "iterations" {
			return nil, fmt.Errorf("%s: scale_mode must be 'cycle' or 'iterations', got %q", who, scaleMode)
		}
	} else {
		switch mode {
		case "triangular":
			scaleFn = func(float64) float64 { return 1 }
		case "triangular2":
			scaleFn = func(x float64) float64 { return 1 / math.Pow(2, x-1) }
		case "exp_range":
			scaleFn = func(x float64) float64 { return math.Pow(gamma, x) }
			scaleMode = "iterations"
		default:
			return nil, fmt.Errorf("%s: mode is invalid and scale_fn is None", who)
		}
	}
	lastEpoch := set.int("last_epoch", -1)
	if lastEpoch == -1 {
		for i, g := range groups {
			g.SetLR(baseLRs[i])
		}
	}
	cycleMomentum := set.bool("cycle_momentum", true)
	var baseMs, maxMs []float64
	if cycleMomentum {
		if len(groups) == 0 {
			return nil, errors.New(who + ": optimizer has no parameter groups")
		}
		if _, ok := groups[0].Get("momentum"); !ok {
			return nil, errors.New(who + ": optimizer must support momentum with `cycle_momentum` option enabled")
		}
		bm, err := perGroup("base_momentum", set.floats("base_momentum", []float64{0.8}))
		if err != nil {
			return nil, err
		}
		if lastEpoch == -1 {
			for i, g := range groups {
				g.Set("momentum", bm[i])
			}
		}
		for i, g := range groups {
			m, ok := g.Float("momentum")
			if !ok {
				return nil, fmt.Errorf("%s: param_groups[%d] has no momentum", who, i)
			}
			baseMs = append(baseMs, m)
		}
		if maxMs, err = perGroup("max_momentum", set.floats("max_momentum", []float64{0.9})); err != nil {
			return nil, err
		}
	}
	s, err := newScheduler("CyclicLR", opt, lastEpoch)
	if err != nil {
		return nil, err
	}
	s.config = map[string]any{
		"max_lrs": maxLRs, "total_size": totalSize, "step_ratio": stepRatio,
		"mode": mode, "gamma": gamma, "scale_mode": scaleMode, "cycle_momentum": cycleMomentum,
	}
	if cycleMomentum {
		s.config["base_momentums"] = baseMs
		s.config["max_momentums"] = maxMs
	}
	s.getLR = func() ([]float64, error) {
		e := float64(s.lastEpoch)
		cycle := math.Floor(1 + e/totalSize)
		x := 1 + e/totalSize - cycle
		var scale float64
		if x <= stepRatio {
			scale = x / stepRatio
		} else {
			scale = (x - 1) / (stepRatio - 1)
		}
		arg := cycle
		if scaleMode != "cycle" {
			arg = e
		}
		lrs := make([]float64, len(s.baseLRs))
		for i, b := range s.baseLRs {
			lrs[i] = b + (maxLRs[i]-b)*scale*scaleFn(arg)
		}
		if cycleMomentum {
			for i, g := range groups {
				g.Set("momentum", maxMs[i]-(maxMs[i]-baseMs[i])*scale*scaleFn(arg))
			}
		}
		return lrs, nil
	}
	if _, err := s.start(); err != nil {
		return nil, err
	}
	// PyTorch's first step uses the initial_lr bases, then takes baseLR's.
	s.baseLRs = baseLRs
	return s, nil
}

// ReduceLROnPlateauScheduler lowers the learning rate when a metric stops
// improving. Unlike the other schedulers it steps on a metric:
// Step(validationLoss).
type ReduceLROnPlateauScheduler struct {
	opt           Optimizer
	mode          string
	thresholdMode string
	factor        float64
	threshold     float64
	eps           float64
	minLRs        []float64
	patience      int
	cooldown      int

	best            float64
	numBadEpochs    int
	cooldownCounter int
	lastEpoch       int
	lastLR          []float64
}

// ReduceLROnPlateau multiplies each group's learning rate by factor (0.1)
// once the metric passed to Step has not improved for more than patience
// steps (torch.optim.lr_scheduler.ReduceLROnPlateau). It panics on invalid
// arguments; TryReduceLROnPlateau returns the error.
//
// Options: WithMode ("min": lower is better, or "max"), WithFactor (0.1),
// WithPatience (10), WithThreshold (1e-4), WithThresholdMode ("rel" or
// "abs"), WithCooldown (0), WithMinLR (0: one value, or one per group),
// WithEps (1e-8: smaller changes of the learning rate are skipped).
func ReduceLROnPlateau(opt Optimizer, opts ...Option) *ReduceLROnPlateauScheduler {
	return must(TryReduceLROnPlateau(opt, opts...))
}

// TryReduceLROnPlateau is ReduceLROnPlateau that returns its error.
func TryReduceLROnPlateau(opt Optimizer, opts ...Option) (*ReduceLROnPlateauScheduler, error) {
	const who = "optim.ReduceLROnPlateau"
	set := readOptions(who, opts, "mode", "factor", "patience", "threshold", "threshold_mode",
		"cooldown", "min_lr", "eps")
	if set.err != nil {
		return nil, set.err
	}
	if opt == nil {
		return nil, errors.New(who + ": nil optimizer")
	}
	s := &ReduceLROnPlateauScheduler{
		opt:           opt,
		mode:          set.string("mode", "min"),
		thresholdMode: set.string("threshold_mode", "rel"),
		factor:        set.float("factor", 0.1),
		threshold:     set.float("threshold", 1e-4),
		eps:           set.float("eps", 1e-8),
		patience:      set.int("patience", 10),
		cooldown:      set.int("cooldown", 0),
	}
	if !(s.factor < 1.0) {
		return nil, errors.New(who + ": Factor should be < 1.0.")
	}
	if s.patience < 0 || s.cooldown < 0 {
		return nil, fmt.Errorf("%s: patience and cooldown must be non-negative, got %d and %d", who, s.patience, s.cooldown)
	}
	groups := opt.ParamGroups()
	minLRs := set.floats("min_lr", []float64{0})
	switch {
	case len(minLRs) == 1:
		for range groups {
			s.minLRs = append(s.minLRs, minLRs[0])
		}
	case len(minLRs) == len(groups):
		s.minLRs = append([]float64(nil), minLRs...)
	default:
		return nil, fmt.Errorf("%s: expected %d min_lrs, got %d", who, len(groups), len(minLRs))
	}
	if err := s.initIsBetter(); err != nil {
		return nil, fmt.Errorf("%s: %w", who, err)
	}
	s.reset()
	return s, nil
}

func (s *ReduceLROnPlateauScheduler) initIsBetter() error {
	if s.mode != "min" && s.mode != "max" {
		return fmt.Errorf("mode %s is unknown!", s.mode)
	}
	if s.thresholdMode != "rel" && s.thresholdMode != "abs" {
		return fmt.Errorf("threshold mode %s is unknown!", s.thresholdMode)
	}
	return nil
}

func (s *ReduceLROnPlateauScheduler) worse() float64 {
	if s.mode == "min" {
		return math.Inf(1)
	}
	return math.Inf(-1)
}

func (s *ReduceLROnPlateauScheduler) reset() {
	s.best = s.worse()
	s.cooldownCounter = 0
	s.numBadEpochs = 0
}

func (s *ReduceLROnPlateauScheduler) isBetter(a float64) bool {
	switch {
	case s.mode == "min" && s.thresholdMode == "rel":
		return a < s.best*(1.0-s.threshold)
	case s.mode == "min":
		return a < s.best-s.threshold
	case s.thresholdMode == "rel":
		return a > s.best*(s.threshold+1.0)
	}
	return a > s.best+s.threshold
}

// Step records the metric of one epoch and lowers the learning rates if
// it has not improved for more than patience epochs.
func (s *ReduceLROnPlateauScheduler) Step(metric float64) {
	s.lastEpoch++
	if s.isBetter(metric) {
		s.best = metric
		s.numBadEpochs = 0
	} else {
		s.numBadEpochs++
	}
	if s.cooldownCounter > 0 {
		s.cooldownCounter--
		s.numBadEpochs = 0
	}
	if s.numBadEpochs > s.patience {
		for i, g := range s.opt.ParamGroups() {
			old := g.LR()
			lr := math.Max(old*s.factor, s.minLRs[i])
			if old-lr > s.eps {
				g.SetLR(lr)
			}
		}
		s.cooldownCounter = s.cooldown
		s.numBadEpochs = 0
	}
	s.lastLR = groupLRs(s.opt.ParamGroups())
}

// LastLR returns the learning rates after the last Step (none before the
// first).
func (s *ReduceLROnPlateauScheduler) LastLR() []float64 { return append([]float64(nil), s.lastLR...) }

// LastEpoch returns the number of steps taken.
func (s *ReduceLROnPlateauScheduler) LastEpoch() int { return s.lastEpoch }

// Optimizer returns the optimizer the scheduler drives.
func (s *ReduceLROnPlateauScheduler) Optimizer() Optimizer { return s.opt }

// StateDict returns the scheduler's state with PyTorch's keys.
func (s *ReduceLROnPlateauScheduler) StateDict() map[string]any {
	sd := map[string]any{
		"mode": s.mode, "threshold_mode": s.thresholdMode, "factor": s.factor,
		"threshold": s.threshold, "eps": s.eps, "min_lrs": append([]float64(nil), s.minLRs...),
		"patience": s.patience, "cooldown": s.cooldown, "best": s.best,
		"num_bad_epochs": s.numBadEpochs, "cooldown_counter": s.cooldownCounter,
		"last_epoch": s.lastEpoch, "mode_worse": s.worse(),
	}
	if s.lastLR != nil {
		sd["_last_lr"] = append([]float64(nil), s.lastLR...)
	}
	return sd
}

// LoadStateDict restores a state from StateDict. Keys sd lacks keep their
// values; nothing changes on error.
func (s *ReduceLROnPlateauScheduler) LoadStateDict(sd map[string]any) error {
	c := *s
	fail := func(format string, args ...any) error {
		return fmt.Errorf("optim.ReduceLROnPlateau: load state dict: "+format, args...)
	}
	for k, v := range sd {
		var err error
		switch k {
		case "mode", "threshold_mode":
			str, ok := v.(string)
			if !ok {
				return fail("%s: want a string, got %T", k, v)
			}
			if k == "mode" {
				c.mode = str
			} else {
				c.thresholdMode = str
			}
		case "factor", "threshold", "eps", "best":
			f, ok := toFloat(v)
			if !ok {
				return fail("%s: want a number, got %T", k, v)
			}
			switch k {
			case "factor":
				c.factor = f
			case "threshold":
				c.threshold = f
			case "eps":
				c.eps = f
			default:
				c.best = f
			}
		case "patience", "cooldown", "num_bad_epochs", "cooldown_counter", "last_epoch":
			n, e := toInt(v)
			if e != nil {
				return fail("%s: %v", k, e)
			}
			switch k {
			case "patience":
				c.patience = n
			case "cooldown":
				c.cooldown = n
			case "num_bad_epochs":
				c.numBadEpochs = n
			case "cooldown_counter":
				c.cooldownCounter = n
			default:
				c.lastEpoch = n
			}
		case "min_lrs", "_last_lr":
			fs, e := toFloats(v)
			if e != nil {
				return fail("%s: %v", k, e)
			}
			if k == "min_lrs" {
				if len(fs) != len(s.minLRs) {
					return fail("min_lrs has %d values, the optimizer has %d groups", len(fs), len(s.minLRs))
				}
				c.minLRs = append([]float64(nil), fs...)
			} else {
				c.lastLR = append([]float64(nil), fs...)
			}
		case "mode_worse", "verbose":
			// Derived from mode, or not kept.
		default:
			err = fail("unexpected key %q", k)
		}
		if err != nil {
			return err
		}
	}
	if err := c.initIsBetter(); err != nil {
		return fail("%v", err)
	}
	if !(c.factor < 1.0) {
		return fail("factor %v not < 1", c.factor)
	}
	*s = c
	return nil
}
