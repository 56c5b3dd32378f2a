package optim

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/gotorch/gotorch/torch"
)

// SparseAdamOptimizer is Adam for sparse gradients
// (torch.optim.SparseAdam).
type SparseAdamOptimizer struct{ optimizer }

// pyFloat formats f as Python's repr does for the numbers of error
// messages: 0.0, not 0.
func pyFloat(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e16 {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return fmt.Sprint(f)
}

// isSparse tells a sparse COO tensor from a dense one (is_coalesced is
// defined only for sparse tensors).
func isSparse(t torch.Tensor) bool {
	_, err := t.TryIsCoalesced()
	return err == nil
}

var sparseAdamAlgo = &algorithm{
	name: "SparseAdam",
	defaults: []entry{
		{"lr", kFloat, 1e-3},
		{"betas", kPair, []float64{0.9, 0.999}},
		{"eps", kFloat, 1e-8},
		{"maximize", kBool, false},
	},
	check: func(h *hyper) error {
		// SparseAdam's bounds are strict, unlike the other optimizers'.
		if !(0 < h.lr) {
			return fmt.Errorf("invalid learning rate: %s", pyFloat(h.lr))
		}
		if !(0 < h.eps) {
			return fmt.Errorf("invalid epsilon value: %s", pyFloat(h.eps))
		}
		return checkBetas(h)
	},
	stateTensors: []string{"exp_avg", "exp_avg_sq"},
	required:     []string{"step", "exp_avg", "exp_avg_sq"},
	stepKind:     stepInt,
	initState: func(h *hyper, p torch.Tensor, st map[string]any) {
		st["step"] = 0
		st["exp_avg"] = zerosState(p)
		st["exp_avg_sq"] = zerosState(p)
	},
	update: sparseAdamUpdate,
}

// sparseAdamUpdate is PyTorch 1.13's F.sparse_adam for one parameter.
func sparseAdamUpdate(h *hyper, p, grad torch.Tensor, st map[string]any, tmp *temps) {
	if !isSparse(grad) {
		panic(errors.New("SparseAdam does not support dense gradients, please consider Adam instead"))
	}
	st["step"] = st["step"].(int) + 1
	step := float64(st["step"].(int))
	g := grad
	if h.maximize {
		g = tmp.add(grad.Neg())
	}
	g = tmp.add(g.Coalesce())
	indices := tmp.add(g.InternalIndices())
	values := tmp.add(g.InternalValues())
	size := g.Shape()
	sparse := func(v torch.Tensor) torch.Tensor {
		return tmp.add(torch.SparseCooTensorIndicesSize(indices, v, size,
			torch.WithDtype(v.DType()), torch.WithDevice(v.Device())))
	}
	expAvg := st["exp_avg"].(torch.Tensor)
	expAvgSq := st["exp_avg_sq"].(torch.Tensor)

	oldAvg := tmp.add(tmp.add(expAvg.SparseMask(g)).InternalValues())
	avgUpdate := tmp.add(values.Sub(oldAvg))
	avgUpdate.MulScalar_(torch.S(1 - h.beta1))
	expAvg.Add_(sparse(avgUpdate))
	oldSq := tmp.add(tmp.add(expAvgSq.SparseMask(g)).InternalValues())
	sqUpdate := tmp.add(values.PowTensorScalar(torch.S(2)))
	sqUpdate.Sub_(oldSq).MulScalar_(torch.S(1 - h.beta2))
	expAvgSq.Add_(sparse(sqUpdate))

	numer := avgUpdate.Add_(oldAvg)
	sqUpdate.Add_(oldSq)
	denom := sqUpdate.Sqrt_().AddScalar_(torch.S(h.eps))

	bc1 := 1 - math.Pow(h.beta1, step)
	bc2 := 1 - math.Pow(h.beta2, step)
	stepSize := h.lr * math.Sqrt(bc2) / bc1
	upd := tmp.add(numer.Div_(denom).MulScalar(torch.S(-stepSize)))
	p.Add_(sparse(upd))
}

// SparseAdam returns a SparseAdam optimizer of params (a []torch.Tensor or
// a []ParamGroup), PyTorch's torch.optim.SparseAdam: Adam that updates
// only the rows a sparse gradient touches, as an Embedding made with
// sparse gradients has. A dense gradient is an error at Step. It panics
// on invalid options; TrySparseAdam returns the error.
//
// Options: WithLR (1e-3), WithBetas (0.9, 0.999), WithEps (1e-8),
// WithMaximize (false).
func SparseAdam[P Params](params P, opts ...Option) *SparseAdamOptimizer {
	return must(TrySparseAdam(params, opts...))
}

// TrySparseAdam is SparseAdam that returns its error.
func TrySparseAdam[P Params](params P, opts ...Option) (*SparseAdamOptimizer, error) {
	groups := toGroups(params)
	for gi, g := range groups {
		for i, p := range g.Params {
			if p.Defined() && isSparse(p) {
				return nil, fmt.Errorf("optim.SparseAdam: sparse parameter %d of group %d: SparseAdam requires dense parameter tensors", i, gi)
			}
		}
	}
	o, err := newOptimizer(sparseAdamAlgo, groups, opts)
	if err != nil {
		return nil, err
	}
	return &SparseAdamOptimizer{o}, nil
}
