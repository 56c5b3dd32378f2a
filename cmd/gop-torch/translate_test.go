package main

import (
	"bytes"
	"errors"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests compile Go+ with gop's libraries (about half a minute from
// a cold build cache, a few seconds warm) and build the results with go,
// which needs libtorch. They share one translator, whose importer caches
// the packages it loads.

const moduleRoot = "../.."

var shared struct {
	sync.Mutex
	tr *translator
}

func sharedTranslator(t *testing.T) *translator {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.tr == nil {
		tr, err := newTranslator(moduleRoot)
		require.NoError(t, err)
		shared.tr = tr
	}
	return shared.tr
}

// workCopy copies testdata/name to a new directory in testdata, removed
// when the test ends, so that translating it writes no file into the
// fixture.
func workCopy(t *testing.T, name string) string {
	t.Helper()
	dir, err := os.MkdirTemp("testdata", "_work-"+name+"-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	ents, err := os.ReadDir(filepath.Join("testdata", name))
	require.NoError(t, err)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("testdata", name, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644))
	}
	abs, err := filepath.Abs(dir)
	require.NoError(t, err)
	return abs
}

// mainEntry returns the MainEntry method of a generated file, formatted
// without comments.
func mainEntry(t *testing.T, file string) string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	require.NoError(t, err)
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "MainEntry" {
			var b bytes.Buffer
			require.NoError(t, format.Node(&b, token.NewFileSet(), fd))
			return b.String()
		}
	}
	t.Fatalf("no MainEntry in %s", file)
	return ""
}

func goCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	c := exec.Command("go", args...)
	c.Dir = moduleRoot
	out, err := c.CombinedOutput()
	return string(out), err
}

const loopsMainEntry = `func (this *Trainer) MainEntry() {
	defer torch.FinishGC()
	xs := []int{1, 2, 3}
	sum := 0
	for _, x := range xs {
		sum += x
	}
	for i := 0; i < 3; i += 1 {
		torch.GC()
		fmt.Println(i)
	}
	torch.FinishGC()
outer:
	for i := 0; i < 3; i++ {
		torch.GC()
		for j := 0; j < 3; j += 1 {
			torch.GC()
			if j == 2 {
				break outer
			}
			if j == 1 {
				continue outer
			}
			fmt.Println(i, j)
		}
		torch.FinishGC()
	}
	torch.FinishGC()
	for {
		torch.GC()
		sum++
		fmt.Println(sum)
		if sum > 10 {
			break
		}
	}
	torch.FinishGC()
	if sum > 0 {
		for k, v := range map[string]int{"a": 1} {
			torch.GC()
			fmt.Println(k, v)
		}
		torch.FinishGC()
	}
	f := func() {
		for i := 0; i < 2; i += 1 {
			torch.MaybeGC()
			fmt.Println(i)
		}
	}
	f()
	squares := func() (_xgo_ret []int) {
		for _, x := range xs {
			_xgo_ret = append(_xgo_ret, x*x)
		}
		return
	}()
	fmt.Println(squares)
	for i := 0; i < 2; i += 1 {
		torch.GC()
		switch i {
		case 0:
			for j := 0; j < 1; j += 1 {
				torch.GC()
				fmt.Println(j)
			}
			torch.FinishGC()
		}
	}
	torch.FinishGC()
	for _, x := range xs {
		torch.GC()
		if x == 2 {
			return
		}
		fmt.Println(x)
	}
	torch.FinishGC()
}`

func TestTranslateLoops(t *testing.T) {
	dir := workCopy(t, "loops")
	rs, err := sharedTranslator(t).translate(dir)
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.True(t, rs[0].Changed)
	assert.True(t, rs[0].Entry)
	assert.Equal(t, 9, rs[0].Loops)

	gen := filepath.Join(dir, autogenFile)
	assert.Equal(t, loopsMainEntry, mainEntry(t, gen))
	src, err := os.ReadFile(gen)
	require.NoError(t, err)
	assert.Contains(t, string(src), `"github.com/gotorch/gotorch/torch"`, "torch is imported for the calls")
	assert.Contains(t, string(src), "func (this *Trainer) GopTorchInstrumented() string {\n\treturn \"gop-torch v0.1.0 (9 loops)\"\n}")
	assert.Contains(t, string(src), "//line cmd/gop-torch/testdata/_work-loops-", "line directives point at the .gox file")

	// A second translation finds nothing to change (the shared
	// translator, as a new command gets it: nothing translated yet).
	tr2, err := testTranslatorFor(dir)
	require.NoError(t, err)
	rs, err = tr2.translate(dir)
	require.NoError(t, err)
	assert.False(t, rs[0].Changed)

	// The Go builds, and the Trainer sees the marker: no warning.
	rel, err := filepath.Rel(mustAbs(t, moduleRoot), dir)
	require.NoError(t, err)
	out, err := goCmd(t, "run", "./"+filepath.ToSlash(rel))
	require.NoError(t, err, out)
	assert.NotContains(t, out, "not compiled by gop-torch")
	assert.True(t, strings.HasPrefix(out, "0\n1\n2\n0 0\n1 0\n2 0\n"), out)
	assert.True(t, strings.HasSuffix(out, "\n7\n8\n9\n10\n11\na 1\n0\n1\n[1 4 9]\n0\n1\n"), "stops at the return: %q", out)
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	require.NoError(t, err)
	return a
}

func TestTypeErrors(t *testing.T) {
	dir := workCopy(t, "typeerr")
	_, err := sharedTranslator(t).translate(dir)
	var ce *CompileError
	require.True(t, errors.As(err, &ce), "want a *CompileError, got %v", err)
	require.Len(t, ce.Errs, 2)
	assert.Contains(t, ce.Errs[0], "main_train.gox:4:13: cannot use x (type github.com/gotorch/gotorch/torch.Tensor) as type int")
	assert.Contains(t, ce.Errs[1], `main_train.gox:6:8: cannot use "three"`)
	assert.NoFileExists(t, filepath.Join(dir, autogenFile))

	var stdout, stderr bytes.Buffer
	assert.Equal(t, 1, run([]string{"go", dir}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "does not compile:\n\t")
	assert.Contains(t, stderr.String(), "main_train.gox:4:13")
	assert.NotContains(t, stderr.String(), "panic")
}

// The committed xgo_autogen.go files of the examples are what gop-torch
// makes of them now. In -short mode (make test) it is left to make
// test-long: translating inside GoTorch's own module parses the torch
// package's source once per example (XGo's importer, for packages of the
// main module), 37 s under -race; make test still checks every example's
// xgo_autogen.go against its .gox files (the hash test gop-torch writes
// beside it, xgo_autogen_uptodate_test.go).
func TestExamplesUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("translates the examples again: make test-long")
	}
	tr := sharedTranslator(t)
	// Every folder of the module that holds a committed xgo_autogen.go: a
	// change to gop-torch's translation, which the hash test does not see,
	// shows here.
	var dirs []string
	require.NoError(t, filepath.WalkDir(moduleRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n := d.Name()
		if d.IsDir() && p != moduleRoot && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
			return filepath.SkipDir
		}
		if n == "xgo_autogen.go" {
			rel, err := filepath.Rel(moduleRoot, filepath.Dir(p))
			require.NoError(t, err)
			dirs = append(dirs, rel)
		}
		return nil
	}))
	require.GreaterOrEqual(t, len(dirs), 16, "the examples' xgo_autogen.go files: %v", dirs)
	for _, dir := range dirs {
		rs, err := tr.translate(filepath.Join(moduleRoot, dir))
		require.NoError(t, err, dir)
		for _, r := range rs {
			assert.False(t, r.Changed, "%s was out of date; rewritten: commit it", r.Dir)
		}
	}
}

// Plain Go imports a model package that gop-torch generated, with no Go+
// package in its build.
func TestPlainGoImport(t *testing.T) {
	out, err := goCmd(t, "build", "-o", filepath.Join(t.TempDir(), "plaingo"), "./examples/fashion_mnist/plaingo")
	require.NoError(t, err, out)
	out, err = goCmd(t, "list", "-deps", "./examples/fashion_mnist/plaingo")
	require.NoError(t, err, out)
	assert.Contains(t, out, "github.com/gotorch/gotorch/examples/fashion_mnist/cnn")
	assert.NotContains(t, out, "github.com/goplus")
}

// The tensor example runs, and Go+ picked the intended overloads.
func TestRunTensorsExample(t *testing.T) {
	var stdout, stderr bytes.Buffer
	rc := run([]string{"run", filepath.Join(moduleRoot, "examples/gop_tensors")}, &stdout, &stderr)
	require.Equal(t, 0, rc, stderr.String())
	out := stdout.String()
	for _, want := range []string{
		"a torch.int64 [3]\n",
		"b torch.float32 [2 2]\n",
		"f64 torch.float64\n",
		"ones [2 3] [2 2] [4]\n",
		"arange tensor([0, 1, 2, 3]) tensor([1, 2, 3]) tensor([0, 3, 6, 9])\n",
		"arangef torch.float32 torch.float32\n",
		"full torch.int64 torch.float32\n",
		"int ops torch.int64 torch.int64 torch.float32 torch.float32\n",
		"neg tensor([-1, -2, -3])\n",
		"mask tensor([False,  True, False])\n",
		"var tensor([3, 6, 9])\n",
		"inplace tensor([3., 3.])\n",
		"total tensor(3.)\n",
		"argmax tensor(3) tensor([1, 1]) tensor([1, 1]) [2 1]\n",
		"view [4] [4 1] [3 1] [2 12]\n",
		"msum tensor(10.) tensor([4., 6.]) [2 1] tensor([1.5000, 3.5000])\n",
		"mmax tensor(4.) tensor([2., 4.]) tensor([1, 1]) tensor([1., 2.])\n",
		"mview [4] [4 1] [3 1] [2 12]\n",
		"mshape [1 2 3] [2 3] [2 3] [2 2]\n",
		"y 9 grad tensor([1., 2., 3.])\n",
		"descent true\n",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, stderr.String(), "warning")
}

func TestCLI(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, run([]string{"version"}, &stdout, &stderr))
	assert.Contains(t, stdout.String(), "gop-torch v")
	assert.Contains(t, stdout.String(), "xgo v1.6.1")

	stderr.Reset()
	assert.Equal(t, 2, run(nil, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "usage:")
	stderr.Reset()
	assert.Equal(t, 2, run([]string{"frobnicate"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), `unknown command "frobnicate"`)
	stderr.Reset()
	assert.Equal(t, 2, run([]string{"run", "-race"}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "no directory")
	stderr.Reset()
	assert.Equal(t, 1, run([]string{"go", "testdata/missing"}, &stdout, &stderr))
	stderr.Reset()
	assert.Equal(t, 1, run([]string{"build", "."}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "has no XGo files")

	flags, dir, rest, err := splitArgs([]string{"-race", "-o", "bin", "./x", "-epochs", "1"})
	require.NoError(t, err)
	assert.Equal(t, []string{"-race", "-o", "bin"}, flags)
	assert.Equal(t, "./x", dir)
	assert.Equal(t, []string{"-epochs", "1"}, rest)
}

// An error names its file relative to the working directory, wherever
// gop-torch runs: gop names a syntax error's file relative to the working
// directory and a type error's relative to the module's root, and both
// used to come out joined to the wrong one (/module/main_train.gox for a
// script in /module/dir, run from there).
func TestErrorFileNames(t *testing.T) {
	for _, tc := range []struct{ fixture, pos string }{
		{"syntaxerr", "main_train.gox:4:12: "},
		{"typeerr", "main_train.gox:4:13: "},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			dir := mustAbs(t, workCopy(t, tc.fixture))
			for _, from := range []struct{ wd, arg, want string }{
				{dir, ".", tc.pos},
				{filepath.Dir(dir), filepath.Base(dir), filepath.Join(filepath.Base(dir), tc.pos)},
				{t.TempDir(), dir, filepath.Join(dir, tc.pos)},
			} {
				t.Chdir(from.wd)
				var stdout, stderr bytes.Buffer
				assert.Equal(t, 1, run([]string{"go", from.arg}, &stdout, &stderr))
				assert.Contains(t, stderr.String(), "does not compile:\n\t"+from.want, "from %s", from.wd)
			}
		})
	}
}
