package optim

import (
	"fmt"

	"github.com/gotorch/gotorch/torch"
)

// AdagradOptimizer is Adagrad (torch.optim.Adagrad).
type AdagradOptimizer struct{ optimizer }

var adagradAlgo = &algorithm{
	name: "Adagrad",
	defaults: []entry{
		{"lr", kFloat, 1e-2},
		{"lr_decay", kFloat, 0},
		{"eps", kFloat, 1e-10},
		{"weight_decay", kFloat, 0},
		{"initial_accumulator_value", kFloat, 0},
		{"foreach", kInert, nil},
		{"maximize", kBool, false},
	},
	check: func(h *hyper) error {
		if err := checkLR(h); err != nil {
			return err
		}
		if !(0 <= h.lrDecay) {
			return fmt.Errorf("invalid lr_decay value: %v", h.lrDecay)
		}
		if err := checkWeightDecay(h); err != nil {
			return err
		}
		if !(0 <= h.initialAccumulatorValue) {
			return fmt.Errorf("invalid initial_accumulator_value value: %v", h.initialAccumulatorValue)
		}
		return checkEps(h)
	},
	stateTensors: []string{"sum"},
	required:     []string{"step", "sum"},
	stepKind:     stepTensor,
	eagerInit:    true,
	initState: func(h *hyper, p torch.Tensor, st map[string]any) {
		st["step"] = stepTensor0()
		v := h.initialAccumulatorValue
		var fill torch.Scalar
		if p.DType().IsComplex() {
			fill = torch.S(complex(v, v))
		} else {
			fill = torch.S(v)
		}
		st["sum"] = torch.Keep(torch.FullLike(p, fill, torch.WithMemoryFormat(torch.PreserveFormat)))
	},
	update: adagradUpdate,
}

// adagradUpdate is PyTorch 1.13's _single_tensor_adagrad for dense
// gradients.
func adagradUpdate(h *hyper, p, grad torch.Tensor, st map[string]any, tmp *temps) {
	stepT := st["step"].(torch.Tensor)
	stepT.AddScalar_(torch.S(1))
	step := stepT.Item()
	g := grad
	if h.maximize {
		g = tmp.add(grad.Neg())
	}
	if h.weightDecay != 0 {
		g = tmp.add(g.Add(p, torch.WithAlpha(h.weightDecay)))
	}
	clr := h.lr / (1 + (step-1)*h.lrDecay)
	sum := asReal(st["sum"].(torch.Tensor), tmp)
	p, g = asReal(p, tmp), asReal(g, tmp)
	sum.Addcmul_(g, g, torch.WithValue(1))
	std := tmp.add(sum.Sqrt())
	std.AddScalar_(torch.S(h.eps))
	p.Addcdiv_(g, std, torch.WithValue(-clr))
}

// Adagrad returns an Adagrad optimizer of params (a []torch.Tensor or a
// []ParamGroup), PyTorch's torch.optim.Adagrad. It panics on invalid
// options; TryAdagrad returns the error. As in PyTorch, every parameter's
// state (its sum of squared gradients) is made at once.
//
// Options: WithLR (1e-2), WithLRDecay (0), WithWeightDecay (0),
// WithInitialAccumulatorValue (0), WithEps (1e-10), WithMaximize (false).
//
// A group's own WithInitialAccumulatorValue sets its parameters' starting
// sum; PyTorch 1.13 uses the constructor's value for every group.
func Adagrad[P Params](params P, opts ...Option) *AdagradOptimizer {
	return must(TryAdagrad(params, opts...))
}

// TryAdagrad is Adagrad that returns its error.
func TryAdagrad[P Params](params P, opts ...Option) (*AdagradOptimizer, error) {
	o, err := newOptimizer(adagradAlgo, toGroups(params), opts)
	if err != nil {
		return nil, err
	}
	return &AdagradOptimizer{o}, nil
}
