package main

// gop-torch init: a module that uses GoTorch, with a model and a training
// script that run at once.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

const initUsage = `usage: gop-torch init [-dir DIR] [-replace GOTORCH_DIR] [module-path]

Writes, in DIR (default: the current directory), a go.mod that requires
GoTorch as an XGo classfile module (//xgo:class; gop v1.4 reads the same
line written //gop:class) and has gop-torch as a tool, its go.sum,
and a model (models/Net_model.gox), a training script (main_train.gox) and
a plain Go program that uses the model (cmd/predict). Files that exist
are kept; an existing go.mod gets the lines it lacks. The module path
defaults to DIR's name.

-replace points GoTorch to a local checkout (a replace line). Without it,
a gop-torch built from a checkout uses that checkout, and one run as
go run github.com/gotorch/gotorch/cmd/gop-torch@VERSION requires VERSION.
`

// gotorchSource is where the new module gets GoTorch from.
type gotorchSource struct {
	Version string // the required version
	Replace string // a local directory, or ""
}

// initModule is gop-torch init.
func initModule(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, initUsage) }
	dir := fs.String("dir", ".", "the module's directory")
	replace := fs.String("replace", "", "a local GoTorch checkout to use (a replace line)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return 2
	}
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		return fail(stderr, err)
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return fail(stderr, err)
	}
	modPath := fs.Arg(0)
	src, err := findGotorch(*replace)
	if err != nil {
		return fail(stderr, err)
	}
	written, err := writeModule(abs, modPath, src)
	if err != nil {
		return fail(stderr, err)
	}
	for _, f := range written {
		fmt.Fprintf(stdout, "gop-torch init: wrote %s\n", relPath(filepath.Join(abs, f)))
	}
	// The go.sum entries of what the XGo files import: a go list, nothing
	// compiled.
	if err := checkGoMod(abs, abs, stdout); err != nil {
		return fail(stderr, err)
	}
	tr, err := newTranslator(abs)
	if err != nil {
		return fail(stderr, err)
	}
	if err := tr.checkDeps(abs, stdout); err != nil {
		return fail(stderr, err)
	}
	in := ""
	if rel := relPath(abs); rel != "." {
		in = "cd " + rel + "\n\t"
	}
	fmt.Fprintf(stdout, `
Train the model (the first build compiles GoTorch's libtorch bindings,
which takes minutes; later ones take seconds):

	%sgo tool gop-torch run .
	go tool gop-torch run . -epochs 3 -limit-batches 200

gop-torch writes the Go of each XGo package to its xgo_autogen.go; after
the first run, plain Go builds the model's users, and go mod tidy sees
every import:

	go run ./cmd/predict

Plain xgo run . (XGo v1.6) also works, but compiles the script without
GoTorch's loop GC and says so when it starts; gop-torch needs neither xgo
nor gop.
`, in)
	return 0
}

// findGotorch works out where the new module gets GoTorch from: the
// -replace directory, else the checkout or the version that gop-torch
// was built from.
func findGotorch(replace string) (gotorchSource, error) {
	if replace != "" {
		dir, err := filepath.Abs(replace)
		if err != nil {
			return gotorchSource{}, err
		}
		if !isGotorchRoot(dir) {
			return gotorchSource{}, fmt.Errorf("-replace %s: no go.mod of %s there", replace, gotorchModule)
		}
		return gotorchSource{Version: "v0.0.0", Replace: dir}, nil
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return gotorchSource{}, errors.New("gop-torch has no build information; name a GoTorch checkout with -replace DIR")
	}
	if bi.Main.Path != gotorchModule {
		// go tool gop-torch in a module that requires GoTorch: what that
		// module uses.
		for _, d := range bi.Deps {
			if d.Path != gotorchModule {
				continue
			}
			if r := d.Replace; r != nil && r.Version == "" {
				dir := r.Path
				if !filepath.IsAbs(dir) {
					dir = filepath.Join(mainModuleDir(), dir)
				}
				return gotorchSource{Version: d.Version, Replace: dir}, nil
			}
			return gotorchSource{Version: d.Version}, nil
		}
	}
	// Built from a checkout (go build, go install or go run
	// ./cmd/gop-torch there): the checkout that this file was compiled
	// from. Not a module cache directory (go run ...@VERSION), whose
	// path has the version after an @.
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		dir := filepath.Dir(filepath.Dir(filepath.Dir(file)))
		if isGotorchRoot(dir) && !strings.Contains(filepath.Base(dir), "@") {
			return gotorchSource{Version: "v0.0.0", Replace: dir}, nil
		}
	}
	if v := bi.Main.Version; bi.Main.Path == gotorchModule && v != "" && v != "(devel)" && !strings.Contains(v, "+") {
		return gotorchSource{Version: v}, nil // go run ...@VERSION
	}
	return gotorchSource{}, errors.New("cannot tell which GoTorch to use; name a checkout with -replace DIR")
}

// selfCommand is how the user runs gop-torch: as a tool of their module,
// or as a command of GoTorch's.
func selfCommand() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path != gotorchModule {
		return "go tool gop-torch"
	}
	return "gop-torch"
}

// mainModuleDir is the directory of the go.mod of the working directory.
func mainModuleDir() string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "."
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// isGotorchRoot reports whether dir holds GoTorch's go.mod.
func isGotorchRoot(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	return err == nil && modfile.ModulePath(data) == gotorchModule
}

// writeModule writes the module's go.mod, go.sum and skeleton files in
// dir, keeping those that exist, and returns the names it wrote.
func writeModule(dir, modPath string, src gotorchSource) ([]string, error) {
	var written []string
	gomod := filepath.Join(dir, "go.mod")
	data, err := os.ReadFile(gomod)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if modPath == "" {
			modPath = path.Base(filepath.ToSlash(dir))
		}
		if err := module.CheckImportPath(modPath); err != nil {
			return nil, fmt.Errorf("module path: %w", err)
		}
		data = []byte("module " + modPath + "\n\ngo 1.24\n")
	case err != nil:
		return nil, err
	}
	f, err := modfile.Parse(gomod, data, nil)
	if err != nil {
		return nil, err
	}
	if f.Module == nil {
		return nil, fmt.Errorf("%s has no module line", gomod)
	}
	if modPath != "" && f.Module.Mod.Path != modPath {
		return nil, fmt.Errorf("%s is module %s, not %s", gomod, f.Module.Mod.Path, modPath)
	}
	modPath = f.Module.Mod.Path
	if modPath == gotorchModule {
		return nil, fmt.Errorf("%s is GoTorch's own go.mod", gomod)
	}
	changed := false
	if f.Go == nil || lessVersion(f.Go.Version, "1.24") {
		// tool lines need go 1.24.
		if err := f.AddGoStmt("1.24"); err != nil {
			return nil, err
		}
		changed = true
	}
	var req *modfile.Require
	for _, r := range f.Require {
		if r.Mod.Path == gotorchModule {
			req = r
		}
	}
	if req == nil {
		f.AddNewRequire(gotorchModule, src.Version, false)
		req = f.Require[len(f.Require)-1]
		if src.Replace != "" {
			if err := f.AddReplace(gotorchModule, "", src.Replace, ""); err != nil {
				return nil, err
			}
		}
		changed = true
	}
	if !isClassRequire(req) || strings.Contains(req.Syntax.Suffix[0].Token, "indirect") {
		req.Syntax.Suffix = []modfile.Comment{{Token: classComment, Suffix: true}}
		changed = true
	}
	hasTool := false
	for _, t := range f.Tool {
		hasTool = hasTool || t.Path == gotorchModule+"/cmd/gop-torch"
	}
	if !hasTool {
		if err := f.AddTool(gotorchModule + "/cmd/gop-torch"); err != nil {
			return nil, err
		}
		changed = true
	}
	if changed {
		f.Cleanup()
		f.SortBlocks()
		if err := os.WriteFile(gomod, modfile.Format(f.Syntax), 0o644); err != nil {
			return nil, err
		}
		written = append(written, "go.mod")
	}
	// go.sum: GoTorch's own checksums, then those of its dependencies.
	if src.Replace == "" {
		cmd := exec.Command("go", "mod", "download", gotorchModule)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go mod download %s: %v\n%s", gotorchModule, err, out)
		}
	}
	sumSrc := filepath.Join(src.Replace, "go.sum")
	if src.Replace == "" {
		sumSrc = filepath.Join(modCacheDir(gotorchModule, src.Version), "go.sum")
	}
	if n, err := mergeSums(filepath.Join(dir, "go.sum"), sumSrc); err != nil {
		return nil, err
	} else if n > 0 {
		written = append(written, "go.sum")
	}
	for _, sf := range skeleton(modPath) {
		p := filepath.Join(dir, filepath.FromSlash(sf.name))
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(sf.text), 0o644); err != nil {
			return nil, err
		}
		written = append(written, sf.name)
	}
	return written, nil
}

// lessVersion compares Go versions of the form 1.N[.M].
func lessVersion(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		var x, y int
		fmt.Sscan(pa[i], &x)
		fmt.Sscan(pb[i], &y)
		if x != y {
			return x < y
		}
	}
	return len(pa) < len(pb)
}

type skeletonFile struct{ name, text string }

// skeleton is the files of a new project.
func skeleton(modPath string) []skeletonFile {
	r := strings.NewReplacer("MODULE", modPath)
	return []skeletonFile{
		{"models/Net_model.gox", r.Replace(skeletonModel)},
		{"models/doc.go", r.Replace(skeletonDoc)},
		{"main_train.gox", r.Replace(skeletonTrain)},
		{"cmd/predict/main.go", r.Replace(skeletonPredict)},
	}
}

const skeletonModel = `package models

// Net is a small multilayer perceptron for 28×28 grey images in 10
// classes. Its fields are its layers, Forward is its computation, and the
// statements at the end build the layers.
var (
	Hidden *nn.LinearModule
	Out    *nn.LinearModule
)

// Forward maps images [N, 1, 28, 28] to class scores [N, 10].
func Forward(x torch.Tensor) torch.Tensor {
	x = flatten(x, 1) // [N, 784]
	return Out.forward(relu(Hidden.forward(x)))
}

Hidden = nn.linear(28*28, 128)
Out = nn.linear(128, 10)
`

const skeletonDoc = `// Package models holds the model Net, written in XGo (Net_model.gox).
// gop-torch compiles it to xgo_autogen.go, so that plain Go code imports
// the package like any other:
//
//	net := classfile.Build(new(models.Net))
//	scores := net.Forward(images) // [N, 10]
//
// Run gop-torch again after editing a .gox file (go tool gop-torch run .
// does); until then go test fails in xgo_autogen_uptodate_test.go, and
// go tool gop-torch check ./... names the stale packages.
package models
`

const skeletonTrain = `// Trains models.Net (models/Net_model.gox) with Adam, evaluating on the
// test set after every epoch:
//
//	go tool gop-torch run .
//	go tool gop-torch run . -epochs 3 -limit-batches 200
//
// On Fashion-MNIST if Debian's dataset-fashion-mnist package is installed
// (/usr/share/datasets/fashion-mnist), else on a small synthetic dataset.
// Flags override the settings below.
import (
	"os"

	"MODULE/models"
)

epochs 1
batchSize 64
optimizer "adam"
lr 1e-3
seed 1

if _, err := os.Stat("/usr/share/datasets/fashion-mnist"); err == nil {
	dataset "fashion-mnist"
} else {
	// 2048 random images whose class is the brightest of their first
	// ten pixels: a linear model learns it.
	images := randn(2048, 1, 28, 28)
	labels := argmax(flatten(images, 1).narrow(1, 0, 10), 1)
	ds := data.newTensorDataset(images, labels)!
	dataset ds, ds
}

net := new(models.Net)
model net
echo net

for epoch in :epochs {
	for x, y in trainLoader {
		step loss(net.forward(x), y)
	}
	log "epoch", epoch+1, "test", evaluate
}
`

const skeletonPredict = `// Command predict uses the XGo model of package models from plain Go: it
// builds with go build alone, once gop-torch has written
// models/xgo_autogen.go (go tool gop-torch run . does).
package main

import (
	"fmt"

	"github.com/gotorch/gotorch/classfile"
	"github.com/gotorch/gotorch/torch"

	"MODULE/models"
)

func main() {
	net := classfile.Build(new(models.Net))
	net.Eval()
	x := torch.Randn([]int64{4, 1, 28, 28})
	var pred torch.Tensor
	torch.NoGrad(func() { pred = net.Forward(x).ArgmaxAlong(1) })
	fmt.Println(net)
	fmt.Println("classes of 4 random images:", pred)
}
`
