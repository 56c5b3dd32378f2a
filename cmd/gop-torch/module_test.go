package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// GoTorch used from another module, as issue 20 found it: a module in a
// temporary directory that requires GoTorch through a replace line to
// this checkout. The go commands run offline (GOPROXY=off) on the shared
// module cache: everything the new module needs is what GoTorch needs.

// withModMod is the environment's GOFLAGS plus -mod=mod: the Makefile's
// -tags=gotorch_prebuilt (scripts/prebuilt.sh) must reach the builds the
// tests start, or each would compile the bindings' C++ again.
func withModMod() string {
	return strings.TrimSpace(os.Getenv("GOFLAGS") + " -mod=mod")
}

// newModule runs gop-torch init in a new temporary directory.
func newModule(t *testing.T) string {
	t.Helper()
	downloadModules(t)
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", withModMod())
	t.Setenv("GOWORK", "off")
	root, err := filepath.Abs(moduleRoot)
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "fresh")
	var stdout, stderr bytes.Buffer
	rc := run([]string{"init", "-dir", dir, "-replace", root, "example.com/fresh"}, &stdout, &stderr)
	require.Equal(t, 0, rc, "%s%s", stdout.String(), stderr.String())
	return dir
}

var (
	downloadOnce sync.Once
	downloadErr  error
	downloadOut  []byte
)

// downloadModules fills the module cache with GoTorch's dependencies
// (go mod download, through the configured proxy) before the tests turn
// the proxy off: on a fresh machine whose cache holds only what earlier
// builds needed, the modules of packages not yet built (progressbar, say)
// are missing, and go list then fails with "module lookup disabled by
// GOPROXY=off" instead of the go.sum errors the tests are about (issue 40:
// TestMissingGoSum failed in a fresh Debian 13 root).
func downloadModules(t *testing.T) {
	t.Helper()
	downloadOnce.Do(func() {
		root, err := filepath.Abs(moduleRoot)
		if err != nil {
			downloadErr = err
			return
		}
		c := exec.Command("go", "mod", "download")
		c.Dir = root
		c.Env = append(os.Environ(), "GOFLAGS="+withModMod())
		downloadOut, downloadErr = c.CombinedOutput()
	})
	require.NoError(t, downloadErr, "go mod download in GoTorch's module: %s", downloadOut)
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
	assert.Contains(t, string(gomod), "require github.com/gotorch/gotorch v0.0.0 //xgo:class\n")
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
	assert.Contains(t, out, "xgo_autogen.go is stale: the XGo files (Net_model.gox) changed")
	var stdout, stderr bytes.Buffer
	rc := run([]string{"check", filepath.Join(dir, "...")}, &stdout, &stderr)
	assert.Equal(t, 1, rc)
	assert.Contains(t, stderr.String(), "models: xgo_autogen.go is stale")
	t.Logf("total: %v", time.Since(start))
}

// TestCheckGoModClassComment: the require of GoTorch without //xgo:class,
// or with go mod tidy's "// indirect; xgo:class", gets //xgo:class; a
// module that does not require GoTorch gets the lines to add.
func TestCheckGoModClassComment(t *testing.T) {
	for _, line := range []string{
		"require github.com/gotorch/gotorch v0.0.0",
		"require github.com/gotorch/gotorch v0.0.0 // indirect; gop:class",
		"require github.com/gotorch/gotorch v0.0.0 // indirect; xgo:class",
		"require github.com/gotorch/gotorch v0.0.0 // indirect",
	} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/m\n\ngo 1.24\n\n"+line+"\n")
		writeFile(t, filepath.Join(dir, "Net_model.gox"), "package m\n")
		var w bytes.Buffer
		require.NoError(t, checkGoMod(dir, dir, &w), line)
		got, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		require.NoError(t, err)
		assert.Contains(t, string(got), "require github.com/gotorch/gotorch v0.0.0 //xgo:class\n", line)
		assert.Contains(t, w.String(), "//xgo:class", line)
		assert.Contains(t, w.String(), "the require of github.com/gotorch/gotorch", line)
	}

	// //xgo:class, and gop v1.4's //gop:class, which XGo reads too, are
	// left as they are.
	dir := t.TempDir()
	var w bytes.Buffer
	for _, comment := range []string{"//xgo:class", "//gop:class"} {
		ok := "module example.com/m\n\ngo 1.24\n\nrequire github.com/gotorch/gotorch v0.0.0 " + comment + "\n"
		writeFile(t, filepath.Join(dir, "go.mod"), ok)
		require.NoError(t, checkGoMod(dir, dir, &w))
		got, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		require.NoError(t, err)
		assert.Equal(t, ok, string(got))
		assert.Empty(t, w.String())
	}

	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/m\n\ngo 1.24\n")
	writeFile(t, filepath.Join(dir, "main_train.gox"), "echo 1\n")
	err := checkGoMod(dir, dir, &w)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "require github.com/gotorch/gotorch VERSION //xgo:class")
	assert.Contains(t, err.Error(), "tool github.com/gotorch/gotorch/cmd/gop-torch")
}

// TestImportTypo: an import that names no package is an error at the
// import's file and line, found before anything is compiled.
func TestImportTypo(t *testing.T) {
	dir := newModule(t)
	for _, c := range []struct{ imp, want string }{
		{"example.com/fresh/modelz", `main_train.gox:2:8: cannot import "example.com/fresh/modelz": no Go or XGo files in `},
		{"fmtx", `main_train.gox:2:8: cannot import "fmtx": package fmtx is not in std`},
	} {
		writeFile(t, filepath.Join(dir, "main_train.gox"), "// A typo.\nimport \""+c.imp+"\"\n\necho 1\n")
		var stdout, stderr bytes.Buffer
		rc := run([]string{"go", dir}, &stdout, &stderr)
		assert.Equal(t, 1, rc)
		// The translator's position in the .gox file (go build would name
		// the generated Go file), and no word of a build.
		assert.Contains(t, stderr.String(), c.want)
		assert.NotContains(t, stderr.String(), "no XGo files")
		assert.NotContains(t, stderr.String(), "xgo_autogen.go")
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

// TestCheckStale: gop-torch check compares the hash in xgo_autogen.go
// with the Go+ files.
func TestCheckStale(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "Net_model.gox"), "package m\n")
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 1, checkStale([]string{dir}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "no xgo_autogen.go")

	gen, err := stampSources([]byte("// Code generated by gogen; DO NOT EDIT.\n\npackage m\n"), dir)
	require.NoError(t, err)
	writeFile(t, filepath.Join(dir, autogenFile), string(gen))
	stderr.Reset()
	assert.Equal(t, 0, checkStale([]string{dir}, &stdout, &stderr), stderr.String())

	writeFile(t, filepath.Join(dir, "Other_model.gox"), "package m\n")
	assert.Equal(t, 1, checkStale([]string{dir + "/..."}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "xgo_autogen.go is stale")

	// Tests are not sources.
	require.NoError(t, os.Remove(filepath.Join(dir, "Other_model.gox")))
	writeFile(t, filepath.Join(dir, "x_test.gox"), "echo 1\n")
	stderr.Reset()
	assert.Equal(t, 0, checkStale([]string{dir}, &stdout, &stderr), stderr.String())
}

// xgoVersionWant is the XGo release that gop-torch is built on (go.mod).
const xgoVersionWant = "v1.6.1"

// buildXGo builds the xgo command of XGo xgoVersionWant, as a user would
// (issue 26): go build github.com/goplus/xgo/cmd/xgo in a module that
// requires it (go run …/cmd/xgo@VERSION needs a version listing, which
// the proxy refuses). It returns the binary and XGo's module directory,
// the XGOROOT that a plainly built xgo needs. The build may download
// xgo's own requirements (cobra, fsnotify), so it uses the proxy that the
// test started with, not newModule's GOPROXY=off.
func buildXGo(t *testing.T, proxy string) (bin, root string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "xgobuild")
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/xgobuild\n\ngo 1.24\n\nrequire github.com/goplus/xgo "+xgoVersionWant+"\n")
	env := append(os.Environ(), "GOPROXY="+proxy, "GOFLAGS="+withModMod(), "GOWORK=off", "GONOSUMDB=github.com/goplus")
	goCmd := func(args ...string) string {
		c := exec.Command("go", args...)
		c.Dir, c.Env = dir, env
		out, err := c.CombinedOutput()
		require.NoError(t, err, "go %s: %s", strings.Join(args, " "), out)
		return strings.TrimSpace(string(out))
	}
	goCmd("get", "github.com/goplus/xgo/cmd/xgo@"+xgoVersionWant)
	bin = filepath.Join(dir, "xgo")
	goCmd("build", "-o", bin, "github.com/goplus/xgo/cmd/xgo")
	root = goCmd("list", "-m", "-f", "{{.Dir}}", "github.com/goplus/xgo")
	out, err := exec.Command(bin, "version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "xgo "+xgoVersionWant+" ")
	return bin, root
}

// TestXGoRun is the CI test of issue 26: a module that requires GoTorch
// with //xgo:class (gop-torch init writes it) runs its script through
// gop-torch, instrumented and silent; the same script compiled by plain
// xgo run (XGo v1.6.1) runs too, and says at start-up that it lacks
// GoTorch's loop GC and which command to use; gop-torch check then sees
// that xgo replaced xgo_autogen.go, and gop-torch restores it. The test
// logs what the xgo-compiled program prints. It builds xgo (about a
// minute on a cold cache) and links two libtorch programs.
func TestXGoRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds xgo and runs a module: not in -short mode")
	}
	proxy := os.Getenv("GOPROXY")
	if proxy == "" || proxy == "off" {
		proxy = "https://proxy.golang.org,direct"
	}
	start := time.Now()
	xgo, xgoRoot := buildXGo(t, proxy)
	t.Logf("built %s: %v", xgo, time.Since(start))

	dir := newModule(t)
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	assert.Contains(t, string(gomod), "require github.com/gotorch/gotorch v0.0.0 //xgo:class\n")
	args := []string{".", "-epochs", "1", "-limit-batches", "3", "-progress=false"}

	out, err := inDir(t, dir, "go", append([]string{"tool", "gop-torch", "run"}, args...)...)
	require.NoError(t, err, out)
	assert.Contains(t, out, "epoch 1 test loss ")
	assert.NotContains(t, out, "warning")
	gen, err := os.ReadFile(filepath.Join(dir, "xgo_autogen.go"))
	require.NoError(t, err)
	assert.Contains(t, string(gen), "torch.GC()")
	assert.Contains(t, string(gen), "classfile.XGot_Trainer_Main(this)")
	t.Logf("gop-torch run: %v", time.Since(start))

	c := exec.Command(xgo, append([]string{"run"}, args...)...)
	c.Dir = dir
	c.Env = append(os.Environ(), "XGOROOT="+xgoRoot)
	b, err := c.CombinedOutput()
	xout := string(b)
	t.Logf("xgo run %s prints:\n%s", strings.Join(args, " "), xout)
	require.NoError(t, err, xout)
	assert.Contains(t, xout, "epoch 1 test loss ", "the script runs")
	assert.Contains(t, xout, "gotorch: warning: this script was compiled without GoTorch's loop GC")
	assert.Contains(t, xout, "go run github.com/gotorch/gotorch/cmd/gop-torch run DIR", "names the command to use")
	assert.Less(t, strings.Index(xout, "compiled without GoTorch's loop GC"), strings.Index(xout, "epoch 1"), "at start-up")
	gen, err = os.ReadFile(filepath.Join(dir, "xgo_autogen.go"))
	require.NoError(t, err)
	assert.NotContains(t, string(gen), "torch.GC()", "xgo wrote its own xgo_autogen.go")
	t.Logf("xgo run: %v", time.Since(start))

	var stdout, stderr bytes.Buffer
	assert.Equal(t, 1, run([]string{"check", dir}, &stdout, &stderr))
	assert.Contains(t, stderr.String(), "xgo_autogen.go has no hash of its sources (xgo or gop wrote it")
	stderr.Reset()
	require.Equal(t, 0, run([]string{"go", dir}, &stdout, &stderr), stderr.String())
	gen, err = os.ReadFile(filepath.Join(dir, "xgo_autogen.go"))
	require.NoError(t, err)
	assert.Contains(t, string(gen), "torch.GC()", "gop-torch restored its own")
}
