package main

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCalls makes torch.GC() and torch.FinishGC() statements.
var testCalls = gcCalls{
	gc: func() ast.Stmt {
		return &ast.ExprStmt{X: &ast.CallExpr{Fun: &ast.SelectorExpr{X: ast.NewIdent("torch"), Sel: ast.NewIdent("GC")}}}
	},
	finish: func() ast.Stmt {
		return &ast.ExprStmt{X: &ast.CallExpr{Fun: &ast.SelectorExpr{X: ast.NewIdent("torch"), Sel: ast.NewIdent("FinishGC")}}}
	},
	deferFinish: func() ast.Stmt {
		return &ast.DeferStmt{Call: &ast.CallExpr{Fun: &ast.SelectorExpr{X: ast.NewIdent("torch"), Sel: ast.NewIdent("FinishGC")}}}
	},
	maybe: func() ast.Stmt {
		return &ast.ExprStmt{X: &ast.CallExpr{Fun: &ast.SelectorExpr{X: ast.NewIdent("torch"), Sel: ast.NewIdent("MaybeGC")}}}
	},
}

// deferred is the statement that starts every instrumented body.
const deferred = "defer torch.FinishGC()\n"

// instrumentSource instruments the body of func f in src as MainEntry and
// returns it, formatted, without the func line and braces.
func instrumentSource(t *testing.T, body string) (string, int) {
	t.Helper()
	return instrumentSourceAs(t, body, func(fn *ast.FuncDecl) int { return instrumentFunc(fn, testCalls) })
}

// instrumentSourceAs is instrumentSource with another instrumentation.
func instrumentSourceAs(t *testing.T, body string, instrument func(*ast.FuncDecl) int) (string, int) {
	t.Helper()
	src := "package p\nfunc f() {\n" + body + "\n}\n"
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "p.go", src, 0)
	require.NoError(t, err)
	fn := file.Decls[0].(*ast.FuncDecl)
	n := instrument(fn)
	var b bytes.Buffer
	require.NoError(t, format.Node(&b, token.NewFileSet(), fn.Body))
	out := strings.TrimSuffix(strings.TrimPrefix(b.String(), "{\n"), "}")
	return strings.ReplaceAll(out, "\t", ""), n
}

func TestInstrument(t *testing.T) {
	cases := []struct {
		name, in, want string
		loops          int
		// noDefer: the loops are all in function literals, so MainEntry
		// gets no defer torch.FinishGC().
		noDefer bool
	}{{
		name:  "loop",
		in:    "for i := 0; i < n; i++ { step(i) }\ndone()",
		want:  "for i := 0; i < n; i++ {\ntorch.GC()\nstep(i)\n}\ntorch.FinishGC()\ndone()\n",
		loops: 1,
	}, {
		name:  "range",
		in:    "for _, b := range batches { b.Train() }",
		want:  "for _, b := range batches {\ntorch.GC()\nb.Train()\n}\ntorch.FinishGC()\n",
		loops: 1,
	}, {
		name: "no calls",
		in:   "for i := range xs { s += xs[i] * 2; ys = append(ys, float64(len(xs))); m := map[int]int(nil); _ = m; p := (*int)(nil); _ = p }",
		want: "for i := range xs {\ns += xs[i] * 2\nys = append(ys, float64(len(xs)))\nm := map[int]int(nil)\n_ = m\np := (*int)(nil)\n_ = p\n}\n",
	}, {
		name:  "nested",
		in:    "for e := 0; e < 3; e++ {\nfor b := range bs { step(b) }\neval()\n}",
		want:  "for e := 0; e < 3; e++ {\ntorch.GC()\nfor b := range bs {\ntorch.GC()\nstep(b)\n}\ntorch.FinishGC()\neval()\n}\ntorch.FinishGC()\n",
		loops: 2,
	}, {
		name:  "nested, outer calls only through the inner loop",
		in:    "for e := 0; e < 3; e++ {\nfor b := range bs { step(b) }\n}",
		want:  "for e := 0; e < 3; e++ {\ntorch.GC()\nfor b := range bs {\ntorch.GC()\nstep(b)\n}\ntorch.FinishGC()\n}\ntorch.FinishGC()\n",
		loops: 2,
	}, {
		name:  "labelled break",
		in:    "outer:\nfor i := 0; i < 3; i++ {\nfor j := 0; j < 3; j++ {\nif j == 2 { break outer }\nf(i, j)\n}\n}\nafter()",
		want:  "outer:\nfor i := 0; i < 3; i++ {\ntorch.GC()\nfor j := 0; j < 3; j++ {\ntorch.GC()\nif j == 2 {\nbreak outer\n}\nf(i, j)\n}\ntorch.FinishGC()\n}\ntorch.FinishGC()\nafter()\n",
		loops: 2,
	}, {
		name:  "infinite loop with break",
		in:    "for {\nif !next() { break }\n}",
		want:  "for {\ntorch.GC()\nif !next() {\nbreak\n}\n}\ntorch.FinishGC()\n",
		loops: 1,
	}, {
		name:  "infinite loop without break",
		in:    "for {\nserve()\n}",
		want:  "for {\ntorch.GC()\nserve()\n}\n",
		loops: 1,
	}, {
		name:  "break binds to a switch",
		in:    "for {\nswitch next() {\ncase 1:\nbreak\n}\n}",
		want:  "for {\ntorch.GC()\nswitch next() {\ncase 1:\nbreak\n}\n}\n",
		loops: 1,
	}, {
		name:  "labelled break out of a switch",
		in:    "L:\nfor {\nswitch next() {\ncase 1:\nbreak L\n}\n}",
		want:  "L:\nfor {\ntorch.GC()\nswitch next() {\ncase 1:\nbreak L\n}\n}\ntorch.FinishGC()\n",
		loops: 1,
	}, {
		name:  "break in a nested loop only",
		in:    "for {\nfor range xs { g(); break }\n}",
		want:  "for {\ntorch.GC()\nfor range xs {\ntorch.GC()\ng()\nbreak\n}\ntorch.FinishGC()\n}\n",
		loops: 2,
	}, {
		name:  "go for-in over an iterator",
		in:    "for it := l.Gop_Enum(); ; {\nvar ok bool\nx, ok := it.Next()\nif !ok {\nbreak\n}\nuse(x)\n}",
		want:  "for it := l.Gop_Enum(); ; {\ntorch.GC()\nvar ok bool\nx, ok := it.Next()\nif !ok {\nbreak\n}\nuse(x)\n}\ntorch.FinishGC()\n",
		loops: 1,
	}, {
		name:  "loops in if, else, switch and select",
		in:    "if c { for range a { f() } } else { for range b { g() } }\nswitch { case c: for range a { f() } }\nselect { case <-ch: for range a { f() } }",
		want:  "if c {\nfor range a {\ntorch.GC()\nf()\n}\ntorch.FinishGC()\n} else {\nfor range b {\ntorch.GC()\ng()\n}\ntorch.FinishGC()\n}\nswitch {\ncase c:\nfor range a {\ntorch.GC()\nf()\n}\ntorch.FinishGC()\n}\nselect {\ncase <-ch:\nfor range a {\ntorch.GC()\nf()\n}\ntorch.FinishGC()\n}\n",
		loops: 4,
	}, {
		name:    "stored and go'd closures get bounded loops",
		in:      "h := func() { for range a { f() } }\ngo func() { for { f() } }()\nh()",
		want:    "h := func() {\nfor range a {\ntorch.MaybeGC()\nf()\n}\n}\ngo func() {\nfor {\ntorch.MaybeGC()\nf()\n}\n}()\nh()\n",
		loops:   2,
		noDefer: true,
	}, {
		name:    "closures that call nothing are left alone",
		in:      "h := func() { for range a { x++ } }\nNoGrad(func() { for i := range a { s += a[i] } })",
		want:    "h := func() {\nfor range a {\nx++\n}\n}\nNoGrad(func() {\nfor i := range a {\ns += a[i]\n}\n})\n",
		noDefer: true,
	}, {
		name:    "a noGrad evaluation loop is a step loop",
		in:      "gopkg.NoGrad(func() {\nfor it := l.Gop_Enum(); ; {\nx, ok := it.Next()\nif !ok {\nbreak\n}\nuse(x)\n}\n})\ndone()",
		want:    "gopkg.NoGrad(func() {\nfor it := l.Gop_Enum(); ; {\ntorch.GC()\nx, ok := it.Next()\nif !ok {\nbreak\n}\nuse(x)\n}\ntorch.FinishGC()\n})\ndone()\n",
		loops:   1,
		noDefer: true,
	}, {
		name:    "closures called in place, deferred and in noGrad",
		in:      "func() { for range a { f() } }()\ndefer func() { for range a { f() } }()\nNoGrad(func() { for range a { f() } })",
		want:    "func() {\nfor range a {\ntorch.GC()\nf()\n}\ntorch.FinishGC()\n}()\ndefer func() {\nfor range a {\ntorch.GC()\nf()\n}\ntorch.FinishGC()\n}()\nNoGrad(func() {\nfor range a {\ntorch.GC()\nf()\n}\ntorch.FinishGC()\n})\n",
		loops:   3,
		noDefer: true,
	}, {
		name:    "a comprehension that calls",
		in:      "ys := func() (r []int) {\nfor _, x := range xs {\nr = append(r, f(x))\n}\nreturn\n}()",
		want:    "ys := func() (r []int) {\nfor _, x := range xs {\ntorch.GC()\nr = append(r, f(x))\n}\ntorch.FinishGC()\nreturn\n}()\n",
		loops:   1,
		noDefer: true,
	}, {
		name:    "callbacks get bounded loops",
		in:      "l.SetTransform(func(x T) T {\nfor range 3 {\nx = f(x)\n}\nreturn x\n})",
		want:    "l.SetTransform(func(x T) T {\nfor range 3 {\ntorch.MaybeGC()\nx = f(x)\n}\nreturn x\n})\n",
		loops:   1,
		noDefer: true,
	}, {
		name:    "a closure in a bounded closure is bounded, even called in place",
		in:      "h := func() {\nNoGrad(func() { for range a { f() } })\n}",
		want:    "h := func() {\nNoGrad(func() {\nfor range a {\ntorch.MaybeGC()\nf()\n}\n})\n}\n",
		loops:   1,
		noDefer: true,
	}, {
		name:  "noGrad inside an epoch loop",
		in:    "for e := range 3 {\ntrain()\nNoGrad(func() {\nfor _, b := range test { eval(b) }\n})\n}",
		want:  "for e := range 3 {\ntorch.GC()\ntrain()\nNoGrad(func() {\nfor _, b := range test {\ntorch.GC()\neval(b)\n}\ntorch.FinishGC()\n})\n}\ntorch.FinishGC()\n",
		loops: 2,
	}, {
		name:  "a loop in a goroutine's closure in a loop",
		in:    "for range a {\ngo func() {\nfor range b { f() }\n}()\n}",
		want:  "for range a {\ntorch.GC()\ngo func() {\nfor range b {\ntorch.MaybeGC()\nf()\n}\n}()\n}\ntorch.FinishGC()\n",
		loops: 2,
	}, {
		name:  "calling a closure counts",
		in:    "for range a { func() { x++ }() }",
		want:  "for range a {\ntorch.GC()\nfunc() {\nx++\n}()\n}\ntorch.FinishGC()\n",
		loops: 1,
	}, {
		name:  "return inside",
		in:    "for _, x := range xs {\nif x == 2 { return }\nf(x)\n}",
		want:  "for _, x := range xs {\ntorch.GC()\nif x == 2 {\nreturn\n}\nf(x)\n}\ntorch.FinishGC()\n",
		loops: 1,
	}, {
		name:  "return from a nested loop",
		in:    "for e := range 3 {\nfor _, b := range bs {\nif bad(b) { return }\nstep(b)\n}\n}",
		want:  "for e := range 3 {\ntorch.GC()\nfor _, b := range bs {\ntorch.GC()\nif bad(b) {\nreturn\n}\nstep(b)\n}\ntorch.FinishGC()\n}\ntorch.FinishGC()\n",
		loops: 2,
	}, {
		name:  "labelled continue reaches the outer GC",
		in:    "outer:\nfor e := range 3 {\nfor _, b := range bs {\nif skip(b) { continue outer }\nstep(b)\n}\n}",
		want:  "outer:\nfor e := range 3 {\ntorch.GC()\nfor _, b := range bs {\ntorch.GC()\nif skip(b) {\ncontinue outer\n}\nstep(b)\n}\ntorch.FinishGC()\n}\ntorch.FinishGC()\n",
		loops: 2,
	}, {
		name:  "goto out of a loop",
		in:    "for _, b := range bs {\nif bad(b) { goto fail }\nstep(b)\n}\nreturn\nfail:\nreport()",
		want:  "for _, b := range bs {\ntorch.GC()\nif bad(b) {\ngoto fail\n}\nstep(b)\n}\ntorch.FinishGC()\nreturn\nfail:\nreport()\n",
		loops: 1,
	}, {
		name:  "panic inside",
		in:    "for _, b := range bs {\nif bad(b) { panic(b) }\nstep(b)\n}",
		want:  "for _, b := range bs {\ntorch.GC()\nif bad(b) {\npanic(b)\n}\nstep(b)\n}\ntorch.FinishGC()\n",
		loops: 1,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, n := instrumentSource(t, c.in)
			want := c.want
			if c.loops > 0 && !c.noDefer {
				want = deferred + want
			}
			assert.Equal(t, want, got)
			assert.Equal(t, c.loops, n)
		})
	}
}

// TestInstrumentOtherFuncs: a script func gets step loops without a
// deferred FinishGC; model methods and other functions get bounded loops,
// and their literals too.
func TestInstrumentOtherFuncs(t *testing.T) {
	const in = "for i := range n {\nx = f(x)\n}\nNoGrad(func() { for range a { g() } })\nfor range a { a++ }"
	got, n := instrumentSourceAs(t, in, func(fn *ast.FuncDecl) int { return instrumentDecl(fn, stepLoops, false, testCalls) })
	assert.Equal(t, "for i := range n {\ntorch.GC()\nx = f(x)\n}\ntorch.FinishGC()\nNoGrad(func() {\nfor range a {\ntorch.GC()\ng()\n}\ntorch.FinishGC()\n})\nfor range a {\na++\n}\n", got, "script func")
	assert.Equal(t, 2, n)

	got, n = instrumentSourceAs(t, in, func(fn *ast.FuncDecl) int { return instrumentDecl(fn, boundedLoops, false, testCalls) })
	assert.Equal(t, "for i := range n {\ntorch.MaybeGC()\nx = f(x)\n}\nNoGrad(func() {\nfor range a {\ntorch.MaybeGC()\ng()\n}\n})\nfor range a {\na++\n}\n", got, "model method")
	assert.Equal(t, 2, n)
}

// funcDecl returns the function or method name of a generated file,
// formatted without comments.
func funcDecl(t *testing.T, file, name string) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	require.NoError(t, err)
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == name {
			var b bytes.Buffer
			require.NoError(t, format.Node(&b, token.NewFileSet(), fd))
			return b.String()
		}
	}
	t.Fatalf("no func %s in %s", name, file)
	return ""
}

// liveAt parses the lines "label i live" of out into live by i.
func liveAt(t *testing.T, out, label string) map[int]int64 {
	t.Helper()
	live := map[int]int64{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != label {
			continue
		}
		i, err := strconv.Atoi(f[1])
		require.NoError(t, err, line)
		n, err := strconv.ParseInt(f[2], 10, 64)
		require.NoError(t, err, line)
		live[i] = n
	}
	return live
}

// TestEvalLoopInNoGrad compiles testdata/evalloop, whose evaluation loop
// (noGrad => { for x, y in testLoader { ... } }) and script func walk
// make tensors that only the collector frees, and runs it: the live
// tensors after 500 batches and 500 steps are what they were after 10.
// Before gop-torch instrumented closures and script funcs, they grew by
// about 6 a batch (docs/memory.md).
func TestEvalLoopInNoGrad(t *testing.T) {
	dir := workCopy(t, "evalloop")
	rs, err := sharedTranslator(t).translate(dir)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	gen := filepath.Join(dir, autogenFile)
	assert.Regexp(t, `NoGrad\(func\(\) \{\n(?s:.*)XGo_Enum\(\); ; \{\n\t+torch\.GC\(\)\n(?s:.*)\n\t\t\}\n\t\ttorch\.FinishGC\(\)\n`, funcDecl(t, gen, "MainEntry"), "the noGrad loop")
	assert.Regexp(t, `i\+\+ \{\n\t+torch\.GC\(\)\n`, funcDecl(t, gen, "walk"), "the script func's loop")

	rel, err := filepath.Rel(mustAbs(t, moduleRoot), dir)
	require.NoError(t, err)
	// Every GC() collects, so that the live count after it is exact: a
	// paced GC() (torch.SetGCPercent) lets a few dead tensors wait, and
	// the count would vary by them.
	t.Setenv("GOTORCH_GC_PERCENT", "0")
	out, err := goCmd(t, "run", "./"+filepath.ToSlash(rel), "-progress=false")
	require.NoError(t, err, out)
	assert.Contains(t, out, "eval done 500 true\n")
	assert.Contains(t, out, "acc [16] true\n", "the accumulator survived the GC() calls")
	assert.Contains(t, out, "walk done [1 16]\n")
	for _, label := range []string{"eval", "walk"} {
		live := liveAt(t, out, label)
		require.Contains(t, live, 10, out)
		require.Contains(t, live, 500, out)
		t.Logf("%s: %d live tensors at 10, %d at 500", label, live[10], live[500])
		for i := 100; i <= 500; i += 100 {
			assert.InDelta(t, live[10], live[i], 2, "%s: live tensors at %d against 10", label, i)
		}
	}
}

// TestLoopInModelMethod compiles testdata/loopmodel, a model whose Walk
// method loops, and runs its Go test (walker_test.go): 20,000 iterations
// stay bounded by torch.MaybeGC().
func TestLoopInModelMethod(t *testing.T) {
	dir := workCopy(t, "loopmodel")
	rs, err := sharedTranslator(t).translate(dir)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.Equal(t, 1, rs[0].Loops)
	assert.False(t, rs[0].Entry)
	walk := funcDecl(t, filepath.Join(dir, autogenFile), "Walk")
	assert.Regexp(t, `i\+\+ \{\n\t+torch\.MaybeGC\(\)\n`, walk)
	assert.NotContains(t, walk, "torch.GC()")
	assert.NotContains(t, walk, "torch.FinishGC()")

	rel, err := filepath.Rel(mustAbs(t, moduleRoot), dir)
	require.NoError(t, err)
	out, err := goCmd(t, "test", "-count=1", "-v", "./"+filepath.ToSlash(rel))
	require.NoError(t, err, out)
	assert.Contains(t, out, "--- PASS: TestWalkIsBounded")
}
