package main

import (
	"github.com/gotorch/gotorch/classfile/autogen"

	"bytes"
	"errors"
	"fmt"
	"go/format"
	"go/token"
	"go/types"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"github.com/gotorch/gotorch/internal/atomicfile"

	"github.com/goplus/gogen"
	modenv "github.com/goplus/mod/env"
	"github.com/goplus/mod/xgomod"
	"github.com/goplus/xgo/parser"
	goptoken "github.com/goplus/xgo/token"
	"github.com/goplus/xgo/tool"
	qerrors "github.com/qiniu/x/errors"
)

const (
	xgoModule   = "github.com/goplus/xgo"
	torchPath   = "github.com/gotorch/gotorch/torch"
	autogenFile = autogen.File
	markerName  = "GopTorchInstrumented"
)

// version is gop-torch's version, which the marker method returns.
const version = "gop-torch v0.1.0"

// translator compiles the Go+ packages of one module into Go.
type translator struct {
	dir     string // the module's root
	mod     *xgomod.Module
	xgo     *modenv.XGo
	fset    *goptoken.FileSet
	imp     *tool.Importer
	conf    *tool.Config
	done    map[string]bool
	active  map[string]bool
	verbose bool
	log     func(format string, args ...any)
}

// result is what translating a package did.
type result struct {
	Dir     string
	Changed bool // xgo_autogen.go was written
	Loops   int  // loops given a GC() call
	Entry   bool // the package has a training script (MainEntry)
	Temps   int  // expression temporaries marked (temps.go)
	Owned   int  // variables whose tensors gop-torch frees (owned.go)
}

// gogenImporter imports packages for the temporaries pass through the
// compiled package, which has already loaded those its Go imports. fset
// holds the positions of what it imports.
type gogenImporter struct {
	pkg  *gogen.Package
	fset *goptoken.FileSet
}

func (g gogenImporter) FileSet() *token.FileSet { return g.fset }

func (g gogenImporter) Import(path string) (p *types.Package, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("importing %s: %v", path, r)
		}
	}()
	p = g.pkg.Import(path).Types
	if p == nil {
		return nil, fmt.Errorf("importing %s: not found", path)
	}
	return p, nil
}

// quietLog drops the notes that gop's importer logs about packages it
// cannot hash for its cache (those of modules that go.mod does not list
// yet), which only mean that they are not cached.
type quietLog struct{ w io.Writer }

func (q quietLog) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("PkgHash: unexpected package")) {
		return len(p), nil
	}
	return q.w.Write(p)
}

func init() { log.SetOutput(quietLog{os.Stderr}) }

// newTranslator loads the module that holds dir.
func newTranslator(dir string) (*translator, error) {
	mod, err := tool.LoadMod(dir)
	if err != nil {
		return nil, fmt.Errorf("loading the module of %s: %w", dir, err)
	}
	if !mod.HasModfile() {
		return nil, fmt.Errorf("%s is not in a Go module (no go.mod)", dir)
	}
	root, err := xgoRoot(mod.Root())
	if err != nil {
		return nil, err
	}
	xgo := &modenv.XGo{Version: xgoVersion(), Root: root}
	fset := goptoken.NewFileSet()
	imp := tool.NewImporter(mod, xgo, fset)
	conf := &tool.Config{XGo: xgo, Fset: fset, Mod: mod, Importer: imp, DontUpdateGoMod: true}
	// gop's importer keeps the package facts of go list in a cache file,
	// keyed by the module's files, which saves seconds per run.
	conf.CacheFile = imp.CacheFile()
	imp.Cache().Load(conf.CacheFile)
	return &translator{
		dir: mod.Root(), mod: mod, xgo: xgo, fset: fset, imp: imp, conf: conf,
		done: map[string]bool{}, active: map[string]bool{},
		log: func(string, ...any) {},
	}, nil
}

// xgoVersion is the version of XGo that gop-torch was built with.
func xgoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == xgoModule {
				if d.Replace != nil && d.Replace.Version != "" {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "v1.6.1"
}

// xgoRoot finds XGo's module directory, which XGo's libraries use as
// XGOROOT: the one in the build information of gop-torch, if the module
// cache has it, or else the one the module in modDir requires.
func xgoRoot(modDir string) (string, error) {
	if v := os.Getenv("XGOROOT"); v != "" {
		return v, nil
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path != xgoModule {
				continue
			}
			if d.Replace != nil {
				if filepath.IsAbs(d.Replace.Path) {
					return d.Replace.Path, nil
				}
				d = d.Replace
			}
			if dir := modCacheDir(d.Path, d.Version); dir != "" {
				return dir, nil
			}
		}
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", xgoModule)
	cmd.Dir = modDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if dir := strings.TrimSpace(string(out)); err == nil && dir != "" {
		return dir, nil
	}
	return "", fmt.Errorf("cannot find the source of %s (go list -m: %v %s); add it to go.mod or set XGOROOT",
		xgoModule, err, strings.TrimSpace(stderr.String()))
}

// modCacheDir returns the module cache's directory of path@version, or ""
// if it is not there.
func modCacheDir(path, version string) string {
	if version == "" || version == "(devel)" {
		return ""
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return ""
	}
	esc := escapePath(path)
	dir := filepath.Join(strings.TrimSpace(string(out)), esc+"@"+version)
	if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !fi.IsDir() {
		return dir
	}
	return ""
}

// escapePath is the module cache's case encoding: an upper-case letter
// becomes '!' and its lower case.
func escapePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('!')
			b.WriteRune(r + 'a' - 'A')
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// hasGopFiles reports whether dir holds Go+ source files.
func hasGopFiles(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, "_") || strings.HasPrefix(n, ".") {
			continue
		}
		if strings.HasSuffix(n, ".gox") || strings.HasSuffix(n, ".xgo") || strings.HasSuffix(n, ".gop") {
			return true
		}
	}
	return false
}

// goxImports returns the import paths of the Go+ files in dir.
func (tr *translator) goxImports(dir string) ([]string, error) {
	if err := checkNestingDir(dir); err != nil {
		return nil, err
	}
	fset := goptoken.NewFileSet()
	pkgs, err := parser.ParseDirEx(fset, dir, parser.Config{
		ClassKind: tr.mod.ClassKind,
		Mode:      parser.ImportsOnly,
	})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, imp := range f.Imports {
				if p, err := strconv.Unquote(imp.Path.Value); err == nil {
					seen[p] = true
				}
			}
		}
	}
	paths := make([]string, 0, len(seen))
	for p := range seen {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths, nil
}

// translate compiles the Go+ package in dir, after the Go+ packages of
// the module that it imports, and writes their xgo_autogen.go files.
func (tr *translator) translate(dir string) ([]result, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if tr.done[dir] {
		return nil, nil
	}
	if tr.active[dir] {
		return nil, fmt.Errorf("import cycle through %s", dir)
	}
	tr.active[dir] = true
	defer delete(tr.active, dir)
	var results []result
	imports, err := tr.goxImports(dir)
	if err != nil {
		return nil, err
	}
	modPath := tr.mod.Path()
	for _, p := range imports {
		if p != modPath && !strings.HasPrefix(p, modPath+"/") {
			continue
		}
		dep := filepath.Join(tr.dir, filepath.FromSlash(strings.TrimPrefix(p, modPath)))
		if !hasGopFiles(dep) {
			continue
		}
		rs, err := tr.translate(dep)
		if err != nil {
			return nil, err
		}
		results = append(results, rs...)
	}
	r, err := tr.translateOne(dir)
	if err != nil {
		return nil, err
	}
	tr.done[dir] = true
	return append(results, r), nil
}

// CompileError is a Go+ package that does not compile.
type CompileError struct {
	Dir  string
	Errs []string
}

func (e *CompileError) Error() string {
	return "compiling " + e.Dir + ":\n\t" + strings.Join(e.Errs, "\n\t")
}

// compileErrors flattens gop's errors into lines of file:line:col: msg,
// with paths relative to the working directory.
func compileErrors(dir string, err error) *CompileError {
	var lines []string
	var add func(error)
	add = func(e error) {
		var list qerrors.List
		if errors.As(e, &list) && len(list) > 0 {
			for _, x := range list {
				add(x)
			}
			return
		}
		msg := e.Error()
		// gop names a file relative to the working directory (syntax
		// errors) or to the module's root (type errors); a file of dir
		// is named here relative to the working directory either way.
		if m := goPlusPos.FindStringSubmatchIndex(msg); m != nil && !filepath.IsAbs(msg[m[2]:m[3]]) {
			if abs, err := filepath.Abs(filepath.Join(dir, filepath.Base(msg[m[2]:m[3]]))); err == nil {
				if _, err := os.Stat(abs); err == nil {
					msg = relToWD(abs) + msg[m[3]:]
				}
			}
		}
		if wd, err := os.Getwd(); err == nil {
			msg = strings.ReplaceAll(msg, wd+string(filepath.Separator), "")
		}
		lines = append(lines, msg)
	}
	add(err)
	return &CompileError{Dir: dir, Errs: lines}
}

// inUserWords rewrites gop's errors as checkGenerated writes its own:
// file names relative to the working directory, Go's names in Go+'s.
func (tr *translator) inUserWords(ce *CompileError) *CompileError {
	w := userWordsOf(tr.imp)
	for i, e := range ce.Errs {
		ce.Errs[i] = w.errorLine(tr.dir, e)
	}
	return ce
}

// translateOne compiles one Go+ package and writes its xgo_autogen.go if
// it changed.
func (tr *translator) translateOne(dir string) (res result, err error) {
	res.Dir = dir
	defer func() {
		// gop's compiler reports some problems by panicking.
		if r := recover(); r != nil {
			err = &CompileError{Dir: dir, Errs: []string{fmt.Sprint(r)}}
		}
	}()
	pkg, _, err := tool.LoadDir(dir, tr.conf, false)
	if err != nil {
		// A package that gop cannot find is ErrNotFound too: say "no Go+
		// files" only when there are none.
		if (errors.Is(err, tool.ErrNotFound) || tool.NotFound(err)) && len(autogen.Sources(dir)) == 0 {
			return res, fmt.Errorf("%s: no Go+ files", dir)
		}
		return res, tr.inUserWords(compileErrors(dir, err))
	}
	res.Loops, res.Entry, err = instrumentPackage(pkg)
	if err != nil {
		return res, fmt.Errorf("%s: %w", dir, err)
	}
	var buf bytes.Buffer
	buf.WriteString(gogen.GeneratedHeader)
	if err := pkg.WriteTo(&buf); err != nil {
		return res, fmt.Errorf("%s: writing Go: %w", dir, err)
	}
	// gofmt the output, so that committed xgo_autogen.go files pass the
	// same formatting checks as the rest of the tree.
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return res, fmt.Errorf("%s: formatting Go: %w", dir, err)
	}
	// Every line of Go names the Go+ line it came from (positions.go),
	// before the type-check below and after the passes that add lines.
	src = fixLineDirectives(src)
	imp := gogenImporter{pkg, tr.fset}
	// Go that gogen accepts but Go does not is the user's error, at the
	// user's line, in the user's words (usererrors.go).
	if errs := checkGenerated(src, dir, tr.dir, imp); len(errs) > 0 {
		return res, &CompileError{Dir: dir, Errs: errs}
	}
	if marked, c, err := rewriteLifetimes(src, dir, imp); err != nil {
		fmt.Fprintf(os.Stderr, "gop-torch: %s: expression temporaries and variables left to the collector: %v\n", dir, err)
	} else {
		src, res.Temps, res.Owned = marked, c.temps, c.owned
	}
	// The hash of the Go+ sources, and the test that checks it (stale.go).
	if src, err = stampSources(src, dir); err != nil {
		return res, err
	}
	if res.Changed, err = writeUptodateTest(dir, pkg.Types.Name()); err != nil {
		return res, err
	}
	// Last, after every pass that adds lines: the directives of gogen's
	// own code name their lines in xgo_autogen.go.
	src = fixLineDirectives(src)
	out := filepath.Join(dir, autogenFile)
	if old, err := os.ReadFile(out); err == nil && bytes.Equal(old, src) {
		return res, removeLegacy(dir)
	}
	// Atomically, so that an interrupted run never leaves a truncated
	// xgo_autogen.go for the next build to trip over.
	if err := atomicfile.WriteFile(out, src, 0o644); err != nil {
		return res, err
	}
	res.Changed = true
	return res, removeLegacy(dir)
}

// removeLegacy removes what gop-torch wrote into dir when it was built on
// gop v1.4, gop_autogen.go and gop_autogen_uptodate_test.go, once their
// xgo_ successors are there: Go would compile both copies. A file of that
// name that no generator wrote is left alone.
func removeLegacy(dir string) error {
	for _, name := range []string{autogen.LegacyFile, legacyUptodateTestFile} {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		first, _, _ := bytes.Cut(b, []byte("\n"))
		if !bytes.HasPrefix(first, []byte("// Code generated by ")) {
			return fmt.Errorf("%s: %s was not generated, but Go would compile it beside %s: remove or rename it", dir, name, autogenFile)
		}
		if err := os.Remove(p); err != nil {
			return err
		}
	}
	return nil
}

// saveCache saves gop's importer cache.
func (tr *translator) saveCache() { tr.conf.UpdateCache() }
