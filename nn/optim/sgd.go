package optim

import (
	"errors"

	"github.com/gotorch/gotorch/torch"
)

// SGDOptimizer is stochastic gradient descent, optionally with momentum
// (torch.optim.SGD).
type SGDOptimizer struct{ optimizer }

var sgdAlgo = &algorithm{
	name: "SGD",
	defaults: []entry{
		{"lr", kFloat, nil},
		{"momentum", kFloat, 0},
		{"dampening", kFloat, 0},
		{"weight_decay", kFloat, 0},
		{"nesterov", kBool, false},
		{"maximize", kBool, false},
		{"foreach", kInert, nil},
		{"differentiable", kInert, false},
	},
	check: func(h *hyper) error {
		if err := firstError(h, checkLR, checkMomentum, checkWeightDecay); err != nil {
			return err
		}
		if h.nesterov && (h.momentum <= 0 || h.dampening != 0) {
			return errors.New("Nesterov momentum requires a momentum and zero dampening")
		}
		return nil
	},
	stateTensors: []string{"momentum_buffer"},
	nilState:     true,
	initState:    func(*hyper, torch.Tensor, map[string]any) {},
	update:       sgdUpdate,
}

func sgdUpdate(h *hyper, p, grad torch.Tensor, st map[string]any, tmp *temps) {
	d := grad
	if h.maximize {
		d = tmp.add(grad.Neg())
	}
	if h.weightDecay != 0 {
		d = tmp.add(d.Add(p, torch.WithAlpha(h.weightDecay)))
	}
	if h.momentum != 0 {
		buf, _ := st["momentum_buffer"].(torch.Tensor)
		if !buf.Defined() {
			c := tmp.add(torch.Clone(d))
			buf = torch.Keep(c.Detach())
			st["momentum_buffer"] = buf
		} else {
			buf.MulScalar_(torch.S(h.momentum)).Add_(d, torch.WithAlpha(1-h.dampening))
		}
		if h.nesterov {
			d = tmp.add(d.Add(buf, torch.WithAlpha(h.momentum)))
		} else {
			d = buf
		}
	} else if _, ok := st["momentum_buffer"]; !ok {
		st["momentum_buffer"] = nil // PyTorch stores None
	}
	p.Add_(d, torch.WithAlpha(-h.lr))
}

// SGD returns a stochastic-gradient-descent optimizer of params (a
// []torch.Tensor or a []ParamGroup), PyTorch's torch.optim.SGD. It panics
// on invalid options; TrySGD returns the error.
//
// Options: WithLR (required), WithMomentum (0), WithDampening (0),
// WithWeightDecay (0), WithNesterov (false), WithMaximize (false).
//
// The update, for each parameter with a gradient g, is PyTorch 1.13's:
// g += weight_decay·p; b = momentum·b + (1-dampening)·g (b = g on the first
// step); g = g + momentum·b with Nesterov, else b; p -= lr·g.
func SGD[P Params](params P, opts ...Option) *SGDOptimizer {
	return must(TrySGD(params, opts...))
}

// TrySGD is SGD that returns its error.
func TrySGD[P Params](params P, opts ...Option) (*SGDOptimizer, error) {
	o, err := newOptimizer(sgdAlgo, toGroups(params), opts)
	if err != nil {
		return nil, err
	}
	return &SGDOptimizer{o}, nil
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
