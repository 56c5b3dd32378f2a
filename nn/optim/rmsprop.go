package optim

import (
	"fmt"

	"github.com/gotorch/gotorch/torch"
)

// RMSpropOptimizer is RMSprop (torch.optim.RMSprop).
type RMSpropOptimizer struct{ optimizer }

var rmspropAlgo = &algorithm{
	name: "RMSprop",
	defaults: []entry{
		{"lr", kFloat, 1e-2},
		{"momentum", kFloat, 0},
		{"alpha", kFloat, 0.99},
		{"eps", kFloat, 1e-8},
		{"centered", kBool, false},
		{"weight_decay", kFloat, 0},
		{"foreach", kInert, nil},
		{"maximize", kBool, false},
		{"differentiable", kInert, false},
	},
	check: func(h *hyper) error {
		if err := firstError(h, checkLR, checkEps, checkMomentum, checkWeightDecay); err != nil {
			return err
		}
		if !(0 <= h.alpha) {
			return fmt.Errorf("invalid alpha value: %v", h.alpha)
		}
		return nil
	},
	stateTensors: []string{"square_avg", "momentum_buffer", "grad_avg"},
	required:     []string{"step", "square_avg"},
	stepKind:     stepInt,
	initState: func(h *hyper, p torch.Tensor, st map[string]any) {
		st["step"] = 0
		st["square_avg"] = zerosState(p)
		if h.momentum > 0 {
			st["momentum_buffer"] = zerosState(p)
		}
		if h.centered {
			st["grad_avg"] = zerosState(p)
		}
	},
	update: rmspropUpdate,
}

// stateTensor returns the state tensor key, made of zeros if the state
// lacks it (momentum or centered turned on after the state was made).
func stateTensor(st map[string]any, key string, p torch.Tensor) torch.Tensor {
	t, ok := st[key].(torch.Tensor)
	if !ok || !t.Defined() {
		t = zerosState(p)
		st[key] = t
	}
	return t
}

// rmspropUpdate is PyTorch 1.13's _single_tensor_rmsprop.
func rmspropUpdate(h *hyper, p, grad torch.Tensor, st map[string]any, tmp *temps) {
	st["step"] = st["step"].(int) + 1
	g := grad
	if h.maximize {
		g = tmp.add(grad.Neg())
	}
	if h.weightDecay != 0 {
		g = tmp.add(g.Add(p, torch.WithAlpha(h.weightDecay)))
	}
	param := p
	sq := asReal(st["square_avg"].(torch.Tensor), tmp)
	p, g = asReal(p, tmp), asReal(g, tmp)
	sq.MulScalar_(torch.S(h.alpha)).Addcmul_(g, g, torch.WithValue(1-h.alpha))
	var avg torch.Tensor
	if h.centered {
		ga := asReal(stateTensor(st, "grad_avg", param), tmp)
		ga.MulScalar_(torch.S(h.alpha)).Add_(g, torch.WithAlpha(1-h.alpha))
		avg = tmp.add(sq.Addcmul(ga, ga, torch.WithValue(-1)))
		avg.Sqrt_()
	} else {
		avg = tmp.add(sq.Sqrt())
	}
	avg.AddScalar_(torch.S(h.eps))
	if h.momentum > 0 {
		buf := asReal(stateTensor(st, "momentum_buffer", param), tmp)
		buf.MulScalar_(torch.S(h.momentum)).Addcdiv_(g, avg)
		p.Add_(buf, torch.WithAlpha(-h.lr))
	} else {
		p.Addcdiv_(g, avg, torch.WithValue(-h.lr))
	}
}

// RMSprop returns an RMSprop optimizer of params (a []torch.Tensor or a
// []ParamGroup), PyTorch's torch.optim.RMSprop. It panics on invalid
// options; TryRMSprop returns the error.
//
// Options: WithLR (1e-2), WithAlpha (0.99), WithEps (1e-8),
// WithWeightDecay (0), WithMomentum (0), WithCentered (false),
// WithMaximize (false).
func RMSprop[P Params](params P, opts ...Option) *RMSpropOptimizer {
	return must(TryRMSprop(params, opts...))
}

// TryRMSprop is RMSprop that returns its error.
func TryRMSprop[P Params](params P, opts ...Option) (*RMSpropOptimizer, error) {
	o, err := newOptimizer(rmspropAlgo, toGroups(params), opts)
	if err != nil {
		return nil, err
	}
	return &RMSpropOptimizer{o}, nil
}
