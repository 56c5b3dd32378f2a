package classfile

import (
	"fmt"
	"strings"

	"github.com/gotorch/gotorch/nn/optim"
)

// The learning-rate schedules that lrSchedule picks.
const (
	// ScheduleConstant keeps the learning rate at lr (the default).
	ScheduleConstant = "constant"
	// ScheduleCosine anneals the learning rate from lr to 0 along half a
	// cosine over the epochs: PyTorch's CosineAnnealingLR(opt, epochs),
	// stepped after each training epoch.
	ScheduleCosine = "cosine"
)

// LrSchedule__0 is the learning-rate schedule: "constant" (the default) or
// "cosine".
func (t *Trainer) LrSchedule__0() string {
	t.flagUsed("lr-schedule")
	if t.schedName == "" {
		return ScheduleConstant
	}
	return t.schedName
}

// LrSchedule__1 sets the learning-rate schedule: lrSchedule "cosine".
//
// The schedule steps once per epoch, when a loop over trainLoader (or an
// epoch of fit) ends, as PyTorch scripts call scheduler.step() after each
// epoch. It starts with the first training epoch, from the learning rate
// lr, and spans the epochs set then.
func (t *Trainer) LrSchedule__1(name string) {
	if t.locked["lr-schedule"] {
		return
	}
	switch n := strings.ToLower(name); n {
	case ScheduleConstant, ScheduleCosine:
		if t.sched != nil && n != t.schedName {
			panic(fmt.Sprintf("classfile: lrSchedule %q after training started with %q", name, t.LrSchedule__0()))
		}
		t.schedName = n
	default:
		panic(fmt.Sprintf("classfile: unknown lrSchedule %q (want constant or cosine)", name))
	}
}

// startSchedule makes the scheduler when the first training epoch of this
// run starts. After a resumed checkpoint, it replays the epochs done.
func (t *Trainer) startSchedule() {
	if t.sched != nil || t.LrSchedule__0() == ScheduleConstant {
		return
	}
	opt := t.Optimizer__0()
	done := t.epoch - 1 // epochs finished before this one
	if done > 0 {
		// The checkpoint restored the optimizer's last learning rate;
		// the schedule starts from the base one.
		for _, g := range opt.ParamGroups() {
			g.SetLR(t.Lr__0())
		}
	}
	s, err := optim.TryCosineAnnealingLR(opt, max(t.Epochs__0(), 1))
	if err != nil {
		panic(fmt.Errorf("classfile: lrSchedule %s: %w", t.schedName, err))
	}
	t.sched = s
	for s.LastEpoch() < done {
		s.Step()
	}
}

// endEpoch steps the schedule at the end of a training epoch.
func (t *Trainer) endEpoch() {
	if t.sched == nil {
		return
	}
	for t.sched.LastEpoch() < t.epoch {
		t.sched.Step()
	}
}
