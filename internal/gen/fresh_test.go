package main

import (
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFreshBody checks which hand-written one-liners handFresh accepts:
// only a single call of a fresh op, with every parameter that could hold a
// tensor passed whole.
func TestFreshBody(t *testing.T) {
	const torchPath = "github.com/gotorch/gotorch/torch"
	fresh := map[string]bool{
		torchPath + ".Tensor.Relu": true, torchPath + ".Tensor.Add": true,
		torchPath + ".Ones": true, torchPath + ".Cat": true,
		"example.com/p.Helper": true,
	}
	p := handPkg{"example.com/p", "p", "torch.Tensor"}
	cases := []struct {
		name, src string
		want      bool
	}{
		{"a method of a parameter", "func F(x torch.Tensor) torch.Tensor { return x.Relu() }", true},
		{"plain arguments", "func F(n int, s []int64) torch.Tensor { return torch.Ones(toInts(n, s)) }", true},
		{"tensor arguments passed whole", "func F(x, y torch.Tensor) torch.Tensor { return x.Add(y) }", true},
		{"a slice of tensors passed whole", "func F(ts []torch.Tensor) torch.Tensor { return torch.Cat(ts) }", true},
		{"another function found fresh", "func F(x torch.Tensor) torch.Tensor { return Helper(x) }", true},
		{"two statements", "func F(x torch.Tensor) torch.Tensor { x.Relu(); return x.Relu() }", false},
		{"returns its parameter", "func F(x torch.Tensor) torch.Tensor { return x }", false},
		{"a tensor inside another call", "func F(x, y torch.Tensor) torch.Tensor { return x.Add(keep(y)) }", false},
		{"an any parameter inside another call", "func F(x torch.Tensor, v any) torch.Tensor { return x.Add(keep(v)) }", false},
		{"an option parameter inside another call", "func F(x torch.Tensor, o torch.Option) torch.Tensor { return x.Add(pick(o)) }", false},
		{"an op not known fresh", "func F(x torch.Tensor) torch.Tensor { return x.Add_(x) }", false},
		{"a function not known fresh", "func F(x torch.Tensor) torch.Tensor { return other(x) }", false},
		{"a method of a non-tensor", "func F(m *Model, x torch.Tensor) torch.Tensor { return m.Relu() }", false},
		{"two results", "func F(x torch.Tensor) (torch.Tensor, error) { return x.Relu(), nil }", false},
		{"not a tensor result", "func F(x torch.Tensor) float64 { return x.Relu() }", false},
		{"spread tensors", "func F(ts ...torch.Tensor) torch.Tensor { return torch.Cat(ts...) }", false},
		{"a parameter named like a fresh function", "func F(x torch.Tensor, Helper func(torch.Tensor) torch.Tensor) torch.Tensor { return Helper(x) }", false},
		{"a parameter named torch", "func F(torch T) torch.Tensor { return torch.Ones(nil) }", false},
		{"type parameters", "func F[T any](x torch.Tensor) torch.Tensor { return x.Relu() }", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), "p.go", "package p\n\n"+c.src, 0)
			require.NoError(t, err)
			fn := f.Decls[0].(*ast.FuncDecl)
			assert.Equal(t, c.want, freshBody(p, fn, "torch", fresh))
		})
	}
}

// TestHandFreshFindsOverloads runs handFresh on the repository's sources
// with the generated ops: Go+'s overloads and gopkg's one-liners are
// found, functions that may return their argument are not.
func TestHandFreshFindsOverloads(t *testing.T) {
	g := &generator{fns: []*function{
		{goName: "Sum", isMethod: true, rets: []string{"tensor"}, retAlias: []int{-1}},
		{goName: "Relu", isFunc: true, isMethod: true, rets: []string{"tensor"}, retAlias: []int{-1}},
		{goName: "SumDimIntList", isMethod: true, rets: []string{"tensor"}, retAlias: []int{-1}},
		{goName: "Neg", isFunc: true, isMethod: true, rets: []string{"tensor"}, retAlias: []int{-1}},
	}}
	keys := map[string]bool{}
	for _, e := range g.handFresh() {
		keys[e.key] = true
	}
	for _, k := range []string{
		"github.com/gotorch/gotorch/torch.Tensor.SumAll",
		"github.com/gotorch/gotorch/torch.Tensor.SumAlong",
		"github.com/gotorch/gotorch/torch.Tensor.Gop_Neg",
		"github.com/gotorch/gotorch/gopkg.Relu",
		"github.com/gotorch/gotorch/gopkg.Sum__0",
	} {
		assert.True(t, keys[k], k)
	}
	for _, k := range []string{
		"github.com/gotorch/gotorch/torch.Tensor.Gop_Dup", // returns t
		"github.com/gotorch/gotorch/torch.Tensor.Float",   // To may return t
		"github.com/gotorch/gotorch/torch.Tensor.Relu",    // generated, not hand-written
	} {
		assert.False(t, keys[k], k)
	}
}

// TestGopTorchTableCurrent rebuilds the generated ops from the committed
// torch/ops_gen.go (each op's forms, and whether its genX returns a
// parameter: r0_ = self), and the hand-written one-liners from the
// sources, without torchgen, and checks the table that gop-torch uses
// (cmd/gop-torch/genops_gen.go): an op whose aliasing the table misstates,
// or an edit to a listed one-liner (say, one that returns its argument in
// some case), fails here until go generate is run.
func TestGopTorchTableCurrent(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../torch/ops_gen.go", nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	funcs, methods := map[string]bool{}, map[string]bool{}
	var impls []*ast.FuncDecl
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if fd.Recv != nil {
			methods[fd.Name.Name] = true
		} else {
			funcs[fd.Name.Name] = true
		}
		if fd.Recv == nil && len(fd.Name.Name) > 3 && fd.Name.Name[:3] == "gen" {
			impls = append(impls, fd)
		}
	}
	g := &generator{}
	for _, fd := range impls {
		name := fd.Name.Name[3:]
		fn := &function{goName: name, isFunc: funcs[name], isMethod: methods[name]}
		// gop-torch strips Try to find the error-returning forms.
		assert.True(t, !fn.isFunc || funcs["Try"+name], "no function Try%s", name)
		assert.True(t, !fn.isMethod || methods["Try"+name], "no method Try%s", name)
		// (r0_ Tensor, err_ error): one tensor.
		if res := fd.Type.Results.List; len(res) == 2 && typeString(res[0].Type) == "Tensor" && len(res[0].Names) == 1 {
			fn.rets = []string{"tensor"}
		} else {
			fn.rets = []string{"other"}
		}
		// A result aliases a parameter if it is assigned one: r0_ = self.
		// A method's receiver is the parameter self.
		params := map[string]int{}
		for _, p := range fd.Type.Params.List {
			for _, n := range p.Names {
				params[n.Name] = len(params)
			}
		}
		fn.self = -1
		if i, ok := params["self"]; ok && fn.isMethod {
			fn.self = i
		}
		alias := map[string]int{}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if a, ok := n.(*ast.AssignStmt); ok && len(a.Lhs) == 1 && len(a.Rhs) == 1 {
				l, lok := a.Lhs[0].(*ast.Ident)
				r, rok := a.Rhs[0].(*ast.Ident)
				if lok && rok {
					if i, ok := params[r.Name]; ok {
						alias[l.Name] = i
					}
				}
			}
			return true
		})
		for _, r := range fd.Type.Results.List {
			for _, n := range r.Names {
				if n.Name == "err_" {
					continue
				}
				if i, ok := alias[n.Name]; ok {
					fn.retAlias = append(fn.retAlias, i)
				} else {
					fn.retAlias = append(fn.retAlias, -1)
				}
			}
		}
		g.fns = append(g.fns, fn)
	}
	// genX follows the order of the generator's functions, as genOps does.
	assert.True(t, g.fns[indexOf(g.fns, "Add_")].aliases() && !g.fns[indexOf(g.fns, "Add")].aliases())
	assert.True(t, g.fns[indexOf(g.fns, "Add_")].returnsSelf() && !g.fns[indexOf(g.fns, "AddOut")].returnsSelf())
	want, err := format.Source(g.gopTorchSource())
	require.NoError(t, err)
	got, err := os.ReadFile("../../cmd/gop-torch/genops_gen.go")
	require.NoError(t, err)
	// Name the lines that differ rather than print the whole file.
	w, g2 := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i, n := 0, 0; i < max(len(w), len(g2)) && n < 5; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g2) {
			gl = g2[i]
		}
		if wl != gl {
			t.Errorf("cmd/gop-torch/genops_gen.go:%d is stale (run go generate ./internal/gen/ and commit):\n got  %s\n want %s", i+1, gl, wl)
			n++
		}
	}
}

// indexOf returns the index of the function named name in fns.
func indexOf(fns []*function, name string) int {
	for i, f := range fns {
		if f.goName == name {
			return i
		}
	}
	return -1
}

// TestNNFresh finds Forward and TryForward of every module listed in
// nnFreshModules, in the repository's nn, and nothing else.
func TestNNFresh(t *testing.T) {
	var keys []string
	for _, e := range nnFresh() {
		keys = append(keys, e.key)
		assert.Len(t, e.hash, 16, e.key)
	}
	const nn = "github.com/gotorch/gotorch/nn."
	assert.Equal(t, []string{
		nn + "EmbeddingModule.Forward", nn + "EmbeddingModule.TryForward",
		nn + "LayerNormModule.Forward", nn + "LayerNormModule.TryForward",
		nn + "LinearModule.Forward", nn + "LinearModule.TryForward",
	}, keys)
}
