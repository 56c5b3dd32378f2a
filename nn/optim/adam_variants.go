package optim

import (
	"fmt"
	"math"

	"github.com/gotorch/gotorch/torch"
)

// NAdamOptimizer is Adam with Nesterov momentum (torch.optim.NAdam).
type NAdamOptimizer struct{ optimizer }

// RAdamOptimizer is rectified Adam (torch.optim.RAdam).
type RAdamOptimizer struct{ optimizer }

// AdamaxOptimizer is Adam with the infinity norm (torch.optim.Adamax).
type AdamaxOptimizer struct{ optimizer }

func checkMomentumDecay(h *hyper) error {
	if !(0 <= h.momentumDecay) {
		return fmt.Errorf("invalid momentum_decay value: %v", h.momentumDecay)
	}
	return nil
}

var nadamAlgo = &algorithm{
	name: "NAdam",
	defaults: []entry{
		{"lr", kFloat, 2e-3},
		{"betas", kPair, []float64{0.9, 0.999}},
		{"eps", kFloat, 1e-8},
		{"weight_decay", kFloat, 0},
		{"momentum_decay", kFloat, 4e-3},
		{"foreach", kInert, nil},
	},
	check: func(h *hyper) error {
		return firstError(h, checkLR, checkEps, checkBetas, checkWeightDecay, checkMomentumDecay)
	},
	stateTensors:  []string{"exp_avg", "exp_avg_sq"},
	scalarTensors: []string{"mu_product"},
	required:      []string{"step", "mu_product", "exp_avg", "exp_avg_sq"},
	stepKind:      stepTensor,
	initState: func(h *hyper, p torch.Tensor, st map[string]any) {
		st["step"] = stepTensor0()
		st["mu_product"] = torch.Keep(torch.ScalarTensor(torch.S(1.0), torch.WithDtype(torch.Float32)))
		st["exp_avg"] = zerosState(p)
		st["exp_avg_sq"] = zerosState(p)
	},
	update: nadamUpdate,
}

// nadamUpdate is PyTorch 1.13's _single_tensor_nadam. mu_product is a
// float32 tensor there, and so are its products here, so that the
// rounding is the same.
func nadamUpdate(h *hyper, p, grad torch.Tensor, st map[string]any, tmp *temps) {
	expAvg := st["exp_avg"].(torch.Tensor)
	expAvgSq := st["exp_avg_sq"].(torch.Tensor)
	muProduct := st["mu_product"].(torch.Tensor)
	stepT := st["step"].(torch.Tensor)
	stepT.AddScalar_(torch.S(1))
	step := stepT.Item()
	bc2 := 1 - math.Pow(h.beta2, step)
	g := grad
	if h.weightDecay != 0 {
		g = tmp.add(g.Add(p, torch.WithAlpha(h.weightDecay)))
	}
	mu := h.beta1 * (1 - 0.5*math.Pow(0.96, step*h.momentumDecay))
	muNext := h.beta1 * (1 - 0.5*math.Pow(0.96, (step+1)*h.momentumDecay))
	muProduct.MulScalar_(torch.S(mu))
	muProductNext := tmp.add(muProduct.MulScalar(torch.S(mu)))
	muProductNext.MulScalar_(torch.S(muNext))
	expAvg.MulScalar_(torch.S(h.beta1)).Add_(g, torch.WithAlpha(1-h.beta1))
	expAvgSq.MulScalar_(torch.S(h.beta2)).Addcmul_(g, g, torch.WithValue(1-h.beta2))
	denom := tmp.add(expAvgSq.DivScalar(torch.S(bc2)))
	denom.Sqrt_().AddScalar_(torch.S(h.eps))
	p.Addcdiv_(g, denom, torch.WithValue(-h.lr*(1-mu)/(1-muProduct.Item())))
	p.Addcdiv_(expAvg, denom, torch.WithValue(-h.lr*muNext/(1-muProductNext.Item())))
}

// NAdam returns an NAdam optimizer of params (a []torch.Tensor or a
// []ParamGroup), PyTorch's torch.optim.NAdam. It panics on invalid
// options; TryNAdam returns the error.
//
// Options: WithLR (2e-3), WithBetas (0.9, 0.999), WithEps (1e-8),
// WithWeightDecay (0), WithMomentumDecay (4e-3).
func NAdam[P Params](params P, opts ...Option) *NAdamOptimizer {
	return must(TryNAdam(params, opts...))
}

// TryNAdam is NAdam that returns its error.
func TryNAdam[P Params](params P, opts ...Option) (*NAdamOptimizer, error) {
	o, err := newOptimizer(nadamAlgo, toGroups(params), opts)
	if err != nil {
		return nil, err
	}
	return &NAdamOptimizer{o}, nil
}

var radamAlgo = &algorithm{
	name: "RAdam",
	defaults: []entry{
		{"lr", kFloat, 1e-3},
		{"betas", kPair, []float64{0.9, 0.999}},
		{"eps", kFloat, 1e-8},
		{"weight_decay", kFloat, 0},
		{"foreach", kInert, nil},
	},
	check: func(h *hyper) error {
		return firstError(h, checkLR, checkEps, checkBetas, checkWeightDecay)
	},
	stateTensors: []string{"exp_avg", "exp_avg_sq"},
	required:     []string{"step", "exp_avg", "exp_avg_sq"},
	stepKind:     stepTensor,
	initState: func(h *hyper, p torch.Tensor, st map[string]any) {
		st["step"] = stepTensor0()
		st["exp_avg"] = zerosState(p)
		st["exp_avg_sq"] = zerosState(p)
	},
	update: radamUpdate,
}

// radamUpdate is PyTorch 1.13's _single_tensor_radam.
func radamUpdate(h *hyper, p, grad torch.Tensor, st map[string]any, tmp *temps) {
	expAvg := st["exp_avg"].(torch.Tensor)
	expAvgSq := st["exp_avg_sq"].(torch.Tensor)
	stepT := st["step"].(torch.Tensor)
	stepT.AddScalar_(torch.S(1))
	step := stepT.Item()
	bc1 := 1 - math.Pow(h.beta1, step)
	bc2 := 1 - math.Pow(h.beta2, step)
	g := grad
	if h.weightDecay != 0 {
		g = tmp.add(g.Add(p, torch.WithAlpha(h.weightDecay)))
	}
	expAvg.MulScalar_(torch.S(h.beta1)).Add_(g, torch.WithAlpha(1-h.beta1))
	expAvgSq.MulScalar_(torch.S(h.beta2)).Addcmul_(g, g, torch.WithValue(1-h.beta2))
	corrected := tmp.add(expAvg.DivScalar(torch.S(bc1)))
	rhoInf := 2/(1-h.beta2) - 1
	rhoT := rhoInf - 2*step*math.Pow(h.beta2, step)/bc2
	update := tmp.add(corrected.MulScalar(torch.S(h.lr)))
	if rhoT > 5 {
		rect := math.Sqrt((rhoT - 4) * (rhoT - 2) * rhoInf / ((rhoInf - 4) * (rhoInf - 2) * rhoT))
		denom := tmp.add(expAvgSq.Sqrt())
		denom.AddScalar_(torch.S(h.eps))
		// math.sqrt(bias_correction2) / denom: a number over a tensor.
		adaptive := tmp.add(denom.Reciprocal())
		adaptive.MulScalar_(torch.S(math.Sqrt(bc2)))
		update = tmp.add(update.Mul(adaptive))
		update.MulScalar_(torch.S(rect))
	}
	p.Add_(update, torch.WithAlpha(-1.0))
}

// RAdam returns a RAdam optimizer of params (a []torch.Tensor or a
// []ParamGroup), PyTorch's torch.optim.RAdam. It panics on invalid
// options; TryRAdam returns the error.
//
// Options: WithLR (1e-3), WithBetas (0.9, 0.999), WithEps (1e-8),
// WithWeightDecay (0).
func RAdam[P Params](params P, opts ...Option) *RAdamOptimizer {
	return must(TryRAdam(params, opts...))
}

// TryRAdam is RAdam that returns its error.
func TryRAdam[P Params](params P, opts ...Option) (*RAdamOptimizer, error) {
	o, err := newOptimizer(radamAlgo, toGroups(params), opts)
	if err != nil {
		return nil, err
	}
	return &RAdamOptimizer{o}, nil
}

var adamaxAlgo = &algorithm{
	name: "Adamax",
	defaults: []entry{
		{"lr", kFloat, 2e-3},
		{"betas", kPair, []float64{0.9, 0.999}},
		{"eps", kFloat, 1e-8},
		{"weight_decay", kFloat, 0},
		{"foreach", kInert, nil},
		{"maximize", kBool, false},
	},
	check: func(h *hyper) error {
		return firstError(h, checkLR, checkEps, checkBetas, checkWeightDecay)
	},
	stateTensors: []string{"exp_avg", "exp_inf"},
	required:     []string{"step", "exp_avg", "exp_inf"},
	stepKind:     stepTensor,
	initState: func(h *hyper, p torch.Tensor, st map[string]any) {
		st["step"] = stepTensor0()
		st["exp_avg"] = zerosState(p)
		st["exp_inf"] = zerosState(p)
	},
	update: adamaxUpdate,
}

// adamaxUpdate is PyTorch 1.13's _single_tensor_adamax.
func adamaxUpdate(h *hyper, p, grad torch.Tensor, st map[string]any, tmp *temps) {
	g := grad
	if h.maximize {
		g = tmp.add(grad.Neg())
	}
	stepT := st["step"].(torch.Tensor)
	stepT.AddScalar_(torch.S(1))
	step := stepT.Item()
	if h.weightDecay != 0 {
		g = tmp.add(g.Add(p, torch.WithAlpha(h.weightDecay)))
	}
	expAvg := asReal(st["exp_avg"].(torch.Tensor), tmp)
	expInf := asReal(st["exp_inf"].(torch.Tensor), tmp)
	p, g = asReal(p, tmp), asReal(g, tmp)
	expAvg.MulScalar_(torch.S(h.beta1)).Add_(g, torch.WithAlpha(1-h.beta1))
	expInf.MulScalar_(torch.S(h.beta2))
	a := tmp.add(expInf.Unsqueeze(0))
	b := tmp.add(g.Abs())
	b.AddScalar_(torch.S(h.eps))
	normBuf := tmp.add(torch.Cat([]torch.Tensor{a, tmp.add(b.Unsqueeze(0))}))
	torch.AmaxOut(expInf, normBuf, torch.WithDim(0))
	clr := h.lr / (1 - math.Pow(h.beta1, step))
	p.Addcdiv_(expAvg, expInf, torch.WithValue(-clr))
}

// Adamax returns an Adamax optimizer of params (a []torch.Tensor or a
// []ParamGroup), PyTorch's torch.optim.Adamax. It panics on invalid
// options; TryAdamax returns the error.
//
// Options: WithLR (2e-3), WithBetas (0.9, 0.999), WithEps (1e-8),
// WithWeightDecay (0), WithMaximize (false).
func Adamax[P Params](params P, opts ...Option) *AdamaxOptimizer {
	return must(TryAdamax(params, opts...))
}

// TryAdamax is Adamax that returns its error.
func TryAdamax[P Params](params P, opts ...Option) (*AdamaxOptimizer, error) {
	o, err := newOptimizer(adamaxAlgo, toGroups(params), opts)
	if err != nil {
		return nil, err
	}
	return &AdamaxOptimizer{o}, nil
}

// AdadeltaOptimizer is Adadelta (torch.optim.Adadelta).
type AdadeltaOptimizer struct{ optimizer }

var adadeltaAlgo = &algorithm{
	name: "Adadelta",
	defaults: []entry{
		{"lr", kFloat, 1.0},
		{"rho", kFloat, 0.9},
		{"eps", kFloat, 1e-6},
		{"weight_decay", kFloat, 0},
		{"maximize", kBool, false},
		{"foreach", kInert, nil},
	},
	check: func(h *hyper) error {
		if err := checkLR(h); err != nil {
			return err
		}
		if !(0 <= h.rho && h.rho <= 1) {
			return fmt.Errorf("invalid rho value: %v", h.rho)
		}
		return firstError(h, checkEps, checkWeightDecay)
	},
	stateTensors: []string{"square_avg", "acc_delta"},
	required:     []string{"step", "square_avg", "acc_delta"},
	stepKind:     stepInt,
	initState: func(h *hyper, p torch.Tensor, st map[string]any) {
		st["step"] = 0
		st["square_avg"] = zerosState(p)
		st["acc_delta"] = zerosState(p)
	},
	update: adadeltaUpdate,
}

// adadeltaUpdate is PyTorch 1.13's _single_tensor_adadelta.
func adadeltaUpdate(h *hyper, p, grad torch.Tensor, st map[string]any, tmp *temps) {
	st["step"] = st["step"].(int) + 1
	g := grad
	if h.maximize {
		g = tmp.add(grad.Neg())
	}
	if h.weightDecay != 0 {
		g = tmp.add(g.Add(p, torch.WithAlpha(h.weightDecay)))
	}
	sq := asReal(st["square_avg"].(torch.Tensor), tmp)
	acc := asReal(st["acc_delta"].(torch.Tensor), tmp)
	param := p
	g = asReal(g, tmp)
	sq.MulScalar_(torch.S(h.rho)).Addcmul_(g, g, torch.WithValue(1-h.rho))
	std := tmp.add(sq.AddScalar(torch.S(h.eps)))
	std.Sqrt_()
	delta := tmp.add(acc.AddScalar(torch.S(h.eps)))
	delta.Sqrt_().Div_(std).Mul_(g)
	acc.MulScalar_(torch.S(h.rho)).Addcmul_(delta, delta, torch.WithValue(1-h.rho))
	if param.DType().IsComplex() {
		delta = tmp.add(torch.ViewAsComplex(delta))
	}
	param.Add_(delta, torch.WithAlpha(-h.lr))
}

// Adadelta returns an Adadelta optimizer of params (a []torch.Tensor or a
// []ParamGroup), PyTorch's torch.optim.Adadelta. It panics on invalid
// options; TryAdadelta returns the error.
//
// Options: WithLR (1.0), WithRho (0.9), WithEps (1e-6), WithWeightDecay
// (0), WithMaximize (false).
func Adadelta[P Params](params P, opts ...Option) *AdadeltaOptimizer {
	return must(TryAdadelta(params, opts...))
}

// TryAdadelta is Adadelta that returns its error.
func TryAdadelta[P Params](params P, opts ...Option) (*AdadeltaOptimizer, error) {
	o, err := newOptimizer(adadeltaAlgo, toGroups(params), opts)
	if err != nil {
		return nil, err
	}
	return &AdadeltaOptimizer{o}, nil
}
