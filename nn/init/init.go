// Package nninit mirrors PyTorch's torch.nn.init: functions that fill a
// tensor in place, without recording gradients, from the distributions
// that layers are initialized with. Its import path is
// github.com/gotorch/gotorch/nn/init; its name is nninit because Go
// reserves init:
//
//	nninit.KaimingUniform_(w, nninit.WithA(math.Sqrt(5)))
//	nninit.Normal_(emb, nninit.WithStd(0.02), nninit.WithGenerator(g))
//
// The rules are those of packages torch and nn/functional: what PyTorch
// requires is a parameter (Constant_'s val), what has a default is an
// option named With plus the keyword (WithA, WithMode, WithNonlinearity,
// WithGain), and WithGenerator draws from a *torch.Generator instead of
// the default generator that torch.ManualSeed seeds. With the same seed,
// the values are those PyTorch draws.
//
// Each function returns its tensor and panics on error; its Try form
// returns the error, a *torch.Error, instead.
package nninit

import (
	"fmt"
	"math"
	"strings"

	"github.com/gotorch/gotorch/nn/internal/optname"
	"github.com/gotorch/gotorch/torch"
)

// Option is an optional (keyword) argument of an init function.
type Option struct {
	name string
	f    float64
	s    string
	i    int64
	gen  *torch.Generator
}

// WithA is the lower bound of Uniform_ (default 0) and TruncNormal_ (-2),
// or the negative slope of the rectifier after the layer for
// KaimingUniform_ and KaimingNormal_ (0).
func WithA(a float64) Option { return Option{name: "a", f: a} }

// WithB is the upper bound of Uniform_ (default 1) and TruncNormal_ (2).
func WithB(b float64) Option { return Option{name: "b", f: b} }

// WithMean is the mean of Normal_ and TruncNormal_ (default 0).
func WithMean(m float64) Option { return Option{name: "mean", f: m} }

// WithStd is the standard deviation of Normal_ and TruncNormal_ (default
// 1) and of Sparse_'s non-zero values (0.01).
func WithStd(s float64) Option { return Option{name: "std", f: s} }

// WithGain is the scale of the Xavier and orthogonal initializations
// (default 1).
func WithGain(g float64) Option { return Option{name: "gain", f: g} }

// WithMode is "fan_in" (the default; it keeps the variance of the forward
// pass) or "fan_out" (of the backward pass) for the Kaiming
// initializations.
func WithMode(m string) Option { return Option{name: "mode", s: m} }

// WithNonlinearity is the activation after the layer for the Kaiming
// initializations: "leaky_relu" (the default) or "relu", or any name that
// CalculateGain knows.
func WithNonlinearity(n string) Option { return Option{name: "nonlinearity", s: n} }

// WithParam is CalculateGain's param: the negative slope of "leaky_relu"
// (default 0.01).
func WithParam(p float64) Option { return Option{name: "param", f: p} }

// WithGroups is Dirac_'s number of groups (default 1).
func WithGroups(n int64) Option { return Option{name: "groups", i: n} }

// WithGenerator draws the random numbers from g instead of the default
// generator.
func WithGenerator(g *torch.Generator) Option { return Option{name: "generator", gen: g} }

type args struct {
	op                 string
	set                map[string]bool
	a, b, mean, std    float64
	gain, param        float64
	mode, nonlinearity string
	groups             int64
	gen                *torch.Generator
}

func (a *args) parse(op string, opts []Option, allowed ...string) error {
	a.op = op
	for _, o := range opts {
		if name, ok := optname.Check(o.name, allowed); !ok {
			return errorf(op, "unexpected option %s (this function takes %s)", name, strings.Join(allowed, ", "))
		}
		if a.set == nil {
			a.set = map[string]bool{}
		}
		a.set[o.name] = true
		switch o.name {
		case "a":
			a.a = o.f
		case "b":
			a.b = o.f
		case "mean":
			a.mean = o.f
		case "std":
			a.std = o.f
		case "gain":
			a.gain = o.f
		case "param":
			a.param = o.f
		case "mode":
			a.mode = o.s
		case "nonlinearity":
			a.nonlinearity = o.s
		case "groups":
			a.groups = o.i
		case "generator":
			a.gen = o.gen
		}
	}
	return nil
}

func errorf(op, format string, v ...any) error {
	return &torch.Error{Op: "nn.init." + op, Msg: fmt.Sprintf(format, v...)}
}

func must(t torch.Tensor, err error) torch.Tensor {
	if err != nil {
		panic(err)
	}
	return t
}

// noGrad runs f with gradient recording off and returns its error.
func noGrad(f func() error) error {
	var err error
	torch.NoGrad(func() { err = f() })
	return err
}

// shape returns t's shape, or the *torch.Error of an undefined or freed
// tensor.
func shape(t torch.Tensor) (s []int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	return t.Shape(), nil
}

// CalculateGain is torch.nn.init.calculate_gain: the recommended gain for
// a nonlinearity ("linear", "conv1d", "conv2d", "conv3d",
// "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid",
// "tanh", "relu", "leaky_relu", "selu").
//
// Options: WithParam (the negative slope of "leaky_relu"; default 0.01).
func CalculateGain(nonlinearity string, opts ...Option) float64 {
	g, err := TryCalculateGain(nonlinearity, opts...)
	if err != nil {
		panic(err)
	}
	return g
}

// TryCalculateGain is CalculateGain that returns its error.
func TryCalculateGain(nonlinearity string, opts ...Option) (float64, error) {
	a := args{param: 0.01}
	if err := a.parse("calculate_gain", opts, "param"); err != nil {
		return 0, err
	}
	return gain(nonlinearity, a.param)
}

func gain(nonlinearity string, param float64) (float64, error) {
	switch nonlinearity {
	case "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "sigmoid":
		return 1, nil
	case "tanh":
		return 5.0 / 3, nil
	case "relu":
		return math.Sqrt(2.0), nil
	case "leaky_relu":
		return math.Sqrt(2.0 / (1 + param*param)), nil
	case "selu":
		return 3.0 / 4, nil
	}
	return 0, errorf("calculate_gain", "Unsupported nonlinearity %s", nonlinearity)
}

// CalculateFanInAndFanOut is PyTorch's _calculate_fan_in_and_fan_out: for
// a weight (out, in, k...), fan in is in·∏k and fan out is out·∏k.
func CalculateFanInAndFanOut(t torch.Tensor) (fanIn, fanOut int64) {
	fanIn, fanOut, err := TryCalculateFanInAndFanOut(t)
	if err != nil {
		panic(err)
	}
	return fanIn, fanOut
}

// TryCalculateFanInAndFanOut is CalculateFanInAndFanOut that returns its
// error.
func TryCalculateFanInAndFanOut(t torch.Tensor) (fanIn, fanOut int64, err error) {
	return fans("calculate_fan_in_and_fan_out", t)
}

func fans(op string, t torch.Tensor) (int64, int64, error) {
	s, err := shape(t)
	if err != nil {
		return 0, 0, err
	}
	if len(s) < 2 {
		return 0, 0, errorf(op, "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
	}
	receptive := int64(1)
	for _, k := range s[2:] {
		receptive *= k
	}
	return s[1] * receptive, s[0] * receptive, nil
}

func correctFan(op string, t torch.Tensor, mode string) (int64, error) {
	m := strings.ToLower(mode)
	if m != "fan_in" && m != "fan_out" {
		return 0, errorf(op, "Mode %s not supported, please use one of ['fan_in', 'fan_out']", m)
	}
	in, out, err := fans(op, t)
	if m == "fan_in" {
		return in, err
	}
	return out, err
}

func uniform(t torch.Tensor, from, to float64, g *torch.Generator) error {
	return noGrad(func() error {
		_, err := t.TryUniform_(torch.WithFrom(from), torch.WithTo(to), torch.WithGenerator(g))
		return err
	})
}

func normal(t torch.Tensor, mean, std float64, g *torch.Generator) error {
	return noGrad(func() error {
		_, err := t.TryNormal_(torch.WithMean(mean), torch.WithStd(std), torch.WithGenerator(g))
		return err
	})
}

// Uniform_ fills t with values drawn from U(a, b).
//
// Options: WithA (0), WithB (1), WithGenerator.
func Uniform_(t torch.Tensor, opts ...Option) torch.Tensor { return must(TryUniform_(t, opts...)) }

// TryUniform_ is Uniform_ that returns its error.
func TryUniform_(t torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{a: 0, b: 1}
	if err := a.parse("uniform_", opts, "a", "b", "generator"); err != nil {
		return t, err
	}
	return t, uniform(t, a.a, a.b, a.gen)
}

// Normal_ fills t with values drawn from N(mean, std²).
//
// Options: WithMean (0), WithStd (1), WithGenerator.
func Normal_(t torch.Tensor, opts ...Option) torch.Tensor { return must(TryNormal_(t, opts...)) }

// TryNormal_ is Normal_ that returns its error.
func TryNormal_(t torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{mean: 0, std: 1}
	if err := a.parse("normal_", opts, "mean", "std", "generator"); err != nil {
		return t, err
	}
	return t, normal(t, a.mean, a.std, a.gen)
}

// TruncNormal_ fills t with values drawn from N(mean, std²) truncated to
// [a, b], by inverting the normal CDF of uniform values as PyTorch does.
//
// Options: WithMean (0), WithStd (1), WithA (-2), WithB (2),
// WithGenerator.
func TruncNormal_(t torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryTruncNormal_(t, opts...))
}

// TryTruncNormal_ is TruncNormal_ that returns its error.
func TryTruncNormal_(t torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{mean: 0, std: 1, a: -2, b: 2}
	if err := a.parse("trunc_normal_", opts, "mean", "std", "a", "b", "generator"); err != nil {
		return t, err
	}
	cdf := func(x float64) float64 { return (1 + math.Erf(x/math.Sqrt(2))) / 2 }
	l, u := cdf((a.a-a.mean)/a.std), cdf((a.b-a.mean)/a.std)
	return t, noGrad(func() error {
		if _, err := t.TryUniform_(torch.WithFrom(2*l-1), torch.WithTo(2*u-1), torch.WithGenerator(a.gen)); err != nil {
			return err
		}
		if _, err := t.TryErfinv_(); err != nil {
			return err
		}
		if _, err := t.TryMulScalar_(torch.S(a.std * math.Sqrt(2))); err != nil {
			return err
		}
		if _, err := t.TryAddScalar_(torch.S(a.mean)); err != nil {
			return err
		}
		_, err := t.TryClamp_(torch.WithMin(a.a), torch.WithMax(a.b))
		return err
	})
}

// Constant_ fills t with val.
func Constant_(t torch.Tensor, val float64) torch.Tensor { return must(TryConstant_(t, val)) }

// TryConstant_ is Constant_ that returns its error.
func TryConstant_(t torch.Tensor, val float64) (torch.Tensor, error) {
	return t, noGrad(func() error {
		_, err := t.TryFillScalar_(torch.S(val))
		return err
	})
}

// Ones_ fills t with ones.
func Ones_(t torch.Tensor) torch.Tensor { return must(TryOnes_(t)) }

// TryOnes_ is Ones_ that returns its error.
func TryOnes_(t torch.Tensor) (torch.Tensor, error) { return TryConstant_(t, 1) }

// Zeros_ fills t with zeros.
func Zeros_(t torch.Tensor) torch.Tensor { return must(TryZeros_(t)) }

// TryZeros_ is Zeros_ that returns its error.
func TryZeros_(t torch.Tensor) (torch.Tensor, error) {
	return t, noGrad(func() error {
		_, err := t.TryZero_()
		return err
	})
}

// Eye_ fills the 2-D tensor t with the identity matrix.
func Eye_(t torch.Tensor) torch.Tensor { return must(TryEye_(t)) }

// TryEye_ is Eye_ that returns its error.
func TryEye_(t torch.Tensor) (torch.Tensor, error) {
	s, err := shape(t)
	if err != nil {
		return t, err
	}
	if len(s) != 2 {
		return t, errorf("eye_", "Only tensors with 2 dimensions are supported")
	}
	return t, noGrad(func() error {
		eye, err := torch.TryEyeM(s[0], s[1], torch.WithDevice(t.Device()))
		if err == nil {
			_, err = t.TryCopy_(eye)
		}
		return err
	})
}

// Dirac_ fills the 3-, 4- or 5-D convolution weight t with the Dirac delta,
// so that the convolution keeps the identity of its input channels.
//
// Options: WithGroups (1).
func Dirac_(t torch.Tensor, opts ...Option) torch.Tensor { return must(TryDirac_(t, opts...)) }

// TryDirac_ is Dirac_ that returns its error.
func TryDirac_(t torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "dirac_"
	a := args{groups: 1}
	if err := a.parse(op, opts, "groups"); err != nil {
		return t, err
	}
	s, err := shape(t)
	if err != nil {
		return t, err
	}
	if len(s) < 3 || len(s) > 5 {
		return t, errorf(op, "Only tensors with 3, 4, or 5 dimensions are supported")
	}
	if a.groups <= 0 || s[0]%a.groups != 0 {
		return t, errorf(op, "dim 0 must be divisible by groups")
	}
	perGroup := s[0] / a.groups
	minDim := min(perGroup, s[1])
	return t, noGrad(func() error {
		if _, err := t.TryZero_(); err != nil {
			return err
		}
		for g := int64(0); g < a.groups; g++ {
			for d := int64(0); d < minDim; d++ {
				v, err := t.TrySelect(0, g*perGroup+d)
				if err == nil {
					v, err = v.TrySelect(0, d)
				}
				for k := 2; k < len(s) && err == nil; k++ {
					v, err = v.TrySelect(0, s[k]/2)
				}
				if err == nil {
					_, err = v.TryFillScalar_(torch.S(1))
				}
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Sparse_ fills the 2-D tensor t with values drawn from N(0, std²) and
// then zeroes ceil(sparsity·rows) elements of each column, chosen by a
// random permutation of the rows per column, as in Martens (2010) and as
// PyTorch draws them (normal_, then one randperm per column), so that the
// same seed gives PyTorch's values. sparsity must be in [0, 1].
//
// Options: WithStd (0.01), WithGenerator (which draws the permutations
// too).
func Sparse_(t torch.Tensor, sparsity float64, opts ...Option) torch.Tensor {
	return must(TrySparse_(t, sparsity, opts...))
}

// TrySparse_ is Sparse_ that returns its error.
func TrySparse_(t torch.Tensor, sparsity float64, opts ...Option) (torch.Tensor, error) {
	const op = "sparse_"
	a := args{std: 0.01}
	if err := a.parse(op, opts, "std", "generator"); err != nil {
		return t, err
	}
	if !(sparsity >= 0 && sparsity <= 1) {
		return t, errorf(op, "sparsity must be in [0, 1], got %v", sparsity)
	}
	s, err := shape(t)
	if err != nil {
		return t, err
	}
	if len(s) != 2 {
		return t, errorf(op, "Only tensors with 2 dimensions are supported")
	}
	rows, cols := s[0], s[1]
	zeros := int64(math.Ceil(sparsity * float64(rows)))
	return t, noGrad(func() error {
		if _, err := t.TryNormal_(torch.WithMean(0), torch.WithStd(a.std), torch.WithGenerator(a.gen)); err != nil {
			return err
		}
		for c := int64(0); c < cols; c++ {
			// PyTorch draws the permutation on the CPU whatever t's device.
			perm, err := torch.TryRandpermGenerator(rows, a.gen)
			if err != nil {
				return err
			}
			idx, err := perm.TryNarrow(0, 0, zeros)
			if err == nil {
				idx, err = idx.TryTo(t.Device())
			}
			var col torch.Tensor
			if err == nil {
				col, err = t.TrySelect(1, c)
			}
			if err == nil {
				_, err = col.TryIndexFill_(0, idx, torch.S(0))
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// XavierUniform_ fills t with values drawn from U(-a, a), a =
// gain·sqrt(6/(fan_in+fan_out)) (Glorot initialization).
//
// Options: WithGain (1), WithGenerator.
func XavierUniform_(t torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryXavierUniform_(t, opts...))
}

// TryXavierUniform_ is XavierUniform_ that returns its error.
func TryXavierUniform_(t torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "xavier_uniform_"
	a := args{gain: 1}
	if err := a.parse(op, opts, "gain", "generator"); err != nil {
		return t, err
	}
	in, out, err := fans(op, t)
	if err != nil {
		return t, err
	}
	std := a.gain * math.Sqrt(2.0/float64(in+out))
	bound := math.Sqrt(3.0) * std
	return t, uniform(t, -bound, bound, a.gen)
}

// XavierNormal_ fills t with values drawn from N(0, std²), std =
// gain·sqrt(2/(fan_in+fan_out)) (Glorot initialization).
//
// Options: WithGain (1), WithGenerator.
func XavierNormal_(t torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryXavierNormal_(t, opts...))
}

// TryXavierNormal_ is XavierNormal_ that returns its error.
func TryXavierNormal_(t torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "xavier_normal_"
	a := args{gain: 1}
	if err := a.parse(op, opts, "gain", "generator"); err != nil {
		return t, err
	}
	in, out, err := fans(op, t)
	if err != nil {
		return t, err
	}
	return t, normal(t, 0, a.gain*math.Sqrt(2.0/float64(in+out)), a.gen)
}

// kaimingStd is gain/sqrt(fan), or ok false for a tensor with no elements
// (which PyTorch leaves as it is).
func kaimingStd(op string, t torch.Tensor, opts []Option) (float64, *torch.Generator, bool, error) {
	a := args{a: 0, mode: "fan_in", nonlinearity: "leaky_relu"}
	if err := a.parse(op, opts, "a", "mode", "nonlinearity", "generator"); err != nil {
		return 0, nil, false, err
	}
	s, err := shape(t)
	if err != nil {
		return 0, nil, false, err
	}
	for _, n := range s {
		if n == 0 {
			return 0, nil, false, nil
		}
	}
	fan, err := correctFan(op, t, a.mode)
	if err != nil {
		return 0, nil, false, err
	}
	g, err := gain(a.nonlinearity, a.a)
	if err != nil {
		return 0, nil, false, errorf(op, "Unsupported nonlinearity %s", a.nonlinearity)
	}
	return g / math.Sqrt(float64(fan)), a.gen, true, nil
}

// KaimingUniform_ fills t with values drawn from U(-bound, bound), bound =
// gain·sqrt(3/fan) (He initialization). Linear and convolution layers use
// it with WithA(math.Sqrt(5)).
//
// Options: WithA (0), WithMode ("fan_in"), WithNonlinearity
// ("leaky_relu"), WithGenerator.
func KaimingUniform_(t torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryKaimingUniform_(t, opts...))
}

// TryKaimingUniform_ is KaimingUniform_ that returns its error.
func TryKaimingUniform_(t torch.Tensor, opts ...Option) (torch.Tensor, error) {
	std, g, ok, err := kaimingStd("kaiming_uniform_", t, opts)
	if err != nil || !ok {
		return t, err
	}
	bound := math.Sqrt(3.0) * std
	return t, uniform(t, -bound, bound, g)
}

// KaimingNormal_ fills t with values drawn from N(0, std²), std =
// gain/sqrt(fan) (He initialization).
//
// Options: WithA (0), WithMode ("fan_in"), WithNonlinearity
// ("leaky_relu"), WithGenerator.
func KaimingNormal_(t torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryKaimingNormal_(t, opts...))
}

// TryKaimingNormal_ is KaimingNormal_ that returns its error.
func TryKaimingNormal_(t torch.Tensor, opts ...Option) (torch.Tensor, error) {
	std, g, ok, err := kaimingStd("kaiming_normal_", t, opts)
	if err != nil || !ok {
		return t, err
	}
	return t, normal(t, 0, std, g)
}

// Orthogonal_ fills t (at least 2-D, flattened to rows × the rest) with a
// (semi-)orthogonal matrix from the QR decomposition of a normal sample,
// times gain.
//
// Options: WithGain (1), WithGenerator.
func Orthogonal_(t torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryOrthogonal_(t, opts...))
}

// TryOrthogonal_ is Orthogonal_ that returns its error.
func TryOrthogonal_(t torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "orthogonal_"
	a := args{gain: 1}
	if err := a.parse(op, opts, "gain", "generator"); err != nil {
		return t, err
	}
	s, err := shape(t)
	if err != nil {
		return t, err
	}
	if len(s) < 2 {
		return t, errorf(op, "Only tensors with 2 or more dimensions are supported")
	}
	numel := int64(1)
	for _, n := range s {
		numel *= n
	}
	if numel == 0 {
		return t, nil
	}
	rows := s[0]
	cols := numel / rows
	return t, noGrad(func() error {
		flat, err := torch.TryEmpty([]int64{rows, cols}, torch.WithDtype(t.DType()), torch.WithDevice(t.Device()))
		if err != nil {
			return err
		}
		if _, err = flat.TryNormal_(torch.WithGenerator(a.gen)); err != nil {
			return err
		}
		if rows < cols {
			if flat, err = flat.TryT(); err != nil {
				return err
			}
		}
		q, r, err := torch.TryLinalgQr(flat)
		if err != nil {
			return err
		}
		d, err := r.TryDiag()
		if err != nil {
			return err
		}
		ph, err := d.TrySign()
		if err != nil {
			return err
		}
		if q, err = q.TryMul(ph); err != nil {
			return err
		}
		if rows < cols {
			if q, err = q.TryT(); err != nil {
				return err
			}
		}
		view, err := t.TryView(q.Shape())
		if err != nil {
			return err
		}
		if _, err = view.TryCopy_(q); err != nil {
			return err
		}
		_, err = t.TryMulScalar_(torch.S(a.gain))
		return err
	})
}
