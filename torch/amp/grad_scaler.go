package amp

import (
	"fmt"
	"math"

	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// GradScalerOptions are torch.amp.GradScaler's arguments; the zero value
// of a field means PyTorch's default.
type GradScalerOptions struct {
	InitScale      float64 // default 2^16
	GrowthFactor   float64 // default 2
	BackoffFactor  float64 // default 0.5
	GrowthInterval int     // default 2000
	Disabled       bool    // enabled=False: Scale, Step and Update pass through
}

type scalerStage int

const (
	stageReady scalerStage = iota
	stageUnscaled
	stageStepped
)

type optState struct {
	stage    scalerStage
	foundInf bool
}

// GradScaler is torch.amp.GradScaler: it multiplies the loss by a scale
// factor before backward, so that float16 gradients do not underflow,
// divides the gradients by it before the optimizer's step, skips steps
// whose gradients hold an inf or NaN, and adapts the scale: halved
// (BackoffFactor) after such a step, doubled (GrowthFactor) after
// GrowthInterval steps in a row without one. The scale is kept in float32,
// as PyTorch keeps it in a float32 tensor, so the sequence of scales is
// PyTorch's. It is made of ordinary tensor ops and works on any device.
type GradScaler struct {
	scale          float32
	growthFactor   float32
	backoffFactor  float32
	growthInterval int
	growthTracker  int
	enabled        bool
	perOpt         map[optim.Optimizer]*optState
}

// NewGradScaler makes a GradScaler.
func NewGradScaler(o GradScalerOptions) (*GradScaler, error) {
	def := func(v, d float64) float64 {
		if v == 0 {
			return d
		}
		return v
	}
	s := &GradScaler{
		scale:          float32(def(o.InitScale, 65536)),
		growthFactor:   float32(def(o.GrowthFactor, 2)),
		backoffFactor:  float32(def(o.BackoffFactor, 0.5)),
		growthInterval: o.GrowthInterval,
		enabled:        !o.Disabled,
		perOpt:         map[optim.Optimizer]*optState{},
	}
	if s.growthInterval == 0 {
		s.growthInterval = 2000
	}
	switch {
	case !(s.scale > 0) || math.IsInf(float64(s.scale), 0):
		return nil, fmt.Errorf("amp.GradScaler: InitScale must be positive and finite, got %v", o.InitScale)
	case !(s.growthFactor > 1) || math.IsInf(float64(s.growthFactor), 0):
		return nil, fmt.Errorf("amp.GradScaler: GrowthFactor must be above 1 and finite as a float32, got %v", o.GrowthFactor)
	case !(s.backoffFactor > 0 && s.backoffFactor < 1):
		return nil, fmt.Errorf("amp.GradScaler: BackoffFactor must be in (0, 1), got %v", o.BackoffFactor)
	case s.growthInterval < 0:
		return nil, fmt.Errorf("amp.GradScaler: GrowthInterval must be positive, got %d", o.GrowthInterval)
	}
	return s, nil
}

// Scale returns the current scale factor (get_scale; 1 when disabled).
func (s *GradScaler) Scale() float64 {
	if !s.enabled {
		return 1
	}
	return float64(s.scale)
}

// IsEnabled reports whether s scales (is_enabled).
func (s *GradScaler) IsEnabled() bool { return s.enabled }

// ScaleLoss returns loss times the scale (scaler.scale(loss)): multiplied
// by a float32 zero-dimensional tensor on loss's device, so the result's
// dtype follows PyTorch's promotion. Disabled, it returns loss.
func (s *GradScaler) ScaleLoss(loss torch.Tensor) (torch.Tensor, error) {
	if !s.enabled {
		return loss, nil
	}
	f, err := torch.TryScalarTensor(torch.S(s.scale), torch.WithDtype(torch.Float32), torch.WithDevice(loss.Device()))
	if err != nil {
		return torch.Tensor{}, err
	}
	defer f.Free()
	return loss.TryMul(f)
}

func (s *GradScaler) state(o optim.Optimizer) *optState {
	st := s.perOpt[o]
	if st == nil {
		st = &optState{}
		s.perOpt[o] = st
	}
	return st
}

// Unscale divides o's gradients by the scale, in place, and records
// whether any is inf or NaN (unscale_): call it before clipping gradients.
// It may be called once per optimizer between updates.
func (s *GradScaler) Unscale(o optim.Optimizer) error {
	if !s.enabled {
		return nil
	}
	st := s.state(o)
	switch st.stage {
	case stageUnscaled:
		return fmt.Errorf("amp.GradScaler.Unscale: already called on this optimizer since the last Update")
	case stageStepped:
		return fmt.Errorf("amp.GradScaler.Unscale: called after Step")
	}
	// PyTorch computes the inverse in double and rounds it to float32.
	inv := float32(1 / float64(s.scale))
	found := false
	for _, g := range o.ParamGroups() {
		for _, p := range g.Params {
			grad := p.Grad()
			if !grad.Defined() {
				continue
			}
			bad, err := unscaleGrad(grad, inv)
			grad.Free() // our handle; the parameter keeps its gradient
			if err != nil {
				return err
			}
			found = found || bad
		}
	}
	st.foundInf = found
	st.stage = stageUnscaled
	return nil
}

// unscaleGrad multiplies grad by inv in place and reports whether it held
// an inf or NaN before. It frees its temporaries at once (a boolean tensor
// the size of the gradient), not at the next GC().
func unscaleGrad(grad torch.Tensor, inv float32) (bool, error) {
	if grad.DType() == torch.Float16 {
		return false, fmt.Errorf("amp.GradScaler.Unscale: attempting to unscale float16 gradients (keep the parameters in float32 and let autocast cast them)")
	}
	finite, err := grad.TryIsfinite()
	if err != nil {
		return false, err
	}
	allFinite, err := finite.TryAll()
	finite.Free()
	if err != nil {
		return false, err
	}
	ok, err := allFinite.TryItem()
	allFinite.Free()
	if err != nil {
		return false, err
	}
	if _, err := grad.TryMulScalar_(torch.S(inv)); err != nil {
		return false, err
	}
	return ok == 0, nil
}

// Step unscales o's gradients if Unscale was not called, then runs
// o.Step() unless a gradient holds an inf or NaN (scaler.step). It
// reports whether the step ran.
func (s *GradScaler) Step(o optim.Optimizer) (bool, error) {
	if !s.enabled {
		return true, o.TryStep()
	}
	st := s.state(o)
	if st.stage == stageStepped {
		return false, fmt.Errorf("amp.GradScaler.Step: already called since the last Update")
	}
	if st.stage == stageReady {
		if err := s.Unscale(o); err != nil {
			return false, err
		}
	}
	st.stage = stageStepped
	if st.foundInf {
		return false, nil
	}
	return true, o.TryStep()
}

// Update adapts the scale after the iteration's steps (scaler.update()):
// BackoffFactor times it if any optimizer's gradients overflowed,
// GrowthFactor times it after GrowthInterval clean iterations in a row.
func (s *GradScaler) Update() error {
	if !s.enabled {
		return nil
	}
	if len(s.perOpt) == 0 {
		return fmt.Errorf("amp.GradScaler.Update: no inf checks were recorded before Update (call Step or Unscale first)")
	}
	found := false
	for _, st := range s.perOpt {
		found = found || st.foundInf
	}
	// at::_amp_update_scale_'s rule, in float32.
	if found {
		s.scale *= s.backoffFactor
		s.growthTracker = 0
	} else {
		n := s.growthTracker + 1
		if n == s.growthInterval {
			if next := s.scale * s.growthFactor; !math.IsInf(float64(next), 0) {
				s.scale = next
			}
			n = 0
		}
		s.growthTracker = n
	}
	clear(s.perOpt)
	return nil
}

// SetScale replaces the scale (scaler.update(new_scale)).
func (s *GradScaler) SetScale(v float64) error {
	// The scale is a float32, as PyTorch's: 1e300 would become +Inf (every
	// step skipped for good) and 1e-50 zero (every gradient lost).
	if f := float32(v); !(f > 0) || math.IsInf(float64(f), 0) {
		return fmt.Errorf("amp.GradScaler.SetScale: the scale must be positive and finite as a float32, got %v", v)
	}
	s.scale = float32(v)
	clear(s.perOpt)
	return nil
}
