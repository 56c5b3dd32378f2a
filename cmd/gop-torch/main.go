// Command gop-torch compiles and runs GoTorch's XGo (formerly Go+)
// programs: training scripts (*_train.gox) and models (*_model.gox),
// registered as classfiles in GoTorch's gox.mod (and gop.mod for gop
// v1.4). It is built on XGo v1.6.1's libraries and needs only the Go
// toolchain, not the xgo or gop command:
//
//	go run github.com/gotorch/gotorch/cmd/gop-torch run ./examples/fashion_mnist
//
// Usage:
//
//	gop-torch run [go flags] DIR [arguments]   compile DIR, then go run it
//	gop-torch run -nproc N [go flags] DIR ...  run N processes of it, a data-parallel job (torchrun's env)
//	gop-torch build [go flags] DIR             compile DIR, then go build it
//	gop-torch test [go flags] DIR              compile DIR, then go test it
//	gop-torch go DIR...                        compile only: write xgo_autogen.go
//	gop-torch check [DIR|DIR/...]...           report stale xgo_autogen.go files
//	gop-torch init [-replace DIR] [module]     start a module that uses GoTorch
//	gop-torch version                          print the versions
//
// Compiling a directory writes its xgo_autogen.go, the Go that XGo makes
// of its XGo files, after doing the same for the XGo packages of the
// module that it imports. The file is rewritten only when it changes;
// commit it, and plain Go code (go build, go vet) can use the package
// without gop-torch or xgo. xgo_autogen.go holds a hash of the XGo files,
// and xgo_autogen_uptodate_test.go beside it fails in go test when they
// changed after it was written (stale.go); gop-torch check reports the
// same without building.
//
// Before compiling, gop-torch checks the module, in a second and without
// building anything (modcheck.go): that go.mod's require of GoTorch has
// //xgo:class (or gop v1.4's //gop:class), through which XGo finds
// GoTorch's classfiles (it adds //xgo:class if need be); that every
// package the XGo files import exists,
// or it names the file and line of the import; and that go.sum has the
// entries of what they import, which go mod tidy cannot see in .gox
// files (it adds them from GoTorch's go.sum, else with go mod download).
//
// gop-torch init writes a new module: go.mod, go.sum, a model, a training
// script and a plain Go program that uses the model (init.go):
//
//	go run github.com/gotorch/gotorch/cmd/gop-torch@VERSION init example.com/mynet
//
// gop-torch differs from plain xgo run and xgo build in three ways:
//
//   - In the training script it puts torch.GC() at the top of every loop
//     body and torch.FinishGC() after every loop, so that each iteration
//     frees the tensors of the one before (see instrument.go for the
//     rules), and it marks the script as so instrumented. A script
//     compiled by plain xgo (or gop v1.4) still runs; its Trainer warns
//     once at start-up that it was compiled without GoTorch's loop GC,
//     names this command, and calls torch.GC() at each batch of its own
//     loaders.
//   - In every XGo file it marks the temporaries of tensor expressions:
//     in a + b*c, the addition frees b*c as soon as it has its result,
//     as C++ would, instead of leaving it to the next collection (see
//     temps.go). Code compiled by plain xgo computes the same values and
//     leaves its temporaries to the collector.
//   - In every XGo file it frees the tensors of local variables that
//     nothing else can see, as Python does: in s = x + y, the old value
//     of s is freed once the new one is made, and the last one at the end
//     of s's block (see owned.go for the rules). Plain xgo leaves them to
//     the collector.
//
// Go flags that take a value must be written -flag=value, except -o,
// -tags, -ldflags, -gcflags, -run, -count, -timeout, -bench and -p.
// gop-torch -v ... lists the packages it compiles.
//
// gop-torch does not import torch, so it builds without libtorch; the
// programs it compiles need libtorch as any GoTorch program does.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage:
	gop-torch run [go flags] DIR [arguments]   compile DIR, then go run it
	gop-torch run -nproc N [go flags] DIR ...  run N processes of it, a data-parallel job (torchrun's env)
	gop-torch build [go flags] DIR             compile DIR, then go build it
	gop-torch test [go flags] DIR              compile DIR, then go test it
	gop-torch go DIR...                        compile only: write xgo_autogen.go
	gop-torch check [DIR|DIR/...]...           report stale xgo_autogen.go files
	gop-torch init [-replace DIR] [module]     start a module that uses GoTorch
	gop-torch version                          print the versions
`

// valueFlags are go flags whose value may follow as a separate argument.
var valueFlags = map[string]bool{
	"-o": true, "-tags": true, "-ldflags": true, "-gcflags": true, "-run": true,
	"-count": true, "-timeout": true, "-bench": true, "-p": true,
}

func run(args []string, stdout, stderr io.Writer) int {
	verbose := false
	for len(args) > 0 && args[0] == "-v" {
		verbose = true
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, args := args[0], args[1:]
	switch cmd {
	case "version":
		fmt.Fprintf(stdout, "%s (xgo %s, %s)\n", version, xgoVersion(), runtime.Version())
		return 0
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	case "init":
		return initModule(args, stdout, stderr)
	case "check":
		return checkStale(args, stdout, stderr)
	case "go":
		if len(args) == 0 {
			args = []string{"."}
		}
		for _, dir := range args {
			if _, err := compile(dir, verbose, stderr); err != nil {
				return fail(stderr, err)
			}
		}
		return 0
	case "run", "build", "test":
		nproc := 0
		if cmd == "run" {
			var err error
			if nproc, args, err = takeNproc(args); err != nil {
				fmt.Fprintf(stderr, "gop-torch run: %v\n%s", err, usage)
				return 2
			}
		}
		flags, dir, rest, err := splitArgs(args)
		if err != nil {
			fmt.Fprintf(stderr, "gop-torch %s: %v\n%s", cmd, err, usage)
			return 2
		}
		if cmd != "run" && len(rest) > 0 {
			// go test takes flags for the test binary after the package.
			if cmd != "test" {
				fmt.Fprintf(stderr, "gop-torch %s: unexpected arguments after %s: %s\n", cmd, dir, strings.Join(rest, " "))
				return 2
			}
		}
		// Translating imports GoTorch's packages through go list -export,
		// which compiles them the first time.
		announceBuild(nil, dir, stderr)
		if _, err := compile(dir, verbose, stderr); err != nil {
			return fail(stderr, err)
		}
		if nproc > 0 {
			return runNproc(nproc, flags, dir, rest, stdout, stderr)
		}
		return goCommand(cmd, flags, dir, rest, stdout, stderr)
	}
	fmt.Fprintf(stderr, "gop-torch: unknown command %q\n%s", cmd, usage)
	return 2
}

// splitArgs splits go flags, the directory and the arguments after it.
func splitArgs(args []string) (flags []string, dir string, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			if i == len(args) {
				break
			}
			return flags, args[i], args[i+1:], nil
		}
		if !strings.HasPrefix(a, "-") {
			return flags, a, args[i+1:], nil
		}
		flags = append(flags, a)
		if valueFlags[a] && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return nil, "", nil, errors.New("no directory given")
}

func fail(stderr io.Writer, err error) int {
	var ce *CompileError
	if errors.As(err, &ce) {
		fmt.Fprintf(stderr, "gop-torch: %s does not compile:\n", relPath(ce.Dir))
		for _, e := range ce.Errs {
			fmt.Fprintf(stderr, "\t%s\n", e)
		}
		return 1
	}
	fmt.Fprintf(stderr, "gop-torch: %v\n", err)
	return 1
}

// translatorFor returns a translator for dir's module: a new one, since
// a gop-torch command translates once. gop-torch's tests share one per
// module (sharedtranslator_test.go).
var translatorFor = newTranslator

// compile translates dir and the Go+ packages it imports.
func compile(dir string, verbose bool, stderr io.Writer) ([]result, error) {
	if fi, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	if !hasGopFiles(dir) {
		return nil, fmt.Errorf("%s has no XGo files (.gox, .xgo, .gop)", dir)
	}
	root, err := findModRoot(dir)
	if err != nil {
		return nil, err
	}
	if err := checkGoMod(root, dir, stderr); err != nil {
		return nil, err
	}
	tr, err := translatorFor(dir)
	if err != nil {
		return nil, err
	}
	defer tr.saveCache()
	if err := tr.checkDeps(dir, stderr); err != nil {
		return nil, err
	}
	rs, err := tr.translate(dir)
	if err != nil {
		return nil, err
	}
	if verbose {
		for _, r := range rs {
			state := "unchanged"
			if r.Changed {
				state = "written"
			}
			extra := ""
			if r.Entry {
				extra = fmt.Sprintf(", training script: %d loops collect tensors (torch.GC or torch.MaybeGC)", r.Loops)
			}
			fmt.Fprintf(stderr, "gop-torch: %s: %s %s%s\n", relPath(r.Dir), autogenFile, state, extra)
		}
	}
	return rs, nil
}

// relPath returns dir relative to the working directory when it is below
// it.
func relPath(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	wd, err := os.Getwd()
	if err != nil {
		return abs
	}
	rel, err := filepath.Rel(wd, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return abs
	}
	if rel == "." {
		return "."
	}
	return "." + string(filepath.Separator) + rel
}

// goCommand runs go run|build|test on dir's package.
func goCommand(cmd string, flags []string, dir string, rest []string, stdout, stderr io.Writer) int {
	pkg := relPath(dir)
	var workDir string
	if filepath.IsAbs(pkg) {
		// Outside the working directory: run go from dir itself.
		workDir, pkg = pkg, "."
	}
	announceBuild(flags, workDir, stderr)
	args := append([]string{cmd}, flags...)
	args = append(args, pkg)
	args = append(args, rest...)
	c := exec.Command("go", args...)
	c.Dir = workDir
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, stdout, stderr
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		fmt.Fprintf(stderr, "gop-torch: %v\n", err)
		return 1
	}
	return 0
}
