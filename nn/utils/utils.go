// Package utils holds PyTorch's torch.nn.utils: flattening parameters into
// one vector and back, weight normalization and spectral normalization as
// parametrizations, and gradient clipping.
//
//	vec := utils.ParametersToVector(model.Parameters())
//	utils.VectorToParameters(vec.MulAny(0.5), model.Parameters())
//
//	wn := utils.WeightNorm(lin.Weight) // weight_g, weight_v, over dim 0
//	lin.Weight = wn.Weight()           // before each forward
//	sn := utils.SpectralNorm(conv.Weight, utils.WithNPowerIterations(2))
//
// GoTorch modules have no forward hooks, so the parametrizations are
// values that compute the weight (torch.nn.utils.parametrize's style):
// register their parameters in place of the weight and compute it before
// each forward. Their parameters' names are PyTorch's (weight_g,
// weight_v; weight_orig, weight_u, weight_v), so state dicts carry over.
//
// Arguments follow package nn's rule: what PyTorch requires is a
// parameter, what has a default is an Option (WithDim, WithEps,
// WithNPowerIterations) that gives PyTorch's default when left out.
//
// Each function panics on failure and has a Try form that returns the
// error, as in package torch.
package utils

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/internal/optname"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// catch turns a panic with an error into that error.
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

// checkDevices is _check_param_device: every parameter on one device.
func checkDevices(who string, params []torch.Tensor) error {
	for i, p := range params {
		if !p.Defined() {
			return fmt.Errorf("%s: parameter %d is an undefined or freed tensor", who, i)
		}
		if i > 0 && p.Device() != params[0].Device() {
			return fmt.Errorf("%s: Found two parameters on different devices, this is currently not supported (%v and %v)", who, params[0].Device(), p.Device())
		}
	}
	return nil
}

// ParametersToVector is torch.nn.utils.parameters_to_vector: the
// parameters flattened and concatenated into one vector (a new tensor
// that records for autograd).
func ParametersToVector(params []torch.Tensor) torch.Tensor {
	return must(TryParametersToVector(params))
}

// TryParametersToVector is ParametersToVector that returns its error.
func TryParametersToVector(params []torch.Tensor) (vec torch.Tensor, err error) {
	const who = "utils.ParametersToVector"
	if len(params) == 0 {
		return torch.Tensor{}, errors.New(who + ": no parameters")
	}
	if err := checkDevices(who, params); err != nil {
		return torch.Tensor{}, err
	}
	views := make([]torch.Tensor, len(params))
	for i, p := range params {
		if views[i], err = p.TryView([]int64{-1}); err != nil {
			return torch.Tensor{}, fmt.Errorf("%s: parameter %d: %w", who, i, err)
		}
	}
	if vec, err = torch.TryCat(views); err != nil {
		return torch.Tensor{}, fmt.Errorf("%s: %w", who, err)
	}
	return vec, nil
}

// VectorToParameters is torch.nn.utils.vector_to_parameters: it replaces
// each parameter's data with its slice of vec, in order. vec must have as
// many elements as the parameters together.
func VectorToParameters(vec torch.Tensor, params []torch.Tensor) {
	if err := TryVectorToParameters(vec, params); err != nil {
		panic(err)
	}
}

// TryVectorToParameters is VectorToParameters that returns its error; on
// error no parameter has changed.
func TryVectorToParameters(vec torch.Tensor, params []torch.Tensor) error {
	const who = "utils.VectorToParameters"
	if !vec.Defined() {
		return errors.New(who + ": vec is an undefined or freed tensor")
	}
	if err := checkDevices(who, params); err != nil {
		return err
	}
	if vec.Dim() != 1 {
		return fmt.Errorf("%s: vec must be a vector, got shape %v", who, vec.Shape())
	}
	var total int64
	for _, p := range params {
		total += p.Numel()
	}
	if total != vec.Numel() {
		return fmt.Errorf("%s: vec has %d elements, the parameters %d", who, vec.Numel(), total)
	}
	slices := make([]torch.Tensor, len(params))
	var off int64
	for i, p := range params {
		n := p.Numel()
		s, err := vec.TryNarrow(0, off, n)
		if err == nil {
			s, err = s.TryViewAs(p)
		}
		if err == nil {
			s = s.Detach()
			if s.DType() != p.DType() {
				err = fmt.Errorf("vec has dtype %v, parameter %d %v", s.DType(), i, p.DType())
			}
		}
		if err != nil {
			return fmt.Errorf("%s: parameter %d: %w", who, i, err)
		}
		slices[i] = s
		off += n
	}
	for i, p := range params {
		if err := p.TrySetData(slices[i]); err != nil {
			return fmt.Errorf("%s: parameter %d: %w", who, i, err)
		}
	}
	return nil
}

// ClipGradNorm_ is torch.nn.utils.clip_grad_norm_; it is optim.ClipGradNorm_,
// which stays there for its callers.
// Options: optim.WithNormType (2), optim.WithErrorIfNonfinite (false).
func ClipGradNorm_(params []torch.Tensor, maxNorm float64, opts ...optim.Option) torch.Tensor {
	return optim.ClipGradNorm_(params, maxNorm, opts...)
}

// TryClipGradNorm_ is ClipGradNorm_ that returns its error.
func TryClipGradNorm_(params []torch.Tensor, maxNorm float64, opts ...optim.Option) (torch.Tensor, error) {
	return optim.TryClipGradNorm_(params, maxNorm, opts...)
}

// ClipGradValue_ is torch.nn.utils.clip_grad_value_; it is
// optim.ClipGradValue_.
func ClipGradValue_(params []torch.Tensor, clipValue float64) {
	optim.ClipGradValue_(params, clipValue)
}

// TryClipGradValue_ is ClipGradValue_ that returns its error.
func TryClipGradValue_(params []torch.Tensor, clipValue float64) error {
	return optim.TryClipGradValue_(params, clipValue)
}

// Option is an optional (keyword) argument of WeightNorm and SpectralNorm,
// named With plus PyTorch's keyword, as in packages nn and torch; leaving
// it out gives PyTorch's default.
type Option struct {
	name string
	i    int64
	f    float64
}

// WithDim is the dimension that WeightNorm keeps (default 0; -1 for the
// whole tensor) and that SpectralNorm takes as the output dimension
// (default 0).
func WithDim(dim int64) Option { return Option{name: "dim", i: dim} }

// WithNPowerIterations is SpectralNorm's number of power iterations per
// training step (default 1).
func WithNPowerIterations(n int64) Option { return Option{name: "n_power_iterations", i: n} }

// WithEps is the epsilon of SpectralNorm's normalizations (default 1e-12).
func WithEps(eps float64) Option { return Option{name: "eps", f: eps} }

type args struct {
	dim, nPowerIterations int64
	eps                   float64
}

// parse sets a from opts, which may name only allowed keywords.
func (a *args) parse(who string, opts []Option, allowed ...string) error {
	for _, o := range opts {
		if name, ok := optname.Check(o.name, allowed); !ok {
			return fmt.Errorf("%s: unexpected option %s (it takes %s)", who, name, strings.Join(allowed, ", "))
		}
		switch o.name {
		case "dim":
			a.dim = o.i
		case "n_power_iterations":
			a.nPowerIterations = o.i
		case "eps":
			a.eps = o.f
		}
	}
	return nil
}

// WeightNormParam is weight normalization (torch.nn.utils.weight_norm):
// the weight is G·V/‖V‖, the norm taken over every dimension but Dim.
type WeightNormParam struct {
	G   torch.Tensor `gotorch:"weight_g"` // the magnitude, shaped like V but 1 in every dimension but Dim
	V   torch.Tensor `gotorch:"weight_v"` // the direction, shaped like the weight
	Dim int64        // -1: the norm of the whole tensor
}

// WeightNorm starts weight normalization of weight, as
// torch.nn.utils.weight_norm does: G is the norm of weight over every
// dimension but dim and V a copy of weight, both new leaves that require
// grad.
//
// Options: WithDim (0, right for Linear and Conv weights; -1, PyTorch's
// None, for the norm of the whole tensor).
func WeightNorm(weight torch.Tensor, opts ...Option) *WeightNormParam {
	return must(TryWeightNorm(weight, opts...))
}

// TryWeightNorm is WeightNorm that returns its error.
func TryWeightNorm(weight torch.Tensor, opts ...Option) (w *WeightNormParam, err error) {
	const who = "utils.WeightNorm"
	a := args{dim: 0}
	if err := a.parse(who, opts, "dim"); err != nil {
		return nil, err
	}
	dim := a.dim
	if !weight.Defined() {
		return nil, errors.New(who + ": weight is an undefined or freed tensor")
	}
	if dim < -1 || dim >= int64(weight.Dim()) {
		return nil, fmt.Errorf("%s: dim %d out of range for a weight of %d dimensions", who, dim, weight.Dim())
	}
	err = catch(func() {
		torch.NoGrad(func() {
			g := torch.NormExceptDim(weight, torch.WithPow(2), torch.WithDim(dim))
			w = &WeightNormParam{
				G:   g.Detach().SetRequiresGrad(true),
				V:   weight.Detach().Clone().SetRequiresGrad(true),
				Dim: dim,
			}
		})
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", who, err)
	}
	return w, nil
}

// Weight computes the weight, G·V/‖V‖ (torch._weight_norm): call it
// before each forward, with gradients recording, so that they reach G and
// V.
func (w *WeightNormParam) Weight() torch.Tensor { return must(w.TryWeight()) }

// TryWeight is Weight that returns its error.
func (w *WeightNormParam) TryWeight() (torch.Tensor, error) {
	if w == nil {
		return torch.Tensor{}, errors.New("utils.WeightNormParam: nil")
	}
	return torch.TryInternalWeightNorm(w.V, w.G, torch.WithDim(w.Dim))
}

// Parameters returns G and V, in PyTorch's order (weight_g, weight_v).
func (w *WeightNormParam) Parameters() []torch.Tensor { return []torch.Tensor{w.G, w.V} }

// RemoveWeightNorm is torch.nn.utils.remove_weight_norm: the weight as a
// plain tensor again (a new leaf that requires grad).
func (w *WeightNormParam) RemoveWeightNorm() torch.Tensor {
	var out torch.Tensor
	torch.NoGrad(func() { out = w.Weight() })
	return out.Detach().SetRequiresGrad(true)
}

// SpectralNormParam is spectral normalization
// (torch.nn.utils.spectral_norm): the weight divided by its largest
// singular value, estimated by power iteration.
type SpectralNormParam struct {
	Orig             torch.Tensor `gotorch:"weight_orig"` // the weight before normalization
	U                torch.Tensor `gotorch:"weight_u"`    // buffers: the power iteration's vectors
	V                torch.Tensor `gotorch:"weight_v"`
	Dim              int64
	NPowerIterations int64
	Eps              float64
}

// SpectralNorm starts spectral normalization of weight, as
// torch.nn.utils.spectral_norm does: Orig is a copy of weight that
// requires grad, U and V random unit vectors.
//
// Options: WithNPowerIterations (1), WithEps (1e-12), WithDim (0; PyTorch
// takes 1 for the weights of ConvTranspose layers, which are (in, out,
// k...): pass WithDim(1) for them).
func SpectralNorm(weight torch.Tensor, opts ...Option) *SpectralNormParam {
	return must(TrySpectralNorm(weight, opts...))
}

// TrySpectralNorm is SpectralNorm that returns its error.
func TrySpectralNorm(weight torch.Tensor, opts ...Option) (s *SpectralNormParam, err error) {
	const who = "utils.SpectralNorm"
	a := args{dim: 0, nPowerIterations: 1, eps: 1e-12}
	if err := a.parse(who, opts, "n_power_iterations", "eps", "dim"); err != nil {
		return nil, err
	}
	nPowerIterations, eps, dim := a.nPowerIterations, a.eps, a.dim
	if !weight.Defined() {
		return nil, errors.New(who + ": weight is an undefined or freed tensor")
	}
	if nPowerIterations <= 0 {
		return nil, fmt.Errorf("%s: Expected n_power_iterations to be positive, but got n_power_iterations=%d", who, nPowerIterations)
	}
	if dim < 0 || dim >= int64(weight.Dim()) || weight.Dim() < 1 {
		return nil, fmt.Errorf("%s: dim %d out of range for a weight of %d dimensions", who, dim, weight.Dim())
	}
	s = &SpectralNormParam{Dim: dim, NPowerIterations: nPowerIterations, Eps: eps}
	err = catch(func() {
		torch.NoGrad(func() {
			m := s.matrix(weight)
			sh := m.Shape()
			opts := []torch.Option{torch.WithDtype(weight.DType()), torch.WithDevice(weight.Device())}
			s.U = s.normalize(torch.Randn([]int64{sh[0]}, opts...))
			s.V = s.normalize(torch.Randn([]int64{sh[1]}, opts...))
			s.Orig = weight.Detach().Clone().SetRequiresGrad(true)
		})
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", who, err)
	}
	return s, nil
}

// matrix is reshape_weight_to_matrix: dim first, the rest flattened.
func (s *SpectralNormParam) matrix(w torch.Tensor) torch.Tensor {
	if s.Dim != 0 {
		perm := []int64{s.Dim}
		for d := int64(0); d < int64(w.Dim()); d++ {
			if d != s.Dim {
				perm = append(perm, d)
			}
		}
		w = w.Permute(perm)
	}
	return w.Reshape([]int64{w.Size(0), -1})
}

func (s *SpectralNormParam) normalize(x torch.Tensor) torch.Tensor {
	return functional.Normalize(x, functional.WithDim(0), functional.WithEps(s.Eps))
}

// Weight computes the normalized weight, Orig/σ. In training it first
// runs the power iteration, updating U and V in place, as PyTorch's
// forward pre-hook does in train mode; in eval it uses them as they are.
func (s *SpectralNormParam) Weight(training bool) torch.Tensor { return must(s.TryWeight(training)) }

// TryWeight is Weight that returns its error.
func (s *SpectralNormParam) TryWeight(training bool) (w torch.Tensor, err error) {
	if s == nil {
		return torch.Tensor{}, errors.New("utils.SpectralNormParam: nil")
	}
	err = catch(func() {
		m := s.matrix(s.Orig)
		u, v := s.U, s.V
		if training {
			torch.NoGrad(func() {
				for i := int64(0); i < s.NPowerIterations; i++ {
					v.Copy_(s.normalize(m.T().Mv(u)))
					u.Copy_(s.normalize(m.Mv(v)))
				}
				if s.NPowerIterations > 0 {
					u = u.Clone(torch.WithMemoryFormat(torch.ContiguousFormat))
					v = v.Clone(torch.WithMemoryFormat(torch.ContiguousFormat))
				}
			})
		}
		sigma := u.Dot(m.Mv(v))
		w = s.Orig.Div(sigma)
	})
	if err != nil {
		return torch.Tensor{}, fmt.Errorf("utils.SpectralNorm: %w", err)
	}
	return w, nil
}
