// Package optim holds optimizers, learning-rate schedulers and gradient
// clipping, in the style of PyTorch's torch.optim, torch.optim.lr_scheduler
// and torch.nn.utils.clip_grad_norm_. PyTorch 1.13 is the specification:
// each optimizer runs PyTorch's single-tensor (for-loop) algorithm with the
// same libtorch ops in the same order, so that trajectories match
// PyTorch's.
//
//	opt := optim.Adam(model.Parameters(), optim.WithLR(1e-3))
//	sched := optim.CosineAnnealingLR(opt, 100)
//	for epoch := 0; epoch < 100; epoch++ {
//		for batch := range batches {
//			opt.ZeroGrad()
//			loss := lossFn(model.Forward(batch.X), batch.Y)
//			loss.Backward()
//			opt.Step()
//		}
//		sched.Step()
//	}
//
// Hyper-parameters are options named after PyTorch's keywords
// (optim.WithLR is lr=, optim.WithBetas is betas=); parameter groups give
// some parameters their own:
//
//	opt := optim.SGD([]optim.ParamGroup{
//		{Params: model.Backbone.Parameters(), Options: []optim.Option{optim.WithLR(0.01)}},
//		{Params: model.Head.Parameters()},
//	}, optim.WithLR(0.1), optim.WithMomentum(0.9))
//
// Each constructor has a panicking form and a Try form that returns the
// error (SGD, TrySGD), as in package torch. Invalid hyper-parameters are
// errors with PyTorch's ValueError messages.
//
// An optimizer and its schedulers are not safe for concurrent use.
//
// Two take their step differently, as in PyTorch, and so implement
// neither Optimizer nor Scheduler: LBFGS's Step takes a closure that
// reevaluates the loss, and ReduceLROnPlateau's Step takes the metric it
// watches:
//
//	opt := optim.LBFGS(model.Parameters())
//	opt.Step(func() torch.Tensor {
//		opt.ZeroGrad()
//		loss := lossFn(model.Forward(x), y)
//		loss.Backward()
//		return loss
//	})
//	plateau := optim.ReduceLROnPlateau(sgd, optim.WithPatience(5))
//	plateau.Step(validationLoss)
//
// # State
//
// StateDict and LoadStateDict use PyTorch's layout (parameter indices,
// "state" keys such as "exp_avg", "param_groups" with PyTorch's keys), so a
// checkpoint can carry an optimizer between GoTorch and PyTorch. Schedulers
// keep their settings in the optimizer's groups ("initial_lr", OneCycleLR's
// "max_lr", …) as PyTorch's do; save and load the optimizer's state with
// the scheduler's.
//
// # Differences from PyTorch 1.13
//
//   - ZeroGrad drops the gradients (set_to_none=True, PyTorch 2's default,
//     as nn.Module.ZeroGrad does); 1.13's default zeroes them.
//   - Hyper-parameters are checked in every group, not only the
//     constructor's, and again when a state dict is loaded; a parameter
//     listed twice in a group is an error, not a warning.
//   - Adagrad's group-level initial_accumulator_value is honored (1.13
//     uses the constructor's for every group), and parameters added later
//     get state too.
//   - State a flag turned on later needs (amsgrad's max_exp_avg_sq,
//     RMSprop's momentum_buffer or grad_avg) is made as zeros, where
//     PyTorch fails with a KeyError.
//   - LoadStateDict also checks each state tensor's shape and the state's
//     keys, and changes nothing on error. NAdam's mu_product keeps the
//     dtype it was saved with (PyTorch casts it to the parameter's), so
//     that a resumed float64 run matches an uninterrupted one.
//   - Schedulers reject arguments PyTorch fails on later: StepLR's
//     step_size and CosineAnnealingLR's T_max below 1, LinearLR's
//     start_factor 0, SequentialLR milestones that decrease. Their state
//     dicts hold the epoch and step counts, the base and last learning
//     rates and the settings, not every attribute of PyTorch's objects.
//   - Scalar arithmetic uses Go's math.Pow and math.Cos, which can differ
//     from C's libm in the last bit: float32 trajectories match PyTorch's
//     exactly, float64 ones and schedules to about 1e-12.
package optim

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gotorch/gotorch/torch"
)

// Optimizer is implemented by every optimizer of this package.
type Optimizer interface {
	// Step updates the parameters that have a gradient, in place and with
	// gradient recording off. It panics on failure; TryStep returns the
	// error.
	Step()
	TryStep() error
	// ZeroGrad drops the gradients of all parameters (PyTorch's
	// zero_grad(set_to_none=True), nn.Module.ZeroGrad's behavior).
	ZeroGrad()
	// ParamGroups returns the live parameter groups: changing a group's
	// hyper-parameters (SetLR, Set) changes the optimizer's next steps, as
	// schedulers do.
	ParamGroups() []*Group
	// AddParamGroup adds a group of parameters with its own options.
	AddParamGroup(ParamGroup) error
	// StateDict returns the optimizer's state, laid out like PyTorch's
	// state_dict().
	StateDict() StateDict
	// LoadStateDict validates sd against the optimizer's groups and
	// parameters and, if it fits, replaces the state and hyper-parameters
	// with copies of sd's.
	LoadStateDict(sd StateDict) error
}

// ParamGroup is a group of parameters and the options that override the
// optimizer's for them, PyTorch's {"params": ..., "lr": ...}.
type ParamGroup struct {
	Params  []torch.Tensor
	Options []Option
}

// Params is what optimizers take: a list of parameters (one group) or a
// list of parameter groups.
type Params interface {
	[]torch.Tensor | []ParamGroup
}

func toGroups[P Params](p P) []ParamGroup {
	switch v := any(p).(type) {
	case []torch.Tensor:
		if len(v) == 0 {
			return nil
		}
		return []ParamGroup{{Params: v}}
	case []ParamGroup:
		return v
	}
	return nil
}

// Group is a live parameter group of an optimizer: its parameters and its
// hyper-parameters, keyed as in PyTorch's param_groups dicts ("lr",
// "momentum", "betas", …; schedulers add "initial_lr" and the like).
// Numbers are float64 (int is read as a number too), flags bool, and betas
// a []float64 of two.
type Group struct {
	Params []torch.Tensor
	hyper  map[string]any
}

// Get returns the hyper-parameter key.
func (g *Group) Get(key string) (any, bool) {
	v, ok := g.hyper[key]
	return v, ok
}

// Float returns the numeric hyper-parameter key.
func (g *Group) Float(key string) (float64, bool) {
	v, ok := g.hyper[key]
	if !ok {
		return 0, false
	}
	return toFloat(v)
}

// Set sets the hyper-parameter key. The next Step checks the value.
func (g *Group) Set(key string, v any) {
	if g.hyper == nil {
		g.hyper = map[string]any{}
	}
	g.hyper[key] = v
}

// LR returns the learning rate, or NaN if the group has none.
func (g *Group) LR() float64 {
	v, ok := g.Float("lr")
	if !ok {
		return math.NaN()
	}
	return v
}

// SetLR sets the learning rate.
func (g *Group) SetLR(lr float64) { g.Set("lr", lr) }

// Keys returns the names of the group's hyper-parameters, sorted.
func (g *Group) Keys() []string {
	keys := make([]string, 0, len(g.hyper))
	for k := range g.hyper {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// StateDict is an optimizer's state, laid out like the dict PyTorch's
// Optimizer.state_dict() returns:
//
//   - State maps a parameter's index (its position across the groups, in
//     order) to its state: "momentum_buffer", "exp_avg", "exp_avg_sq",
//     "max_exp_avg_sq", "exp_inf", "square_avg", "acc_delta", "grad_avg"
//     or "sum" tensors, NAdam's 0-dim "mu_product", and "step" (a 0-dim
//     float32 tensor for Adam, AdamW, NAdam, RAdam, Adamax and Adagrad, an
//     int for RMSprop and Adadelta, as in PyTorch 1.13). SGD's "momentum_buffer" is nil (None)
//     without momentum. Only parameters that have state appear.
//   - ParamGroups holds each group's hyper-parameters by PyTorch's names,
//     with "params" the []int indices of its parameters.
//
// As in PyTorch, the tensors are the optimizer's own, not copies: save them
// before the next Step. LoadStateDict copies.
type StateDict struct {
	State       map[int]map[string]any
	ParamGroups []map[string]any
}

// kind of a hyper-parameter.
const (
	kFloat = iota
	kBool
	kPair
	kInert // kept for PyTorch's sake, not used: foreach, differentiable, …
)

type entry struct {
	key  string
	kind int
	def  any // nil: required (lr of SGD); for kInert the default value, nil for None
}

// hyper is a group's hyper-parameters, read for one step.
type hyper struct {
	lr, momentum, dampening, weightDecay, eps, alpha float64
	lrDecay, initialAccumulatorValue, beta1, beta2   float64
	momentumDecay, rho                               float64
	nesterov, maximize, amsgrad, centered            bool
}

// algorithm describes one optimizer.
type algorithm struct {
	name     string
	defaults []entry
	check    func(h *hyper) error
	// stateTensors are the per-parameter state tensors, shaped like the
	// parameter; required are the state keys a non-empty state must have.
	stateTensors []string
	required     []string
	// scalarTensors are per-parameter state tensors of one element, kept
	// as saved (NAdam's mu_product).
	scalarTensors []string
	stepKind      int  // stepNone, stepTensor, stepInt
	nilState      bool // state tensors may be nil (SGD's None momentum_buffer)
	eagerInit     bool // state made when the group is added (Adagrad)
	initState     func(h *hyper, p torch.Tensor, st map[string]any)
	update        func(h *hyper, p, grad torch.Tensor, st map[string]any, tmp *temps)
}

const (
	stepNone = iota
	stepTensor
	stepInt
)

// optimizer is the machinery every optimizer embeds.
type optimizer struct {
	algo     *algorithm
	defaults map[string]any
	groups   []*Group
	state    map[torch.Tensor]map[string]any
}

func (o *optimizer) errorf(format string, args ...any) error {
	return fmt.Errorf("optim.%s: "+format, append([]any{o.algo.name}, args...)...)
}

func newOptimizer(a *algorithm, groups []ParamGroup, opts []Option) (optimizer, error) {
	o := optimizer{algo: a, defaults: map[string]any{}, state: map[torch.Tensor]map[string]any{}}
	var settable []string
	for _, e := range a.defaults {
		if e.kind != kInert {
			settable = append(settable, e.key)
		}
		if e.def != nil || e.kind == kInert {
			o.defaults[e.key] = cloneValue(e.def)
		}
	}
	set := readOptions("optim."+a.name, opts, settable...)
	if set.err != nil {
		return o, set.err
	}
	for k, v := range set.vals {
		o.defaults[k] = v
	}
	// Check the defaults as PyTorch's constructors do, a required lr aside.
	probe := map[string]any{}
	for k, v := range o.defaults {
		probe[k] = v
	}
	if _, ok := probe["lr"]; !ok {
		probe["lr"] = 0.0
	}
	h, err := readHyper(a, probe)
	if err == nil {
		err = a.check(&h)
	}
	if err != nil {
		return o, fmt.Errorf("optim.%s: %w", a.name, err)
	}
	if len(groups) == 0 {
		return o, o.errorf("optimizer got an empty parameter list")
	}
	for _, g := range groups {
		if err := o.AddParamGroup(g); err != nil {
			return o, err
		}
	}
	return o, nil
}

// AddParamGroup adds a group of parameters. Its options override the
// optimizer's defaults; a parameter may belong to one group only.
func (o *optimizer) AddParamGroup(pg ParamGroup) error {
	gi := len(o.groups)
	var settable []string
	for _, e := range o.algo.defaults {
		if e.kind != kInert {
			settable = append(settable, e.key)
		}
	}
	set := readOptions(fmt.Sprintf("optim.%s: param group %d", o.algo.name, gi), pg.Options, settable...)
	if set.err != nil {
		return set.err
	}
	seen := map[torch.Tensor]bool{}
	for _, g := range o.groups {
		for _, p := range g.Params {
			seen[p] = true
		}
	}
	mine := map[torch.Tensor]bool{}
	for i, p := range pg.Params {
		if !p.Defined() {
			return o.errorf("param group %d: parameter %d is an undefined or freed tensor", gi, i)
		}
		if !p.IsLeaf() && !p.RetainsGrad() {
			return o.errorf("param group %d: parameter %d: can't optimize a non-leaf Tensor", gi, i)
		}
		if mine[p] {
			return o.errorf("param group %d: parameter %d appears twice in the group", gi, i)
		}
		if seen[p] {
			return o.errorf("param group %d: some parameters appear in more than one parameter group", gi)
		}
		mine[p] = true
	}
	g := &Group{Params: append([]torch.Tensor(nil), pg.Params...), hyper: map[string]any{}}
	for k, v := range o.defaults {
		g.hyper[k] = cloneValue(v)
	}
	for k, v := range set.vals {
		g.hyper[k] = v
	}
	for _, e := range o.algo.defaults {
		if _, ok := g.hyper[e.key]; !ok {
			return o.errorf("param group %d: parameter group didn't specify a value of required optimization parameter %s", gi, e.key)
		}
	}
	h, err := readHyper(o.algo, g.hyper)
	if err == nil {
		err = o.algo.check(&h)
	}
	if err != nil {
		return o.errorf("param group %d: %v", gi, err)
	}
	if o.algo.eagerInit {
		var ierr error
		torch.NoGrad(func() {
			ierr = catch(func() {
				for _, p := range g.Params {
					st := map[string]any{}
					o.algo.initState(&h, p, st)
					o.state[p] = st
				}
			})
		})
		if ierr != nil {
			return o.errorf("param group %d: %w", gi, ierr)
		}
	}
	o.groups = append(o.groups, g)
	return nil
}

// ParamGroups returns the live parameter groups.
func (o *optimizer) ParamGroups() []*Group { return o.groups }

// Defaults returns a copy of the optimizer's default hyper-parameters
// (PyTorch's optimizer.defaults), the options given to the constructor
// over PyTorch's defaults.
func (o *optimizer) Defaults() map[string]any {
	d := map[string]any{}
	for k, v := range o.defaults {
		d[k] = cloneValue(v)
	}
	return d
}

// ZeroGrad drops the gradients of all parameters (set_to_none).
func (o *optimizer) ZeroGrad() {
	for _, g := range o.groups {
		for _, p := range g.Params {
			p.ZeroGrad()
		}
	}
}

// Step updates the parameters; it panics on failure.
func (o *optimizer) Step() {
	if err := o.TryStep(); err != nil {
		panic(err)
	}
}

// TryStep updates every parameter that has a gradient, in place, with
// gradient recording off. Parameters without a gradient are skipped, as in
// PyTorch.
func (o *optimizer) TryStep() error {
	var err error
	torch.NoGrad(func() {
		for gi, g := range o.groups {
			h, e := readHyper(o.algo, g.hyper)
			if e != nil {
				err = o.errorf("param group %d: %v", gi, e)
				return
			}
			for pi, p := range g.Params {
				e := catch(func() {
					grad := p.Grad()
					if !grad.Defined() {
						return
					}
					tmp := temps{grad}
					defer tmp.free()
					st := o.state[p]
					if st == nil {
						st = map[string]any{}
						o.state[p] = st
					}
					if len(st) == 0 || staleLazyState(o.algo, p, st) {
						o.algo.initState(&h, p, st)
					}
					o.algo.update(&h, p, grad, st, &tmp)
				})
				if e != nil {
					err = o.errorf("param group %d, parameter %d: %w", gi, pi, e)
					return
				}
			}
		}
	})
	return err
}

// staleLazyState reports whether st is the state that an optimizer which
// makes it at once (Adagrad) made for a lazy layer's parameter before the
// layer's first forward sized it: empty tensors for a parameter that now
// has elements. It frees them; the caller makes the state again, as it
// would have been made for the sized parameter. (PyTorch refuses to build
// Adagrad over uninitialized parameters.)
func staleLazyState(a *algorithm, p torch.Tensor, st map[string]any) bool {
	if !a.eagerInit || p.Numel() == 0 {
		return false
	}
	stale := false
	for _, name := range a.stateTensors {
		if t, ok := st[name].(torch.Tensor); ok && t.Defined() && t.Numel() == 0 {
			stale = true
		}
	}
	if !stale {
		return false
	}
	for k, v := range st {
		if t, ok := v.(torch.Tensor); ok {
			t.Free()
		}
		delete(st, k)
	}
	return true
}

// String prints the optimizer the way PyTorch does.
func (o *optimizer) String() string {
	var b strings.Builder
	b.WriteString(o.algo.name + " (")
	for i, g := range o.groups {
		fmt.Fprintf(&b, "\nParameter Group %d\n", i)
		for _, k := range g.Keys() {
			fmt.Fprintf(&b, "    %s: %s\n", k, pyRepr(g.hyper[k]))
		}
	}
	b.WriteString(")")
	return b.String()
}

func pyRepr(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case float64:
		return pyFloat(x)
	case []float64:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = pyFloat(f)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprint(v)
}

// StateDict returns the state and hyper-parameters, keyed like PyTorch's.
func (o *optimizer) StateDict() StateDict {
	sd := StateDict{State: map[int]map[string]any{}}
	index := map[torch.Tensor]int{}
	n := 0
	for _, g := range o.groups {
		packed := map[string]any{}
		for k, v := range g.hyper {
			packed[k] = cloneValue(v)
		}
		ids := make([]int, len(g.Params))
		for i, p := range g.Params {
			if _, ok := index[p]; !ok {
				index[p] = n
			}
			ids[i] = index[p]
			n++
		}
		packed["params"] = ids
		sd.ParamGroups = append(sd.ParamGroups, packed)
	}
	for p, st := range o.state {
		i, ok := index[p]
		if !ok || len(st) == 0 {
			continue
		}
		c := map[string]any{}
		for k, v := range st {
			c[k] = v
		}
		sd.State[i] = c
	}
	return sd
}

// LoadStateDict checks sd against the optimizer (as many groups, as many
// parameters in each, state tensors shaped like their parameters, known
// state keys, valid hyper-parameters) and, if all is well, replaces the
// optimizer's state and hyper-parameters with sd's. State tensors are
// copied, converted to their parameter's dtype (floating-point parameters)
// and device; "step" is copied as it is. Nothing changes on error.
func (o *optimizer) LoadStateDict(sd StateDict) error {
	fail := func(format string, args ...any) error {
		return o.errorf("load state dict: "+format, args...)
	}
	if len(sd.ParamGroups) != len(o.groups) {
		return fail("loaded state dict has a different number of parameter groups (%d, the optimizer has %d)", len(sd.ParamGroups), len(o.groups))
	}
	idMap := map[int]torch.Tensor{}
	newHyper := make([]map[string]any, len(o.groups))
	hypers := make([]hyper, len(o.groups))
	paramHyper := map[torch.Tensor]*hyper{}
	for gi, saved := range sd.ParamGroups {
		ids, err := toInts(saved["params"])
		if err != nil {
			return fail("param group %d: params: %v", gi, err)
		}
		g := o.groups[gi]
		if len(ids) != len(g.Params) {
			return fail("loaded state dict contains a parameter group that doesn't match the size of optimizer's group (group %d: %d parameters saved, %d in the optimizer)", gi, len(ids), len(g.Params))
		}
		h := map[string]any{}
		for k, v := range saved {
			if k != "params" {
				h[k] = cloneValue(v)
			}
		}
		hv, err := readHyper(o.algo, h)
		if err == nil {
			err = o.algo.check(&hv)
		}
		if err != nil {
			return fail("param group %d: %v", gi, err)
		}
		newHyper[gi], hypers[gi] = h, hv
		for i, id := range ids {
			if _, dup := idMap[id]; dup {
				return fail("parameter index %d appears more than once in param_groups", id)
			}
			idMap[id] = g.Params[i]
			paramHyper[g.Params[i]] = &hypers[gi]
		}
	}
	tensorKeys := map[string]bool{}
	for _, k := range o.algo.stateTensors {
		tensorKeys[k] = true
	}
	scalarKeys := map[string]bool{}
	for _, k := range o.algo.scalarTensors {
		scalarKeys[k] = true
	}
	ids := make([]int, 0, len(sd.State))
	for id := range sd.State {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	newState := map[torch.Tensor]map[string]any{}
	var err error
	torch.NoGrad(func() {
		if e := catch(func() {
			for _, id := range ids {
				st := sd.State[id]
				p, ok := idMap[id]
				if !ok {
					err = fail("state for parameter %d, which no parameter group lists", id)
					return
				}
				keys := make([]string, 0, len(st))
				for k := range st {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				out := map[string]any{}
				for _, k := range keys {
					v := st[k]
					switch {
					case k == "step" && o.algo.stepKind != stepNone:
						s, e := loadStep(o.algo.stepKind, v)
						if e != nil {
							err = fail("state of parameter %d: step: %v", id, e)
							return
						}
						out[k] = s
					case scalarKeys[k]:
						t, ok := v.(torch.Tensor)
						if !ok || !t.Defined() || t.Numel() != 1 {
							err = fail("state of parameter %d: %s: want a one-element tensor, got %v", id, k, v)
							return
						}
						// Kept in its dtype (float32, as PyTorch makes it),
						// so that a resumed run rounds as an uninterrupted
						// one; PyTorch's load casts it to the parameter's.
						c := torch.EmptyLike(t, torch.WithDevice(p.Device()))
						c.Copy_(t)
						out[k] = torch.Keep(c)
					case tensorKeys[k]:
						if v == nil && o.algo.nilState {
							out[k] = nil // SGD's None momentum buffer
							continue
						}
						t, ok := v.(torch.Tensor)
						if !ok || !t.Defined() {
							err = fail("state of parameter %d: %s: want a tensor, got %T", id, k, v)
							return
						}
						if !equalShape(t.Shape(), p.Shape()) {
							err = fail("state of parameter %d: %s: shape %v, the parameter's is %v", id, k, t.Shape(), p.Shape())
							return
						}
						dt := t.DType()
						if p.DType().IsFloatingPoint() {
							dt = p.DType()
						}
						c := torch.EmptyLike(t, torch.WithDtype(dt), torch.WithDevice(p.Device()))
						c.Copy_(t)
						out[k] = torch.Keep(c)
					default:
						err = fail("state of parameter %d: unexpected key %q for %s", id, k, o.algo.name)
						return
					}
				}
				if len(out) > 0 {
					for _, k := range o.algo.required {
						if _, ok := out[k]; !ok {
							err = fail("state of parameter %d lacks %s", id, k)
							return
						}
					}
				}
				newState[p] = out
			}
		}); e != nil {
			err = fail("%w", e)
		}
	})
	if err != nil {
		for _, st := range newState {
			for _, v := range st {
				if t, ok := v.(torch.Tensor); ok {
					t.Free()
				}
			}
		}
		return err
	}
	if o.algo.eagerInit {
		// Adagrad keeps state for every parameter.
		torch.NoGrad(func() {
			err = catch(func() {
				for _, g := range o.groups {
					for _, p := range g.Params {
						if len(newState[p]) == 0 {
							st := map[string]any{}
							o.algo.initState(paramHyper[p], p, st)
							newState[p] = st
						}
					}
				}
			})
		})
		if err != nil {
			return fail("%w", err)
		}
	}
	for gi, g := range o.groups {
		g.hyper = newHyper[gi]
	}
	o.state = newState
	return nil
}

func loadStep(kind int, v any) (any, error) {
	switch kind {
	case stepTensor:
		if t, ok := v.(torch.Tensor); ok {
			if !t.Defined() || t.Numel() != 1 {
				return nil, errors.New("want a one-element tensor or a number")
			}
			return torch.Keep(t.Clone()), nil
		}
		f, ok := toFloat(v)
		if !ok {
			return nil, fmt.Errorf("want a tensor or a number, got %T", v)
		}
		return torch.Keep(torch.ScalarTensor(torch.S(f), torch.WithDtype(torch.Float32))), nil
	default:
		if t, ok := v.(torch.Tensor); ok {
			if !t.Defined() || t.Numel() != 1 {
				return nil, errors.New("want a number or a one-element tensor")
			}
			return int(t.Item()), nil
		}
		f, ok := toFloat(v)
		if !ok || f != math.Trunc(f) {
			return nil, fmt.Errorf("want an integer, got %v", v)
		}
		return int(f), nil
	}
}

// readHyper reads the hyper-parameters a uses from a group's map.
func readHyper(a *algorithm, m map[string]any) (hyper, error) {
	var h hyper
	for _, e := range a.defaults {
		v, ok := m[e.key]
		if !ok {
			if e.kind == kInert {
				continue
			}
			return h, fmt.Errorf("no value for %s", e.key)
		}
		switch e.kind {
		case kFloat:
			f, ok := toFloat(v)
			if !ok {
				return h, fmt.Errorf("%s must be a number, got %T", e.key, v)
			}
			switch e.key {
			case "lr":
				h.lr = f
			case "momentum":
				h.momentum = f
			case "dampening":
				h.dampening = f
			case "weight_decay":
				h.weightDecay = f
			case "eps":
				h.eps = f
			case "alpha":
				h.alpha = f
			case "lr_decay":
				h.lrDecay = f
			case "initial_accumulator_value":
				h.initialAccumulatorValue = f
			case "momentum_decay":
				h.momentumDecay = f
			case "rho":
				h.rho = f
			}
		case kBool:
			b, ok := v.(bool)
			if !ok {
				return h, fmt.Errorf("%s must be a bool, got %T", e.key, v)
			}
			switch e.key {
			case "nesterov":
				h.nesterov = b
			case "maximize":
				h.maximize = b
			case "amsgrad":
				h.amsgrad = b
			case "centered":
				h.centered = b
			}
		case kPair:
			fs, err := toFloats(v)
			if err != nil || len(fs) != 2 {
				return h, fmt.Errorf("%s must be two numbers, got %v", e.key, v)
			}
			h.beta1, h.beta2 = fs[0], fs[1]
		}
	}
	return h, nil
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	}
	return 0, false
}

func toFloats(v any) ([]float64, error) {
	switch x := v.(type) {
	case []float64:
		return x, nil
	case [2]float64:
		return x[:], nil
	case []any:
		out := make([]float64, len(x))
		for i, e := range x {
			f, ok := toFloat(e)
			if !ok {
				return nil, fmt.Errorf("element %d is %T, not a number", i, e)
			}
			out[i] = f
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a list of numbers, got %T", v)
}

func toInts(v any) ([]int, error) {
	switch x := v.(type) {
	case []int:
		return x, nil
	case []int64:
		out := make([]int, len(x))
		for i, e := range x {
			out[i] = int(e)
		}
		return out, nil
	case []any:
		out := make([]int, len(x))
		for i, e := range x {
			f, ok := toFloat(e)
			if !ok || f != math.Trunc(f) {
				return nil, fmt.Errorf("element %d is %v, not an integer", i, e)
			}
			out[i] = int(f)
		}
		return out, nil
	}
	return nil, fmt.Errorf("want a list of integers, got %T", v)
}

// cloneValue copies the slices of hyper-parameter values.
func cloneValue(v any) any {
	switch x := v.(type) {
	case []float64:
		return append([]float64(nil), x...)
	case []int:
		return append([]int(nil), x...)
	case []any:
		return append([]any(nil), x...)
	}
	return v
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// catch runs f and returns the error it panics with.
func catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	f()
	return nil
}

// temps are the intermediate tensors of one update, freed at its end.
type temps []torch.Tensor

func (t *temps) add(x torch.Tensor) torch.Tensor {
	*t = append(*t, x)
	return x
}

// free frees the recorded tensors. Its receiver is a pointer so that
// "defer tmp.free()" frees what was added after the defer statement too (a
// value receiver is copied when defer runs: it freed only the tensors
// recorded by then, and an optimizer step leaked a tensor per parameter
// until the next GC()).
func (t *temps) free() {
	for _, x := range *t {
		x.Free()
	}
}

// zerosState makes a state tensor of zeros shaped like p.
func zerosState(p torch.Tensor) torch.Tensor {
	return torch.Keep(torch.ZerosLike(p, torch.WithMemoryFormat(torch.PreserveFormat)))
}

// stepTensor0 is PyTorch's torch.tensor(0.): the step count of Adam,
// AdamW and Adagrad.
func stepTensor0() torch.Tensor {
	return torch.Keep(torch.ScalarTensor(torch.S(0.0), torch.WithDtype(torch.Float32)))
}

// asReal views a complex tensor as real, as PyTorch's algorithms do.
func asReal(t torch.Tensor, tmp *temps) torch.Tensor {
	if t.DType().IsComplex() {
		return tmp.add(torch.ViewAsReal(t))
	}
	return t
}

func checkLR(h *hyper) error {
	if !(0 <= h.lr) {
		return fmt.Errorf("invalid learning rate: %v", h.lr)
	}
	return nil
}

func checkWeightDecay(h *hyper) error {
	if !(0 <= h.weightDecay) {
		return fmt.Errorf("invalid weight_decay value: %v", h.weightDecay)
	}
	return nil
}

func checkEps(h *hyper) error {
	if !(0 <= h.eps) {
		return fmt.Errorf("invalid epsilon value: %v", h.eps)
	}
	return nil
}

func checkMomentum(h *hyper) error {
	if !(0 <= h.momentum) {
		return fmt.Errorf("invalid momentum value: %v", h.momentum)
	}
	return nil
}

func firstError(h *hyper, checks ...func(*hyper) error) error {
	for _, c := range checks {
		if err := c(h); err != nil {
			return err
		}
	}
	return nil
}

var (
	_ Optimizer = (*SGDOptimizer)(nil)
	_ Optimizer = (*AdamOptimizer)(nil)
	_ Optimizer = (*AdamWOptimizer)(nil)
	_ Optimizer = (*RMSpropOptimizer)(nil)
	_ Optimizer = (*AdagradOptimizer)(nil)
	_ Scheduler = (*LRScheduler)(nil)
	_ Scheduler = (*SequentialLRScheduler)(nil)
	_ Scheduler = (*ChainedLRScheduler)(nil)
)
