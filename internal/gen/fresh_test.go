package main

import (
	"go/ast"
	"go/parser"
	"go/token"
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
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), "p.go", "package p\n\n"+c.src, 0)
			require.NoError(t, err)
			fn := f.Decls[0].(*ast.FuncDecl)
			assert.Equal(t, c.want, freshBody(p, fn, fresh))
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
	for _, k := range g.handFresh() {
		keys[k] = true
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
