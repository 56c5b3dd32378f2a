package optim

import (
	"errors"
	"fmt"
)

// SequentialLRScheduler runs schedulers one after another, switching at
// milestone epochs (torch.optim.lr_scheduler.SequentialLR).
type SequentialLRScheduler struct {
	opt        Optimizer
	schedulers []*LRScheduler
	milestones []int
	lastEpoch  int
	lastLR     []float64
}

// SequentialLR runs schedulers[0] until epoch milestones[0], then
// schedulers[1] from its start, and so on: a warm-up followed by a decay,
//
//	warm := optim.LinearLR(opt, optim.WithStartFactor(0.1), optim.WithTotalIters(5))
//	decay := optim.CosineAnnealingLR(opt, 95)
//	sched := optim.SequentialLR(opt, []optim.Scheduler{warm, decay}, []int{5})
//
// The schedulers must drive opt and be simple ones (not SequentialLR or
// ChainedScheduler); there must be one more of them than milestones, which
// must not decrease. It panics on invalid arguments; TrySequentialLR
// returns the error.
//
// Options: WithLastEpoch (-1).
func SequentialLR(opt Optimizer, schedulers []Scheduler, milestones []int, opts ...Option) *SequentialLRScheduler {
	return must(TrySequentialLR(opt, schedulers, milestones, opts...))
}

// TrySequentialLR is SequentialLR that returns its error.
func TrySequentialLR(opt Optimizer, schedulers []Scheduler, milestones []int, opts ...Option) (*SequentialLRScheduler, error) {
	const who = "optim.SequentialLR"
	set := readOptions(who, opts, "last_epoch")
	if set.err != nil {
		return nil, set.err
	}
	if opt == nil {
		return nil, errors.New(who + ": nil optimizer")
	}
	if len(schedulers) == 0 {
		return nil, errors.New(who + ": no schedulers")
	}
	scheds := make([]*LRScheduler, len(schedulers))
	for i, sc := range schedulers {
		s, ok := sc.(*LRScheduler)
		if !ok {
			return nil, fmt.Errorf("%s: scheduler %d is a %T; SequentialLR takes simple schedulers", who, i, sc)
		}
		if s.opt != opt {
			return nil, fmt.Errorf("%s: Sequential Schedulers expects all schedulers to belong to the same optimizer, but got schedulers at index %d to be different than the optimizer passed in", who, i)
		}
		scheds[i] = s
	}
	if len(milestones) != len(schedulers)-1 {
		return nil, fmt.Errorf("%s: Sequential Schedulers expects number of schedulers provided to be one more than the number of milestone points, but got number of schedulers %d and the number of milestones to be equal to %d", who, len(schedulers), len(milestones))
	}
	for i := 1; i < len(milestones); i++ {
		if milestones[i] < milestones[i-1] {
			return nil, fmt.Errorf("%s: milestones must not decrease, got %v", who, milestones)
		}
	}
	s := &SequentialLRScheduler{opt: opt, schedulers: scheds, milestones: append([]int(nil), milestones...)}
	s.lastEpoch = set.int("last_epoch", -1) + 1
	for i, g := range opt.ParamGroups() {
		lr, ok := g.Float("initial_lr")
		if !ok {
			return nil, fmt.Errorf("%s: param_groups[%d] has no initial_lr", who, i)
		}
		g.SetLR(lr)
	}
	for _, sc := range scheds {
		sc.lastEpoch--
	}
	if err := scheds[0].initialStep(); err != nil {
		return nil, err
	}
	s.lastLR = scheds[0].LastLR()
	return s, nil
}

// Step advances the schedule; it panics on failure.
func (s *SequentialLRScheduler) Step() {
	if err := s.TryStep(); err != nil {
		panic(err)
	}
}

// TryStep advances the schedule by one epoch: the scheduler whose turn it
// is steps, and a scheduler whose turn starts now restarts at epoch 0
// (from its closed form, as PyTorch's scheduler.step(0) does).
func (s *SequentialLRScheduler) TryStep() error {
	s.lastEpoch++
	idx := 0 // bisect_right(milestones, lastEpoch)
	for idx < len(s.milestones) && s.milestones[idx] <= s.lastEpoch {
		idx++
	}
	sc := s.schedulers[idx]
	var err error
	if idx > 0 && s.milestones[idx-1] == s.lastEpoch {
		zero := 0
		err = sc.step(&zero)
	} else {
		err = sc.step(nil)
	}
	if err != nil {
		s.lastEpoch--
		return err
	}
	s.lastLR = sc.LastLR()
	return nil
}

// LastLR returns the learning rates the last step set.
func (s *SequentialLRScheduler) LastLR() []float64 { return append([]float64(nil), s.lastLR...) }

// LastEpoch returns the index of the last epoch.
func (s *SequentialLRScheduler) LastEpoch() int { return s.lastEpoch }

// Optimizer returns the optimizer the scheduler drives.
func (s *SequentialLRScheduler) Optimizer() Optimizer { return s.opt }

// StateDict returns the state, with the schedulers' under "_schedulers".
func (s *SequentialLRScheduler) StateDict() map[string]any {
	subs := make([]map[string]any, len(s.schedulers))
	for i, sc := range s.schedulers {
		subs[i] = sc.StateDict()
	}
	return map[string]any{
		"last_epoch":  s.lastEpoch,
		"_milestones": append([]int(nil), s.milestones...),
		"_last_lr":    append([]float64(nil), s.lastLR...),
		"_schedulers": subs,
	}
}

// LoadStateDict restores a state from StateDict.
func (s *SequentialLRScheduler) LoadStateDict(sd map[string]any) error {
	return loadComposite("SequentialLR", sd, s.schedulers, func(lastEpoch int, lastLR []float64, milestones []int) error {
		if milestones != nil {
			if len(milestones) != len(s.milestones) {
				return fmt.Errorf("_milestones has %d values, want %d", len(milestones), len(s.milestones))
			}
			s.milestones = milestones
		}
		s.lastEpoch = lastEpoch
		s.lastLR = lastLR
		return nil
	}, s.lastEpoch, s.lastLR)
}

func loadComposite(name string, sd map[string]any, scheds []*LRScheduler, apply func(int, []float64, []int) error, lastEpoch int, lastLR []float64) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("optim.%s: load state dict: %s", name, fmt.Sprintf(format, args...))
	}
	var err error
	if v, ok := sd["last_epoch"]; ok {
		if lastEpoch, err = toInt(v); err != nil {
			return fail("last_epoch: %v", err)
		}
	}
	if v, ok := sd["_last_lr"]; ok {
		if lastLR, err = toFloats(v); err != nil {
			return fail("_last_lr: %v", err)
		}
	}
	var milestones []int
	if v, ok := sd["_milestones"]; ok {
		if milestones, err = toInts(v); err != nil {
			return fail("_milestones: %v", err)
		}
	}
	var subs []map[string]any
	switch v := sd["_schedulers"].(type) {
	case nil:
	case []map[string]any:
		subs = v
	case []any:
		for i, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				return fail("_schedulers[%d]: want a map, got %T", i, e)
			}
			subs = append(subs, m)
		}
	default:
		return fail("_schedulers: want a list of maps, got %T", v)
	}
	if subs != nil && len(subs) != len(scheds) {
		return fail("_schedulers has %d states, want %d", len(subs), len(scheds))
	}
	// Check every scheduler's state on copies before changing any.
	for i, sub := range subs {
		probe := *scheds[i]
		if err := probe.LoadStateDict(sub); err != nil {
			return fail("_schedulers[%d]: %v", i, err)
		}
	}
	if err := apply(lastEpoch, append([]float64(nil), lastLR...), milestones); err != nil {
		return fail("%v", err)
	}
	for i, sub := range subs {
		if err := scheds[i].LoadStateDict(sub); err != nil {
			return fail("_schedulers[%d]: %v", i, err)
		}
	}
	return nil
}

// ChainedLRScheduler steps several schedulers at once
// (torch.optim.lr_scheduler.ChainedScheduler).
type ChainedLRScheduler struct {
	schedulers []Scheduler
	lastLR     []float64
}

// ChainedScheduler returns a scheduler whose Step steps each of
// schedulers in turn; with chainable schedulers their effects multiply.
// They must all drive the same optimizer. It panics on invalid arguments;
// TryChainedScheduler returns the error.
func ChainedScheduler(schedulers ...Scheduler) *ChainedLRScheduler {
	return must(TryChainedScheduler(schedulers...))
}

// TryChainedScheduler is ChainedScheduler that returns its error.
func TryChainedScheduler(schedulers ...Scheduler) (*ChainedLRScheduler, error) {
	if len(schedulers) == 0 {
		return nil, errors.New("optim.ChainedScheduler: no schedulers")
	}
	for i, sc := range schedulers {
		if sc == nil {
			return nil, fmt.Errorf("optim.ChainedScheduler: scheduler %d is nil", i)
		}
		if sc.Optimizer() != schedulers[0].Optimizer() {
			return nil, fmt.Errorf("optim.ChainedScheduler: ChainedScheduler expects all schedulers to belong to the same optimizer, but got schedulers at index 0 and %d to be different", i)
		}
	}
	c := &ChainedLRScheduler{schedulers: append([]Scheduler(nil), schedulers...)}
	c.lastLR = groupLRs(schedulers[0].Optimizer().ParamGroups())
	return c, nil
}

// Step steps every scheduler; it panics on failure.
func (c *ChainedLRScheduler) Step() {
	if err := c.TryStep(); err != nil {
		panic(err)
	}
}

// TryStep steps every scheduler in turn, stopping at the first error.
func (c *ChainedLRScheduler) TryStep() error {
	for _, sc := range c.schedulers {
		if err := sc.TryStep(); err != nil {
			return err
		}
	}
	c.lastLR = groupLRs(c.Optimizer().ParamGroups())
	return nil
}

// LastLR returns the learning rates after the last step.
func (c *ChainedLRScheduler) LastLR() []float64 { return append([]float64(nil), c.lastLR...) }

// Optimizer returns the optimizer the schedulers drive.
func (c *ChainedLRScheduler) Optimizer() Optimizer { return c.schedulers[0].Optimizer() }

// StateDict returns the state, with the schedulers' under "_schedulers".
func (c *ChainedLRScheduler) StateDict() map[string]any {
	subs := make([]map[string]any, len(c.schedulers))
	for i, sc := range c.schedulers {
		subs[i] = sc.StateDict()
	}
	return map[string]any{"_last_lr": append([]float64(nil), c.lastLR...), "_schedulers": subs}
}

// LoadStateDict restores a state from StateDict.
func (c *ChainedLRScheduler) LoadStateDict(sd map[string]any) error {
	var subs []map[string]any
	switch v := sd["_schedulers"].(type) {
	case nil:
	case []map[string]any:
		subs = v
	case []any:
		for i, e := range v {
			m, ok := e.(map[string]any)
			if !ok {
				return fmt.Errorf("optim.ChainedScheduler: load state dict: _schedulers[%d]: want a map, got %T", i, e)
			}
			subs = append(subs, m)
		}
	default:
		return fmt.Errorf("optim.ChainedScheduler: load state dict: _schedulers: want a list of maps, got %T", v)
	}
	if subs != nil && len(subs) != len(c.schedulers) {
		return fmt.Errorf("optim.ChainedScheduler: load state dict: _schedulers has %d states, want %d", len(subs), len(c.schedulers))
	}
	lastLR := c.lastLR
	if v, ok := sd["_last_lr"]; ok {
		var err error
		if lastLR, err = toFloats(v); err != nil {
			return fmt.Errorf("optim.ChainedScheduler: load state dict: _last_lr: %v", err)
		}
	}
	for i, sub := range subs {
		if err := c.schedulers[i].LoadStateDict(sub); err != nil {
			return fmt.Errorf("optim.ChainedScheduler: load state dict: _schedulers[%d]: %v", i, err)
		}
	}
	c.lastLR = append([]float64(nil), lastLR...)
	return nil
}
