package torch_test

// The conformance test: generated ops against golden values from the
// reference PyTorch.
//
// testdata/conformance.py (run with /usr/bin/python3, PyTorch 1.13) writes
// testdata/conformance.json: the input tensors and, for each case name,
// the value PyTorch returned. The tables below (the confCases* functions)
// hold the Go twin of every case: the same op called through the generated
// binding on the same inputs. TestConformance runs them all and compares
// the results: dtypes, shapes, ints and bools exactly, floats within the
// tolerance of their dtype (internal/golden, which argues it from the
// measured differences between CPUs). A case on one side only fails the
// test.
//
// TestConformanceOpCount parses this file and ops_gen.go and counts the
// distinct generated ops (ATen schemas) that the tables call, so that the
// coverage cannot shrink unnoticed. TestConformanceMisuse checks the errors
// of each kind of misuse.
//
// Coverage notes, by argument and return kind:
//   - Tensor, tuple, Tensor[] (list), bool, int, float, Scalar and DType
//     results; in-place ops (the result must be self) and out= ops (the
//     results must be the out tensors);
//   - mixed tuples: (float, int) from _choose_qparams_per_tensor, (Tensor,
//     Tensor[]) from histogramdd, (Tensor, Tensor, Tensor, Tensor, int) from
//     _batch_norm_impl_index;
//   - Tensor?[]: index, index_put, index_put_ and _index_put_impl_, with
//     torch.Tensor{} for None;
//   - Scalar[]: gradient.scalarrayint and gradient.scalarrayarray;
//   - float[]?: the upsample_*.vec scale factors (nil for None) and the
//     range of histogramdd and histogram.bin_ct;
//   - bool[3]: the output masks of native_{layer,batch,group}_norm_backward,
//     whose masked-out gradients come back as undefined tensors;
//   - explicit Generators (torch.NewGenerator(seed) against
//     torch.Generator().manual_seed(seed)), one generator through several
//     calls, and nil generators (positional and WithGenerator(nil)) with
//     ManualSeed;
//   - Tensor[] out= arguments (split_copy, unbind_copy), and the dtype,
//     layout, device and memory_format options.
//
// Every kind the requirement lists is covered; none had to be left out
// (Scalar[] is reachable through the generated gradient overloads).
//
// The misuse cases: wrong shape, wrong dtype, dim out of range (int, int[]
// and int? arguments), index out of range (index_select, gather, index),
// the zero Tensor{} (positional, self, in a Tensor[]), a freed tensor
// (positional, in an option, in a Tensor?[]), an option the op does not
// take, an option of the wrong kind (two dims for one int, a float for an
// int), a negative size in a factory, and out= tensors of the wrong dtype,
// shape (split_copy_out, which does not resize) and count.

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/torch"
)

// confMinOps is the least number of distinct generated ops the tables must
// call.
const confMinOps = 300

// confValue is one encoded value of conformance.json (see conformance.py).
type confValue struct {
	Kind   string            `json:"kind"`
	DType  string            `json:"dtype"`
	Shape  []int64           `json:"shape"`
	Values []json.RawMessage `json:"values"` // nil: only the shape and dtype count
	Items  []confValue       `json:"items"`
	Value  json.RawMessage   `json:"value"`
}

type confFile struct {
	TorchVersion string               `json:"torch_version"`
	Inputs       map[string]confValue `json:"inputs"`
	Cases        map[string]confValue `json:"cases"`
}

func loadConformance(t *testing.T) *confFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "conformance.json"))
	require.NoError(t, err, "conformance.json (regenerate with /usr/bin/python3 torch/testdata/conformance.py)")
	var f confFile
	require.NoError(t, json.Unmarshal(b, &f))
	require.NotEmpty(t, f.Cases)
	return &f
}

// tup is a tuple result: the Go results of an op, in order.
type tup []any

func tup2[A, B any](a A, b B) any                 { return tup{a, b} }
func tup3[A, B, C any](a A, b B, c C) any         { return tup{a, b, c} }
func tup4[A, B, C, D any](a A, b B, c C, d D) any { return tup{a, b, c, d} }

// confCase is the Go twin of a case of conformance.py. Floating-point
// results match within the tolerance of their dtype (package golden),
// everything else exactly.
type confCase struct {
	name string
	f    func(c *cc) any
}

// cc is what a case's function gets: its inputs and checks.
type cc struct {
	t      *testing.T
	inputs map[string]confValue
}

// I returns a new tensor holding the input of that name.
func (c *cc) I(name string) torch.Tensor {
	v, ok := c.inputs[name]
	require.True(c.t, ok, "no input %q in conformance.json", name)
	return confInput(c.t, name, v)
}

// E returns an empty tensor of dtype d, for out= arguments.
func (c *cc) E(d torch.DType) torch.Tensor { return torch.Empty(i64s(0), torch.WithDtype(d)) }

// same1 returns a function that checks that an in-place or out= op
// returned the tensor it wrote to (the same handle) and returns it.
func (c *cc) same1(want torch.Tensor) func(torch.Tensor) any {
	return func(got torch.Tensor) any {
		assert.True(c.t, got == want, "the op did not return its self/out tensor")
		return got
	}
}

// same2 is same1 for ops with two out tensors; it returns the tuple.
func (c *cc) same2(a, b torch.Tensor) func(torch.Tensor, torch.Tensor) any {
	return func(x, y torch.Tensor) any {
		assert.True(c.t, x == a && y == b, "the op did not return its out tensors")
		return tup{x, y}
	}
}

// seeded seeds the default generator and runs f.
func seeded(seed uint64, f func() any) any {
	torch.ManualSeed(seed)
	return f()
}

func gen(seed uint64) *torch.Generator { return torch.NewGenerator(seed) }

func ts(t ...torch.Tensor) []torch.Tensor { return t }

func f64s(v ...float64) []float64 { return v }

// confInput builds an input tensor from its encoding.
func confInput(t *testing.T, name string, v confValue) torch.Tensor {
	require.Equal(t, "tensor", v.Kind, name)
	shape := v.Shape
	if shape == nil {
		shape = []int64{}
	}
	switch v.DType {
	case "float32":
		fs := make([]float32, len(v.Values))
		for i, r := range v.Values {
			fs[i] = float32(confFloat(t, r))
		}
		return torch.FromSlice(fs, shape...)
	case "int64":
		is := make([]int64, len(v.Values))
		for i, r := range v.Values {
			is[i] = confInt(t, r)
		}
		return torch.FromSlice(is, shape...)
	case "bool":
		bs := make([]bool, len(v.Values))
		for i, r := range v.Values {
			bs[i] = confInt(t, r) != 0
		}
		return torch.FromSlice(bs, shape...)
	}
	t.Fatalf("input %s: unsupported dtype %s", name, v.DType)
	return torch.Tensor{}
}

func confFloat(t *testing.T, r json.RawMessage) float64 {
	var s string
	if json.Unmarshal(r, &s) == nil {
		switch s {
		case "nan":
			return math.NaN()
		case "inf":
			return math.Inf(1)
		case "-inf":
			return math.Inf(-1)
		}
		t.Fatalf("bad number %q", s)
	}
	f, err := strconv.ParseFloat(string(r), 64)
	require.NoError(t, err)
	return f
}

func confInt(t *testing.T, r json.RawMessage) int64 {
	i, err := strconv.ParseInt(string(r), 10, 64)
	require.NoError(t, err, "integer %s", r)
	return i
}

// confCompare compares a Go result with its encoding.
func confCompare(t *testing.T, path string, want confValue, got any) {
	t.Helper()
	switch want.Kind {
	case "tensor":
		g, ok := got.(torch.Tensor)
		if !assert.True(t, ok, "%s: got %T, want a Tensor", path, got) {
			return
		}
		confCompareTensor(t, path, want, g)
	case "none":
		g, ok := got.(torch.Tensor)
		if assert.True(t, ok, "%s: got %T, want an undefined Tensor", path, got) {
			assert.False(t, g.Defined(), "%s: want an undefined tensor (None)", path)
		}
	case "list":
		g, ok := got.([]torch.Tensor)
		if !assert.True(t, ok, "%s: got %T, want []Tensor", path, got) ||
			!assert.Len(t, g, len(want.Items), path) {
			return
		}
		for i, w := range want.Items {
			confCompare(t, fmt.Sprintf("%s[%d]", path, i), w, g[i])
		}
	case "tuple":
		g, ok := got.(tup)
		if !assert.True(t, ok, "%s: got %T, want a tuple", path, got) ||
			!assert.Len(t, g, len(want.Items), path) {
			return
		}
		for i, w := range want.Items {
			confCompare(t, fmt.Sprintf("%s.%d", path, i), w, g[i])
		}
	case "bool":
		var w bool
		require.NoError(t, json.Unmarshal(want.Value, &w))
		assert.Equal(t, w, got, path)
	case "int":
		assert.Equal(t, confInt(t, want.Value), got, path)
	case "float":
		g, ok := got.(float64)
		if assert.True(t, ok, "%s: got %T, want float64", path, got) {
			// A Python float: from a float32 or a float64 result; the
			// wider tolerance of the two.
			golden.AllClose(t, []float64{confFloat(t, want.Value)}, []float64{g}, torch.Float32, path)
		}
	case "scalar":
		g, ok := got.(torch.Scalar)
		if !assert.True(t, ok, "%s: got %T, want a Scalar", path, got) {
			return
		}
		w := confFloat(t, want.Value)
		golden.AllClose(t, []float64{w}, []float64{g.Float()}, torch.Float32, path)
		// The Scalar's kind: full() takes its dtype from it.
		wantDType := torch.Int64
		if strings.ContainsAny(string(want.Value), ".en") {
			wantDType = torch.Float32
		}
		assert.Equal(t, wantDType, torch.Full(i64s(), g).DType(), "%s: kind of Scalar %v", path, g)
	case "dtype":
		var w string
		require.NoError(t, json.Unmarshal(want.Value, &w))
		g, ok := got.(torch.DType)
		if assert.True(t, ok, "%s: got %T, want a DType", path, got) {
			assert.Equal(t, "torch."+w, g.String(), path)
		}
	default:
		t.Errorf("%s: unknown kind %q", path, want.Kind)
	}
}

func confCompareTensor(t *testing.T, path string, want confValue, got torch.Tensor) {
	t.Helper()
	if !assert.True(t, got.Defined(), "%s: undefined tensor", path) {
		return
	}
	shape := got.Shape()
	if !assert.Equal(t, "torch."+want.DType, got.DType().String(), "%s: dtype", path) ||
		!assert.Equal(t, fmt.Sprint(want.Shape), fmt.Sprint(shape), "%s: shape", path) ||
		want.Values == nil {
		return
	}
	d := got.DType()
	switch {
	case d.IsComplex():
		var w []float64 // real and imaginary parts, interleaved
		for _, r := range want.Values {
			var pair []json.RawMessage
			require.NoError(t, json.Unmarshal(r, &pair))
			require.Len(t, pair, 2)
			w = append(w, confFloat(t, pair[0]), confFloat(t, pair[1]))
		}
		golden.TensorClose(t, w, got, path)
	case d.IsFloatingPoint():
		w := make([]float64, len(want.Values))
		for i, r := range want.Values {
			w[i] = confFloat(t, r)
		}
		golden.TensorClose(t, w, got, path)
	default: // integers and bools, exactly
		g := torch.ToSlice[int64](got)
		if !assert.Len(t, g, len(want.Values), path) {
			return
		}
		w := make([]int64, len(want.Values))
		for i, r := range want.Values {
			w[i] = confInt(t, r)
		}
		assert.Equal(t, w, g, "%s: values", path)
	}
}

// confAllCases is the Go table: every case of conformance.py.
func confAllCases() []confCase {
	var all []confCase
	for _, f := range []func() []confCase{
		confCasesUnary, confCasesBinary, confCasesReduce, confCasesShape, confCasesFactory,
		confCasesLinalg, confCasesNN, confCasesIndex, confCasesInplace, confCasesOut,
		confCasesRandom, confCasesNonTensor,
	} {
		all = append(all, f()...)
	}
	return all
}

func TestConformance(t *testing.T) {
	f := loadConformance(t)
	t.Logf("golden values from PyTorch %s, libtorch %s", f.TorchVersion, torch.LibtorchVersion())
	cases := confAllCases()
	seen := map[string]bool{}
	for _, k := range cases {
		require.False(t, seen[k.name], "case %s is in the Go table twice", k.name)
		seen[k.name] = true
	}
	var goOnly, pyOnly []string
	for _, k := range cases {
		if _, ok := f.Cases[k.name]; !ok {
			goOnly = append(goOnly, k.name)
		}
	}
	for name := range f.Cases {
		if !seen[name] {
			pyOnly = append(pyOnly, name)
		}
	}
	sort.Strings(pyOnly)
	assert.Empty(t, goOnly, "cases in conformance_test.go but not in conformance.json (rerun conformance.py?)")
	assert.Empty(t, pyOnly, "cases in conformance.json but not in conformance_test.go")

	for _, k := range cases {
		want, ok := f.Cases[k.name]
		if !ok {
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			c := &cc{t: t, inputs: f.Inputs}
			var got any
			if r := catch(func() { got = k.f(c) }); r != nil {
				// An op the linked libtorch lacks must say so; the
				// reference PyTorch (1.13) has every op of the tables.
				if err, ok := r.(error); ok && errors.Is(err, torch.ErrUnsupported) && libtorchMajor(t) >= 2 {
					assert.Regexp(t, `needs libtorch >=|removed after libtorch|declares it with other arguments`, err.Error())
					t.Skipf("not in libtorch %s: %v", torch.LibtorchVersion(), err)
				}
				t.Fatalf("panic: %v", r)
			}
			confCompare(t, k.name, want, got)
		})
	}
}

// TestConformanceOpCount counts the distinct generated ops that the tables
// call: the selectors torch.F and x.M in the confCases* functions that name
// a generated function or method of ops_gen.go, by the ATen schema each
// wraps (Try forms and methods count as their op).
func TestConformanceOpCount(t *testing.T) {
	fset := token.NewFileSet()
	genFile, err := parser.ParseFile(fset, "ops_gen.go", nil, parser.ParseComments)
	require.NoError(t, err)
	funcs, methods := map[string]string{}, map[string]string{}
	for _, d := range genFile.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || !fd.Name.IsExported() || fd.Doc == nil {
			continue
		}
		schema := ""
		for _, line := range strings.Split(fd.Doc.Text(), "\n") {
			if s, ok := strings.CutPrefix(strings.TrimSpace(line), "aten::"); ok {
				schema = s[:strings.IndexByte(s, '(')]
				break
			}
		}
		if schema == "" {
			continue // a Try form: counted through its plain form
		}
		if fd.Recv != nil {
			methods[fd.Name.Name] = schema
		} else {
			funcs[fd.Name.Name] = schema
		}
	}
	require.Greater(t, len(funcs), 2000, "generated functions in ops_gen.go")

	self, err := parser.ParseFile(fset, "conformance_test.go", nil, 0)
	require.NoError(t, err)
	ops := map[string]bool{}
	idents := map[string]bool{}
	for _, d := range self.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || !strings.HasPrefix(fd.Name.Name, "confCases") {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			name := strings.TrimPrefix(sel.Sel.Name, "Try")
			table, kind := methods, "Tensor."
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "torch" {
				table, kind = funcs, "torch."
			}
			if schema, ok := table[name]; ok {
				ops[schema] = true
				idents[kind+sel.Sel.Name] = true
			}
			return true
		})
	}
	t.Logf("the conformance cases call %d distinct generated ops (%d distinct Go functions and methods)", len(ops), len(idents))
	assert.GreaterOrEqual(t, len(ops), confMinOps, "distinct generated ops in the conformance tables")
}

// ---------------------------------------------------------------------------
// The tables. Each case has a twin of the same name in conformance.py.

// confUnary lists the ops of one tensor without options (conformance.py's
// UNARY): name, input, op.
var confUnary = []struct {
	name, in string
	f        func(torch.Tensor) torch.Tensor
}{
	{"abs", "x", torch.Abs},
	{"neg", "x", torch.Neg},
	{"exp", "x", torch.Exp},
	{"log", "p", torch.Log},
	{"sin", "x", torch.Sin},
	{"cos", "x", torch.Cos},
	{"tan", "u", torch.Tan},
	{"tanh", "x", torch.Tanh},
	{"sigmoid", "x", torch.Sigmoid},
	{"relu", "x", torch.Relu},
	{"sqrt", "p", torch.Sqrt},
	{"rsqrt", "p", torch.Rsqrt},
	{"ceil", "x", torch.Ceil},
	{"floor", "x", torch.Floor},
	{"round", "x", torch.Round},
	{"trunc", "x", torch.Trunc},
	{"frac", "x", torch.Frac},
	{"sign", "x", torch.Sign},
	{"sgn", "x", torch.Sgn},
	{"reciprocal", "x", torch.Reciprocal},
	{"square", "x", torch.Square},
	{"expm1", "x", torch.Expm1},
	{"log1p", "p", torch.Log1p},
	{"log2", "p", torch.Log2},
	{"log10", "p", torch.Log10},
	{"exp2", "x", torch.Exp2},
	{"asin", "u", torch.Asin},
	{"acos", "u", torch.Acos},
	{"atan", "x", torch.Atan},
	{"sinh", "x", torch.Sinh},
	{"cosh", "x", torch.Cosh},
	{"asinh", "x", torch.Asinh},
	{"acosh", "g", torch.Acosh},
	{"atanh", "u", torch.Atanh},
	{"arcsin", "u", torch.Arcsin},
	{"arccos", "u", torch.Arccos},
	{"arctan", "x", torch.Arctan},
	{"arcsinh", "x", torch.Arcsinh},
	{"arccosh", "g", torch.Arccosh},
	{"arctanh", "u", torch.Arctanh},
	{"erf", "x", torch.Erf},
	{"erfc", "x", torch.Erfc},
	{"erfinv", "u", torch.Erfinv},
	{"lgamma", "p", torch.Lgamma},
	{"digamma", "p", torch.Digamma},
	{"sinc", "x", torch.Sinc},
	{"deg2rad", "x", torch.Deg2rad},
	{"rad2deg", "x", torch.Rad2deg},
	{"i0", "x", torch.I0},
	{"positive", "x", torch.Positive},
	{"fix", "x", torch.Fix},
	{"signbit", "x", torch.Signbit},
	{"isnan", "nanx", torch.Isnan},
	{"isinf", "nanx", torch.Isinf},
	{"isfinite", "nanx", torch.Isfinite},
	{"isposinf", "nanx", torch.Isposinf},
	{"isneginf", "nanx", torch.Isneginf},
	{"logical_not", "mask", torch.LogicalNot},
	{"bitwise_not", "ii", torch.BitwiseNot},
	{"angle", "x", torch.Angle},
	{"absolute", "x", torch.Absolute},
	{"negative", "x", torch.Negative},
	{"hardsigmoid", "x", torch.Hardsigmoid},
	{"hardswish", "x", torch.Hardswish},
	{"silu", "x", torch.Silu},
	{"mish", "x", torch.Mish},
	{"selu", "x", torch.Selu},
	{"relu6", "x", torch.Relu6},
	{"log_sigmoid", "x", torch.LogSigmoid},
	{"special_expit", "x", torch.SpecialExpit},
	{"special_erfcx", "x", torch.SpecialErfcx},
	{"special_ndtr", "x", torch.SpecialNdtr},
	{"special_ndtri", "q", torch.SpecialNdtri},
	{"special_log_ndtr", "x", torch.SpecialLogNdtr},
	{"special_i0e", "x", torch.SpecialI0e},
	{"special_i1", "x", torch.SpecialI1},
	{"special_i1e", "x", torch.SpecialI1e},
	{"special_entr", "q", torch.SpecialEntr},
	{"special_sinc", "x", torch.SpecialSinc},
	{"special_log1p", "p", torch.SpecialLog1p},
	{"special_exp2", "x", torch.SpecialExp2},
	{"special_expm1", "x", torch.SpecialExpm1},
	{"special_gammaln", "p", torch.SpecialGammaln},
	{"special_psi", "p", torch.SpecialPsi},
	{"special_digamma", "p", torch.SpecialDigamma},
	{"special_erf", "x", torch.SpecialErf},
	{"special_erfc", "x", torch.SpecialErfc},
	{"special_erfinv", "u", torch.SpecialErfinv},
	{"special_i0", "x", torch.SpecialI0},
	{"special_bessel_j0", "x", torch.SpecialBesselJ0},
	{"special_bessel_j1", "x", torch.SpecialBesselJ1},
	{"special_bessel_y0", "p", torch.SpecialBesselY0},
	{"special_modified_bessel_i0", "x", torch.SpecialModifiedBesselI0},
	{"special_airy_ai", "x", torch.SpecialAiryAi},
	{"special_spherical_bessel_j0", "x", torch.SpecialSphericalBesselJ0},
	{"conj", "x", torch.Conj},
	{"frobenius_norm", "x", torch.FrobeniusNorm},
	{"trace", "a", torch.Trace},
	{"msort", "x", torch.Msort},
	{"nonzero", "x", torch.Nonzero},
	{"argwhere", "mask", torch.Argwhere},
	{"fliplr", "x", torch.Fliplr},
	{"flipud", "x", torch.Flipud},
	{"ravel", "x", torch.Ravel},
	{"t", "x", torch.T},
	{"squeeze", "img", torch.Squeeze},
	{"atleast_1d", "s0", torch.Atleast1d},
	{"atleast_2d", "v", torch.Atleast2d},
	{"atleast_3d", "x", torch.Atleast3d},
	{"corrcoef", "x", torch.Corrcoef},
	{"max", "x", torch.Max},
	{"min", "x", torch.Min},
	{"median", "x", torch.Median},
	{"nanmedian", "nan1", torch.Nanmedian},
	{"all", "mask", torch.All},
	{"any", "mask", torch.Any},
	{"det", "a", torch.Det},
	{"logdet", "a", torch.Logdet},
	{"inverse", "a", torch.Inverse},
	{"linalg_det", "a", torch.LinalgDet},
	{"linalg_inv", "a", torch.LinalgInv},
	{"matrix_exp", "sq2", torch.MatrixExp},
	{"linalg_matrix_exp", "sq2", torch.LinalgMatrixExp},
	{"detach", "x", torch.Detach},
	{"alias", "x", torch.Alias},
	{"linalg_eigvals", "a", torch.LinalgEigvals},
}

func confCasesUnary() []confCase {
	var cs []confCase
	for _, u := range confUnary {
		u := u
		cs = append(cs, confCase{u.name, func(c *cc) any { return u.f(c.I(u.in)) }})
	}
	return append(cs, []confCase{
		{"logit_eps", func(c *cc) any { return torch.Logit(c.I("q"), torch.WithEps(0.25)) }},
		{"nan_to_num", func(c *cc) any {
			return torch.NanToNum(c.I("nanx"), torch.WithNan(0.5), torch.WithPosinf(100.0), torch.WithNeginf(-100.0))
		}},
		{"nan_to_num_default", func(c *cc) any { return torch.NanToNum(c.I("nanx")) }},
		{"gelu", func(c *cc) any { return torch.Gelu(c.I("x")) }},
		{"gelu_tanh", func(c *cc) any { return torch.Gelu(c.I("x"), torch.WithApproximate("tanh")) }},
		{"elu", func(c *cc) any { return torch.Elu(c.I("x"), torch.WithAlpha(0.5), torch.WithScale(1.5)) }},
		{"celu", func(c *cc) any { return torch.Celu(c.I("x"), torch.WithAlpha(2.0)) }},
		{"softplus", func(c *cc) any { return torch.Softplus(c.I("x"), torch.WithBeta(2), torch.WithThreshold(1)) }},
		{"hardtanh", func(c *cc) any { return torch.Hardtanh(c.I("x"), torch.WithMinVal(-0.5), torch.WithMaxVal(0.5)) }},
		{"leaky_relu", func(c *cc) any { return torch.LeakyRelu(c.I("x"), torch.WithNegativeSlope(0.2)) }},
		{"hardshrink", func(c *cc) any { return torch.Hardshrink(c.I("x"), torch.WithLambd(0.6)) }},
		{"softshrink", func(c *cc) any { return torch.Softshrink(c.I("x"), torch.WithLambd(0.6)) }},
		{"glu", func(c *cc) any { return torch.Glu(c.I("x"), torch.WithDim(1)) }},
		{"rrelu_eval", func(c *cc) any { return torch.Rrelu(c.I("x")) }},
		{"special_round", func(c *cc) any { return torch.SpecialRound(c.I("x"), torch.WithDecimals(1)) }},
		{"special_logit", func(c *cc) any { return torch.SpecialLogit(c.I("q"), torch.WithEps(0.2)) }},
		{"threshold", func(c *cc) any { return torch.Threshold(c.I("x"), torch.S(0.5), torch.S(-1.0)) }},
		{"polygamma", func(c *cc) any { return torch.Polygamma(1, c.I("p")) }},
		{"special_polygamma", func(c *cc) any { return torch.SpecialPolygamma(2, c.I("p")) }},
		{"mvlgamma", func(c *cc) any { return torch.Mvlgamma(c.I("g"), 2) }},
		{"special_multigammaln", func(c *cc) any { return torch.SpecialMultigammaln(c.I("g"), 3) }},
		{"frexp", func(c *cc) any { return tup2(torch.Frexp(c.I("x"))) }},
		{"logical_not_method", func(c *cc) any { return c.I("x").LogicalNot() }},
		{"abs_int", func(c *cc) any { return torch.Abs(c.I("ii")) }},
	}...)
}

func confCasesBinary() []confCase {
	return []confCase{
		{"add", func(c *cc) any { return torch.Add(c.I("x"), c.I("y")) }},
		{"add_alpha", func(c *cc) any { return c.I("x").Add(c.I("y"), torch.WithAlpha(2)) }},
		{"add_int_float", func(c *cc) any { return torch.Add(c.I("ii"), c.I("x")) }},
		{"add_scalar", func(c *cc) any { return torch.AddScalar(c.I("x"), torch.S(1.5), torch.WithAlpha(2)) }},
		{"sub", func(c *cc) any { return torch.Sub(c.I("x"), c.I("y"), torch.WithAlpha(0.5)) }},
		{"sub_scalar", func(c *cc) any { return torch.SubScalar(c.I("x"), torch.S(2)) }},
		{"rsub", func(c *cc) any { return torch.Rsub(c.I("x"), c.I("y")) }},
		{"subtract", func(c *cc) any { return torch.Subtract(c.I("x"), c.I("y"), torch.WithAlpha(2)) }},
		{"mul", func(c *cc) any { return torch.Mul(c.I("x"), c.I("y")) }},
		{"mul_broadcast", func(c *cc) any { return c.I("x").Mul(c.I("v")) }},
		{"mul_scalar", func(c *cc) any { return torch.MulScalar(c.I("x"), torch.S(3)) }},
		{"multiply", func(c *cc) any { return torch.Multiply(c.I("ii"), c.I("jj")) }},
		{"div", func(c *cc) any { return torch.Div(c.I("x"), c.I("y")) }},
		{"div_floor", func(c *cc) any { return torch.DivTensorMode(c.I("x"), c.I("y"), torch.WithRoundingMode("floor")) }},
		{"div_trunc", func(c *cc) any { return torch.DivTensorMode(c.I("x"), c.I("y"), torch.WithRoundingMode("trunc")) }},
		{"div_scalar", func(c *cc) any { return torch.DivScalar(c.I("x"), torch.S(4)) }},
		{"divide", func(c *cc) any { return torch.Divide(c.I("ii"), c.I("jj")) }},
		{"true_divide", func(c *cc) any { return torch.TrueDivide(c.I("ii"), c.I("jj")) }},
		{"floor_divide", func(c *cc) any { return torch.FloorDivide(c.I("x"), c.I("y")) }},
		{"remainder", func(c *cc) any { return torch.RemainderScalar(c.I("x"), torch.S(0.75)) }},
		{"remainder_tensor", func(c *cc) any { return torch.Remainder(c.I("x"), c.I("y")) }},
		{"fmod", func(c *cc) any { return torch.FmodScalar(c.I("x"), torch.S(0.75)) }},
		{"fmod_tensor", func(c *cc) any { return torch.Fmod(c.I("x"), c.I("y")) }},
		{"pow", func(c *cc) any { return torch.Pow(c.I("p"), c.I("y")) }},
		{"pow_tensor_scalar", func(c *cc) any { return torch.PowTensorScalar(c.I("x"), torch.S(3)) }},
		{"pow_scalar", func(c *cc) any { return torch.PowScalar(torch.S(2), c.I("x")) }},
		{"float_power", func(c *cc) any { return torch.FloatPower(c.I("p"), c.I("y")) }},
		{"atan2", func(c *cc) any { return torch.Atan2(c.I("x"), c.I("y")) }},
		{"arctan2", func(c *cc) any { return torch.Arctan2(c.I("y"), c.I("x")) }},
		{"maximum", func(c *cc) any { return torch.Maximum(c.I("x"), c.I("y")) }},
		{"minimum", func(c *cc) any { return torch.Minimum(c.I("x"), c.I("y")) }},
		{"max_other", func(c *cc) any { return torch.MaxOther(c.I("x"), c.I("y")) }},
		{"min_other", func(c *cc) any { return torch.MinOther(c.I("x"), c.I("y")) }},
		{"fmax", func(c *cc) any { return torch.Fmax(c.I("nanx"), c.I("x")) }},
		{"fmin", func(c *cc) any { return torch.Fmin(c.I("nanx"), c.I("x")) }},
		{"hypot", func(c *cc) any { return torch.Hypot(c.I("x"), c.I("y")) }},
		{"copysign", func(c *cc) any { return torch.Copysign(c.I("x"), c.I("y")) }},
		{"nextafter", func(c *cc) any { return torch.Nextafter(c.I("x"), c.I("y")) }},
		{"logaddexp", func(c *cc) any { return torch.Logaddexp(c.I("x"), c.I("y")) }},
		{"logaddexp2", func(c *cc) any { return torch.Logaddexp2(c.I("x"), c.I("y")) }},
		{"xlogy", func(c *cc) any { return torch.Xlogy(c.I("x"), c.I("p")) }},
		{"special_xlogy", func(c *cc) any { return torch.SpecialXlogy(c.I("x"), c.I("p")) }},
		{"special_xlog1py", func(c *cc) any { return torch.SpecialXlog1py(c.I("x"), c.I("p")) }},
		{"special_zeta", func(c *cc) any { return torch.SpecialZeta(c.I("g"), c.I("p")) }},
		{"ldexp", func(c *cc) any { return torch.Ldexp(c.I("x"), c.I("sh")) }},
		{"lerp", func(c *cc) any { return torch.LerpScalar(c.I("x"), c.I("y"), torch.S(0.25)) }},
		{"lerp_tensor", func(c *cc) any { return torch.Lerp(c.I("x"), c.I("y"), c.I("q")) }},
		{"heaviside", func(c *cc) any { return torch.Heaviside(c.I("x"), c.I("y")) }},
		{"gcd", func(c *cc) any { return torch.Gcd(c.I("ii"), c.I("jj")) }},
		{"lcm", func(c *cc) any { return torch.Lcm(c.I("ii"), c.I("jj")) }},
		{"igamma", func(c *cc) any { return torch.Igamma(c.I("p"), c.I("g")) }},
		{"igammac", func(c *cc) any { return torch.Igammac(c.I("p"), c.I("g")) }},
		{"bitwise_and", func(c *cc) any { return torch.BitwiseAndScalar(c.I("ii"), torch.S(6)) }},
		{"bitwise_and_tensor", func(c *cc) any { return torch.BitwiseAnd(c.I("ii"), c.I("jj")) }},
		{"bitwise_or", func(c *cc) any { return torch.BitwiseOrScalar(c.I("ii"), torch.S(3)) }},
		{"bitwise_or_tensor", func(c *cc) any { return torch.BitwiseOr(c.I("ii"), c.I("jj")) }},
		{"bitwise_xor", func(c *cc) any { return torch.BitwiseXorScalar(c.I("ii"), torch.S(5)) }},
		{"bitwise_xor_tensor", func(c *cc) any { return torch.BitwiseXor(c.I("ii"), c.I("jj")) }},
		{"bitwise_left_shift", func(c *cc) any { return torch.BitwiseLeftShift(c.I("jj"), c.I("sh")) }},
		{"bitwise_right_shift", func(c *cc) any { return torch.BitwiseRightShift(c.I("ii"), c.I("sh")) }},
		{"bitwise_and_bool", func(c *cc) any { return torch.BitwiseAnd(c.I("mask"), c.I("mask2")) }},
		{"logical_and", func(c *cc) any { return torch.LogicalAnd(c.I("mask"), c.I("mask2")) }},
		{"logical_or", func(c *cc) any { return torch.LogicalOr(c.I("mask"), c.I("mask2")) }},
		{"logical_xor", func(c *cc) any { return torch.LogicalXor(c.I("x"), c.I("mask2")) }},
		{"eq", func(c *cc) any { return torch.EqScalar(c.I("x"), torch.S(0.5)) }},
		{"eq_tensor", func(c *cc) any { return torch.Eq(c.I("ii"), c.I("jj")) }},
		{"ne", func(c *cc) any { return torch.NeScalar(c.I("x"), torch.S(0.5)) }},
		{"ne_tensor", func(c *cc) any { return torch.Ne(c.I("ii"), c.I("jj")) }},
		{"lt", func(c *cc) any { return torch.LtScalar(c.I("x"), torch.S(0)) }},
		{"lt_tensor", func(c *cc) any { return torch.Lt(c.I("x"), c.I("y")) }},
		{"le", func(c *cc) any { return torch.LeScalar(c.I("x"), torch.S(0.25)) }},
		{"le_tensor", func(c *cc) any { return torch.Le(c.I("x"), c.I("y")) }},
		{"gt", func(c *cc) any { return torch.GtScalar(c.I("x"), torch.S(0)) }},
		{"gt_tensor", func(c *cc) any { return torch.Gt(c.I("x"), c.I("y")) }},
		{"ge", func(c *cc) any { return torch.GeScalar(c.I("x"), torch.S(0.25)) }},
		{"ge_tensor", func(c *cc) any { return torch.Ge(c.I("x"), c.I("y")) }},
		{"greater", func(c *cc) any { return torch.GreaterScalar(c.I("x"), torch.S(1)) }},
		{"less", func(c *cc) any { return torch.LessScalar(c.I("x"), torch.S(1)) }},
		{"greater_equal", func(c *cc) any { return torch.GreaterEqualScalar(c.I("ii"), torch.S(3)) }},
		{"less_equal", func(c *cc) any { return torch.LessEqualScalar(c.I("ii"), torch.S(3)) }},
		{"not_equal", func(c *cc) any { return torch.NotEqualScalar(c.I("ii"), torch.S(3)) }},
		{"isclose", func(c *cc) any { return torch.Isclose(c.I("x"), c.I("y"), torch.WithRtol(0.0), torch.WithAtol(1.0)) }},
		{"isclose_nan", func(c *cc) any { return torch.Isclose(c.I("nanx"), c.I("nanx"), torch.WithEqualNan(true)) }},
		{"isin", func(c *cc) any { return torch.Isin(c.I("ii"), c.I("jj")) }},
		{"isin_invert", func(c *cc) any { return torch.Isin(c.I("ii"), c.I("jj"), torch.WithInvert(true)) }},
		{"clamp", func(c *cc) any { return torch.Clamp(c.I("x"), torch.WithMin(-1), torch.WithMax(1)) }},
		{"clamp_min_only", func(c *cc) any { return torch.Clamp(c.I("x"), torch.WithMin(0.5)) }},
		{"clamp_tensor", func(c *cc) any {
			return torch.ClampTensor(c.I("x"), torch.WithMinTensor(c.I("u")), torch.WithMaxTensor(c.I("p")))
		}},
		{"clamp_min", func(c *cc) any { return torch.ClampMin(c.I("x"), torch.S(0)) }},
		{"clamp_max", func(c *cc) any { return torch.ClampMax(c.I("x"), torch.S(0.5)) }},
		{"clip", func(c *cc) any { return torch.Clip(c.I("x"), torch.WithMin(-0.5), torch.WithMax(0.5)) }},
		{"addcmul", func(c *cc) any { return torch.Addcmul(c.I("x"), c.I("y"), c.I("p"), torch.WithValue(0.5)) }},
		{"addcdiv", func(c *cc) any { return torch.Addcdiv(c.I("x"), c.I("y"), c.I("p"), torch.WithValue(2)) }},
		{"dist", func(c *cc) any { return torch.Dist(c.I("x"), c.I("y"), torch.WithP(3)) }},
		{"where_self", func(c *cc) any { return torch.WhereSelf(c.I("mask"), c.I("x"), c.I("y")) }},
		{"where_scalar", func(c *cc) any { return torch.WhereScalar(c.I("mask"), torch.S(1.0), torch.S(-1.0)) }},
		{"where_scalar_other", func(c *cc) any { return torch.WhereScalarOther(c.I("mask"), c.I("x"), torch.S(0.0)) }},
		{"complex", func(c *cc) any { return torch.Complex(c.I("x"), c.I("y")) }},
		{"polar", func(c *cc) any { return torch.Polar(c.I("p"), c.I("x")) }},
		{"view_as_real", func(c *cc) any { return torch.ViewAsReal(torch.Complex(c.I("x"), c.I("y"))) }},
		{"view_as_complex", func(c *cc) any { return torch.ViewAsComplex(c.I("b3")) }},
		{"real_imag", func(c *cc) any {
			z := torch.Complex(c.I("x"), c.I("y"))
			return tup{torch.Real(z), torch.Imag(z)}
		}},
		{"type_as", func(c *cc) any { return c.I("x").TypeAs(c.I("ii")) }},
		{"view_dtype", func(c *cc) any { return c.I("x").ViewDtype(torch.Int32) }},
	}
}

func confCasesReduce() []confCase {
	return []confCase{
		{"sum", func(c *cc) any { return torch.Sum(c.I("x")) }},
		{"sum_dtype", func(c *cc) any { return c.I("ii").Sum(torch.WithDtype(torch.Float64)) }},
		{"sum_dim", func(c *cc) any { return torch.SumDimIntList(c.I("x"), i64s(1), torch.WithKeepdim(true)) }},
		{"sum_dims_dtype", func(c *cc) any {
			return torch.SumDimIntList(c.I("b1"), i64s(0, 2), torch.WithKeepdim(false), torch.WithDtype(torch.Float64))
		}},
		{"sum_to_size", func(c *cc) any { return c.I("b1").SumToSize(i64s(3, 1)) }},
		{"nansum", func(c *cc) any { return torch.Nansum(c.I("nan1")) }},
		{"nanmean", func(c *cc) any { return torch.Nanmean(c.I("nan1"), torch.WithDim(1)) }},
		{"mean", func(c *cc) any { return torch.Mean(c.I("x")) }},
		{"mean_dim", func(c *cc) any { return torch.MeanDim(c.I("b1"), i64s(0, 2), torch.WithKeepdim(true)) }},
		{"prod", func(c *cc) any { return torch.Prod(c.I("p")) }},
		{"prod_dim", func(c *cc) any { return torch.ProdDimInt(c.I("p"), 1, torch.WithKeepdim(true)) }},
		{"std", func(c *cc) any { return torch.Std(c.I("x")) }},
		{"std_biased", func(c *cc) any { return torch.Std(c.I("x"), torch.WithUnbiased(false)) }},
		{"std_dim", func(c *cc) any {
			return torch.StdDim(c.I("x"), i64s(1), torch.WithUnbiased(false), torch.WithKeepdim(true))
		}},
		{"std_correction", func(c *cc) any { return torch.StdCorrection(c.I("x"), torch.WithDim(0), torch.WithCorrection(0)) }},
		{"var", func(c *cc) any { return torch.Var(c.I("x")) }},
		{"var_dim", func(c *cc) any { return torch.VarDim(c.I("x"), i64s(0), torch.WithUnbiased(true)) }},
		{"var_correction", func(c *cc) any { return torch.VarCorrection(c.I("x"), torch.WithCorrection(2)) }},
		{"std_mean", func(c *cc) any { return tup2(torch.StdMean(c.I("x"))) }},
		{"std_mean_dim", func(c *cc) any {
			return tup2(torch.StdMeanDim(c.I("x"), i64s(1), torch.WithUnbiased(true), torch.WithKeepdim(true)))
		}},
		{"std_mean_correction", func(c *cc) any {
			return tup2(torch.StdMeanCorrection(c.I("x"), torch.WithDim(0), torch.WithCorrection(2)))
		}},
		{"var_mean", func(c *cc) any { return tup2(torch.VarMean(c.I("x"), torch.WithUnbiased(false))) }},
		{"var_mean_dim", func(c *cc) any { return tup2(torch.VarMeanDim(c.I("x"), i64s(1))) }},
		{"var_mean_correction_none", func(c *cc) any { return tup2(torch.VarMeanCorrection(c.I("x"))) }},
		{"max_dim", func(c *cc) any { return tup2(torch.MaxDim(c.I("x"), 1)) }},
		{"max_dim_keepdim", func(c *cc) any { return tup2(c.I("x").MaxDim(0, torch.WithKeepdim(true))) }},
		{"min_dim", func(c *cc) any { return tup2(torch.MinDim(c.I("x"), 1)) }},
		{"amax", func(c *cc) any { return torch.Amax(c.I("x"), torch.WithDim(0)) }},
		{"amin", func(c *cc) any { return torch.Amin(c.I("b1"), torch.WithDim(0, 2)) }},
		{"aminmax", func(c *cc) any { return tup2(torch.Aminmax(c.I("x"), torch.WithDim(1), torch.WithKeepdim(true))) }},
		{"aminmax_all", func(c *cc) any { return tup2(torch.Aminmax(c.I("x"))) }},
		{"argmax", func(c *cc) any { return torch.Argmax(c.I("x")) }},
		{"argmax_dim", func(c *cc) any { return torch.Argmax(c.I("x"), torch.WithDim(1), torch.WithKeepdim(true)) }},
		{"argmin", func(c *cc) any { return torch.Argmin(c.I("x"), torch.WithDim(0)) }},
		{"logsumexp", func(c *cc) any { return torch.Logsumexp(c.I("x"), i64s(1)) }},
		{"special_logsumexp", func(c *cc) any { return torch.SpecialLogsumexp(c.I("x"), i64s(0), torch.WithKeepdim(true)) }},
		{"norm_scalar", func(c *cc) any { return torch.NormScalar(c.I("x"), torch.WithP(3)) }},
		{"norm_default", func(c *cc) any { return torch.NormScalar(c.I("x")) }},
		{"norm_dim", func(c *cc) any {
			return torch.NormScalarOptDim(c.I("x"), i64s(1), torch.WithP(1), torch.WithKeepdim(true))
		}},
		{"norm_dtype", func(c *cc) any { return torch.Norm(c.I("x"), torch.Float64, torch.WithP(2)) }},
		{"all_dim", func(c *cc) any { return torch.AllDim(c.I("mask"), 1) }},
		{"any_dim", func(c *cc) any { return torch.AnyDim(c.I("mask"), 0, torch.WithKeepdim(true)) }},
		{"count_nonzero", func(c *cc) any { return torch.CountNonzero(c.I("sh")) }},
		{"count_nonzero_dim", func(c *cc) any { return torch.CountNonzero(c.I("sh"), torch.WithDim(0)) }},
		{"median_dim", func(c *cc) any { return tup2(torch.MedianDim(c.I("x"), 1)) }},
		{"nanmedian_dim", func(c *cc) any { return tup2(torch.NanmedianDim(c.I("nan1"), 1)) }},
		{"mode", func(c *cc) any { return tup2(torch.Mode(c.I("uniq"))) }},
		{"kthvalue", func(c *cc) any { return tup2(torch.Kthvalue(c.I("x"), 2, torch.WithDim(1))) }},
		{"cumsum", func(c *cc) any { return torch.Cumsum(c.I("x"), 1) }},
		{"cumsum_dtype", func(c *cc) any { return torch.Cumsum(c.I("ii"), 0, torch.WithDtype(torch.Float64)) }},
		{"cumprod", func(c *cc) any { return torch.Cumprod(c.I("x"), 0) }},
		{"cummax", func(c *cc) any { return tup2(torch.Cummax(c.I("x"), 1)) }},
		{"cummin", func(c *cc) any { return tup2(torch.Cummin(c.I("x"), 0)) }},
		{"logcumsumexp", func(c *cc) any { return torch.Logcumsumexp(c.I("x"), 1) }},
		{"quantile", func(c *cc) any { return torch.Quantile(c.I("x"), c.I("qq"), torch.WithDim(1)) }},
		{"quantile_scalar", func(c *cc) any {
			return torch.QuantileScalar(c.I("x"), 0.3, torch.WithInterpolation("nearest"))
		}},
		{"nanquantile", func(c *cc) any {
			return torch.Nanquantile(c.I("nan1"), c.I("qq"), torch.WithDim(1), torch.WithKeepdim(true))
		}},
		{"linalg_vector_norm", func(c *cc) any { return torch.LinalgVectorNorm(c.I("x"), torch.WithOrd(1), torch.WithDim(1)) }},
		{"nuclear_norm", func(c *cc) any { return torch.NuclearNorm(c.I("x")) }},
		{"diff", func(c *cc) any { return torch.Diff(c.I("x")) }},
		{"diff_prepend", func(c *cc) any {
			return torch.Diff(c.I("x"), torch.WithN(2), torch.WithDim(0), torch.WithPrepend(c.I("y")))
		}},
		{"renorm", func(c *cc) any { return torch.Renorm(c.I("x"), torch.S(2), 0, torch.S(1.0)) }},
		{"histc", func(c *cc) any { return torch.Histc(c.I("x"), torch.WithBins(4), torch.WithMin(-3), torch.WithMax(3)) }},
		{"bincount", func(c *cc) any { return torch.Bincount(c.I("cnt")) }},
		{"bincount_minlength", func(c *cc) any { return torch.Bincount(c.I("cnt"), torch.WithMinlength(6)) }},
		{"unique2", func(c *cc) any {
			return tup3(torch.InternalUnique2(c.I("uniq"), torch.WithSorted(true), torch.WithReturnInverse(true), torch.WithReturnCounts(true)))
		}},
		{"unique_consecutive", func(c *cc) any {
			return tup3(torch.UniqueConsecutive(c.I("uniq"), torch.WithReturnInverse(true), torch.WithReturnCounts(true)))
		}},
		{"unique_dim", func(c *cc) any { return tup3(torch.UniqueDim(c.I("dup"), 0, torch.WithReturnCounts(true))) }},
		{"sort", func(c *cc) any { return tup2(torch.Sort(c.I("x"))) }},
		{"sort_desc", func(c *cc) any { return tup2(c.I("x").Sort(torch.WithDim(0), torch.WithDescending(true))) }},
		{"sort_stable", func(c *cc) any { return tup2(torch.SortStable(c.I("uniq"), torch.WithStable(true))) }},
		{"argsort", func(c *cc) any { return torch.Argsort(c.I("x"), torch.WithDim(1), torch.WithDescending(true)) }},
		{"argsort_stable", func(c *cc) any { return torch.ArgsortStable(c.I("uniq"), true) }},
		{"topk", func(c *cc) any { return tup2(torch.Topk(c.I("sortv"), 3)) }},
		{"topk_smallest", func(c *cc) any { return tup2(torch.Topk(c.I("x"), 2, torch.WithDim(1), torch.WithLargest(false))) }},
		{"searchsorted", func(c *cc) any { return torch.Searchsorted(c.I("bounds"), c.I("x")) }},
		{"searchsorted_right", func(c *cc) any {
			return torch.Searchsorted(c.I("bounds"), c.I("x"), torch.WithRight(true), torch.WithOutInt32(true))
		}},
		{"searchsorted_scalar", func(c *cc) any { return torch.SearchsortedScalar(c.I("bounds"), torch.S(1.0)) }},
		{"bucketize", func(c *cc) any { return torch.Bucketize(c.I("x"), c.I("bounds")) }},
		{"trapz", func(c *cc) any { return torch.Trapz(c.I("x"), c.I("w")) }},
		{"trapezoid", func(c *cc) any { return torch.Trapezoid(c.I("x"), c.I("w"), torch.WithDim(1)) }},
		{"cumulative_trapezoid", func(c *cc) any { return torch.CumulativeTrapezoid(c.I("x"), c.I("w")) }},
		{"cov", func(c *cc) any { return torch.Cov(c.I("x")) }},
		{"cov_correction", func(c *cc) any { return torch.Cov(c.I("x"), torch.WithCorrection(0)) }},
		{"histogram", func(c *cc) any { return tup2(torch.Histogram(c.I("x"), c.I("bounds"))) }},
		{"histogram_bin_ct", func(c *cc) any {
			return tup2(torch.HistogramBinCt(c.I("x"), torch.WithBins(4), torch.WithRange(-3.0, 3.0)))
		}},
		// Mixed tuple (Tensor, []Tensor).
		{"histogramdd", func(c *cc) any { return tup2(torch.Histogramdd(c.I("m43"), i64s(2, 2, 2))) }},
		{"histogramdd_range", func(c *cc) any {
			return tup2(torch.Histogramdd(c.I("m43"), i64s(2, 1, 2), torch.WithRange(-1.0, 2.0, 0.0, 3.0, -1.0, 2.0), torch.WithDensity(true)))
		}},
	}
}

func confCasesShape() []confCase {
	return []confCase{
		{"reshape", func(c *cc) any { return torch.Reshape(c.I("x"), i64s(2, 6)) }},
		{"view", func(c *cc) any { return c.I("x").View(i64s(4, 3)) }},
		{"permute", func(c *cc) any { return torch.Permute(c.I("b1"), i64s(2, 0, 1)) }},
		{"transpose", func(c *cc) any { return torch.Transpose(c.I("b1"), 0, 2) }},
		{"flatten", func(c *cc) any { return torch.Flatten(c.I("b1"), torch.WithStartDim(1)) }},
		{"unflatten", func(c *cc) any { return torch.Unflatten(c.I("x"), 1, i64s(2, 2)) }},
		{"squeeze_dim", func(c *cc) any { return torch.SqueezeDim(c.I("img"), 0) }},
		{"unsqueeze", func(c *cc) any { return torch.Unsqueeze(c.I("x"), 1) }},
		{"expand", func(c *cc) any { return c.I("v").Expand(i64s(3, 4)) }},
		{"expand_as", func(c *cc) any { return c.I("v").ExpandAs(c.I("x")) }},
		{"repeat", func(c *cc) any { return c.I("v").Repeat(i64s(2, 1)) }},
		{"repeat_interleave", func(c *cc) any { return torch.RepeatInterleave(c.I("rep")) }},
		{"repeat_interleave_self_int", func(c *cc) any { return torch.RepeatInterleaveSelfInt(c.I("x"), 2, torch.WithDim(1)) }},
		{"tile", func(c *cc) any { return torch.Tile(c.I("x"), i64s(2)) }},
		{"flip", func(c *cc) any { return torch.Flip(c.I("x"), i64s(0, 1)) }},
		{"roll", func(c *cc) any { return torch.Roll(c.I("x"), i64s(1), torch.WithDims(1)) }},
		{"roll_flat", func(c *cc) any { return torch.Roll(c.I("x"), i64s(5)) }},
		{"rot90", func(c *cc) any { return torch.Rot90(c.I("x")) }},
		{"rot90_k", func(c *cc) any { return torch.Rot90(c.I("b1"), torch.WithK(3), torch.WithDims(1, 2)) }},
		{"narrow", func(c *cc) any { return torch.Narrow(c.I("x"), 1, 1, 2) }},
		{"select", func(c *cc) any { return torch.Select(c.I("x"), 0, 1) }},
		{"slice", func(c *cc) any {
			return torch.Slice(c.I("x"), torch.WithDim(1), torch.WithStart(1), torch.WithEnd(4), torch.WithStep(2))
		}},
		{"slice_default", func(c *cc) any { return torch.Slice(c.I("x"), torch.WithDim(0), torch.WithStart(1)) }},
		{"cat", func(c *cc) any { return torch.Cat(ts(c.I("x"), c.I("y")), torch.WithDim(1)) }},
		{"cat_default", func(c *cc) any { return torch.Cat(ts(c.I("x"), c.I("y"))) }},
		{"concat", func(c *cc) any { return torch.Concat(ts(c.I("x"), c.I("y")), torch.WithDim(0)) }},
		{"concatenate", func(c *cc) any { return torch.Concatenate(ts(c.I("x"), c.I("y")), torch.WithDim(1)) }},
		{"stack", func(c *cc) any { return torch.Stack(ts(c.I("x"), c.I("y")), torch.WithDim(2)) }},
		{"hstack", func(c *cc) any { return torch.Hstack(ts(c.I("x"), c.I("y"))) }},
		{"vstack", func(c *cc) any { return torch.Vstack(ts(c.I("v"), c.I("w"))) }},
		{"dstack", func(c *cc) any { return torch.Dstack(ts(c.I("x"), c.I("y"))) }},
		{"column_stack", func(c *cc) any { return torch.ColumnStack(ts(c.I("v"), c.I("w"))) }},
		{"row_stack", func(c *cc) any { return torch.RowStack(ts(c.I("v"), c.I("w"))) }},
		{"split", func(c *cc) any { return torch.Split(c.I("x"), 3, torch.WithDim(1)) }},
		{"split_sizes", func(c *cc) any { return torch.SplitSizes(c.I("x"), i64s(1, 2)) }},
		{"split_with_sizes", func(c *cc) any { return torch.SplitWithSizes(c.I("x"), i64s(1, 3), torch.WithDim(1)) }},
		{"unsafe_split", func(c *cc) any { return torch.UnsafeSplit(c.I("x"), 2) }},
		{"tensor_split", func(c *cc) any { return torch.TensorSplit(c.I("x"), 3, torch.WithDim(1)) }},
		{"tensor_split_indices", func(c *cc) any { return torch.TensorSplitIndices(c.I("x"), i64s(1, 2)) }},
		{"unbind", func(c *cc) any { return torch.Unbind(c.I("x")) }},
		{"unbind_dim", func(c *cc) any { return c.I("x").Unbind(torch.WithDim(1)) }},
		{"chunk", func(c *cc) any { return torch.Chunk(c.I("x"), 2, torch.WithDim(1)) }},
		{"unsafe_chunk", func(c *cc) any { return torch.UnsafeChunk(c.I("x"), 3) }},
		{"hsplit", func(c *cc) any { return torch.Hsplit(c.I("x"), 2) }},
		{"vsplit", func(c *cc) any { return torch.Vsplit(c.I("x"), 3) }},
		{"dsplit", func(c *cc) any { return torch.Dsplit(c.I("b1"), 2) }},
		{"hsplit_array", func(c *cc) any { return torch.HsplitArray(c.I("x"), i64s(1, 3)) }},
		{"meshgrid", func(c *cc) any { return torch.Meshgrid(ts(c.I("v3"), c.I("v2"))) }},
		{"meshgrid_xy", func(c *cc) any { return torch.MeshgridIndexing(ts(c.I("v3"), c.I("v2")), "xy") }},
		{"broadcast_tensors", func(c *cc) any { return torch.BroadcastTensors(ts(c.I("v"), c.I("x"))) }},
		{"nonzero_numpy", func(c *cc) any { return torch.NonzeroNumpy(c.I("mask")) }},
		{"where_cond", func(c *cc) any { return torch.Where(c.I("mask")) }},
		{"movedim", func(c *cc) any { return torch.Movedim(c.I("b1"), i64s(0), i64s(2)) }},
		{"movedim_int", func(c *cc) any { return torch.MovedimInt(c.I("b1"), 0, 1) }},
		{"moveaxis", func(c *cc) any { return torch.Moveaxis(c.I("b1"), i64s(0, 1), i64s(2, 0)) }},
		{"swapaxes", func(c *cc) any { return torch.Swapaxes(c.I("b1"), 0, 1) }},
		{"swapdims", func(c *cc) any { return torch.Swapdims(c.I("b1"), 1, 2) }},
		{"diag", func(c *cc) any { return torch.Diag(c.I("v")) }},
		{"diag_k", func(c *cc) any { return torch.Diag(c.I("x"), torch.WithDiagonal(1)) }},
		{"diagonal", func(c *cc) any { return torch.Diagonal(c.I("x"), torch.WithOffset(1)) }},
		{"diagonal_dims", func(c *cc) any {
			return torch.Diagonal(c.I("b1"), torch.WithOffset(0), torch.WithDim1(1), torch.WithDim2(2))
		}},
		{"diag_embed", func(c *cc) any { return torch.DiagEmbed(c.I("x")) }},
		{"diagflat", func(c *cc) any { return torch.Diagflat(c.I("v3"), torch.WithOffset(1)) }},
		{"tril", func(c *cc) any { return torch.Tril(c.I("x"), torch.WithDiagonal(-1)) }},
		{"triu", func(c *cc) any { return torch.Triu(c.I("x")) }},
		{"tril_indices", func(c *cc) any { return torch.TrilIndices(3, 4, torch.WithOffset(1)) }},
		{"triu_indices", func(c *cc) any { return torch.TriuIndices(3, 3) }},
		{"contiguous", func(c *cc) any { return c.I("x").T().Contiguous() }},
		{"view_as", func(c *cc) any { return c.I("x").ViewAs(c.I("m43")) }},
		{"reshape_as", func(c *cc) any { return c.I("x").ReshapeAs(c.I("m43")) }},
		{"broadcast_to", func(c *cc) any { return torch.BroadcastTo(c.I("v"), i64s(2, 4)) }},
		{"block_diag", func(c *cc) any { return torch.BlockDiag(ts(c.I("sq2"), c.I("bm"))) }},
		{"cartesian_prod", func(c *cc) any { return torch.CartesianProd(ts(c.I("v3"), c.I("v2"))) }},
		{"combinations", func(c *cc) any { return torch.Combinations(c.I("v")) }},
		{"combinations_r3", func(c *cc) any {
			return torch.Combinations(c.I("v3"), torch.WithR(3), torch.WithWithReplacement(true))
		}},
		{"unfold", func(c *cc) any { return c.I("v").Unfold(0, 2, 1) }},
		{"as_strided", func(c *cc) any { return torch.AsStrided(c.I("x"), i64s(2, 2), i64s(1, 2)) }},
		{"as_strided_offset", func(c *cc) any {
			return torch.AsStrided(c.I("x"), i64s(2, 2), i64s(4, 1), torch.WithStorageOffset(5))
		}},
		{"pad", func(c *cc) any {
			return torch.Pad(c.I("x"), i64s(1, 1), torch.WithModeString("constant"), torch.WithValue(0.5))
		}},
		{"pad_reflect", func(c *cc) any { return torch.Pad(c.I("sig1"), i64s(2, 1), torch.WithModeString("reflect")) }},
		{"constant_pad_nd", func(c *cc) any { return torch.ConstantPadNd(c.I("x"), i64s(1, 2), torch.WithValue(9)) }},
		{"reflection_pad1d", func(c *cc) any { return torch.ReflectionPad1d(c.I("sig1"), i64s(2, 1)) }},
		{"reflection_pad2d", func(c *cc) any { return torch.ReflectionPad2d(c.I("img"), i64s(1, 1, 1, 1)) }},
		{"replication_pad2d", func(c *cc) any { return torch.ReplicationPad2d(c.I("img"), i64s(1, 0, 2, 1)) }},
		{"pixel_shuffle", func(c *cc) any { return torch.PixelShuffle(c.I("ps"), 2) }},
		{"pixel_unshuffle", func(c *cc) any { return torch.PixelUnshuffle(c.I("ps4"), 2) }},
		{"channel_shuffle", func(c *cc) any { return torch.ChannelShuffle(c.I("img4"), 3) }},
		{"fill", func(c *cc) any { return torch.FillScalar(c.I("x"), torch.S(1.5)) }},
		{"fft_fft", func(c *cc) any { return torch.FftFft(c.I("v")) }},
		{"fft_ifft_n", func(c *cc) any { return torch.FftIfft(c.I("v"), torch.WithN(6), torch.WithNorm("ortho")) }},
		{"fft_rfft", func(c *cc) any { return torch.FftRfft(c.I("x"), torch.WithDim(0)) }},
		{"fft_irfft", func(c *cc) any { return torch.FftIrfft(torch.FftRfft(c.I("v"))) }},
		{"fft_fftfreq", func(c *cc) any { return torch.FftFftfreq(5, torch.WithD(0.5)) }},
		{"fft_fftshift", func(c *cc) any { return torch.FftFftshift(c.I("x")) }},
	}
}

func confCasesFactory() []confCase {
	return []confCase{
		{"zeros", func(c *cc) any { return torch.Zeros(i64s(2, 3)) }},
		{"zeros_device_layout", func(c *cc) any {
			return torch.Zeros(i64s(2), torch.WithDtype(torch.Float64), torch.WithLayout(torch.Strided), torch.WithDevice(torch.CPU))
		}},
		{"zeros_int", func(c *cc) any { return torch.Zeros(i64s(2), torch.WithDtype(torch.Int64)) }},
		{"ones", func(c *cc) any { return torch.Ones(i64s(2, 3), torch.WithDtype(torch.Float64)) }},
		{"full", func(c *cc) any { return torch.Full(i64s(2, 2), torch.S(3.5)) }},
		{"full_int", func(c *cc) any { return torch.Full(i64s(3), torch.S(7)) }},
		{"full_bool", func(c *cc) any { return torch.Full(i64s(2), torch.S(true)) }},
		{"empty", func(c *cc) any { return torch.Empty(i64s(2, 3)) }},
		{"empty_like", func(c *cc) any { return torch.EmptyLike(c.I("ii")) }},
		{"arange", func(c *cc) any { return torch.Arange(torch.S(5)) }},
		{"arange_float", func(c *cc) any { return torch.Arange(torch.S(2.5)) }},
		{"arange_start_step", func(c *cc) any { return torch.ArangeStartStep(torch.S(1), torch.S(2), torch.WithStep(0.25)) }},
		{"arange_start", func(c *cc) any { return torch.ArangeStart(torch.S(-2), torch.S(3), torch.WithDtype(torch.Float64)) }},
		{"linspace", func(c *cc) any { return torch.Linspace(torch.S(0), torch.S(1), 5) }},
		{"logspace", func(c *cc) any { return torch.Logspace(torch.S(0), torch.S(2), 3, torch.WithBase(2.0)) }},
		{"eye", func(c *cc) any { return torch.Eye(3) }},
		{"eye_m", func(c *cc) any { return torch.EyeM(2, 3, torch.WithDtype(torch.Int64)) }},
		{"scalar_tensor", func(c *cc) any { return torch.ScalarTensor(torch.S(2.5), torch.WithDtype(torch.Float64)) }},
		{"zeros_like", func(c *cc) any { return torch.ZerosLike(c.I("x")) }},
		{"ones_like", func(c *cc) any { return torch.OnesLike(c.I("x"), torch.WithDtype(torch.Int64)) }},
		{"full_like", func(c *cc) any { return torch.FullLike(c.I("ii"), torch.S(7)) }},
		{"new_zeros", func(c *cc) any { return c.I("ii").NewZeros(i64s(2)) }},
		{"new_ones", func(c *cc) any { return c.I("x").NewOnes(i64s(2, 1)) }},
		{"new_full", func(c *cc) any { return c.I("x").NewFull(i64s(3), torch.S(-2.0)) }},
		{"new_empty", func(c *cc) any { return c.I("ii").NewEmpty(i64s(2, 2)) }},
		{"vander", func(c *cc) any { return torch.Vander(c.I("v3"), torch.WithN(4), torch.WithIncreasing(true)) }},
		{"linalg_vander", func(c *cc) any { return torch.LinalgVander(c.I("v3")) }},
	}
}

func confCasesLinalg() []confCase {
	return []confCase{
		{"mm", func(c *cc) any { return torch.Mm(c.I("x"), c.I("m43")) }},
		{"matmul", func(c *cc) any { return torch.Matmul(c.I("b1"), c.I("b2")) }},
		{"matmul_vec", func(c *cc) any { return c.I("x").Matmul(c.I("v")) }},
		{"linalg_matmul", func(c *cc) any { return torch.LinalgMatmul(c.I("x"), c.I("m43")) }},
		{"bmm", func(c *cc) any { return torch.Bmm(c.I("b1"), c.I("b2")) }},
		{"mv", func(c *cc) any { return torch.Mv(c.I("x"), c.I("v")) }},
		{"dot", func(c *cc) any { return torch.Dot(c.I("v"), c.I("w")) }},
		{"vdot", func(c *cc) any { return torch.Vdot(c.I("v"), c.I("w")) }},
		{"inner", func(c *cc) any { return torch.Inner(c.I("x"), c.I("y")) }},
		{"outer", func(c *cc) any { return torch.Outer(c.I("v"), c.I("w")) }},
		{"ger", func(c *cc) any { return torch.Ger(c.I("v3"), c.I("w")) }},
		{"cross", func(c *cc) any { return torch.Cross(c.I("v3"), c.I("w3"), torch.WithDim(0)) }},
		{"linalg_cross", func(c *cc) any { return torch.LinalgCross(c.I("v3"), c.I("w3")) }},
		{"kron", func(c *cc) any { return torch.Kron(c.I("sq2"), c.I("bm")) }},
		{"addmm", func(c *cc) any {
			return torch.Addmm(c.I("a"), c.I("x"), c.I("m43"), torch.WithBeta(0.5), torch.WithAlpha(2))
		}},
		{"addmv", func(c *cc) any { return torch.Addmv(c.I("v3"), c.I("x"), c.I("v")) }},
		{"addbmm", func(c *cc) any { return torch.Addbmm(c.I("bm"), c.I("b1"), c.I("b2")) }},
		{"baddbmm", func(c *cc) any { return torch.Baddbmm(c.I("b3"), c.I("b1"), c.I("b2"), torch.WithBeta(2)) }},
		{"addr", func(c *cc) any { return torch.Addr(c.I("x"), c.I("v3"), c.I("v"), torch.WithAlpha(0.5)) }},
		{"slogdet", func(c *cc) any { return tup2(torch.Slogdet(c.I("a"))) }},
		{"linalg_slogdet", func(c *cc) any { return tup2(torch.LinalgSlogdet(c.I("a"))) }},
		{"linalg_inv_ex", func(c *cc) any { return tup2(torch.LinalgInvEx(c.I("a"))) }},
		{"linalg_solve", func(c *cc) any { return torch.LinalgSolve(c.I("a"), c.I("bm")) }},
		{"linalg_solve_ex", func(c *cc) any { return tup2(torch.LinalgSolveEx(c.I("a"), c.I("bm"))) }},
		{"cholesky", func(c *cc) any { return torch.Cholesky(c.I("a")) }},
		{"cholesky_upper", func(c *cc) any { return torch.Cholesky(c.I("a"), torch.WithUpper(true)) }},
		{"linalg_cholesky", func(c *cc) any { return torch.LinalgCholesky(c.I("a")) }},
		{"linalg_cholesky_ex", func(c *cc) any { return tup2(torch.LinalgCholeskyEx(c.I("a"))) }},
		{"cholesky_solve", func(c *cc) any { return torch.CholeskySolve(c.I("bm"), torch.LinalgCholesky(c.I("a"))) }},
		{"cholesky_inverse", func(c *cc) any { return torch.CholeskyInverse(torch.LinalgCholesky(c.I("a"))) }},
		{"qr", func(c *cc) any { return tup2(torch.Qr(c.I("a"))) }},
		{"linalg_qr", func(c *cc) any { return tup2(torch.LinalgQr(c.I("m43"))) }},
		{"linalg_qr_complete", func(c *cc) any { return tup2(torch.LinalgQr(c.I("m43"), torch.WithModeString("complete"))) }},
		{"linalg_svdvals", func(c *cc) any { return torch.LinalgSvdvals(c.I("x")) }},
		{"linalg_svd", func(c *cc) any { return tup3(torch.LinalgSvd(c.I("a"))) }},
		{"svd", func(c *cc) any { return tup3(torch.Svd(c.I("a"))) }},
		{"linalg_eigvalsh", func(c *cc) any { return torch.LinalgEigvalsh(c.I("a")) }},
		{"linalg_eigh", func(c *cc) any { return tup2(torch.LinalgEigh(c.I("a"))) }},
		{"linalg_norm", func(c *cc) any { return torch.LinalgNorm(c.I("x")) }},
		{"linalg_norm_ord", func(c *cc) any { return torch.LinalgNorm(c.I("x"), torch.WithOrd(1), torch.WithDim(1)) }},
		{"linalg_matrix_norm", func(c *cc) any { return torch.LinalgMatrixNorm(c.I("x"), torch.S(1)) }},
		{"matrix_power", func(c *cc) any { return torch.MatrixPower(c.I("a"), 3) }},
		{"linalg_matrix_power", func(c *cc) any { return torch.LinalgMatrixPower(c.I("a"), -1) }},
		{"linalg_matrix_rank", func(c *cc) any { return torch.LinalgMatrixRank(c.I("x"), 1e-5) }},
		{"pinverse", func(c *cc) any { return torch.Pinverse(c.I("x")) }},
		{"linalg_pinv", func(c *cc) any { return torch.LinalgPinv(c.I("a"), 1e-15, torch.WithHermitian(true)) }},
		{"chain_matmul", func(c *cc) any { return torch.ChainMatmul(ts(c.I("x"), c.I("m43"), c.I("a"))) }},
		{"linalg_multi_dot", func(c *cc) any { return torch.LinalgMultiDot(ts(c.I("x"), c.I("m43"), c.I("a"))) }},
		{"einsum", func(c *cc) any { return torch.Einsum("ij,jk->ik", ts(c.I("x"), c.I("m43"))) }},
		{"einsum_trace", func(c *cc) any { return torch.Einsum("ii", ts(c.I("a"))) }},
		{"tensordot", func(c *cc) any { return torch.Tensordot(c.I("x"), c.I("m43"), i64s(1), i64s(0)) }},
		{"triangular_solve", func(c *cc) any { return tup2(torch.TriangularSolve(c.I("bm"), c.I("ut"))) }},
		{"linalg_solve_triangular", func(c *cc) any { return torch.LinalgSolveTriangular(c.I("ut"), c.I("bm"), true) }},
		{"linalg_lstsq", func(c *cc) any { return tup4(torch.LinalgLstsq(c.I("m43"), c.I("b42"))) }},
		{"linalg_lu_factor", func(c *cc) any { return tup2(torch.LinalgLuFactor(c.I("a"))) }},
		{"linalg_lu", func(c *cc) any { return tup3(torch.LinalgLu(c.I("a"))) }},
		{"lu_unpack", func(c *cc) any { return tup3(torch.LuUnpack(torch.LinalgLuFactor(c.I("a")))) }},
		{"linalg_vecdot", func(c *cc) any { return torch.LinalgVecdot(c.I("x"), c.I("y")) }},
		{"linalg_diagonal", func(c *cc) any { return torch.LinalgDiagonal(c.I("x")) }},
		{"linalg_cond", func(c *cc) any { return torch.LinalgCond(c.I("a")) }},
		{"geqrf", func(c *cc) any { return tup2(torch.Geqrf(c.I("a"))) }},
		{"orgqr", func(c *cc) any { return torch.Orgqr(torch.Geqrf(c.I("a"))) }},
		{"linalg_householder_product", func(c *cc) any { return torch.LinalgHouseholderProduct(torch.Geqrf(c.I("a"))) }},
		{"linalg_ldl_factor", func(c *cc) any { return tup2(torch.LinalgLdlFactor(c.I("a"))) }},
		{"cdist", func(c *cc) any { return torch.Cdist(c.I("x"), c.I("y")) }},
		{"cdist_p1", func(c *cc) any { return torch.Cdist(c.I("x"), c.I("m43").T().Contiguous(), torch.WithP(1.0)) }},
		{"pdist", func(c *cc) any { return torch.Pdist(c.I("x")) }},
		{"cosine_similarity", func(c *cc) any { return torch.CosineSimilarity(c.I("x"), c.I("y")) }},
		{"pairwise_distance", func(c *cc) any { return torch.PairwiseDistance(c.I("x"), c.I("y"), torch.WithKeepdim(true)) }},
	}
}

func confCasesNN() []confCase {
	undef := torch.Tensor{}
	return []confCase{
		{"linear", func(c *cc) any { return torch.Linear(c.I("m43"), c.I("lw"), torch.WithBias(c.I("lb"))) }},
		{"linear_nobias", func(c *cc) any { return torch.Linear(c.I("m43"), c.I("lw")) }},
		{"bilinear", func(c *cc) any {
			return torch.Bilinear(c.I("bm"), c.I("a"), c.I("bw"), torch.WithBias(c.I("bconv")))
		}},
		{"conv2d", func(c *cc) any {
			return torch.Conv2d(c.I("img"), c.I("wconv"), torch.WithBias(c.I("bconv")), torch.WithPadding(1, 1))
		}},
		{"conv2d_stride", func(c *cc) any { return torch.Conv2d(c.I("img"), c.I("wconv"), torch.WithStride(2, 2)) }},
		{"conv1d", func(c *cc) any { return torch.Conv1d(c.I("sig1"), c.I("w1d")) }},
		{"conv_transpose1d", func(c *cc) any { return torch.ConvTranspose1d(c.I("sig1"), c.I("w1d"), torch.WithStride(2)) }},
		{"conv_transpose2d", func(c *cc) any {
			return torch.ConvTranspose2d(c.I("img"), c.I("wct"), torch.WithBias(torch.Narrow(c.I("pw2"), 0, 0, 1)))
		}},
		{"convolution", func(c *cc) any {
			return torch.Convolution(c.I("img"), c.I("wconv"), c.I("bconv"), i64s(1, 1), i64s(0, 0), i64s(1, 1), false, i64s(0, 0), 1)
		}},
		{"max_pool2d", func(c *cc) any { return torch.MaxPool2d(c.I("img"), i64s(2, 2)) }},
		{"max_pool2d_stride", func(c *cc) any {
			return torch.MaxPool2d(c.I("img"), i64s(3, 3), torch.WithStride(1, 1), torch.WithPadding(1, 1), torch.WithCeilMode(true))
		}},
		{"max_pool1d", func(c *cc) any { return torch.MaxPool1d(c.I("sig1"), i64s(2)) }},
		{"max_pool2d_with_indices", func(c *cc) any {
			return tup2(torch.MaxPool2dWithIndices(c.I("img"), i64s(3, 3), torch.WithStride(2, 2), torch.WithPadding(1, 1)))
		}},
		{"avg_pool1d", func(c *cc) any { return torch.AvgPool1d(c.I("sig1"), i64s(3), torch.WithStride(2)) }},
		{"avg_pool2d", func(c *cc) any { return torch.AvgPool2d(c.I("img"), i64s(2, 2)) }},
		{"avg_pool2d_pad", func(c *cc) any {
			return torch.AvgPool2d(c.I("img"), i64s(3, 3), torch.WithStride(2, 2), torch.WithPadding(1, 1), torch.WithCountIncludePad(false))
		}},
		{"adaptive_avg_pool1d", func(c *cc) any { return torch.AdaptiveAvgPool1d(c.I("sig1"), i64s(3)) }},
		{"adaptive_avg_pool2d", func(c *cc) any { return torch.AdaptiveAvgPool2d(c.I("img"), i64s(2, 3)) }},
		{"adaptive_max_pool1d", func(c *cc) any { return tup2(torch.AdaptiveMaxPool1d(c.I("sig1"), i64s(3))) }},
		{"adaptive_max_pool2d", func(c *cc) any { return tup2(torch.AdaptiveMaxPool2d(c.I("img"), i64s(2, 2))) }},
		{"batch_norm_eval", func(c *cc) any {
			return torch.BatchNorm(c.I("m43"), c.I("gam"), c.I("bet"), c.I("rm"), c.I("rv"), false, 0.1, 1e-5, false)
		}},
		{"batch_norm_train", func(c *cc) any {
			return torch.BatchNorm(c.I("m43"), c.I("gam"), c.I("bet"), undef, undef, true, 0.1, 1e-5, false)
		}},
		{"native_batch_norm", func(c *cc) any {
			return tup3(torch.NativeBatchNorm(c.I("m43"), c.I("gam"), c.I("bet"), c.I("rm"), c.I("rv"), true, 0.1, 1e-5))
		}},
		{"layer_norm", func(c *cc) any {
			return torch.LayerNorm(c.I("x"), i64s(4), torch.WithWeight(c.I("v")), torch.WithBias(c.I("w")))
		}},
		{"layer_norm_plain", func(c *cc) any { return torch.LayerNorm(c.I("b1"), i64s(3, 4), torch.WithEps(1e-3)) }},
		{"native_layer_norm", func(c *cc) any {
			return tup3(torch.NativeLayerNorm(c.I("x"), i64s(4), c.I("v"), c.I("w"), 1e-5))
		}},
		{"group_norm", func(c *cc) any {
			return torch.GroupNorm(c.I("img4"), 3, torch.WithWeight(c.I("gam")), torch.WithBias(c.I("bet")))
		}},
		{"native_group_norm", func(c *cc) any {
			return tup3(torch.NativeGroupNorm(c.I("img4"), c.I("gam"), c.I("bet"), 1, 3, 16, 1, 1e-5))
		}},
		{"instance_norm", func(c *cc) any {
			return torch.InstanceNorm(c.I("img4"), c.I("gam"), c.I("bet"), undef, undef, true, 0.1, 1e-5, false)
		}},
		{"softmax", func(c *cc) any { return torch.Softmax(c.I("x"), 1) }},
		{"softmax_dtype", func(c *cc) any { return c.I("x").Softmax(0, torch.WithDtype(torch.Float64)) }},
		{"log_softmax", func(c *cc) any { return torch.LogSoftmax(c.I("x"), 1) }},
		{"internal_softmax", func(c *cc) any { return torch.InternalSoftmax(c.I("x"), 0, false) }},
		{"internal_log_softmax", func(c *cc) any { return torch.InternalLogSoftmax(c.I("x"), 1, false) }},
		{"special_softmax", func(c *cc) any { return torch.SpecialSoftmax(c.I("x"), 1) }},
		{"special_log_softmax", func(c *cc) any { return torch.SpecialLogSoftmax(c.I("x"), 0) }},
		{"cross_entropy_loss", func(c *cc) any { return torch.CrossEntropyLoss(c.I("logits"), c.I("target")) }},
		{"cross_entropy_loss_opts", func(c *cc) any {
			return torch.CrossEntropyLoss(c.I("logits"), c.I("target"), torch.WithWeight(c.I("cw")), torch.WithReduction(2),
				torch.WithIgnoreIndex(-100), torch.WithLabelSmoothing(0.1))
		}},
		{"cross_entropy_loss_ignore", func(c *cc) any {
			return torch.CrossEntropyLoss(c.I("logits"), c.I("target"), torch.WithReduction(0), torch.WithIgnoreIndex(0))
		}},
		{"nll_loss", func(c *cc) any { return torch.NllLoss(torch.LogSoftmax(c.I("logits"), 1), c.I("target")) }},
		{"nll_loss_none", func(c *cc) any {
			return torch.NllLoss(torch.LogSoftmax(c.I("logits"), 1), c.I("target"), torch.WithWeight(c.I("cw")), torch.WithReduction(0))
		}},
		{"nll_loss_nd", func(c *cc) any {
			return torch.NllLossNd(torch.LogSoftmax(c.I("logits"), 1), c.I("target"), torch.WithReduction(2))
		}},
		{"nll_loss2d", func(c *cc) any { return torch.NllLoss2d(torch.LogSoftmax(c.I("img4"), 1), c.I("tmap")) }},
		{"mse_loss", func(c *cc) any { return torch.MseLoss(c.I("x"), c.I("y")) }},
		{"mse_loss_none", func(c *cc) any { return torch.MseLoss(c.I("x"), c.I("y"), torch.WithReduction(0)) }},
		{"l1_loss", func(c *cc) any { return torch.L1Loss(c.I("x"), c.I("y"), torch.WithReduction(2)) }},
		{"smooth_l1_loss", func(c *cc) any { return torch.SmoothL1Loss(c.I("x"), c.I("y"), torch.WithBeta(0.5)) }},
		{"huber_loss", func(c *cc) any { return torch.HuberLoss(c.I("x"), c.I("y"), torch.WithDelta(0.5)) }},
		{"binary_cross_entropy", func(c *cc) any { return torch.BinaryCrossEntropy(c.I("q"), c.I("lbl")) }},
		{"binary_cross_entropy_with_logits", func(c *cc) any {
			return torch.BinaryCrossEntropyWithLogits(c.I("x"), c.I("lbl"), torch.WithPosWeight(c.I("v")))
		}},
		{"kl_div", func(c *cc) any { return torch.KlDiv(torch.Log(c.I("q")), c.I("lbl"), torch.WithReduction(2)) }},
		{"margin_ranking_loss", func(c *cc) any {
			return torch.MarginRankingLoss(c.I("v"), c.I("w"), c.I("pm4"), torch.WithMargin(0.5))
		}},
		{"hinge_embedding_loss", func(c *cc) any { return torch.HingeEmbeddingLoss(c.I("x"), c.I("pm1")) }},
		{"soft_margin_loss", func(c *cc) any { return torch.SoftMarginLoss(c.I("x"), c.I("pm1")) }},
		{"cosine_embedding_loss", func(c *cc) any { return torch.CosineEmbeddingLoss(c.I("x"), c.I("y"), c.I("pm3")) }},
		{"triplet_margin_loss", func(c *cc) any { return torch.TripletMarginLoss(c.I("x"), c.I("y"), c.I("p")) }},
		{"poisson_nll_loss", func(c *cc) any { return torch.PoissonNllLoss(c.I("x"), c.I("p"), true, false, 1e-8, 1) }},
		{"multi_margin_loss", func(c *cc) any { return torch.MultiMarginLoss(c.I("logits"), c.I("target")) }},
		{"ctc_loss", func(c *cc) any { return torch.CtcLossIntList(c.I("lp"), c.I("ctgt"), i64s(5), i64s(2)) }},
		{"embedding", func(c *cc) any { return torch.Embedding(c.I("emb"), c.I("eidx")) }},
		{"embedding_bag", func(c *cc) any {
			out, _, _, _ := torch.EmbeddingBag(c.I("emb"), c.I("bidx"), c.I("boff"))
			return tup{out}
		}},
		{"embedding_bag_mean", func(c *cc) any {
			out, _, _, _ := torch.EmbeddingBag(c.I("emb"), c.I("bidx"), c.I("boff"), torch.WithMode(1))
			return out
		}},
		{"dropout_p0", func(c *cc) any { return torch.Dropout(c.I("x"), 0.0, true) }},
		{"dropout_eval", func(c *cc) any { return torch.Dropout(c.I("x"), 0.5, false) }},
		{"feature_dropout_eval", func(c *cc) any { return torch.FeatureDropout(c.I("img"), 0.5, false) }},
		{"alpha_dropout_eval", func(c *cc) any { return torch.AlphaDropout(c.I("x"), 0.5, false) }},
		{"native_dropout_eval", func(c *cc) any { return tup2(torch.NativeDropout(c.I("x"), 0.5, torch.WithTrain(false))) }},
		{"one_hot", func(c *cc) any { return torch.OneHot(c.I("target"), torch.WithNumClasses(5)) }},
		{"one_hot_infer", func(c *cc) any { return torch.OneHot(c.I("target")) }},
		{"prelu", func(c *cc) any { return torch.Prelu(c.I("img"), c.I("pw2")) }},
		{"grid_sampler", func(c *cc) any { return torch.GridSampler(c.I("img"), c.I("grid"), 0, 0, false) }},
		{"grid_sampler_2d", func(c *cc) any { return torch.GridSampler2d(c.I("img"), c.I("grid"), 1, 1, true) }},
		{"affine_grid_generator", func(c *cc) any { return torch.AffineGridGenerator(c.I("theta"), i64s(1, 1, 2, 3), false) }},
		{"im2col", func(c *cc) any { return torch.Im2col(c.I("img"), i64s(2, 2), i64s(1, 1), i64s(0, 0), i64s(1, 1)) }},
		{"col2im", func(c *cc) any {
			cols := torch.Im2col(c.I("img"), i64s(2, 2), i64s(1, 1), i64s(0, 0), i64s(1, 1))
			return torch.Col2im(cols, i64s(5, 5), i64s(2, 2), i64s(1, 1), i64s(0, 0), i64s(1, 1))
		}},
		{"upsample_nearest2d", func(c *cc) any { return torch.UpsampleNearest2d(c.I("img"), i64s(7, 10)) }},
		{"upsample_bilinear2d", func(c *cc) any { return torch.UpsampleBilinear2d(c.I("img"), i64s(7, 7), false) }},
		{"lstm_cell", func(c *cc) any {
			return tup2(torch.LstmCell(c.I("xin2"), ts(c.I("h3"), c.I("c3")), c.I("wih4"), c.I("whh4")))
		}},
		{"gru_cell", func(c *cc) any {
			return torch.GruCell(c.I("xin2"), c.I("h3"), c.I("wih9"), c.I("whh9"), torch.WithBIh(c.I("vals3").Repeat(i64s(3))))
		}},
		{"rnn_tanh_cell", func(c *cc) any { return torch.RnnTanhCell(c.I("xin2"), c.I("h3"), c.I("wih"), c.I("whh")) }},
		{"rnn_relu_cell", func(c *cc) any { return torch.RnnReluCell(c.I("xin2"), c.I("h3"), c.I("wih"), c.I("whh")) }},
		// float[]? arguments: scale factors, with a nil output size (None),
		// and nil scale factors.
		{"upsample_nearest2d_vec", func(c *cc) any { return torch.UpsampleNearest2dVec(c.I("img"), nil, f64s(2.0, 1.5)) }},
		{"upsample_bilinear2d_vec", func(c *cc) any {
			return torch.UpsampleBilinear2dVec(c.I("img"), nil, true, f64s(1.5, 2.0))
		}},
		{"upsample_bicubic2d_vec", func(c *cc) any { return torch.UpsampleBicubic2dVec(c.I("img"), i64s(6, 4), false, nil) }},
		{"upsample_nearest1d_vec", func(c *cc) any { return torch.UpsampleNearest1dVec(c.I("sig1"), i64s(12), nil) }},
		// bool[3] output masks: the masked-out gradients are undefined.
		{"native_layer_norm_backward", func(c *cc) any {
			x, v, w := c.I("x"), c.I("v"), c.I("w")
			_, mean, rstd := torch.NativeLayerNorm(x, i64s(4), v, w, 1e-5)
			return tup3(torch.NativeLayerNormBackward(c.I("y"), x, i64s(4), mean, rstd, v, w, [3]bool{true, false, true}))
		}},
		{"native_batch_norm_backward", func(c *cc) any {
			x, gam := c.I("m43"), c.I("gam")
			out, sm, si := torch.NativeBatchNorm(x, gam, c.I("bet"), undef, undef, true, 0.1, 1e-5)
			g := torch.OnesLike(out)
			return tup3(torch.NativeBatchNormBackward(g, x, gam, undef, undef, sm, si, true, 1e-5, [3]bool{false, true, true}))
		}},
		{"native_group_norm_backward", func(c *cc) any {
			x, gam := c.I("img4"), c.I("gam")
			out, mean, rstd := torch.NativeGroupNorm(x, gam, c.I("bet"), 1, 3, 16, 3, 1e-5)
			return tup3(torch.NativeGroupNormBackward(torch.OnesLike(out), x, mean, rstd, gam, 1, 3, 16, 3, [3]bool{true, true, false}))
		}},
		// Mixed tuple (Tensor, Tensor, Tensor, Tensor, int); the fourth
		// tensor (the reserve) is not compared.
		{"batch_norm_impl_index", func(c *cc) any {
			a, b, d, _, idx := torch.InternalBatchNormImplIndex(c.I("m43"), c.I("gam"), c.I("bet"), undef, undef, true, 0.1, 1e-5, false)
			return tup{a, b, d, idx}
		}},
		// Scalar[] arguments.
		{"gradient_scalar_list", func(c *cc) any {
			return torch.GradientScalarrayint(c.I("x"), []torch.Scalar{torch.S(2.0)}, torch.WithDim(1))
		}},
		{"gradient_scalar_list_dims", func(c *cc) any {
			return torch.GradientScalarrayarray(c.I("x"), []torch.Scalar{torch.S(2.0), torch.S(0.5)}, i64s(0, 1), torch.WithEdgeOrder(2))
		}},
	}
}

func confCasesIndex() []confCase {
	none := torch.Tensor{}
	return []confCase{
		// Tensor?[] indices, torch.Tensor{} for None.
		{"index_none", func(c *cc) any { return torch.Index(c.I("x"), ts(none, c.I("idx"))) }},
		{"index_bool", func(c *cc) any { return c.I("x").Index(ts(c.I("mask"))) }},
		{"index_pairs", func(c *cc) any { return torch.Index(c.I("x"), ts(c.I("rows"), c.I("cols"))) }},
		{"index_put_accumulate", func(c *cc) any {
			x := c.I("x")
			return c.same1(x)(x.IndexPut_(ts(c.I("rows"), c.I("cols")), c.I("vals3"), torch.WithAccumulate(true)))
		}},
		{"index_put_none", func(c *cc) any { return torch.IndexPut(c.I("x"), ts(none, c.I("idx")), c.I("s0")) }},
		{"index_put_bool", func(c *cc) any { return torch.IndexPut(c.I("x"), ts(c.I("mask")), c.I("s0")) }},
		{"index_put_impl", func(c *cc) any {
			x := c.I("x")
			return c.same1(x)(torch.InternalIndexPutImpl_(x, ts(c.I("rows"), c.I("cols")), c.I("vals3"),
				torch.WithAccumulate(true), torch.WithUnsafe(true)))
		}},
		{"index_select", func(c *cc) any { return torch.IndexSelect(c.I("x"), 1, c.I("idx")) }},
		{"gather", func(c *cc) any { return torch.Gather(c.I("x"), 1, c.I("gidx")) }},
		{"scatter", func(c *cc) any { return torch.Scatter(c.I("x"), 0, c.I("sidx"), c.I("y")) }},
		{"scatter_value", func(c *cc) any { return torch.ScatterValue(c.I("x"), 0, c.I("sidx"), torch.S(9.0)) }},
		{"scatter_add", func(c *cc) any { return torch.ScatterAdd(c.I("x"), 1, c.I("gidx"), c.I("y")) }},
		{"scatter_reduce", func(c *cc) any { return torch.ScatterReduce(c.I("x"), 0, c.I("sidx"), c.I("y"), "multiply") }},
		{"scatter_reduce_two", func(c *cc) any { return torch.ScatterReduceTwo(c.I("x"), 1, c.I("gidx"), c.I("y"), "amax") }},
		{"scatter_reduce_mean", func(c *cc) any {
			return torch.ScatterReduceTwo(c.I("x"), 1, c.I("gidx"), c.I("y"), "mean", torch.WithIncludeSelf(false))
		}},
		{"masked_fill", func(c *cc) any { return torch.MaskedFillScalar(c.I("x"), c.I("mask"), torch.S(-9)) }},
		{"masked_fill_tensor", func(c *cc) any { return torch.MaskedFill(c.I("x"), c.I("mask"), c.I("s0")) }},
		{"masked_select", func(c *cc) any { return torch.MaskedSelect(c.I("x"), c.I("mask")) }},
		{"masked_scatter", func(c *cc) any { return torch.MaskedScatter(c.I("x"), c.I("mask"), c.I("y")) }},
		{"index_add", func(c *cc) any { return torch.IndexAdd(c.I("x"), 1, c.I("idx"), c.I("bm"), torch.WithAlpha(2)) }},
		{"index_copy", func(c *cc) any { return torch.IndexCopy(c.I("x"), 1, c.I("idx"), c.I("bm")) }},
		{"index_fill", func(c *cc) any { return torch.IndexFill(c.I("x"), 1, c.I("idx"), torch.S(-1.0)) }},
		{"index_fill_tensor", func(c *cc) any { return torch.IndexFillIntTensor(c.I("x"), 1, c.I("idx"), c.I("s0")) }},
		{"index_reduce", func(c *cc) any { return torch.IndexReduce(c.I("x"), 1, c.I("idx"), c.I("bm"), "prod") }},
		{"put", func(c *cc) any { return torch.Put(c.I("x"), c.I("take"), c.I("v"), torch.WithAccumulate(true)) }},
		{"take", func(c *cc) any { return torch.Take(c.I("x"), c.I("take")) }},
		{"take_along_dim", func(c *cc) any { return torch.TakeAlongDim(c.I("x"), c.I("gidx"), torch.WithDim(1)) }},
	}
}

// inplace returns a case that runs an in-place op on a fresh copy of the
// input and checks that the op returned that same tensor.
func inplace(name, in string, f func(c *cc, t torch.Tensor) torch.Tensor) confCase {
	return confCase{name, func(c *cc) any {
		t := c.I(in)
		return c.same1(t)(f(c, t))
	}}
}

func confCasesInplace() []confCase {
	return []confCase{
		inplace("add_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Add_(c.I("y"), torch.WithAlpha(2)) }),
		inplace("add_scalar_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.AddScalar_(torch.S(1)) }),
		inplace("sub_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Sub_(c.I("y")) }),
		inplace("mul_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Mul_(c.I("y")) }),
		inplace("mul_scalar_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.MulScalar_(torch.S(-2)) }),
		inplace("div_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Div_(c.I("p")) }),
		inplace("div_mode_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return t.DivTensorMode_(c.I("p"), torch.WithRoundingMode("floor"))
		}),
		inplace("pow_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.PowScalar_(torch.S(2)) }),
		inplace("clamp_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return torch.Clamp_(t, torch.WithMin(-1), torch.WithMax(1))
		}),
		inplace("clamp_min_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return torch.ClampMin_(t, torch.S(0)) }),
		inplace("abs_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return torch.Abs_(t) }),
		inplace("neg_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Neg_() }),
		inplace("exp_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return torch.Exp_(t) }),
		inplace("sin_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Sin_() }),
		inplace("sqrt_", "p", func(c *cc, t torch.Tensor) torch.Tensor { return torch.Sqrt_(t) }),
		inplace("rsqrt_", "p", func(c *cc, t torch.Tensor) torch.Tensor { return t.Rsqrt_() }),
		inplace("log_", "p", func(c *cc, t torch.Tensor) torch.Tensor { return torch.Log_(t) }),
		inplace("reciprocal_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Reciprocal_() }),
		inplace("relu_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return torch.Relu_(t) }),
		inplace("sigmoid_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Sigmoid_() }),
		inplace("tanh_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return torch.Tanh_(t) }),
		inplace("floor_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Floor_() }),
		inplace("ceil_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return torch.Ceil_(t) }),
		inplace("round_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Round_() }),
		inplace("trunc_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return torch.Trunc_(t) }),
		inplace("frac_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Frac_() }),
		inplace("erf_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return torch.Erf_(t) }),
		inplace("square_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Square_() }),
		inplace("fix_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return torch.Fix_(t) }),
		inplace("sgn_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Sgn_() }),
		inplace("sign_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Sign_() }),
		inplace("fill_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return torch.FillScalar_(t, torch.S(0.5)) }),
		inplace("zero_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Zero_() }),
		inplace("copy_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Copy_(c.I("ii")) }),
		inplace("masked_fill_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.MaskedFillScalar_(c.I("mask"), torch.S(0.0)) }),
		inplace("masked_fill_tensor_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return t.MaskedFill_(c.I("mask"), c.I("s0"))
		}),
		inplace("masked_scatter_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.MaskedScatter_(c.I("mask"), c.I("y")) }),
		inplace("index_put_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return torch.IndexPut_(t, ts(c.I("mask")), c.I("s0"))
		}),
		inplace("scatter_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Scatter_(0, c.I("sidx"), c.I("y")) }),
		inplace("scatter_value_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return t.ScatterValue_(0, c.I("sidx"), torch.S(7))
		}),
		inplace("scatter_add_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.ScatterAdd_(1, c.I("gidx"), c.I("y")) }),
		inplace("index_add_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.IndexAdd_(1, c.I("idx"), c.I("bm")) }),
		inplace("index_copy_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.IndexCopy_(1, c.I("idx"), c.I("bm")) }),
		inplace("index_fill_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.IndexFill_(1, c.I("idx"), torch.S(5)) }),
		inplace("put_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Put_(c.I("take"), c.I("v")) }),
		inplace("tril_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Tril_(torch.WithDiagonal(1)) }),
		inplace("triu_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Triu_() }),
		inplace("transpose_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Transpose_(0, 1) }),
		inplace("t_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.T_() }),
		inplace("unsqueeze_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Unsqueeze_(0) }),
		inplace("squeeze_", "img", func(c *cc, t torch.Tensor) torch.Tensor { return t.Squeeze_() }),
		inplace("squeeze_dim_", "img", func(c *cc, t torch.Tensor) torch.Tensor { return t.SqueezeDim_(0) }),
		inplace("resize_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Resize_(i64s(2, 6)) }),
		inplace("lerp_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.LerpScalar_(c.I("y"), torch.S(0.5)) }),
		inplace("addcmul_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return t.Addcmul_(c.I("y"), c.I("p"), torch.WithValue(2))
		}),
		inplace("addcdiv_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Addcdiv_(c.I("y"), c.I("p")) }),
		inplace("fmod_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.FmodScalar_(torch.S(1.0)) }),
		inplace("remainder_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.RemainderScalar_(torch.S(1.0)) }),
		inplace("atan2_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Atan2_(c.I("y")) }),
		inplace("hypot_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Hypot_(c.I("y")) }),
		inplace("leaky_relu_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return torch.LeakyRelu_(t, torch.WithNegativeSlope(0.1))
		}),
		inplace("hardtanh_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return torch.Hardtanh_(t, torch.WithMinVal(-1.0), torch.WithMaxVal(0.5))
		}),
		inplace("elu_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return torch.Elu_(t) }),
		inplace("threshold_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return torch.Threshold_(t, torch.S(0.0), torch.S(9.0))
		}),
		inplace("silu_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return torch.Silu_(t) }),
		inplace("nan_to_num_", "nanx", func(c *cc, t torch.Tensor) torch.Tensor { return torch.NanToNum_(t, torch.WithNan(0.0)) }),
		inplace("logit_", "q", func(c *cc, t torch.Tensor) torch.Tensor { return t.Logit_() }),
		inplace("cumsum_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Cumsum_(1) }),
		inplace("renorm_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Renorm_(torch.S(1), 0, torch.S(2.0)) }),
		inplace("fill_diagonal_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.FillDiagonal_(torch.S(-7)) }),
		inplace("dropout_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return torch.Dropout_(t, 0.5, false) }),
		inplace("eq_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.EqScalar_(torch.S(0.5)) }),
		inplace("lt_tensor_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Lt_(c.I("y")) }),
		inplace("bitwise_and_", "ii", func(c *cc, t torch.Tensor) torch.Tensor { return t.BitwiseAndScalar_(torch.S(3)) }),
		inplace("logical_not_", "mask", func(c *cc, t torch.Tensor) torch.Tensor { return t.LogicalNot_() }),
	}
}

// The out= ops write into tensors of the result's dtype; the ones that
// resize their out tensors get empty ones.
func confCasesOut() []confCase {
	f32, f64, i64 := torch.Float32, torch.Float64, torch.Int64
	return []confCase{
		{"add_out", func(c *cc) any {
			o := c.E(f32)
			return c.same1(o)(torch.AddOut(o, c.I("x"), c.I("y"), torch.WithAlpha(2)))
		}},
		{"mm_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.MmOut(o, c.I("x"), c.I("m43"))) }},
		{"matmul_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.MatmulOut(o, c.I("b1"), c.I("b2"))) }},
		{"mul_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.MulOut(o, c.I("x"), c.I("y"))) }},
		{"maximum_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.MaximumOut(o, c.I("x"), c.I("y"))) }},
		{"exp_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.ExpOut(o, c.I("x"))) }},
		{"abs_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.AbsOut(o, c.I("x"))) }},
		{"sin_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.SinOut(o, c.I("x"))) }},
		{"clamp_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.ClampOut(o, c.I("x"), torch.WithMax(0.5))) }},
		{"sum_out", func(c *cc) any {
			o := c.E(f64)
			return c.same1(o)(torch.SumOut(o, c.I("ii"), torch.WithDtype(torch.Float64)))
		}},
		{"sum_int_list_out", func(c *cc) any {
			o := c.E(f32)
			return c.same1(o)(torch.SumIntListOut(o, c.I("x"), i64s(1), torch.WithKeepdim(true)))
		}},
		{"cat_out", func(c *cc) any {
			o := c.E(f32)
			return c.same1(o)(torch.CatOut(o, ts(c.I("x"), c.I("y")), torch.WithDim(1)))
		}},
		{"stack_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.StackOut(o, ts(c.I("x"), c.I("y")))) }},
		{"index_select_out", func(c *cc) any {
			o := c.E(f32)
			return c.same1(o)(torch.IndexSelectOut(o, c.I("x"), 1, c.I("idx")))
		}},
		{"gather_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.GatherOut(o, c.I("x"), 1, c.I("gidx"))) }},
		{"softmax_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.SoftmaxIntOut(o, c.I("x"), 1)) }},
		{"histc_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.HistcOut(o, c.I("x"), torch.WithBins(3))) }},
		{"zeros_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.ZerosOut(o, i64s(2, 2))) }},
		{"ones_out", func(c *cc) any { o := c.E(i64); return c.same1(o)(torch.OnesOut(o, i64s(3))) }},
		{"full_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.FullOut(o, i64s(2), torch.S(4.0))) }},
		{"arange_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.ArangeOut(o, torch.S(4))) }},
		{"arange_start_out", func(c *cc) any {
			o := c.E(f32)
			return c.same1(o)(torch.ArangeStartOut(o, torch.S(1), torch.S(3), torch.WithStep(0.5)))
		}},
		{"linspace_out", func(c *cc) any { o := c.E(f32); return c.same1(o)(torch.LinspaceOut(o, torch.S(-1), torch.S(1), 4)) }},
		{"sort_out", func(c *cc) any {
			v, i := c.E(f32), c.E(i64)
			return c.same2(v, i)(torch.SortOut(v, i, c.I("x"), torch.WithDim(0), torch.WithDescending(true)))
		}},
		{"topk_out", func(c *cc) any {
			v, i := c.E(f32), c.E(i64)
			return c.same2(v, i)(torch.TopkOut(v, i, c.I("sortv"), 2))
		}},
		{"max_out", func(c *cc) any {
			v, i := c.E(f32), c.E(i64)
			return c.same2(v, i)(torch.MaxOut(v, i, c.I("x"), 1, torch.WithKeepdim(true)))
		}},
		{"min_out", func(c *cc) any {
			v, i := c.E(f32), c.E(i64)
			return c.same2(v, i)(torch.MinOut(v, i, c.I("x"), 0))
		}},
		{"kthvalue_out", func(c *cc) any {
			v, i := c.E(f32), c.E(i64)
			return c.same2(v, i)(torch.KthvalueOut(v, i, c.I("x"), 1, torch.WithDim(0)))
		}},
		{"aminmax_out", func(c *cc) any {
			lo, hi := c.E(f32), c.E(f32)
			return c.same2(lo, hi)(torch.AminmaxOut(lo, hi, c.I("x"), torch.WithDim(0)))
		}},
		{"frexp_out", func(c *cc) any {
			m, e := c.E(f32), c.E(torch.Int32)
			return c.same2(m, e)(torch.FrexpTensorOut(m, e, c.I("x")))
		}},
		{"std_mean_correction_out", func(c *cc) any {
			s, m := c.E(f32), c.E(f32)
			return c.same2(s, m)(torch.StdMeanCorrectionOut(s, m, c.I("x"), torch.WithDim(1), torch.WithCorrection(0)))
		}},
		// Tensor[] out= arguments: split_copy and unbind_copy do not resize
		// their outs, which must have the results' shapes.
		{"split_copy_out", func(c *cc) any {
			out := ts(torch.Empty(i64s(3, 2)), torch.Empty(i64s(3, 2)))
			torch.SplitCopyTensorOut(out, c.I("x"), 2, torch.WithDim(1))
			return out
		}},
		{"unbind_copy_out", func(c *cc) any {
			out := ts(torch.Empty(i64s(4)), torch.Empty(i64s(4)), torch.Empty(i64s(4)))
			torch.UnbindCopyIntOut(out, c.I("x"))
			return out
		}},
	}
}

func confCasesRandom() []confCase {
	return []confCase{
		{"rand_generator", func(c *cc) any { return torch.RandGenerator(i64s(2, 3), gen(1)) }},
		{"rand_generator_f64", func(c *cc) any { return torch.RandGenerator(i64s(3), gen(2), torch.WithDtype(torch.Float64)) }},
		{"randn_generator", func(c *cc) any { return torch.RandnGenerator(i64s(4), gen(3)) }},
		{"randint_generator", func(c *cc) any { return torch.RandintGenerator(10, i64s(5), gen(4)) }},
		{"randperm_generator", func(c *cc) any { return torch.RandpermGenerator(6, gen(5)) }},
		{"normal_tensor_tensor", func(c *cc) any {
			return torch.NormalTensorTensor(c.I("x"), c.I("p"), torch.WithGenerator(gen(6)))
		}},
		{"normal_float_float", func(c *cc) any {
			return torch.NormalFloatFloat(0.5, 2.0, i64s(4), torch.WithGenerator(gen(7)))
		}},
		{"normal_tensor_float", func(c *cc) any { return torch.Normal(c.I("x"), torch.WithStd(0.5), torch.WithGenerator(gen(8))) }},
		{"normal_float_tensor", func(c *cc) any { return torch.NormalFloatTensor(1.0, c.I("p"), torch.WithGenerator(gen(9))) }},
		{"normal_functional", func(c *cc) any {
			return torch.NormalFunctional(c.I("x"), torch.WithMean(2.0), torch.WithStd(0.5), torch.WithGenerator(gen(10)))
		}},
		{"bernoulli", func(c *cc) any { return torch.Bernoulli(c.I("q"), torch.WithGenerator(gen(11))) }},
		{"bernoulli_p", func(c *cc) any { return torch.BernoulliP(c.I("x"), 0.3, torch.WithGenerator(gen(12))) }},
		{"multinomial", func(c *cc) any { return torch.Multinomial(c.I("probs"), 3, torch.WithGenerator(gen(13))) }},
		{"multinomial_replacement", func(c *cc) any {
			return c.I("probs").Multinomial(6, torch.WithReplacement(true), torch.WithGenerator(gen(14)))
		}},
		{"poisson", func(c *cc) any { return torch.Poisson(c.I("p"), torch.WithGenerator(gen(15))) }},
		{"binomial", func(c *cc) any { return torch.Binomial(c.I("cntf"), c.I("prb"), torch.WithGenerator(gen(16))) }},
		{"sample_dirichlet", func(c *cc) any { return torch.InternalSampleDirichlet(c.I("alpha"), torch.WithGenerator(gen(17))) }},
		{"rrelu_train", func(c *cc) any {
			return torch.Rrelu(c.I("x"), torch.WithLower(0.1), torch.WithUpperNum(0.3), torch.WithTraining(true), torch.WithGenerator(gen(18)))
		}},
		inplace("uniform_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return t.Uniform_(torch.WithFrom(-1), torch.WithTo(1), torch.WithGenerator(gen(19)))
		}),
		inplace("normal_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return t.Normal_(torch.WithMean(1.0), torch.WithStd(0.1), torch.WithGenerator(gen(20)))
		}),
		inplace("bernoulli_float_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return t.BernoulliFloat_(torch.WithP(0.3), torch.WithGenerator(gen(21)))
		}),
		inplace("bernoulli_tensor_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return t.Bernoulli_(c.I("q"), torch.WithGenerator(gen(22)))
		}),
		inplace("random_to_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return t.RandomTo_(10, torch.WithGenerator(gen(23)))
		}),
		inplace("random_from_", "ii", func(c *cc, t torch.Tensor) torch.Tensor {
			return t.RandomFrom_(-5, torch.WithTo(5), torch.WithGenerator(gen(24)))
		}),
		inplace("random_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.Random_(torch.WithGenerator(gen(25))) }),
		inplace("exponential_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return t.Exponential_(torch.WithLambd(2.0), torch.WithGenerator(gen(26)))
		}),
		inplace("geometric_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return t.Geometric_(0.3, torch.WithGenerator(gen(27)))
		}),
		inplace("log_normal_", "x", func(c *cc, t torch.Tensor) torch.Tensor { return t.LogNormal_(torch.WithGenerator(gen(28))) }),
		inplace("cauchy_", "x", func(c *cc, t torch.Tensor) torch.Tensor {
			return t.Cauchy_(torch.WithMedian(0.5), torch.WithSigma(2.0), torch.WithGenerator(gen(29)))
		}),
		{"rand_generator_out", func(c *cc) any {
			o := c.E(torch.Float32)
			return c.same1(o)(torch.RandGeneratorOut(o, i64s(2, 2), gen(30)))
		}},
		{"randperm_generator_out", func(c *cc) any {
			o := c.E(torch.Int64)
			return c.same1(o)(torch.RandpermGeneratorOut(o, 5, gen(31)))
		}},
		{"multinomial_out", func(c *cc) any {
			o := c.E(torch.Int64)
			return c.same1(o)(torch.MultinomialOut(o, c.I("probs"), 2, torch.WithGenerator(gen(32))))
		}},
		{"normal_tensor_tensor_out", func(c *cc) any {
			o := c.E(torch.Float32)
			return c.same1(o)(torch.NormalTensorTensorOut(o, c.I("x"), c.I("p"), torch.WithGenerator(gen(33))))
		}},
		// A nil *Generator is None: the default generator, seeded with
		// ManualSeed.
		{"rand_nil_generator", func(c *cc) any {
			return seeded(41, func() any { return torch.RandGenerator(i64s(3), nil) })
		}},
		{"dropout_train_seeded", func(c *cc) any {
			x := c.I("x")
			return seeded(42, func() any { return torch.Dropout(x, 0.5, true) })
		}},
		{"native_dropout_train_seeded", func(c *cc) any {
			x := c.I("x")
			return seeded(43, func() any { return tup2(torch.NativeDropout(x, 0.5, torch.WithTrain(true))) })
		}},
		{"randn_default_seeded", func(c *cc) any { return seeded(44, func() any { return torch.Randn(i64s(2)) }) }},
		{"bernoulli_nil_generator_option", func(c *cc) any {
			x := c.I("x")
			return seeded(45, func() any { return torch.BernoulliP(x, 0.5, torch.WithGenerator(nil)) })
		}},
		// One generator through several calls keeps its state.
		{"generator_reused", func(c *cc) any {
			g := gen(34)
			return tup{torch.RandnGenerator(i64s(3), g), torch.RandnGenerator(i64s(20), g),
				c.I("x").BernoulliP(0.5, torch.WithGenerator(g))}
		}},
	}
}

func confCasesNonTensor() []confCase {
	q := func(c *cc) torch.Tensor { return torch.QuantizePerTensor(c.I("p"), 0.05, 3, torch.QUint8) }
	return []confCase{
		{"equal_true", func(c *cc) any { return torch.Equal(c.I("x"), c.I("x")) }},
		{"equal_false", func(c *cc) any { return c.I("x").Equal(c.I("y")) }},
		{"allclose_false", func(c *cc) any { return torch.Allclose(c.I("x"), c.I("y")) }},
		{"allclose_atol", func(c *cc) any { return torch.Allclose(c.I("x"), c.I("y"), torch.WithAtol(10.0)) }},
		{"is_same_size_true", func(c *cc) any { return torch.IsSameSize(c.I("x"), c.I("y")) }},
		{"is_same_size_false", func(c *cc) any { return torch.IsSameSize(c.I("x"), c.I("v")) }},
		{"is_nonzero_true", func(c *cc) any { return torch.IsNonzero(c.I("s0")) }},
		{"is_nonzero_false", func(c *cc) any { return c.I("z0").IsNonzero() }},
		{"is_floating_point", func(c *cc) any { return torch.IsFloatingPoint(c.I("x")) }},
		{"is_floating_point_int", func(c *cc) any { return torch.IsFloatingPoint(c.I("ii")) }},
		{"is_complex", func(c *cc) any { return torch.IsComplex(c.I("x")) }},
		{"is_signed", func(c *cc) any { return torch.IsSigned(c.I("ii")) }},
		{"is_conj", func(c *cc) any { return torch.IsConj(c.I("x")) }},
		{"is_neg", func(c *cc) any { return torch.IsNeg(c.I("x")) }},
		{"is_inference", func(c *cc) any { return torch.IsInference(c.I("x")) }},
		{"is_distributed", func(c *cc) any { return torch.IsDistributed(c.I("x")) }},
		{"is_zerotensor", func(c *cc) any { return torch.InternalIsZerotensor(c.I("x")) }},
		{"has_same_storage_numel", func(c *cc) any { return torch.InternalHasSameStorageNumel(c.I("x"), c.I("y")) }},
		{"is_set_to", func(c *cc) any { x := c.I("x"); return x.IsSetTo(x) }},
		{"cudnn_is_acceptable", func(c *cc) any { return torch.CudnnIsAcceptable(c.I("x")) }},
		{"is_vulkan_available", func(c *cc) any { return torch.IsVulkanAvailable() }},
		{"can_cast_false", func(c *cc) any { return torch.CanCast(torch.Float32, torch.Int64) }},
		{"can_cast_true", func(c *cc) any { return torch.CanCast(torch.Int64, torch.Float32) }},
		{"stride", func(c *cc) any { return torch.Stride(c.I("x"), 0) }},
		{"stride_t", func(c *cc) any { return torch.Stride(torch.T(c.I("x")), 0) }},
		{"stride_channels_last", func(c *cc) any {
			return torch.Stride(c.I("img4").Contiguous(torch.WithMemoryFormat(torch.ChannelsLast)), 1)
		}},
		{"debug_has_internal_overlap", func(c *cc) any { return torch.InternalDebugHasInternalOverlap(c.I("x")) }},
		{"debug_has_internal_overlap_expanded", func(c *cc) any {
			return torch.InternalDebugHasInternalOverlap(c.I("v").Expand(i64s(3, 4)))
		}},
		{"local_scalar_dense_float", func(c *cc) any { return torch.InternalLocalScalarDense(c.I("s0")) }},
		{"local_scalar_dense_int", func(c *cc) any { return torch.InternalLocalScalarDense(c.I("i0")) }},
		{"result_type", func(c *cc) any { return torch.ResultType(c.I("x"), c.I("ii")) }},
		{"result_type_scalar", func(c *cc) any { return torch.ResultTypeScalar(c.I("ii"), torch.S(2.5)) }},
		{"result_type_scalar_tensor", func(c *cc) any { return torch.ResultTypeScalarTensor(torch.S(1), c.I("ii")) }},
		{"result_type_scalar_scalar", func(c *cc) any { return torch.ResultTypeScalarScalar(torch.S(1), torch.S(2.5)) }},
		{"promote_types", func(c *cc) any { return torch.PromoteTypes(torch.Int32, torch.Float64) }},
		// Quantized tensors: the float (q_scale), int (q_zero_point, qscheme)
		// results.
		{"q_scale", func(c *cc) any { return torch.QScale(q(c)) }},
		{"q_zero_point", func(c *cc) any { return torch.QZeroPoint(q(c)) }},
		{"qscheme", func(c *cc) any { return q(c).Qscheme() }},
		{"int_repr", func(c *cc) any { return torch.IntRepr(q(c)) }},
		{"dequantize", func(c *cc) any { return torch.Dequantize(q(c)) }},
		{"fake_quantize", func(c *cc) any { return torch.FakeQuantizePerTensorAffine(c.I("x"), 0.25, 2, 0, 15) }},
		// Mixed tuple (float, int).
		{"choose_qparams_per_tensor", func(c *cc) any { return tup2(torch.InternalChooseQparamsPerTensor(c.I("x"))) }},
		{"choose_qparams_per_tensor_reduce", func(c *cc) any {
			return tup2(torch.InternalChooseQparamsPerTensor(c.I("p"), torch.WithReduceRange(true)))
		}},
	}
}

// ---------------------------------------------------------------------------
// Misuse: every kind of wrong call fails with a *torch.Error naming the op,
// from the panicking form and, the same error, from the Try form; and the
// library works afterwards.

type confMisuse struct {
	name     string
	op       string // the op the error names
	sentinel error  // the cause errors.Is finds, or nil
	msg      string // a part of the message
	call     func() // the panicking form
	try      func() error
}

func confMisuses() []confMisuse {
	x := func() torch.Tensor { return torch.FromSlice([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 3, 4) }
	idx := func(v ...int64) torch.Tensor { return torch.FromSlice(v) }
	freed := func() torch.Tensor { t := x(); t.Free(); return t }
	err1 := func(_ torch.Tensor, err error) error { return err }
	err2 := func(_, _ torch.Tensor, err error) error { return err }
	return []confMisuse{
		{"wrong shape", "mm", nil, "cannot be multiplied",
			func() { torch.Mm(x(), x()) },
			func() error { return err1(torch.TryMm(x(), x())) }},
		{"wrong shape method", "add", nil, "must match the size",
			func() { x().Add(torch.Ones(i64s(2, 2))) },
			func() error { return err1(x().TryAdd(torch.Ones(i64s(2, 2)))) }},
		{"wrong dtype", "mm", nil, "expected scalar type Float but found Long|expected m1 and m2 to have the same dtype, but got: float != long int",
			func() { torch.Mm(x(), torch.Ones(i64s(4, 3), torch.WithDtype(torch.Int64))) },
			func() error { return err1(torch.TryMm(x(), torch.Ones(i64s(4, 3), torch.WithDtype(torch.Int64)))) }},
		{"wrong dtype index", "index_select", nil, "Expected dtype int32 or int64 for index",
			func() { torch.IndexSelect(x(), 0, torch.FromSlice([]float32{0})) },
			func() error { return err1(torch.TryIndexSelect(x(), 0, torch.FromSlice([]float32{0}))) }},
		{"dim out of range", "softmax", nil, "Dimension out of range",
			func() { torch.Softmax(x(), 5) },
			func() error { return err1(torch.TrySoftmax(x(), 5)) }},
		{"dim list out of range", "sum", nil, "Dimension out of range",
			func() { torch.SumDimIntList(x(), i64s(3)) },
			func() error { return err1(torch.TrySumDimIntList(x(), i64s(3))) }},
		{"dim option out of range", "max", nil, "Dimension out of range",
			func() { torch.MaxDim(x(), -3) },
			func() error { return err2(torch.TryMaxDim(x(), -3)) }},
		{"index out of range IndexSelect", "index_select", nil, "out of",
			func() { torch.IndexSelect(x(), 1, idx(7)) },
			func() error { return err1(torch.TryIndexSelect(x(), 1, idx(7))) }},
		{"index out of range Gather", "gather", nil, "index 9 is out of bounds for dimension 1 with size 4",
			func() { torch.Gather(x(), 1, torch.FromSlice([]int64{9}, 1, 1)) },
			func() error { return err1(torch.TryGather(x(), 1, torch.FromSlice([]int64{9}, 1, 1))) }},
		{"index out of range Index", "index", nil, "out of bounds",
			func() { torch.Index(x(), ts(idx(3))) },
			func() error { return err1(torch.TryIndex(x(), ts(idx(3)))) }},
		{"zero Tensor", "add", torch.ErrUndefined, "argument other",
			func() { torch.Add(x(), torch.Tensor{}) },
			func() error { return err1(torch.TryAdd(x(), torch.Tensor{})) }},
		{"zero Tensor self", "abs", torch.ErrUndefined, "argument self",
			func() { torch.Tensor{}.Abs() },
			func() error { return err1(torch.Tensor{}.TryAbs()) }},
		{"zero Tensor in a list", "cat", torch.ErrUndefined, "argument tensors",
			func() { torch.Cat(ts(x(), torch.Tensor{})) },
			func() error { return err1(torch.TryCat(ts(x(), torch.Tensor{}))) }},
		{"freed tensor", "mul", torch.ErrFreed, "argument self",
			func() { torch.Mul(freed(), x()) },
			func() error { return err1(torch.TryMul(freed(), x())) }},
		{"freed tensor option", "layer_norm", torch.ErrFreed, "argument weight",
			func() { torch.LayerNorm(x(), i64s(4), torch.WithWeight(freed())) },
			func() error { return err1(torch.TryLayerNorm(x(), i64s(4), torch.WithWeight(freed()))) }},
		{"freed tensor in Tensor?[]", "index", torch.ErrFreed, "argument indices",
			func() { torch.Index(x(), ts(torch.Tensor{}, freed())) },
			func() error { return err1(torch.TryIndex(x(), ts(torch.Tensor{}, freed()))) }},
		{"option not taken", "add", nil, "unexpected option dim",
			func() { torch.Add(x(), x(), torch.WithDim(1)) },
			func() error { return err1(torch.TryAdd(x(), x(), torch.WithDim(1))) }},
		{"option not taken factory", "zeros", nil, "unexpected option keepdim",
			func() { torch.Zeros(i64s(2), torch.WithKeepdim(true)) },
			func() error { return err1(torch.TryZeros(i64s(2), torch.WithKeepdim(true))) }},
		{"option of the wrong kind: two dims for one", "argmax", nil, "option dim takes one integer",
			func() { torch.Argmax(x(), torch.WithDim(0, 1)) },
			func() error { return err1(torch.TryArgmax(x(), torch.WithDim(0, 1))) }},
		{"option of the wrong kind: float for int", "tril", nil, "option diagonal must be an integer",
			func() { torch.Tril(x(), torch.WithDiagonal(1.5)) },
			func() error { return err1(torch.TryTril(x(), torch.WithDiagonal(1.5))) }},
		{"negative size", "zeros", nil, "negative dimension -1",
			func() { torch.Zeros(i64s(-1, 2)) },
			func() error { return err1(torch.TryZeros(i64s(-1, 2))) }},
		{"negative size rand", "rand", nil, "negative dimension -3",
			func() { torch.RandGenerator(i64s(2, -3), gen(1)) },
			func() error { return err1(torch.TryRandGenerator(i64s(2, -3), gen(1))) }},
		{"out= dtype", "mm_out", nil, "Expected out tensor to have dtype float, but got long",
			func() { torch.MmOut(torch.Empty(i64s(0), torch.WithDtype(torch.Int64)), x(), torch.T(x())) },
			func() error {
				return err1(torch.TryMmOut(torch.Empty(i64s(0), torch.WithDtype(torch.Int64)), x(), torch.T(x())))
			}},
		{"out= dtype cast", "add_out", nil, "can't be cast to the desired output type Long",
			func() { torch.AddOut(torch.Empty(i64s(0), torch.WithDtype(torch.Int64)), x(), x()) },
			func() error {
				return err1(torch.TryAddOut(torch.Empty(i64s(0), torch.WithDtype(torch.Int64)), x(), x()))
			}},
		{"out= index dtype", "sort_out", nil, "Expected out tensor to have dtype long",
			func() { torch.SortOut(torch.Empty(i64s(0)), torch.Empty(i64s(0)), x()) },
			func() error { return err2(torch.TrySortOut(torch.Empty(i64s(0)), torch.Empty(i64s(0)), x())) }},
		// Most out= ops resize a wrongly shaped out; split_copy does not.
		{"out= shape", "split_copy_out", nil, "must match the size",
			func() {
				torch.SplitCopyTensorOut(ts(torch.Empty(i64s(0)), torch.Empty(i64s(0))), x(), 2, torch.WithDim(1))
			},
			func() error {
				return torch.TrySplitCopyTensorOut(ts(torch.Empty(i64s(0)), torch.Empty(i64s(0))), x(), 2, torch.WithDim(1))
			}},
		{"out= count", "unbind_copy_out", nil, "expected an out= argument of size 3, got size 2",
			func() { torch.UnbindCopyIntOut(ts(torch.Empty(i64s(4)), torch.Empty(i64s(4))), x()) },
			func() error { return torch.TryUnbindCopyIntOut(ts(torch.Empty(i64s(4)), torch.Empty(i64s(4))), x()) }},
	}
}

func TestConformanceMisuse(t *testing.T) {
	for _, m := range confMisuses() {
		t.Run(m.name, func(t *testing.T) {
			te := mustPanicErr(t, m.op, m.call)
			// "a|b": libtorch versions word it differently.
			alts := strings.Split(m.msg, "|")
			for i, a := range alts {
				alts[i] = regexp.QuoteMeta(a)
			}
			assert.Regexp(t, strings.Join(alts, "|"), te.Error())
			err := m.try()
			te2 := requireTorchErr(t, m.op, err)
			assert.Equal(t, te.Msg, te2.Msg, "the Try form's error")
			if m.sentinel != nil {
				assert.True(t, errors.Is(te, m.sentinel), "panic: %v is not %v", te, m.sentinel)
				assert.True(t, errors.Is(err, m.sentinel), "Try: %v is not %v", err, m.sentinel)
			} else {
				assert.Nil(t, te.Err)
				assert.Nil(t, te2.Err)
			}
			ok(t)
		})
	}
}
