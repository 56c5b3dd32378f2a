package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stubTorch declares the part of package torch that the temporaries pass
// looks at, so that its tests need neither libtorch nor gop.
const stubTorch = `package torch
type Tensor struct{ p *int }
type TempTensor struct{ t Tensor }
func Temp(t Tensor) TempTensor
func Rebind(old, new Tensor) Tensor
func Consume(t Tensor, f func(Tensor) Tensor) Tensor
func (t Tensor) Free()
func (t Tensor) Item() float64
func (t Tensor) Shape() []int64
func (t Tensor) Grad() Tensor
func (t Tensor) Split() []Tensor
func (t Tensor) SaveTo(m map[string]Tensor)
func (t Tensor) Size(d int) int64
type Option struct{ t Tensor }
func (t Tensor) Backward(opts ...Option)
func WithRetainGraph(b bool) Option
func (t *Tensor) SetName(s string)
func (t Tensor) Gop_Add(b any) Tensor
func (t Tensor) Gop_Mul(b any) Tensor
func (t Tensor) Gop_Sub(b any) Tensor
func (t Tensor) Gop_LT(b any) Tensor
func (t Tensor) Gop_Neg() Tensor
func (t Tensor) Gop_Dup() Tensor
func (t Tensor) Mm(b Tensor) Tensor
func (t Tensor) SumAll() Tensor
func (t Tensor) Float() Tensor
func (t *Tensor) Gop_AddAssign(b any)
func (x TempTensor) Gop_Add(b any) Tensor
func (x TempTensor) Gop_Mul(b any) Tensor
func (x TempTensor) Gop_Sub(b any) Tensor
func (x TempTensor) Gop_LT(b any) Tensor
func (x TempTensor) Gop_Neg() Tensor
func (t Tensor) XGo_Add(b any) Tensor
func (t Tensor) XGo_Mul(b any) Tensor
func (t Tensor) XGo_Dup() Tensor
func (t *Tensor) XGo_AddAssign(b any)
func (x TempTensor) XGo_Add(b any) Tensor
func (x TempTensor) XGo_Mul(b any) Tensor
`

// stubOps declares, in a file named like torch/ops_gen.go, a few of the
// generated ops that genOps lists: fresh ones and aliasing ones.
const stubOps = `package torch
func WithWeight(t Tensor) Option
func Relu(t Tensor) Tensor
func TryRelu(t Tensor) (Tensor, error)
func (t Tensor) Relu() Tensor
func (t Tensor) TryRelu() (Tensor, error)
func (t Tensor) Sum(opts ...Option) Tensor
func (t Tensor) Add_(o Tensor, opts ...Option) Tensor
func AddOut(out, a, b Tensor, opts ...Option) Tensor
func Maximum(a, b Tensor) Tensor
`

// stubModel is a package whose functions return tensors, so that a file
// can use tensors without importing torch.
const stubModel = `package model
import "github.com/gotorch/gotorch/torch"
func X() torch.Tensor
`

// stubGopkg has a function that handFresh lists (Relu) and one that it
// does not (Keep).
const stubGopkg = `package gopkg
import "github.com/gotorch/gotorch/torch"
func Relu(x torch.Tensor) torch.Tensor
func Keep(x torch.Tensor) torch.Tensor
`

// stubFmt is the part of fmt that the owned-locals pass knows.
const stubFmt = `package fmt
func Println(a ...any) (int, error)
func Sprint(a ...any) string
func Errorf(format string, a ...any) error
`

// stubImporter imports type-checked stubs. Their positions are in fset,
// as a real importer's are in the file set it reports (FileSet).
type stubImporter struct {
	pkgs map[string]*types.Package
	fset *token.FileSet
}

func (m stubImporter) Import(path string) (*types.Package, error) {
	if p, ok := m.pkgs[path]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("no package %s", path)
}

func (m stubImporter) FileSet() *token.FileSet { return m.fset }

func stubPackages(t *testing.T) stubImporter {
	t.Helper()
	imp := stubImporter{map[string]*types.Package{}, token.NewFileSet()}
	imp.add(t, torchPath, stubTorch, stubOps)
	imp.add(t, "example.com/model", stubModel)
	imp.add(t, "fmt", stubFmt)
	imp.add(t, "github.com/gotorch/gotorch/gopkg", stubGopkg)
	return imp
}

// add type-checks srcs as the package path and makes it importable. The
// first file is named after the package; a second is ops_gen.go.
func (m stubImporter) add(t *testing.T, path string, srcs ...string) {
	t.Helper()
	fset := m.fset
	var files []*ast.File
	dir := filepath.Join(t.TempDir(), filepath.FromSlash(path))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for i, src := range srcs {
		// On disk, as a real package's sources are: gop-torch reads
		// hand-written functions' declarations (handFreshOp).
		name := filepath.Join(dir, filepath.Base(path)+".go")
		if i > 0 {
			name = filepath.Join(dir, "ops_gen.go")
		}
		require.NoError(t, os.WriteFile(name, []byte(src), 0o644))
		f, err := parser.ParseFile(fset, name, src, 0)
		require.NoError(t, err)
		files = append(files, f)
	}
	pkg, err := (&types.Config{Importer: m}).Check(path, fset, files, nil)
	require.NoError(t, err)
	m.pkgs[path] = pkg
}

func TestMarkTemps(t *testing.T) {
	imp := stubPackages(t)
	const header = "package p\n\nimport \"github.com/gotorch/gotorch/torch\"\n\n"
	cases := []struct {
		name, body, want string
		n                int
	}{
		{"right operand", "_ = a.Gop_Add(b.Gop_Mul(c))", "_ = a.Gop_Add(torch.Temp(b.Gop_Mul(c)))", 1},
		// XGo v1.6's gogen writes XGo_ where gop v1.4's wrote Gop_.
		{"XGo's names",
			"_ = (torch.Tensor).XGo_Add((torch.Tensor).XGo_Mul(a, b), c)\na.XGo_AddAssign(b.XGo_Mul(c))\n_ = (torch.Tensor).XGo_Add(a, (torch.Tensor).XGo_Dup(b))",
			"_ = torch.Temp((torch.Tensor).XGo_Mul(a, b)).XGo_Add(c)\n\ta.XGo_AddAssign(torch.Temp(b.XGo_Mul(c)))\n\t_ = (torch.Tensor).XGo_Add(a, (torch.Tensor).XGo_Dup(b))", 2},
		{"gogen's method expressions",
			"_ = (torch.Tensor).Gop_Sub((torch.Tensor).Gop_Add(b, (torch.Tensor).Gop_Mul(b, 2)), 1)",
			"_ = torch.Temp((torch.Tensor).Gop_Add(b, torch.Temp((torch.Tensor).Gop_Mul(b, 2)))).Gop_Sub(1)", 2},
		{"both operands", "_ = (torch.Tensor).Gop_LT((torch.Tensor).Gop_Mul(a, 2), (torch.Tensor).Gop_Neg(b))",
			"_ = torch.Temp((torch.Tensor).Gop_Mul(a, 2)).Gop_LT(torch.Temp((torch.Tensor).Gop_Neg(b)))", 2},
		{"unary", "_ = (torch.Tensor).Gop_Neg((torch.Tensor).Gop_Mul(a, b))", "_ = torch.Temp((torch.Tensor).Gop_Mul(a, b)).Gop_Neg()", 1},
		{"parenthesized", "_ = a.Gop_Add((b.Gop_Mul(c)))", "_ = a.Gop_Add(torch.Temp((b.Gop_Mul(c))))", 1},
		{"assignment", "a.Gop_AddAssign((torch.Tensor).Gop_Mul(b, 2))", "a.Gop_AddAssign(torch.Temp((torch.Tensor).Gop_Mul(b, 2)))", 1},
		{"+x returns its operand", "_ = (torch.Tensor).Gop_Add(a, (torch.Tensor).Gop_Dup(b))", "", 0},
		{"+x of a temporary", "_ = (torch.Tensor).Gop_Dup((torch.Tensor).Gop_Mul(a, b))", "", 0},
		{"a hand-written method's result may be held elsewhere", "_ = (torch.Tensor).Gop_Add(a.Mm(b), c)", "", 0},
		{"a generated method's result", "_ = a.Gop_Add(b.Relu())", "_ = a.Gop_Add(torch.Temp(b.Relu()))", 1},
		{"a generated function's result", "_ = (torch.Tensor).Gop_Mul(torch.Relu(a), 2)", "_ = torch.Temp(torch.Relu(a)).Gop_Mul(2)", 1},
		{"an in-place op returns its operand", "_ = b.Gop_Add(a.Add_(b))", "", 0},
		{"an out= op returns its out", "_ = (torch.Tensor).Gop_Mul(torch.AddOut(c, a, b), 2)", "", 0},
		{"an op's temporary argument", "_ = torch.Relu(a.Gop_Mul(b))",
			"_ = torch.Consume(a.Gop_Mul(b), func(t torch.Tensor) torch.Tensor { return torch.Relu(t) })", 1},
		{"an op's temporary receiver", "_ = a.Gop_Mul(b).Relu()",
			"_ = torch.Consume(a.Gop_Mul(b), func(t torch.Tensor) torch.Tensor { return t.Relu() })", 1},
		{"an op's result consumed by another", "_ = a.Relu().Sum()",
			"_ = torch.Consume(a.Relu(), func(t torch.Tensor) torch.Tensor { return t.Sum() })", 1},
		{"nested", "_ = torch.Relu(a.Gop_Mul(b).Relu())",
			"_ = torch.Consume(torch.Consume(a.Gop_Mul(b), func(t torch.Tensor) torch.Tensor { return t.Relu() }), func(t torch.Tensor) torch.Tensor { return torch.Relu(t) })", 2},
		{"other operands are names", "_ = torch.Maximum(c, a.Gop_Mul(b))",
			"_ = torch.Consume(a.Gop_Mul(b), func(t torch.Tensor) torch.Tensor { return torch.Maximum(c, t) })", 1},
		{"the closure's parameter hides no operand", "t := c\n\t_ = torch.Maximum(a.Gop_Mul(b), t)",
			"_ = torch.Consume(a.Gop_Mul(b), func(t1 torch.Tensor) torch.Tensor { return torch.Maximum(t1, t) })", 1},
		{"an operator's temporary stays a Temp", "_ = (torch.Tensor).Gop_Neg(torch.Relu(a))", "_ = torch.Temp(torch.Relu(a)).Gop_Neg()", 1},
		{"two temporaries", "_ = torch.Maximum(a.Gop_Mul(b), a.Gop_Add(c))", "", 0},
		{"another operand that is a call", "_ = torch.Maximum(a.Gop_Mul(b), a.Grad())", "", 0},
		{"an in-place op's temporary receiver", "_ = a.Gop_Mul(b).Add_(c)", "", 0},
		{"a hand-written method's temporary receiver", "_ = a.Gop_Mul(b).Mm(c)", "", 0},
		{"a temporary passed to a function", "use((torch.Tensor).Gop_Mul(a, b))", "", 0},
		{"a user type's operators", "_ = v.Gop_Add(v.Gop_Add(1))", "", 0},
		{"a tensor operand of a user type's operator", "_ = v.Gop_Add(a.Gop_Mul(b))", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := header + `type V struct{}

func (V) Gop_Add(b any) V

func use(torch.Tensor)

func f(a, b, c torch.Tensor, v V) {
	` + c.body + `
}
`
			got, n, err := markTemps([]byte(src), t.TempDir(), imp)
			require.NoError(t, err)
			assert.Equal(t, c.n, n)
			if c.want == "" {
				assert.Equal(t, src, string(got))
				return
			}
			assert.Contains(t, string(got), "\t"+c.want+"\n")
			// The result compiles.
			_, _, err = markTemps(got, t.TempDir(), imp)
			require.NoError(t, err)
		})
	}
}

// Tensors reached through a type alias are tensors too.
func TestMarkTempsThroughAlias(t *testing.T) {
	imp := stubPackages(t)
	src := "package p\n\nimport \"github.com/gotorch/gotorch/torch\"\n\ntype T = torch.Tensor\n\nfunc f(a, b T) { _ = a.Gop_Add(b.Gop_Mul(a)) }\n"
	got, n, err := markTemps([]byte(src), t.TempDir(), imp)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Contains(t, string(got), "a.Gop_Add(torch.Temp(b.Gop_Mul(a)))")
}

// A file that gets its tensors from another package and does not import
// torch gets the import, under a name that is free.
func TestMarkTempsAddsImport(t *testing.T) {
	imp := stubPackages(t)
	src := `package p

import "example.com/model"

var torch = 1

func f() {
	_ = model.X().Gop_Add(model.X().Gop_Mul(2))
}
`
	got, n, err := markTemps([]byte(src), t.TempDir(), imp)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	out := got // markTemps returns gofmt-ed source
	assert.Contains(t, string(out), "torch1 \"github.com/gotorch/gotorch/torch\"")
	assert.Contains(t, string(out), "model.X().Gop_Add(torch1.Temp(model.X().Gop_Mul(2)))")
	_, _, err = markTemps(out, t.TempDir(), imp)
	require.NoError(t, err, "%s", out)
}

// The package's hand-written Go files are type-checked with the generated
// one; a file that does not type-check is left as it is, with the reason.
func TestMarkTempsPackageFiles(t *testing.T) {
	imp := stubPackages(t)
	dir := t.TempDir()
	src := "package p\n\nimport \"github.com/gotorch/gotorch/torch\"\n\nfunc f(a torch.Tensor) { _ = a.Gop_Add(helper(a).Gop_Mul(a).Gop_Neg()) }\n"
	_, _, err := markTemps([]byte(src), dir, imp)
	require.ErrorContains(t, err, "helper")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "helper.go"),
		[]byte("package p\n\nimport \"github.com/gotorch/gotorch/torch\"\n\nfunc helper(a torch.Tensor) torch.Tensor { return a }\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "helper_test.go"), []byte("package p\n\nbroken\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ignored.go"), []byte("//go:build ignore\n\npackage p\n\nfunc helper() {}\n"), 0o644))
	got, n, err := markTemps([]byte(src), dir, imp)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.True(t, strings.Contains(string(got), "a.Gop_Add(torch.Temp(torch.Temp(helper(a).Gop_Mul(a)).Gop_Neg()))"), "%s", got)
}

// //line comments stay before their statements, also when a statement
// starts with a temporary.
func TestMarkTempsKeepsLineComments(t *testing.T) {
	imp := stubPackages(t)
	src := `package p

import "github.com/gotorch/gotorch/torch"

func f(x torch.Tensor) {
//line a.gop:5:1
	(torch.Tensor).Gop_Add((torch.Tensor).Gop_Mul(x, x), x).Mm(x)
//line a.gop:6:1
	_ = x.Gop_Add(x.Gop_Mul(x)) // trailing
}
`
	got, n, err := markTemps([]byte(src), t.TempDir(), imp)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	out := got // markTemps returns gofmt-ed source
	assert.Contains(t, string(out), "//line a.gop:5:1\n\ttorch.Temp((torch.Tensor).Gop_Mul(x, x)).Gop_Add(x).Mm(x)\n")
	assert.Contains(t, string(out), "//line a.gop:6:1\n\t_ = x.Gop_Add(torch.Temp(x.Gop_Mul(x))) // trailing\n")
}

// A torch package without Temp (an older GoTorch) leaves the file as it is.
func TestMarkTempsNeedsTemp(t *testing.T) {
	imp := stubPackages(t)
	imp.add(t, torchPath, strings.Replace(stubTorch, "func Temp(t Tensor) TempTensor\n", "", 1))
	src := "package p\n\nimport \"github.com/gotorch/gotorch/torch\"\n\nfunc f(a torch.Tensor) { _ = a.Gop_Add(a.Gop_Mul(a)) }\n"
	got, n, err := markTemps([]byte(src), t.TempDir(), imp)
	require.ErrorContains(t, err, "no Temp")
	assert.Zero(t, n)
	assert.Equal(t, src, string(got))
}
