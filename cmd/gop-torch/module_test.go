package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// GoTorch used from another module, as issue 20 found it: a module in a
// temporary directory that requires GoTorch through a replace line to
// this checkout. The go commands run offline (GOPROXY=off) on the shared
// module cache: everything the new module needs is what GoTorch needs.

// newModule runs gop-torch init in a new temporary directory.
func newModule(t *testing.T) string {
	t.Helper()
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GOWORK", "off")
	root, err := filepath.Abs(moduleRoot)
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "fresh")
	var stdout, stderr bytes.Buffer
	rc := run([]string{"init", "-dir", dir, "-replace", root, "example.com/fresh"}, &stdout, &stderr)
	require.Equal(t, 0, rc, "%s%s", stdout.String(), stderr.String())
	return dir
}

func inDir(t *testing.T, dir, name string, args ...string) (string, error) {
	t.Helper()
	c := exec.Command(name, args...)
	c.Dir = dir
	out, err := c.CombinedOutput()
	return string(out), err
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

// TestFreshModule is the CI test of issue 20: gop-torch init, then go tool
// gop-torch run trains the skeleton for a few batches, a plain Go program
// builds against the generated model without any Go+ package, and an
// edited .gox makes go test and gop-torch check fail. It links three
// libtorch programs: 2 minutes on the shared 2-core machine, warm caches.
func TestFreshModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a module: not in -short mode")
	}
	start := time.Now()
	dir := newModule(t)
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	assert.Contains(t, string(gomod), "require github.com/gotorch/gotorch v0.0.0 //gop:class\n")
	assert.Contains(t, string(gomod), "tool github.com/gotorch/gotorch/cmd/gop-torch\n")
	assert.Contains(t, string(gomod), "replace github.com/gotorch/gotorch => ")

	out, err := inDir(t, dir, "go", "tool", "gop-torch", "run", ".", "-epochs", "1", "-limit-batches", "3", "-progress=false")
	require.NoError(t, err, out)
	assert.Contains(t, out, "(hidden): Linear(in_features=784, out_features=128, bias=True)")
	assert.Contains(t, out, "epoch 1 test loss ")
	assert.NotContains(t, out, "warning")
	t.Logf("init and go tool gop-torch run: %v", time.Since(start))

	// A plain Go importer: builds, and Go+ is not among its packages.
	out, err = inDir(t, dir, "go", "build", "-o", os.DevNull, "./cmd/predict")
	require.NoError(t, err, out)
	out, err = inDir(t, dir, "go", "list", "-deps", "./cmd/predict")
	require.NoError(t, err, out)
	assert.Contains(t, out, "example.com/fresh/models\n")
	assert.Contains(t, out, "github.com/gotorch/gotorch/torch\n")
	assert.NotContains(t, out, "github.com/goplus")

	// A .gox edited and gop-torch not run again: gop-torch check and the
	// generated test say so.
	model := filepath.Join(dir, "models", "Net_model.gox")
	src, err := os.ReadFile(model)
	require.NoError(t, err)
	t.Logf("plain Go importer built and listed: %v", time.Since(start))
	writeFile(t, model, strings.Replace(string(src), "128", "64", -1))
	out, err = inDir(t, dir, "go", "test", "./models")
	require.Error(t, err, out)
	assert.Contains(t, out, "gop_autogen.go is stale: the Go+ files (Net_model.gox) changed")
	var stdout, stderr bytes.Buffer
	rc := run([]string{"check", filepath.Join(dir, "...")}, &stdout, &stderr)
	assert.Equal(t, 1, rc)
	assert.Contains(t, stderr.String(), "models: gop_autogen.go is stale")
	t.Logf("total: %v", time.Since(start))
}

// TestCheckGoModClassComment: the require of GoTorch without //gop:class,
// or with go mod tidy's "// indirect; gop:class", gets //gop:class; a
// module that does not require GoTorch gets the lines to add.
func TestCheckGoModClassComment(t *testing.T) {
	for _, line := range []string{
		"require github.com/gotorch/gotorch v0.0.0",
		"require github.com/gotorch/gotorch v0.0.0 // indirect; gop:class",
		"require github.com/gotorch/gotorch v0.0.0 // indirect",
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/m\n\ngo 1.24\n\n"+line+"\n")
		writeFile(t, filepath.Join(dir, "Net_model.gox"), "package m\n")
		var w bytes.Buffer
		require.NoError(t, checkGoMod(dir, dir, &w), line)
		got, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		require.NoError(t, err)
		assert.Contains(t, string(got), "require github.com/gotorch/gotorch v0.0.0 //gop:class\n", line)
		assert.Contains(t, w.String(), "//gop:class", line)
		assert.Contains(t, w.String(), "the require of github.com/gotorch/gotorch", line)
	}

	dir := t.TempDir()
	const ok = "module example.com/m\n\ngo 1.24\n\nrequire github.com/gotorch/gotorch v0.0.0 //gop:class\n"
	writeFile(t, filepath.Join(dir, "go.mod"), ok)
	var w bytes.Buffer
	require.NoError(t, checkGoMod(dir, dir, &w))
	got, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	assert.Equal(t, ok, string(got))
	assert.Empty(t, w.String())

	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/m\n\ngo 1.24\n")
	writeFile(t, filepath.Join(dir, "main_train.gox"), "echo 1\n")
	err = checkGoMod(dir, dir, &w)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "require github.com/gotorch/gotorch VERSION //gop:class")
	assert.Contains(t, err.Error(), "tool github.com/gotorch/gotorch/cmd/gop-torch")
}

// TestImportTypo: an import that names no package is an error at the
// import's file and line, found before anything is compiled.
func TestImportTypo(t *testing.T) {
	dir := newModule(t)
	for _, c := range []struct{ imp, want string }{
		{"example.com/fresh/modelz", `main_train.gox:2:8: cannot import "example.com/fresh/modelz": no Go or Go+ files in `},
		{"fmtx", `main_train.gox:2:8: cannot import "fmtx": package fmtx is not in std`},
	} {
		writeFile(t, filepath.Join(dir, "main_train.gox"), "// A typo.\nimport \""+c.imp+"\"\n\necho 1\n")
		var stdout, stderr bytes.Buffer
		start := time.Now()
		rc := run([]string{"go", dir}, &stdout, &stderr)
		assert.Equal(t, 1, rc)
		assert.Contains(t, stderr.String(), c.want)
		assert.NotContains(t, stderr.String(), "no Go+ files")
		assert.Less(t, time.Since(start), 30*time.Second, "found before the build")
	}
}

// TestMissingGoSum: a go.sum without the entries of what the .gox files
// import (as go mod tidy leaves it) gets them from GoTorch's go.sum, and
// go.mod the requirements, before the build.
func TestMissingGoSum(t *testing.T) {
	dir := newModule(t)
	sum := filepath.Join(dir, "go.sum")
	data, err := os.ReadFile(sum)
	require.NoError(t, err)
	var kept []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "github.com/goplus/") || strings.HasPrefix(l, "github.com/qiniu/x ") || strings.HasPrefix(l, "golang.org/x/mod ") {
			kept = append(kept, l)
		}
	}
	writeFile(t, sum, strings.Join(kept, "\n")+"\n")
	out, err := inDir(t, dir, "go", "list", "-mod=readonly", "-deps", "github.com/gotorch/gotorch/classfile")
	require.Error(t, err)
	require.Contains(t, out, "missing go.sum entry")

	tr, err := newTranslator(dir)
	require.NoError(t, err)
	var w bytes.Buffer
	require.NoError(t, tr.checkDeps(dir, &w))
	assert.Contains(t, w.String(), "go.sum: added ")
	data, err = os.ReadFile(sum)
	require.NoError(t, err)
	assert.Contains(t, string(data), "github.com/schollz/progressbar/v3 v3.18.0 h1:")
	out, err = inDir(t, dir, "go", "list", "-mod=readonly", "-deps", "github.com/gotorch/gotorch/classfile")
	require.NoError(t, err, out)
}

// TestCheckStale: gop-torch check compares the hash in gop_autogen.go
// with the Go+ files.
func TestCheckStale(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "Net_model.gox"), "package m\n")
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 1, checkStale([]string{dir}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "no gop_autogen.go")

	gen, err := stampSources([]byte("// Code generated by gogen; DO NOT EDIT.\n\npackage m\n"), dir)
	require.NoError(t, err)
	writeFile(t, filepath.Join(dir, autogenFile), string(gen))
	stderr.Reset()
	assert.Equal(t, 0, checkStale([]string{dir}, &stdout, &stderr), stderr.String())

	writeFile(t, filepath.Join(dir, "Other_model.gox"), "package m\n")
	assert.Equal(t, 1, checkStale([]string{dir + "/..."}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "gop_autogen.go is stale")

	// Tests are not sources.
	require.NoError(t, os.Remove(filepath.Join(dir, "Other_model.gox")))
	writeFile(t, filepath.Join(dir, "x_test.gox"), "echo 1\n")
	stderr.Reset()
	assert.Equal(t, 0, checkStale([]string{dir}, &stdout, &stderr), stderr.String())
}
