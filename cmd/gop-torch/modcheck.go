package main

// Checks of the user's module that run before the long build: go list
// -export, which XGo's importer runs, compiles GoTorch's C++ bindings
// (minutes on a cold cache) before it notices a missing go.sum entry,
// and XGo reports a require line without //xgo:class as "undefined: nn"
// on every line of a model.

import (
	"github.com/gotorch/gotorch/classfile/autogen"

	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	gopmodfile "github.com/goplus/mod/modfile"
	"github.com/goplus/xgo/ast"
	"github.com/goplus/xgo/parser"
	goptoken "github.com/goplus/xgo/token"
	"golang.org/x/mod/modfile"
)

// gotorchModule is the module that holds GoTorch's classfiles (gox.mod,
// and gop.mod for gop v1.4).
const gotorchModule = "github.com/gotorch/gotorch"

// classComment is the comment of a require line that tells XGo to read
// the required module's gox.mod for classfiles. XGo takes gop v1.4's
// //gop:class too, and gop-torch leaves that one as it is.
const classComment = "//xgo:class"

// findModRoot returns the directory of the go.mod that holds dir.
func findModRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if fi, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !fi.IsDir() {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%s is not in a Go module (no go.mod); start one with: gop-torch init", dir)
		}
		d = parent
	}
}

// isClassRequire reports whether XGo reads r as a classfile require: an
// end-of-line comment starts with xgo:class (or gop v1.4's gop:class).
// go mod tidy turns "//xgo:class" into "// indirect; xgo:class" while no
// Go file imports the module, which XGo no longer sees.
func isClassRequire(r *modfile.Require) bool {
	if r.Syntax == nil {
		return false
	}
	for _, c := range r.Syntax.Suffix {
		text := strings.TrimLeft(strings.TrimPrefix(c.Token, "//"), " \t")
		if strings.HasPrefix(text, "xgo:class") || strings.HasPrefix(text, "gop:class") {
			return true
		}
	}
	return false
}

// checkGoMod makes sure that the go.mod in root requires GoTorch as a
// classfile module when dir has GoTorch classfiles. A require line without
// //xgo:class or //gop:class (or with tidy's "// indirect; xgo:class") is
// given //xgo:class in place
// and said so on w; a missing require is an error that gives the lines to
// add.
func checkGoMod(root, dir string, w io.Writer) error {
	gomod := filepath.Join(root, "go.mod")
	f, err := readModFile(gomod)
	if err != nil {
		return err
	}
	if f.Module == nil || f.Module.Mod.Path == gotorchModule {
		return nil // GoTorch itself: its gox.mod declares the classfiles
	}
	var req *modfile.Require
	for _, r := range f.Require {
		if r.Mod.Path == gotorchModule {
			req = r
		}
	}
	if req == nil {
		if !hasClassFiles(dir) {
			return nil
		}
		return fmt.Errorf("%s does not require %s, whose classfiles (*_train.gox, *_model.gox) %s uses; add to it\n\n%s\n"+
			"(with a replace line for a local checkout: replace %s => /path/to/gotorch), or start a module with: gop-torch init",
			relPath(gomod), gotorchModule, relPath(dir), goModLines(""), gotorchModule)
	}
	if isClassRequire(req) && !strings.Contains(req.Syntax.Suffix[0].Token, "indirect") {
		return nil
	}
	old := ""
	if len(req.Syntax.Suffix) > 0 {
		old = req.Syntax.Suffix[0].Token
	}
	req.Syntax.Suffix = []modfile.Comment{{Token: classComment, Suffix: true}}
	out := modfile.Format(f.Syntax)
	if err := os.WriteFile(gomod, out, 0o644); err != nil {
		return fmt.Errorf("%s: the require of %s needs %s for XGo to find its classfiles, and writing it failed: %w",
			relPath(gomod), gotorchModule, classComment, err)
	}
	if old == "" {
		fmt.Fprintf(w, "gop-torch: %s: added %s to the require of %s: XGo finds GoTorch's classfiles through it\n",
			relPath(gomod), classComment, gotorchModule)
	} else {
		fmt.Fprintf(w, "gop-torch: %s: replaced %q by %s on the require of %s: XGo finds GoTorch's classfiles through it (go mod tidy writes \"indirect;\" before it while no .go file imports GoTorch)\n",
			relPath(gomod), old, classComment, gotorchModule)
	}
	return nil
}

// goModLines are the go.mod lines that use GoTorch from another module.
func goModLines(version string) string {
	if version == "" {
		version = "VERSION"
	}
	return fmt.Sprintf("\trequire %s %s %s\n\ttool %s/cmd/gop-torch", gotorchModule, version, classComment, gotorchModule)
}

// hasClassFiles reports whether dir holds GoTorch classfiles.
func hasClassFiles(dir string) bool {
	for _, n := range autogen.Sources(dir) {
		if strings.HasSuffix(n, "_train.gox") || strings.HasSuffix(n, "_model.gox") {
			return true
		}
	}
	return false
}

// importSite is where a Go+ file imports a package.
type importSite struct {
	path string
	pos  string // file:line:col
}

// listedPackage is what go list -json says of a package.
type listedPackage struct {
	ImportPath string
	DepOnly    bool
	Standard   bool
	Error      *struct{ Err string }
	Module     *struct {
		Path    string
		Version string
		Main    bool
	}
}

// checkDeps checks, with go list and without compiling anything, that the
// packages that the Go+ files of dir (and of the module's Go+ packages
// that dir imports) use can be built: an import that names no package is
// an error at its file:line, and missing go.sum entries are added (from
// GoTorch's go.sum, else with go mod download) or, if that fails, an
// error that gives the command.
func (tr *translator) checkDeps(dir string, w io.Writer) error {
	sites, err := tr.goplusImports(dir)
	if err != nil {
		return err
	}
	if len(sites) == 0 {
		return nil
	}
	// The tools of go.mod, gop-torch among them: go tool needs go.mod to
	// list the modules of their packages.
	gomodData, err := os.ReadFile(filepath.Join(tr.dir, "go.mod"))
	if err != nil {
		return err
	}
	if f, err := modfile.Parse("go.mod", gomodData, nil); err == nil {
		for _, t := range f.Tool {
			if _, ok := sites[t.Path]; !ok {
				sites[t.Path] = importSite{path: t.Path, pos: relPath(filepath.Join(tr.dir, "go.mod"))}
			}
		}
	}
	// Packages of this module: a folder with Go files (Go+ ones are not in
	// sites). go list -mod=mod would look for others on the network.
	modPath := tr.mod.Path()
	var local []string
	paths := make([]string, 0, len(sites))
	for p, s := range sites {
		if p == modPath || strings.HasPrefix(p, modPath+"/") {
			sub := filepath.Join(tr.dir, filepath.FromSlash(strings.TrimPrefix(p, modPath)))
			if !hasGoFiles(sub) {
				local = append(local, fmt.Sprintf("%s: cannot import %q: no Go or XGo files in %s", s.pos, p, relPath(sub)))
				continue
			}
		}
		paths = append(paths, p)
	}
	if len(local) > 0 {
		sort.Strings(local)
		return &CompileError{Dir: dir, Errs: local}
	}
	sort.Strings(paths)
	gomod := filepath.Join(tr.dir, "go.mod")
	modBefore, err := os.ReadFile(gomod)
	if err != nil {
		return err
	}
	added := 0
	merged := false // GoTorch's go.sum merged
	var tried []string
	for round := 0; ; round++ {
		pkgs, err := goList(tr.dir, paths)
		if err != nil {
			// A go.mod's checksum that go list cannot look up ends it.
			if !isSumError(err.Error()) || merged {
				return err
			}
			merged = true
			n, err2 := tr.mergeGotorchSums()
			if err2 != nil {
				return err2
			}
			if n == 0 {
				return err
			}
			added += n
			continue
		}
		var bad []string
		missing := map[string]bool{}
		for _, p := range pkgs {
			if p.Error == nil {
				continue
			}
			msg := p.Error.Err
			// With -mod=mod, the go command looks up a missing entry
			// in the checksum database, which fails offline.
			if isSumError(msg) {
				missing[p.ImportPath] = true
				continue
			}
			if s, ok := sites[p.ImportPath]; ok && !p.DepOnly {
				first, _, _ := strings.Cut(msg, "\n")
				bad = append(bad, fmt.Sprintf("%s: cannot import %q: %s", s.pos, p.ImportPath, strings.TrimSpace(first)))
			}
		}
		if len(bad) > 0 {
			sort.Strings(bad)
			return &CompileError{Dir: dir, Errs: bad}
		}
		if len(missing) == 0 {
			if added > 0 {
				fmt.Fprintf(w, "gop-torch: %s: added %d entries for the packages that the XGo files import (go mod tidy does not see imports in .gox files)\n",
					relPath(filepath.Join(tr.dir, "go.sum")), added)
			}
			if err := addRequirements(gomod, pkgs); err != nil {
				return err
			}
			if modAfter, err := os.ReadFile(gomod); err == nil && !bytes.Equal(modBefore, modAfter) {
				fmt.Fprintf(w, "gop-torch: %s: added the requirements of the packages that the XGo files import (go mod tidy does not see imports in .gox files)\n",
					relPath(gomod))
			}
			return nil
		}
		if !merged {
			merged = true
			n, err := tr.mergeGotorchSums()
			if err != nil {
				return err
			}
			if n > 0 {
				added += n
				continue
			}
		}
		mods, err := modulesOf(tr.dir, missing)
		if err != nil {
			return err
		}
		tried = append(tried, mods...)
		if round > 8 || len(mods) == 0 {
			return missingSumError(tr.dir, missing, tried)
		}
		before := countLines(filepath.Join(tr.dir, "go.sum"))
		cmd := exec.Command("go", append([]string{"mod", "download"}, mods...)...)
		cmd.Dir = tr.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%w\n(go mod download: %s)", missingSumError(tr.dir, missing, tried), strings.TrimSpace(string(out)))
		}
		added += countLines(filepath.Join(tr.dir, "go.sum")) - before
	}
}

// addRequirements adds to go.mod, as indirect requirements, the modules
// that provide pkgs and that it does not list: those go mod tidy would add
// if it saw the imports of the .gox files. Without them, a module at go
// 1.17 or later fails to build with "updates to go.mod needed".
func addRequirements(gomod string, pkgs []listedPackage) error {
	f, err := readModFile(gomod)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, r := range f.Require {
		have[r.Mod.Path] = true
	}
	changed := false
	for _, p := range pkgs {
		m := p.Module
		if p.Standard || m == nil || m.Main || m.Version == "" || have[m.Path] {
			continue
		}
		have[m.Path] = true
		f.AddNewRequire(m.Path, m.Version, true)
		changed = true
	}
	if !changed {
		return nil
	}
	f.Cleanup()
	f.SortBlocks()
	return os.WriteFile(gomod, modfile.Format(f.Syntax), 0o644)
}

// isSumError reports whether a go command's error is a missing go.sum
// entry. With -mod=mod, the go command looks it up in the checksum
// database, which fails offline.
func isSumError(msg string) bool {
	return strings.Contains(msg, "missing go.sum entry") || strings.Contains(msg, "verifying module") ||
		strings.Contains(msg, "verifying go.mod")
}

// missingSumError is the error that says which command adds the missing
// go.sum entries.
func missingSumError(root string, missing map[string]bool, mods []string) error {
	pkgs := make([]string, 0, len(missing))
	for p := range missing {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	return fmt.Errorf("%s lacks the entries of the modules that provide %s, which the XGo files need (go mod tidy does not see imports in .gox files); add them with\n\n\tgo mod download %s\n\nand run gop-torch again",
		relPath(filepath.Join(root, "go.sum")), strings.Join(pkgs, ", "), strings.Join(dedup(mods), " "))
}

func dedup(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// goplusImports returns the packages that the Go+ files of dir, and of the
// module's Go+ packages that they import, import themselves or through
// their classfiles, other than those Go+ packages: for each, the first
// place that imports it.
func (tr *translator) goplusImports(dir string) (map[string]importSite, error) {
	sites := map[string]importSite{}
	seen := map[string]bool{}
	modPath := tr.mod.Path()
	queue := []string{dir}
	for len(queue) > 0 {
		d, err := filepath.Abs(queue[0])
		queue = queue[1:]
		if err != nil {
			return nil, err
		}
		if seen[d] {
			continue
		}
		seen[d] = true
		fset := goptoken.NewFileSet()
		pkgs, err := parser.ParseDirEx(fset, d, parser.Config{ClassKind: tr.mod.ClassKind, Mode: parser.ImportsOnly})
		if err != nil {
			return nil, compileErrors(d, err)
		}
		files := map[string]*ast.File{}
		var names []string
		for _, pkg := range pkgs {
			for name, f := range pkg.Files {
				names = append(names, name)
				files[name] = f
			}
		}
		sort.Strings(names)
		for _, name := range names {
			for _, imp := range files[name].Imports {
				p, err := strconv.Unquote(imp.Path.Value)
				if err != nil {
					continue
				}
				pos := fset.Position(imp.Path.Pos())
				if s, ok := sites[p]; !ok || isTestFile(s.pos) {
					sites[p] = importSite{path: p, pos: fmt.Sprintf("%s:%d:%d", relPath(pos.Filename), pos.Line, pos.Column)}
				}
			}
		}
		// The packages a classfile imports implicitly: its project's
		// packages and its gop.mod import lines.
		for _, name := range names {
			proj, ok := tr.mod.LookupClass(gopmodfile.ClassExt(filepath.Base(name)))
			if !ok {
				continue
			}
			for _, p := range proj.PkgPaths {
				if _, ok := sites[p]; !ok {
					sites[p] = importSite{path: p, pos: relPath(name)}
				}
			}
			for _, imp := range proj.Import {
				if _, ok := sites[imp.Path]; !ok {
					sites[imp.Path] = importSite{path: imp.Path, pos: relPath(name)}
				}
			}
		}
		// Go+ packages of this module: check their imports instead, since
		// go list sees only their xgo_autogen.go, which may be missing or
		// stale.
		for p := range sites {
			if p != modPath && !strings.HasPrefix(p, modPath+"/") {
				continue
			}
			sub := filepath.Join(tr.dir, filepath.FromSlash(strings.TrimPrefix(p, modPath)))
			if hasGopFiles(sub) {
				if !seen[sub] {
					queue = append(queue, sub)
				}
			}
		}
	}
	for p := range sites {
		if p != modPath && !strings.HasPrefix(p, modPath+"/") {
			continue
		}
		if sub := filepath.Join(tr.dir, filepath.FromSlash(strings.TrimPrefix(p, modPath))); hasGopFiles(sub) {
			delete(sites, p)
		}
	}
	return sites, nil
}

// hasGoFiles reports whether dir holds Go files other than tests.
func hasGoFiles(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		n := e.Name()
		if !e.IsDir() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") &&
			!strings.HasPrefix(n, "_") && !strings.HasPrefix(n, ".") {
			return true
		}
	}
	return false
}

func isTestFile(pos string) bool {
	file, _, _ := strings.Cut(pos, ":")
	return strings.HasSuffix(file, "_test.gox") || strings.HasSuffix(file, "_test.gop")
}

// goList runs go list -e -deps on paths in the module root dir: package
// facts only, nothing compiled (a few hundred milliseconds).
func goList(dir string, paths []string) ([]listedPackage, error) {
	// -mod=mod adds the requirements of the module's tools, without which
	// go list fails with "updates to go.mod needed".
	args := append([]string{"list", "-mod=mod", "-e", "-deps", "-json=ImportPath,DepOnly,Standard,Error,Module"}, paths...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// modulesOf returns the modules of the build list that provide pkgs: for
// each package, the module with the longest path that is a prefix of it.
func modulesOf(dir string, pkgs map[string]bool) ([]string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Path}}", "all")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m all: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	mods := strings.Fields(string(out))
	set := map[string]bool{}
	for p := range pkgs {
		best := ""
		for _, m := range mods {
			if (p == m || strings.HasPrefix(p, m+"/")) && len(m) > len(best) {
				best = m
			}
		}
		if best != "" {
			set[best] = true
		}
	}
	list := make([]string, 0, len(set))
	for m := range set {
		list = append(list, m)
	}
	sort.Strings(list)
	return list, nil
}

// gotorchSumFile returns the go.sum of the GoTorch module that the module
// requires: in its replacement directory or in the module cache.
func (tr *translator) gotorchSumFile() string {
	v, ok := tr.mod.LookupDepMod(gotorchModule)
	if !ok {
		return ""
	}
	if v.Version == "" && filepath.IsAbs(v.Path) {
		return filepath.Join(v.Path, "go.sum")
	}
	if dir := modCacheDir(v.Path, v.Version); dir != "" {
		return filepath.Join(dir, "go.sum")
	}
	return ""
}

// mergeGotorchSums adds to the module's go.sum the lines of GoTorch's
// go.sum that it lacks: the checksums of GoTorch's dependencies, which its
// authors' go command verified. It returns how many it added.
func (tr *translator) mergeGotorchSums() (int, error) {
	src := tr.gotorchSumFile()
	if src == "" || tr.mod.Path() == gotorchModule {
		return 0, nil
	}
	return mergeSums(filepath.Join(tr.dir, "go.sum"), src)
}

// mergeSums adds the lines of the go.sum file src that dst lacks to dst.
func mergeSums(dst, src string) (int, error) {
	add, err := os.ReadFile(src)
	if err != nil {
		if os.IsNotExist(err) {
			return 0, nil
		}
		return 0, err
	}
	have, err := os.ReadFile(dst)
	if err != nil && !os.IsNotExist(err) {
		return 0, err
	}
	lines := map[string]bool{}
	var all []string
	for _, data := range [][]byte{have, add} {
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			l := strings.TrimSpace(sc.Text())
			if l == "" || lines[l] {
				continue
			}
			lines[l] = true
			all = append(all, l)
		}
	}
	n := len(all) - countLinesOf(have)
	if n == 0 {
		return 0, nil
	}
	// The go command keeps go.sum sorted.
	sort.Strings(all)
	return n, os.WriteFile(dst, []byte(strings.Join(all, "\n")+"\n"), 0o644)
}

func countLinesOf(data []byte) int {
	n := 0
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

func countLines(file string) int {
	data, _ := os.ReadFile(file)
	return countLinesOf(data)
}

// readModFile reads and parses the go.mod file at path.
func readModFile(path string) (*modfile.File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return modfile.Parse(path, data, nil)
}
