package main

import (
	"go/types"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOwnedLocals checks which variables the owned-locals pass rewrites,
// and how. Each case is the body of
//
//	func f(a, b torch.Tensor) { … }
//
// want lists lines that the output must contain (a tab-indented statement
// of f's body, or a deeper one with its tabs), and n the number of
// variables rewritten.
func TestOwnedLocals(t *testing.T) {
	imp := stubPackages(t)
	const header = "package p\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/gotorch/gotorch/torch\"\n)\n\n"
	cases := []struct {
		name, body string
		want       []string
		n          int
	}{
		{"rebound in a loop, freed at the end",
			"var s torch.Tensor\nfor i := 0; i < 3; i++ {\n\ts = a.Gop_Add(b)\n}\nfmt.Println(s.Item())",
			[]string{"\t\ts = torch.Rebind(s, a.Gop_Add(b))\n", "\tfmt.Println(s.Item())\n\ts.Free()\n}"}, 1},
		{"method expression form", "s := (torch.Tensor).Gop_Mul(a, 2)\ns = (torch.Tensor).Gop_Sub(s, 1)\nfmt.Println(s)",
			[]string{"\ts = torch.Rebind(s, (torch.Tensor).Gop_Sub(s, 1))\n", "\tfmt.Println(s)\n\ts.Free()\n}"}, 1},
		{"declared in a loop body: freed every iteration",
			"for i := 0; i < 3; i++ {\n\th := a.Gop_Mul(b)\n\tfmt.Println(h.Shape())\n}",
			[]string{"\t\tfmt.Println(h.Shape())\n\t\th.Free()\n\t}"}, 1},
		{"operand of operators and assignment operators",
			"s := a.Gop_Mul(b)\nvar acc torch.Tensor\nacc.Gop_AddAssign(s)\nfmt.Println(acc.Gop_Add(s), (torch.Tensor).Gop_Neg(s))",
			[]string{"\tacc.Free()\n\ts.Free()\n}"}, 2},
		{"two variables freed in reverse order", "x := a.Gop_Add(1)\ny := x.Gop_Mul(2)\nfmt.Println(y)",
			[]string{"\tfmt.Println(y)\n\ty.Free()\n\tx.Free()\n}"}, 2},
		{"block ends in a return: rebound only",
			"s := a.Gop_Add(b)\nif s.Item() > 0 {\n\ts = s.Gop_Mul(2)\n}\nfmt.Println(s)\nreturn",
			[]string{"\t\ts = torch.Rebind(s, s.Gop_Mul(2))\n", "\tfmt.Println(s)\n\treturn\n}"}, 1},
		{"block ends in if-else: left to the collector", "s := a.Gop_Add(b)\nif s.Item() > 0 {\n\tfmt.Println(s)\n} else {\n\tpanic(1)\n}", nil, 0},
		{"passed to a function", "s := a.Gop_Add(b)\nuse(s)", nil, 0},
		{"returned through a tensor method", "s := a.Gop_Add(b)\n_ = s.Grad()", nil, 0},
		{"a method with a tensor slice result", "s := a.Gop_Add(b)\n_ = s.Split()", nil, 0},
		{"pointer method", "s := a.Gop_Add(b)\ns.SetName(\"x\")", nil, 0},
		{"copied", "s := a.Gop_Add(b)\nt := s\nfmt.Println(t)", nil, 0},
		{"stored", "s := a.Gop_Add(b)\nxs := []torch.Tensor{s}\nfmt.Println(xs)", nil, 0},
		{"address taken", "s := a.Gop_Add(b)\np := &s\nfmt.Println(p)", nil, 0},
		{"+s returns s", "s := a.Gop_Add(b)\nt := s.Gop_Dup()\nfmt.Println(t)", nil, 0},
		{"captured by a closure", "s := a.Gop_Add(b)\nf := func() { fmt.Println(s) }\nf()", nil, 0},
		{"deferred", "s := a.Gop_Add(b)\ndefer fmt.Println(s)", nil, 0},
		{"in a go statement", "s := a.Gop_Add(b)\ngo fmt.Println(s.Item())", nil, 0},
		{"given a method's result", "s := a.Gop_Add(b)\ns = a.Grad()\nfmt.Println(s)", nil, 0},
		{"given another variable", "s := a.Gop_Add(b)\ns = a\nfmt.Println(s)", nil, 0},
		{"declared from a parameter", "s := a\nfmt.Println(s.Gop_Add(1))", nil, 0},
		{"declared with another", "s, n := a.Gop_Add(b), 1\nfmt.Println(s, n)", nil, 0},
		{"a parameter is never owned", "a = a.Gop_Add(b)\nfmt.Println(a)", nil, 0},
		{"kept in an error", "s := a.Gop_Add(b)\n_ = fmt.Errorf(\"%v\", s)", nil, 0},
		{"a method that could hand it out", "s := a.Gop_Add(b)\ns.SaveTo(map[string]torch.Tensor{})", nil, 0},
		{"a method with value and variadic parameters", "s := a.Gop_Add(b)\ns.Backward(torch.WithRetainGraph(true))\n_ = s.Size(0)",
			[]string{"\t_ = s.Size(0)\n\ts.Free()\n}"}, 1},
		{"blank", "var _ = a.Gop_Add(b)\nvar _ torch.Tensor", nil, 0},
		{"given generated ops' results, passed to generated ops",
			"h := torch.Relu(a)\nh = h.Relu()\ns := torch.Maximum(h, b).Sum()\nfmt.Println(s.Item())",
			[]string{"\th = torch.Rebind(h, h.Relu())\n", "\tfmt.Println(s.Item())\n\ts.Free()\n\th.Free()\n}"}, 2},
		{"in-place and out= ops whose results are dropped", "s := a.Relu()\ns.Add_(b)\ntorch.AddOut(s, a, b)\nfmt.Println(s)",
			[]string{"\tfmt.Println(s)\n\ts.Free()\n}"}, 1},
		{"given an op's result that consumed a temporary", "s := torch.Relu(a.Gop_Mul(b))\nfmt.Println(s)",
			[]string{"\ts := torch.Consume(a.Gop_Mul(b), func(t torch.Tensor) torch.Tensor { return torch.Relu(t) })\n", "\tfmt.Println(s)\n\ts.Free()\n}"}, 1},
		{"an operand beside a consumed temporary", "s := a.Relu()\nu := torch.Maximum(s, a.Gop_Mul(b))\nfmt.Println(u)",
			[]string{"\tu := torch.Consume(a.Gop_Mul(b), func(t torch.Tensor) torch.Tensor { return torch.Maximum(s, t) })\n", "\tu.Free()\n\ts.Free()\n}"}, 2},
		{"an argument of a Try form", "s := a.Relu()\nr, err := torch.TryRelu(s)\nfmt.Println(r, err)",
			[]string{"\tfmt.Println(r, err)\n\ts.Free()\n}"}, 1},
		{"assigned back by its own in-place method: kept, not rebound",
			"s := a.Relu()\ns = s.Add_(b)\ns = (s.Add_(s))\nfmt.Println(s)",
			[]string{"\ts = s.Add_(b)\n", "\ts = (s.Add_(s))\n", "\tfmt.Println(s)\n\ts.Free()\n}"}, 1},
		{"given another tensor's in-place result", "s := a.Relu()\ns = a.Add_(b)\nfmt.Println(s)", nil, 0},
		{"its in-place result assigned to another", "s := a.Relu()\nt := a.Relu()\nt = s.Add_(b)\nfmt.Println(t)", nil, 0},
		{"assigned back by an out= function", "s := a.Relu()\ns = torch.AddOut(s, a, b)\nfmt.Println(s)", nil, 0},
		{"assigned back by an in-place op nested in another", "s := a.Relu()\ns = s.Add_(s.Add_(b))\nfmt.Println(s)", nil, 0},
		{"an in-place op's result kept", "s := a.Relu()\nt := s.Add_(b)\nfmt.Println(t)", nil, 0},
		{"an in-place op's argument, result kept", "s := a.Relu()\nt := a.Add_(s)\nfmt.Println(t)", nil, 0},
		{"given a hand-written method's result", "s := a.Mm(b)\nfmt.Println(s)", nil, 0},
		{"given an in-place op's result", "s := a.Add_(b)\nfmt.Println(s)", nil, 0},
		{"a method value", "s := a.Relu()\nf := s.Relu\nfmt.Println(f())", nil, 0},
		{"in an option of a generated op", "s := a.Relu()\n_ = a.Sum(torch.WithWeight(s))", nil, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := header + "var _ = fmt.Sprint\n\nfunc use(torch.Tensor)\n\nfunc f(a, b torch.Tensor) {\n"
			for _, l := range strings.Split(c.body, "\n") {
				src += "\t" + l + "\n"
			}
			src += "}\n"
			got, counts, err := rewriteLifetimes([]byte(src), t.TempDir(), imp)
			require.NoError(t, err)
			assert.Equal(t, c.n, counts.owned, string(got))
			for _, w := range c.want {
				assert.Contains(t, string(got), w)
			}
			if c.n == 0 {
				assert.NotContains(t, string(got), "Rebind")
				assert.NotContains(t, string(got), ".Free()")
				return
			}
			// The result type-checks, and a second pass changes nothing.
			again, counts, err := rewriteLifetimes(got, t.TempDir(), imp)
			require.NoError(t, err)
			assert.Zero(t, counts.owned)
			assert.Equal(t, string(got), string(again))
		})
	}
}

// A local declaration that hides the torch import stops only the
// rewrites that would name the package where it is in scope: here the
// Rebind and the Temp after `torch := 1`; the Rebind before it, and g's
// Temp, are written.
func TestOwnedLocalsShadowedTorch(t *testing.T) {
	imp := stubPackages(t)
	src := `package p

import "github.com/gotorch/gotorch/torch"

func f(a torch.Tensor) int {
	s := a.Gop_Add(1)
	s = s.Gop_Mul(2)
	torch := 1
	s = s.Gop_Mul(a.Gop_Add(2))
	_ = s.Item()
	return torch
}

func g(a torch.Tensor) {
	_ = a.Gop_Add(a.Gop_Mul(2))
}
`
	got, counts, err := rewriteLifetimes([]byte(src), t.TempDir(), imp)
	require.NoError(t, err)
	assert.Equal(t, lifetimeCounts{temps: 1, owned: 1}, counts)
	assert.Contains(t, string(got), "\ts = torch.Rebind(s, s.Gop_Mul(2))\n\ttorch := 1\n\ts = s.Gop_Mul(a.Gop_Add(2))\n")
	assert.Contains(t, string(got), "\t_ = a.Gop_Add(torch.Temp(a.Gop_Mul(2)))\n")
}

// The same when the torch import is to be added: a function with a local
// named torch gets no Temp, the others do, and the import is added.
func TestTempsShadowedAddedImport(t *testing.T) {
	imp := stubPackages(t)
	src := "package p\n\nimport \"example.com/model\"\n\nfunc f() {\n\ttorch := model.X()\n\t_ = torch.Gop_Add(torch.Gop_Mul(2))\n}\n\nfunc g() {\n\tx := model.X()\n\t_ = x.Gop_Add(x.Gop_Mul(2))\n}\n"
	got, counts, err := rewriteLifetimes([]byte(src), t.TempDir(), imp)
	require.NoError(t, err)
	assert.Equal(t, 1, counts.temps)
	assert.Contains(t, string(got), "\t_ = torch.Gop_Add(torch.Gop_Mul(2))\n")
	assert.Contains(t, string(got), "\t_ = x.Gop_Add(torch.Temp(x.Gop_Mul(2)))\n")
	assert.Contains(t, string(got), "\"github.com/gotorch/gotorch/torch\"")
}

// Hand-written one-liners that handFresh lists (gopkg.Relu, a.SumAll)
// count as generated ops: their results are fresh, and passing a variable
// to them reads it. Others (gopkg.Keep, a.Float) do not.
func TestOwnedLocalsHandFresh(t *testing.T) {
	imp := stubPackages(t)
	// The table lists the real functions' hashes; list the stubs' here.
	gopkg := imp.pkgs["github.com/gotorch/gotorch/gopkg"].Scope().Lookup("Relu")
	sumAll, _, _ := types.LookupFieldOrMethod(imp.pkgs[torchPath].Scope().Lookup("Tensor").Type(), false, nil, "SumAll")
	stubHashes(t, imp, map[string]types.Object{
		"github.com/gotorch/gotorch/gopkg.Relu":          gopkg,
		"github.com/gotorch/gotorch/torch.Tensor.SumAll": sumAll,
	})
	const header = "package p\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/gotorch/gotorch/gopkg\"\n\t\"github.com/gotorch/gotorch/torch\"\n)\n\nfunc f(a torch.Tensor) {\n"
	cases := []struct {
		name, body string
		n, temps   int
	}{
		{"listed", "\ts := gopkg.Relu(a)\n\tu := s.SumAll()\n\tfmt.Println(gopkg.Relu(u))\n\t_ = a.Gop_Add(a.SumAll())\n", 2, 1},
		{"not listed: result", "\ts := gopkg.Keep(a)\n\tu := a.Float()\n\tfmt.Println(s, u)\n\t_ = a.Gop_Add(a.Float())\n", 0, 0},
		{"not listed: argument", "\ts := gopkg.Relu(a)\n\tfmt.Println(gopkg.Keep(s))\n", 0, 0},
	}
	// A listed function whose source has changed since the table was
	// made is not trusted.
	t.Run("changed source", func(t *testing.T) {
		old := handFresh["github.com/gotorch/gotorch/gopkg.Relu"]
		handFresh["github.com/gotorch/gotorch/gopkg.Relu"] = "0000000000000000"
		defer func() { handFresh["github.com/gotorch/gotorch/gopkg.Relu"] = old }()
		_, counts, err := rewriteLifetimes([]byte(header+"\ts := gopkg.Relu(a)\n\tfmt.Println(s)\n}\n"), t.TempDir(), imp)
		require.NoError(t, err)
		assert.Zero(t, counts.owned)
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, counts, err := rewriteLifetimes([]byte(header+c.body+"}\n"), t.TempDir(), imp)
			require.NoError(t, err)
			assert.Equal(t, lifetimeCounts{temps: c.temps, owned: c.n}, counts, string(got))
		})
	}
}

// stubHashes lists objs, stub functions, in handFresh under the given keys
// with the hashes of their stub declarations, until the test ends.
func stubHashes(t *testing.T, imp stubImporter, objs map[string]types.Object) {
	t.Helper()
	for key, obj := range objs {
		require.NotNil(t, obj, key)
		h := declHashes{}.hash(imp.fset.Position(obj.Pos()))
		require.NotEmpty(t, h, key)
		old, had := handFresh[key]
		handFresh[key] = h
		t.Cleanup(func() {
			if had {
				handFresh[key] = old
			} else {
				delete(handFresh, key)
			}
		})
	}
}

// A file that names torch only through its model package gets s.Free()
// and no torch import, which it would not use.
func TestOwnedLocalsNoImportForFree(t *testing.T) {
	imp := stubPackages(t)
	src := "package p\n\nimport (\n\t\"example.com/model\"\n\t\"fmt\"\n)\n\nfunc f() {\n\ts := model.X().Gop_Add(1)\n\tfmt.Println(s)\n}\n"
	got, counts, err := rewriteLifetimes([]byte(src), t.TempDir(), imp)
	require.NoError(t, err)
	assert.Equal(t, 1, counts.owned)
	assert.Contains(t, string(got), "\tfmt.Println(s)\n\ts.Free()\n}")
	assert.NotContains(t, string(got), "gotorch/torch")
}
