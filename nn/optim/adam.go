package optim

import (
	"fmt"
	"math"

	"github.com/gotorch/gotorch/torch"
)

// AdamOptimizer is Adam (torch.optim.Adam).
type AdamOptimizer struct{ optimizer }

// AdamWOptimizer is Adam with decoupled weight decay (torch.optim.AdamW).
type AdamWOptimizer struct{ optimizer }

func checkBetas(h *hyper) error {
	if !(0 <= h.beta1 && h.beta1 < 1) {
		return fmt.Errorf("invalid beta parameter at index 0: %v", h.beta1)
	}
	if !(0 <= h.beta2 && h.beta2 < 1) {
		return fmt.Errorf("invalid beta parameter at index 1: %v", h.beta2)
	}
	return nil
}

func adamCheck(h *hyper) error {
	return firstError(h, checkLR, checkEps, checkBetas, checkWeightDecay)
}

func adamInit(h *hyper, p torch.Tensor, st map[string]any) {
	st["step"] = stepTensor0()
	st["exp_avg"] = zerosState(p)
	st["exp_avg_sq"] = zerosState(p)
	if h.amsgrad {
		st["max_exp_avg_sq"] = zerosState(p)
	}
}

var adamAlgo = &algorithm{
	name: "Adam",
	defaults: []entry{
		{"lr", kFloat, 1e-3},
		{"betas", kPair, []float64{0.9, 0.999}},
		{"eps", kFloat, 1e-8},
		{"weight_decay", kFloat, 0},
		{"amsgrad", kBool, false},
		{"maximize", kBool, false},
		{"foreach", kInert, nil},
		{"capturable", kInert, false},
		{"differentiable", kInert, false},
		{"fused", kInert, false},
	},
	check:        adamCheck,
	stateTensors: []string{"exp_avg", "exp_avg_sq", "max_exp_avg_sq"},
	required:     []string{"step", "exp_avg", "exp_avg_sq"},
	stepKind:     stepTensor,
	initState:    adamInit,
	update: func(h *hyper, p, grad torch.Tensor, st map[string]any, tmp *temps) {
		adamUpdate(h, p, grad, st, tmp, false)
	},
}

var adamWAlgo = &algorithm{
	name: "AdamW",
	defaults: []entry{
		{"lr", kFloat, 1e-3},
		{"betas", kPair, []float64{0.9, 0.999}},
		{"eps", kFloat, 1e-8},
		{"weight_decay", kFloat, 1e-2},
		{"amsgrad", kBool, false},
		{"foreach", kInert, nil},
		{"maximize", kBool, false},
		{"capturable", kInert, false},
	},
	check:        adamCheck,
	stateTensors: adamAlgo.stateTensors,
	required:     adamAlgo.required,
	stepKind:     stepTensor,
	initState:    adamInit,
	update: func(h *hyper, p, grad torch.Tensor, st map[string]any, tmp *temps) {
		adamUpdate(h, p, grad, st, tmp, true)
	},
}

// adamUpdate is PyTorch 1.13's _single_tensor_adam (decoupled: false) and
// _single_tensor_adamw (true), non-capturable.
func adamUpdate(h *hyper, p, grad torch.Tensor, st map[string]any, tmp *temps, decoupled bool) {
	g := grad
	if h.maximize {
		g = tmp.add(grad.Neg())
	}
	expAvg := st["exp_avg"].(torch.Tensor)
	expAvgSq := st["exp_avg_sq"].(torch.Tensor)
	stepT := st["step"].(torch.Tensor)
	stepT.AddScalar_(torch.S(1))
	if decoupled {
		g, expAvg, expAvgSq, p = asReal(g, tmp), asReal(expAvg, tmp), asReal(expAvgSq, tmp), asReal(p, tmp)
		p.MulScalar_(torch.S(1 - h.lr*h.weightDecay))
	} else {
		if h.weightDecay != 0 {
			g = tmp.add(g.Add(p, torch.WithAlpha(h.weightDecay)))
		}
		g, expAvg, expAvgSq, p = asReal(g, tmp), asReal(expAvg, tmp), asReal(expAvgSq, tmp), asReal(p, tmp)
	}
	expAvg.MulScalar_(torch.S(h.beta1)).Add_(g, torch.WithAlpha(1-h.beta1))
	expAvgSq.MulScalar_(torch.S(h.beta2)).Addcmul_(g, g, torch.WithValue(1-h.beta2))

	step := stepT.Item()
	bc1 := 1 - math.Pow(h.beta1, step)
	bc2 := 1 - math.Pow(h.beta2, step)
	stepSize := h.lr / bc1
	bc2Sqrt := math.Sqrt(bc2)
	var denom torch.Tensor
	if h.amsgrad {
		maxSq, ok := st["max_exp_avg_sq"].(torch.Tensor)
		if !ok || !maxSq.Defined() {
			// amsgrad turned on after the state was made.
			maxSq = zerosState(st["exp_avg_sq"].(torch.Tensor))
			st["max_exp_avg_sq"] = maxSq
		}
		maxSq = asReal(maxSq, tmp)
		torch.MaximumOut(maxSq, maxSq, expAvgSq)
		denom = tmp.add(maxSq.Sqrt())
	} else {
		denom = tmp.add(expAvgSq.Sqrt())
	}
	denom.DivScalar_(torch.S(bc2Sqrt)).AddScalar_(torch.S(h.eps))
	p.Addcdiv_(expAvg, denom, torch.WithValue(-stepSize))
}

// Adam returns an Adam optimizer of params (a []torch.Tensor or a
// []ParamGroup), PyTorch's torch.optim.Adam. It panics on invalid options;
// TryAdam returns the error.
//
// Options: WithLR (1e-3), WithBetas (0.9, 0.999), WithEps (1e-8),
// WithWeightDecay (0, an L2 penalty added to the gradient), WithAmsgrad
// (false), WithMaximize (false).
func Adam[P Params](params P, opts ...Option) *AdamOptimizer {
	return must(TryAdam(params, opts...))
}

// TryAdam is Adam that returns its error.
func TryAdam[P Params](params P, opts ...Option) (*AdamOptimizer, error) {
	o, err := newOptimizer(adamAlgo, toGroups(params), opts)
	if err != nil {
		return nil, err
	}
	return &AdamOptimizer{o}, nil
}

// AdamW returns an AdamW optimizer of params (a []torch.Tensor or a
// []ParamGroup), PyTorch's torch.optim.AdamW: Adam whose weight decay
// shrinks the parameters directly, p *= 1 - lr·weight_decay. It panics on
// invalid options; TryAdamW returns the error.
//
// Options: WithLR (1e-3), WithBetas (0.9, 0.999), WithEps (1e-8),
// WithWeightDecay (1e-2), WithAmsgrad (false), WithMaximize (false).
func AdamW[P Params](params P, opts ...Option) *AdamWOptimizer {
	return must(TryAdamW(params, opts...))
}

// TryAdamW is AdamW that returns its error.
func TryAdamW[P Params](params P, opts ...Option) (*AdamWOptimizer, error) {
	o, err := newOptimizer(adamWAlgo, toGroups(params), opts)
	if err != nil {
		return nil, err
	}
	return &AdamWOptimizer{o}, nil
}
