package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The temporaries post-pass.
//
// XGo compiles a + b*c into a.XGo_Add(b.XGo_Mul(c)) (gop v1.4 wrote
// Gop_Add and Gop_Mul; the pass takes both). The product is a
// temporary: nothing but the addition ever sees it, and C++ would free it
// at the end of the expression. Left to GoTorch's collector it lives until
// the next collection, holding its memory and going cold meanwhile.
// gop-torch therefore marks it, a.XGo_Add(torch.Temp(b.XGo_Mul(c))), and
// the addition frees it once it has its own result (torch/gop_temp.go).
//
// Rules:
//   - Only torch.Tensor's operator methods count, as consumers and as
//     temporaries; the pass type-checks the generated Go to find them,
//     so a user type with XGo_ or Gop_ methods is never touched.
//   - A temporary is the result of a binary or unary tensor operator other
//     than +x, which returns its operand, or of one of package torch's
//     generated ops that returns none of its arguments (x.Mm(w),
//     torch.Relu(x), but not the in-place x.Add_(y), which returns x;
//     genops.go). Results of other calls are never temporaries: a
//     hand-written m.Weight() may return a tensor held elsewhere.
//   - A temporary is marked where it is the left operand of a binary or
//     unary tensor operator (other than +x), or the right operand of a
//     binary or assignment one (x += a*b). As the only temporary operand
//     of a generated op (torch.Relu(a*b), (a*b).Sum()), it is handed to
//     torch.Consume instead (consume.go).
//   - Everywhere in the package: training scripts, model classes, closures.
//     Freeing a temporary only drops GoTorch's reference to it, so autograd
//     keeps what it saved for the backward pass.
//
// Where a local declaration hides the name under which the file imports
// torch (a variable named torch), nothing that names the package is
// written: that temporary, or that assignment's old value, is left to the
// collector. If the generated Go does not type-check on its own (with the
// package's hand-written Go files), or the rewritten Go would not, the
// pass leaves the file as it is and says why: its temporaries are then
// freed by the collector, as before.

// tensorOps are the operator methods of torch.Tensor whose results are
// temporaries, and that torch.TempTensor has too, by their gop v1.4
// names (operatorMethod; torch/xgo.go has the XGo ones).
var tensorOps = map[string]bool{
	"Gop_Add": true, "Gop_Sub": true, "Gop_Mul": true, "Gop_Quo": true, "Gop_Rem": true,
	"Gop_And": true, "Gop_Or": true, "Gop_Xor": true,
	"Gop_LT": true, "Gop_LE": true, "Gop_GT": true, "Gop_GE": true, "Gop_EQ": true, "Gop_NE": true,
	"Gop_Neg": true, "Gop_Not": true,
}

// assignOps are the operator methods of *torch.Tensor that take a right
// operand and free it if it is a temporary.
var assignOps = map[string]bool{
	"Gop_AddAssign": true, "Gop_SubAssign": true, "Gop_MulAssign": true, "Gop_QuoAssign": true,
}

// markTemps is rewriteLifetimes that returns only the number of
// temporaries marked.
func markTemps(src []byte, dir string, imp types.Importer) ([]byte, int, error) {
	out, c, err := rewriteLifetimes(src, dir, imp)
	return out, c.temps, err
}

// lifetimeCounts says what rewriteLifetimes did.
type lifetimeCounts struct {
	temps int // expression temporaries marked
	owned int // owned variables rewritten (owned.go)
}

// rewriteLifetimes rewrites a generated Go file, src, of the package in
// dir: it marks its expression temporaries and frees the tensors of its
// owned variables (owned.go). imp loads the packages it imports. It
// returns the new source, gofmt-ed, and what it did; with nothing to do or
// an error, it returns src unchanged.
func rewriteLifetimes(src []byte, dir string, imp types.Importer) ([]byte, lifetimeCounts, error) {
	var none lifetimeCounts
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, autogenFile, src, parser.ParseComments)
	if err != nil {
		return src, none, err
	}
	files := []*ast.File{file}
	others, err := handWrittenGo(fset, dir)
	if err != nil {
		return src, none, err
	}
	files = append(files, others...)
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{Importer: imp, FakeImportC: true}
	pkg, err := conf.Check(file.Name.Name, fset, files, info)
	if err != nil {
		return src, none, fmt.Errorf("type-checking the generated Go: %w", err)
	}

	// Imported objects have positions in the importer's file set, if it
	// says which: genOpOf needs their file names.
	var impFset *token.FileSet
	if f, ok := imp.(interface{ FileSet() *token.FileSet }); ok {
		impFset = f.FileSet()
	}
	tc := tensorCalls{info, impFset, declHashes{}}
	op, recv, right, isTemp := tc.op, tc.recv, tc.right, tc.fresh

	// The torch package that the program will be built with must have
	// Temp (an older GoTorch does not).
	tp, err := imp.Import(torchPath)
	if err != nil || tp.Scope().Lookup("Temp") == nil || tp.Scope().Lookup("Rebind") == nil {
		return src, none, fmt.Errorf("%s has no Temp or Rebind (an older GoTorch?)", torchPath)
	}
	hasConsume := tp.Scope().Lookup("Consume") != nil
	torchName, addImport := torchImportName(files)
	// visible reports whether torchName, written at pos, would name the
	// torch package: a local declaration (a variable named torch, say)
	// may shadow it, and then nothing that names the package is written
	// there.
	visible := func(pos token.Pos) bool {
		sc := pkg.Scope().Innermost(pos)
		if sc == nil {
			return false
		}
		_, obj := sc.LookupParent(torchName, pos)
		if addImport {
			return obj == nil
		}
		pn, ok := obj.(*types.PkgName)
		return ok && pn.Imported().Path() == torchPath
	}
	// The new nodes take the positions of what they wrap, so that the
	// printer keeps //line comments and others in place.
	wrap := func(e ast.Expr) ast.Expr {
		p := e.Pos()
		return &ast.CallExpr{
			Fun:    &ast.SelectorExpr{X: &ast.Ident{Name: torchName, NamePos: p}, Sel: &ast.Ident{Name: "Temp", NamePos: p}},
			Lparen: p, Args: []ast.Expr{e}, Rparen: e.End(),
		}
	}
	// Types are looked up on the original nodes, so every decision is made
	// before the AST changes: collect, then rewrite.
	type edit struct {
		c           opCall
		recv, right bool
	}
	var edits []edit
	var consumes []consumeEdit
	seen := map[*ast.CallExpr]bool{} // gogen may share a node
	n := 0
	ast.Inspect(file, func(node ast.Node) bool {
		e, ok := node.(ast.Expr)
		if !ok {
			return true
		}
		c, ok := op(e)
		if !ok {
			// Not an operator (whose temporaries Temp frees): an
			// op that consumes a temporary?
			if call, ok := e.(*ast.CallExpr); ok && hasConsume && !seen[call] {
				if ed, ok := tc.consumable(call); ok && visible(call.Pos()) {
					seen[call] = true
					consumes = append(consumes, ed)
				}
			}
			return true
		}
		if seen[c.call] {
			return true
		}
		seen[c.call] = true
		ed := edit{c: c}
		ed.recv = tensorOps[c.name] && isTemp(recv(c)) && visible(c.call.Pos())
		if r := right(c); r != nil && (tensorOps[c.name] || assignOps[c.name]) {
			ed.right = isTemp(r) && visible(r.Pos())
		}
		if ed.recv || ed.right {
			edits = append(edits, ed)
		}
		return true
	})
	owned := tc.ownedLocals(file)
	if len(edits) == 0 && len(consumes) == 0 && len(owned) == 0 {
		return src, none, nil
	}
	for _, ed := range edits {
		call := ed.c.call
		if ed.right {
			call.Args[len(call.Args)-1] = wrap(call.Args[len(call.Args)-1])
			n++
		}
		if ed.recv {
			// torch.Temp(x).Gop_Add(y): a method call on the
			// temporary, also in place of (torch.Tensor).Gop_Add(x, y).
			if ed.c.methExpr {
				x := call.Args[0]
				end := x.End()
				call.Fun = &ast.SelectorExpr{X: wrap(x), Sel: &ast.Ident{Name: ed.c.sel.Sel.Name, NamePos: end}}
				call.Args = call.Args[1:]
				call.Lparen = end
			} else {
				ed.c.sel.X = wrap(ed.c.sel.X)
			}
			n++
		}
	}
	// In place, so that Temp edits that wrap one of these calls, and
	// other consumed calls that have one as their temporary, keep it.
	for _, ed := range consumes {
		rewriteConsume(ed, torchName)
		n++
	}
	nOwned, rebinds := rewriteOwned(owned, torchName, info, visible)
	if n == 0 && nOwned == 0 {
		return src, none, nil
	}
	// s.Free() does not name the package: add the import only for Temp
	// and Rebind.
	if addImport && n+rebinds > 0 {
		addTorchImport(file, torchName)
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, file); err != nil {
		return src, none, err
	}
	// gofmt, which also sorts an added import into place.
	out, err := format.Source(buf.Bytes())
	if err != nil {
		return src, none, err
	}
	// The rewrite must not break the build: a local variable named like
	// the torch import would capture torch.Temp, say. Check the result
	// as the original was checked.
	ofile, err := parser.ParseFile(fset, autogenFile, out, parser.ParseComments)
	if err != nil {
		return src, none, fmt.Errorf("the rewritten Go does not parse: %w", err)
	}
	if _, err := conf.Check(ofile.Name.Name, fset, append([]*ast.File{ofile}, others...), nil); err != nil {
		return src, none, fmt.Errorf("the rewritten Go does not type-check: %w", err)
	}
	return out, lifetimeCounts{temps: n, owned: nOwned}, nil
}

// handWrittenGo parses the package's Go files other than tests and
// gop-torch's own output, so that the generated file type-checks with
// them.
func handWrittenGo(fset *token.FileSet, dir string) ([]*ast.File, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, name := range names {
		base := filepath.Base(name)
		// XGo's output and gop v1.4's (a stale gop_autogen.go, which
		// translateOne removes), as XGo's parser skips them too.
		if strings.HasSuffix(base, "_test.go") || strings.HasPrefix(base, "xgo_autogen") || strings.HasPrefix(base, "gop_autogen") {
			continue
		}
		// Files that this build leaves out (build constraints, another
		// GOOS) would clash with the others.
		if ok, err := build.Default.MatchFile(dir, base); err != nil || !ok {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// torchImportName returns the name under which files[0] refers to the
// torch package, and whether an import of it must be added under that
// name: one that no import of files[0] and no package-level name of files
// takes.
func torchImportName(files []*ast.File) (string, bool) {
	taken := map[string]bool{}
	for _, imp := range files[0].Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if path == torchPath && name != "_" && name != "." {
			return name, false
		}
		taken[name] = true
	}
	for _, d := range declsOf(files) {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				taken[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					taken[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, id := range s.Names {
						taken[id.Name] = true
					}
				}
			}
		}
	}
	name := "torch"
	for i := 1; taken[name]; i++ {
		name = fmt.Sprintf("torch%d", i)
	}
	return name, true
}

func declsOf(files []*ast.File) []ast.Decl {
	var ds []ast.Decl
	for _, f := range files {
		ds = append(ds, f.Decls...)
	}
	return ds
}

// addTorchImport adds an import of the torch package under name.
func addTorchImport(file *ast.File, name string) {
	spec := &ast.ImportSpec{Name: ast.NewIdent(name), Path: &ast.BasicLit{Kind: token.STRING, Value: strconv.Quote(torchPath)}}
	if name == "torch" {
		spec.Name = nil
	}
	file.Imports = append(file.Imports, spec)
	for _, d := range file.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			if !g.Lparen.IsValid() {
				g.Lparen = g.Pos()
				g.Rparen = g.End()
			}
			g.Specs = append(g.Specs, spec)
			return
		}
	}
	file.Decls = append([]ast.Decl{&ast.GenDecl{Tok: token.IMPORT, Specs: []ast.Spec{spec}}}, file.Decls...)
}

// isTensor reports whether t is torch.Tensor or a pointer to it.
func isTensor(t types.Type) bool {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == "Tensor" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == torchPath
}

// tensorCalls finds calls of torch.Tensor's operator methods in a
// type-checked file.
type tensorCalls struct {
	info  *types.Info
	fset  *token.FileSet // the importer's, for imported objects' positions (genOpOf)
	decls declHashes     // hashes of imported functions' declarations (handFreshOp)
}

// operatorMethod returns the gop v1.4 name of an operator method's name:
// XGo's gogen calls x.XGo_Add(y) where gop v1.4's called x.Gop_Add(y), and
// torch has both. It reports false for a name that is neither.
func operatorMethod(name string) (string, bool) {
	switch {
	case strings.HasPrefix(name, "Gop_"):
		return name, true
	case strings.HasPrefix(name, "XGo_"):
		return "Gop_" + name[len("XGo_"):], true
	}
	return "", false
}

// opCall describes a call of an operator method of torch.Tensor, in either
// form gogen writes: x.XGo_Add(y), or, when x is not addressable,
// (torch.Tensor).XGo_Add(x, y). gop v1.4 wrote Gop_Add instead.
type opCall struct {
	name     string // the method's gop v1.4 name (Gop_Add); sel has its own
	call     *ast.CallExpr
	sel      *ast.SelectorExpr
	methExpr bool // (torch.Tensor).Gop_Add(x, y)
}

// op describes e if it calls an operator method of torch.Tensor.
func (tc tensorCalls) op(e ast.Expr) (opCall, bool) {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return opCall{}, false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return opCall{}, false
	}
	name, ok := operatorMethod(sel.Sel.Name)
	if !ok {
		return opCall{}, false
	}
	tv, ok := tc.info.Types[sel.X]
	if !ok || !isTensor(tv.Type) {
		return opCall{}, false
	}
	c := opCall{name: name, call: call, sel: sel, methExpr: tv.IsType()}
	if c.methExpr && len(call.Args) == 0 {
		return opCall{}, false
	}
	return c, true
}

// recv is an operator's left (or only) operand.
func (tc tensorCalls) recv(c opCall) ast.Expr {
	if c.methExpr {
		return c.call.Args[0]
	}
	return c.sel.X
}

// right is a binary operator's right operand, nil for a unary one.
func (tc tensorCalls) right(c opCall) ast.Expr {
	args := c.call.Args
	if c.methExpr {
		args = args[1:]
	}
	if len(args) != 1 {
		return nil
	}
	return args[0]
}
