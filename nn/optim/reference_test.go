package optim_test

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// The reference values, written by testdata/optim.py with PyTorch 1.13.

type reference struct {
	TorchVersion string `json:"torch_version"`
	Steps        int    `json:"steps"`
	SaveAt       int    `json:"save_at"` // of TestStateRoundTrip, Go against Go
	Data         struct {
		X    [][]float64 `json:"x"`
		Y    []float64   `json:"y"`
		Init struct {
			W [][]float64 `json:"W"`
			B []float64   `json:"b"`
			V []float64   `json:"v"`
			U []float64   `json:"u"`
		} `json:"init"`
		Names []string `json:"names"`
	} `json:"data"`
	Optimizers map[string]*optConfig   `json:"optimizers"`
	Schedulers map[string]*schedConfig `json:"schedulers"`
	Plateau    struct {
		Metrics []float64 `json:"metrics"`
		Configs map[string]*struct {
			Optimizer string      `json:"optimizer"`
			LRs       [][]float64 `json:"lrs"`
		} `json:"configs"`
	} `json:"plateau"`
	LBFGS  map[string]*lbfgsConfig `json:"lbfgs"`
	Sparse struct {
		Init    [][]float64 `json:"init"`
		V       []float64   `json:"v"`
		Configs map[string]*struct {
			Options     map[string]any `json:"options"`
			Negate      bool           `json:"negate"`
			Checkpoints []struct {
				Step   int `json:"step"`
				Before struct {
					Table []float64                 `json:"table"`
					State map[string]map[string]any `json:"state"`
				} `json:"before"`
				After struct {
					Table []float64                 `json:"table"`
					State map[string]map[string]any `json:"state"`
				} `json:"after"`
			} `json:"checkpoints"`
		} `json:"configs"`
	} `json:"sparse_adam"`
	Clip   clipRef               `json:"clip"`
	Errors map[string]*errorCase `json:"errors"`
}

type optConfig struct {
	Optimizer string         `json:"optimizer"`
	Defaults  map[string]any `json:"defaults"`
	Groups    []struct {
		Params  []string       `json:"params"`
		Options map[string]any `json:"options"`
	} `json:"groups"`
	Negate      bool         `json:"negate"`
	DType       string       `json:"dtype"`
	Checkpoints []checkpoint `json:"checkpoints"`
}

// checkpoint is what PyTorch had just before and just after one step.
type checkpoint struct {
	Step   int `json:"step"`
	Before struct {
		Params    map[string][]float64 `json:"params"`
		Grads     map[string][]float64 `json:"grads"`
		StateDict pyStateDict          `json:"state_dict"`
	} `json:"before"`
	After struct {
		Params    map[string][]float64 `json:"params"`
		StateDict pyStateDict          `json:"state_dict"`
	} `json:"after"`
}

// pyStateDict is an optimizer's state_dict() as optim.py writes it.
type pyStateDict struct {
	State       map[string]map[string]any `json:"state"`
	ParamGroups []map[string]any          `json:"param_groups"`
}

type schedConfig struct {
	Optimizer string      `json:"optimizer"`
	LRs       [][]float64 `json:"lrs"`
	Momentum  [][]float64 `json:"momentum"`
}

type clipRef struct {
	Grads struct {
		A [][]float64 `json:"a"`
		B []float64   `json:"b"`
		C float64     `json:"c"`
	} `json:"grads"`
	Norm []struct {
		NormType  any         `json:"norm_type"`
		MaxNorm   float64     `json:"max_norm"`
		TotalNorm float64     `json:"total_norm"`
		Grads     [][]float64 `json:"grads"`
	} `json:"norm"`
	Value struct {
		ClipValue float64     `json:"clip_value"`
		Grads     [][]float64 `json:"grads"`
	} `json:"value"`
}

type errorCase struct {
	Optimizer string         `json:"optimizer"`
	Options   map[string]any `json:"options"`
	Message   string         `json:"message"`
	Empty     bool           `json:"empty"`
}

var (
	refOnce sync.Once
	ref     *reference
	refErr  error
)

func loadReference(t *testing.T) *reference {
	t.Helper()
	refOnce.Do(func() {
		data, err := os.ReadFile("testdata/optim.json")
		if err != nil {
			refErr = err
			return
		}
		ref = &reference{}
		refErr = json.Unmarshal(data, ref)
	})
	require.NoError(t, refErr, "run /usr/bin/python3 nn/optim/testdata/optim.py")
	return ref
}

func dtypeOf(name string) torch.DType {
	if name == "float64" {
		return torch.Float64
	}
	return torch.Float32
}

// asDType rounds reference values to float32, as PyTorch held them.
func asDType(vals []float64, dt torch.DType) []float64 {
	if dt != torch.Float32 {
		return vals
	}
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = float64(float32(v))
	}
	return out
}

func flatten(rows [][]float64) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

func tensorOf(vals []float64, dt torch.DType, shape ...int64) torch.Tensor {
	return torch.FromSlice(vals, shape...).To(dt)
}

// problem is the fixed loss of testdata/optim.py with fresh parameters.
type problem struct {
	x, y   torch.Tensor
	params map[string]torch.Tensor
	names  []string
}

func newProblem(r *reference, dt torch.DType) *problem {
	d := r.Data
	p := &problem{
		x:     tensorOf(flatten(d.X), dt, int64(len(d.X)), int64(len(d.X[0]))),
		y:     tensorOf(d.Y, dt),
		names: d.Names,
		params: map[string]torch.Tensor{
			"W": tensorOf(flatten(d.Init.W), dt, int64(len(d.Init.W)), int64(len(d.Init.W[0]))),
			"b": tensorOf(d.Init.B, dt),
			"v": tensorOf(d.Init.V, dt),
			"u": tensorOf(d.Init.U, dt),
		},
	}
	for _, t := range p.params {
		t.SetRequiresGrad(true)
	}
	return p
}

func (p *problem) list(names ...string) []torch.Tensor {
	if names == nil {
		names = p.names
	}
	out := make([]torch.Tensor, len(names))
	for i, n := range names {
		out[i] = p.params[n]
	}
	return out
}

// loss is loss_fn of optim.py, op for op.
func (p *problem) loss() torch.Tensor {
	w := p.params
	h := torch.Tanh(torch.Matmul(p.x, w["W"].T()).Add(w["b"]))
	logit := torch.Matmul(h, w["v"])
	data := torch.Softplus(logit).Sub(p.y.Mul(logit)).Mean()
	return data.Add(w["v"].PowTensorScalar(torch.S(4)).Sum().MulScalar(torch.S(0.01)))
}

// backward computes the gradients of one step.
func (p *problem) backward(negate bool) {
	l := p.loss()
	if negate {
		l = l.Neg()
	}
	l.Backward()
}

// set copies values into the parameters.
func (p *problem) set(vals map[string][]float64) {
	torch.NoGrad(func() {
		for n, t := range p.params {
			t.Copy_(tensorOf(vals[n], t.DType(), t.Shape()...))
		}
	})
}

// setGrads makes vals the parameters' gradients, to the bit: a leaf's
// backward with a given gradient accumulates exactly that into its empty
// grad. Parameters that vals does not name get none.
func (p *problem) setGrads(vals map[string][]float64) {
	for n, t := range p.params {
		t.ZeroGrad()
		if g, ok := vals[n]; ok {
			t.Backward(torch.WithGradient(tensorOf(g, t.DType(), t.Shape()...)))
		}
	}
}

func (p *problem) values() map[string][]float64 {
	out := map[string][]float64{}
	for n, t := range p.params {
		out[n] = t.Float64s()
	}
	return out
}

// optionsOf turns PyTorch keyword arguments into options.
func optionsOf(t *testing.T, kw map[string]any) []optim.Option {
	t.Helper()
	keys := make([]string, 0, len(kw))
	for k := range kw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var opts []optim.Option
	for _, k := range keys {
		v := kw[k]
		f, _ := v.(float64)
		b, _ := v.(bool)
		switch k {
		case "lr":
			opts = append(opts, optim.WithLR(f))
		case "momentum":
			opts = append(opts, optim.WithMomentum(f))
		case "dampening":
			opts = append(opts, optim.WithDampening(f))
		case "weight_decay":
			opts = append(opts, optim.WithWeightDecay(f))
		case "nesterov":
			opts = append(opts, optim.WithNesterov(b))
		case "maximize":
			opts = append(opts, optim.WithMaximize(b))
		case "betas":
			bs := v.([]any)
			opts = append(opts, optim.WithBetas(bs[0].(float64), bs[1].(float64)))
		case "eps":
			opts = append(opts, optim.WithEps(f))
		case "amsgrad":
			opts = append(opts, optim.WithAmsgrad(b))
		case "alpha":
			opts = append(opts, optim.WithAlpha(f))
		case "centered":
			opts = append(opts, optim.WithCentered(b))
		case "lr_decay":
			opts = append(opts, optim.WithLRDecay(f))
		case "initial_accumulator_value":
			opts = append(opts, optim.WithInitialAccumulatorValue(f))
		case "momentum_decay":
			opts = append(opts, optim.WithMomentumDecay(f))
		case "rho":
			opts = append(opts, optim.WithRho(f))
		default:
			t.Fatalf("unknown option %s", k)
		}
	}
	return opts
}

func newOptimizer[P optim.Params](name string, params P, opts ...optim.Option) (optim.Optimizer, error) {
	var (
		o   optim.Optimizer
		err error
	)
	switch name {
	case "SGD":
		o, err = nilIfErr(optim.TrySGD(params, opts...))
	case "Adam":
		o, err = nilIfErr(optim.TryAdam(params, opts...))
	case "AdamW":
		o, err = nilIfErr(optim.TryAdamW(params, opts...))
	case "RMSprop":
		o, err = nilIfErr(optim.TryRMSprop(params, opts...))
	case "Adagrad":
		o, err = nilIfErr(optim.TryAdagrad(params, opts...))
	case "NAdam":
		o, err = nilIfErr(optim.TryNAdam(params, opts...))
	case "RAdam":
		o, err = nilIfErr(optim.TryRAdam(params, opts...))
	case "Adamax":
		o, err = nilIfErr(optim.TryAdamax(params, opts...))
	case "Adadelta":
		o, err = nilIfErr(optim.TryAdadelta(params, opts...))
	case "SparseAdam":
		o, err = nilIfErr(optim.TrySparseAdam(params, opts...))
	default:
		return nil, fmt.Errorf("unknown optimizer %s", name)
	}
	return o, err
}

func nilIfErr[O optim.Optimizer](o O, err error) (optim.Optimizer, error) {
	if err != nil {
		return nil, err
	}
	return o, nil
}

// build makes the optimizer of a configuration over p's parameters.
func (c *optConfig) build(t *testing.T, p *problem) optim.Optimizer {
	t.Helper()
	opts := optionsOf(t, c.Defaults)
	var o optim.Optimizer
	var err error
	if c.Groups == nil {
		o, err = newOptimizer(c.Optimizer, p.list(), opts...)
	} else {
		groups := make([]optim.ParamGroup, len(c.Groups))
		for i, g := range c.Groups {
			groups[i] = optim.ParamGroup{Params: p.list(g.Params...), Options: optionsOf(t, g.Options)}
		}
		o, err = newOptimizer(c.Optimizer, groups, opts...)
	}
	require.NoError(t, err)
	return o
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestReprMatchesPyTorch compares each optimizer's String with what
// PyTorch prints for the same configuration (testdata/reprs.py).
func TestReprMatchesPyTorch(t *testing.T) {
	ref := loadReference(t)
	data, err := os.ReadFile("testdata/reprs.json")
	require.NoError(t, err, "run /usr/bin/python3 nn/optim/testdata/reprs.py")
	var reprs struct {
		Reprs map[string]string `json:"reprs"`
	}
	require.NoError(t, json.Unmarshal(data, &reprs))
	extra := map[string]func(p []torch.Tensor) fmt.Stringer{
		"lbfgs_default": func(p []torch.Tensor) fmt.Stringer { return optim.LBFGS(p) },
		"lbfgs_strong_wolfe": func(p []torch.Tensor) fmt.Stringer {
			return optim.LBFGS(p, optim.WithLR(0.5), optim.WithLineSearchFn("strong_wolfe"), optim.WithMaxIter(5))
		},
		"sparse_adam_default": func(p []torch.Tensor) fmt.Stringer { return optim.SparseAdam(p) },
		"sparse_adam_opts": func(p []torch.Tensor) fmt.Stringer {
			return optim.SparseAdam(p, optim.WithLR(0.01), optim.WithBetas(0.8, 0.99), optim.WithEps(1e-6), optim.WithMaximize(true))
		},
	}
	require.Len(t, reprs.Reprs, len(ref.Optimizers)+len(extra), "reprs.json and optim.json list different configurations: rerun both scripts")
	for _, name := range sortedKeys(extra) {
		t.Run(name, func(t *testing.T) {
			want, ok := reprs.Reprs[name]
			require.True(t, ok, "no repr for %s in reprs.json", name)
			p := []torch.Tensor{torch.Zeros([]int64{2}).SetRequiresGrad(true)}
			require.Equal(t, want, extra[name](p).String())
		})
	}
	for _, name := range sortedKeys(ref.Optimizers) {
		t.Run(name, func(t *testing.T) {
			want, ok := reprs.Reprs[name]
			require.True(t, ok, "no repr for %s in reprs.json", name)
			c := ref.Optimizers[name]
			p := newProblem(ref, dtypeOf(c.DType))
			o, ok := c.build(t, p).(fmt.Stringer)
			require.True(t, ok, "%s has no String method", c.Optimizer)
			require.Equal(t, want, o.String())
		})
	}
}
