package main

import (
	"crypto/sha256"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Hand-written functions that gop-torch may treat as fresh.
//
// gop-torch frees the results of generated ops early (genOps). Go+ code
// mostly reaches them through hand-written one-liners: x.sum(1) is
// Tensor.SumAlong, relu(x) in a classfile is gopkg.Relu, zeros(2) is
// gopkg.Zeros__0. handFresh finds, in the sources of packages torch and
// gopkg, the functions and Tensor methods that are just such a call:
//
//   - exported, with one result, a Tensor;
//   - a body of a single return statement whose value is a call of a
//     generated op that returns none of its arguments, or of another
//     function found here;
//   - every parameter whose type mentions Tensor appears only as the
//     receiver or a whole argument of that call, so that nothing else
//     sees it and the callee, which keeps nothing, is the only reader.
//
// Such a function returns a new tensor that nothing else holds, and keeps
// nothing it is given, exactly as the op it calls.

// handPkg is a package whose hand-written sources handFresh reads.
type handPkg struct {
	path   string // import path
	dir    string // folder, relative to the repository root
	tensor string // how its sources spell the tensor type
}

var handPkgs = []handPkg{
	{"github.com/gotorch/gotorch/torch", "torch", "Tensor"},
	{"github.com/gotorch/gotorch/gopkg", "gopkg", "torch.Tensor"},
}

// handEntry is a hand-written function found fresh: its key (import path,
// then "." and the name, with "Tensor." before a method's) and a hash of
// its declaration's source, from the func keyword to the closing brace.
// gop-torch trusts the entry only if the source it compiles against still
// hashes the same (cmd/gop-torch/genops.go).
type handEntry struct{ key, hash string }

// declHash hashes a declaration's source text.
func declHash(text []byte) string {
	return fmt.Sprintf("%x", sha256.Sum256(text))[:16]
}

// handFresh returns the hand-written functions that are fresh in the sense
// above, sorted by key.
func (g *generator) handFresh() []handEntry {
	// fresh holds what is known fresh: generated ops by their Go names
	// in torch, then the hand-written functions found.
	const torchPath = "github.com/gotorch/gotorch/torch"
	fresh := map[string]bool{}
	for _, f := range g.fns {
		if f.aliases() || len(f.rets) != 1 || f.rets[0] != "tensor" {
			continue
		}
		if f.isFunc {
			fresh[torchPath+"."+f.goName] = true
		}
		if f.isMethod {
			fresh[torchPath+".Tensor."+f.goName] = true
		}
	}
	type cand struct {
		pkg       handPkg
		fn        *ast.FuncDecl
		key, hash string
		torchName string // the file's name for package torch, if it imports it
	}
	var cands []cand
	count := map[string]int{}
	fset := token.NewFileSet()
	for _, p := range handPkgs {
		files, _ := filepath.Glob(filepath.Join(*root, p.dir, "*.go"))
		for _, file := range files {
			base := filepath.Base(file)
			if strings.HasSuffix(base, "_gen.go") || strings.HasSuffix(base, "_test.go") {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				log.Fatal(err)
			}
			af, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
			if err != nil {
				log.Fatal(err)
			}
			torchName := ""
			for _, imp := range af.Imports {
				if path, _ := strconv.Unquote(imp.Path.Value); path == torchPath {
					torchName = "torch"
					if imp.Name != nil {
						torchName = imp.Name.Name
					}
				}
			}
			for _, d := range af.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || !fd.Name.IsExported() || fd.Body == nil {
					continue
				}
				key := p.path + "." + fd.Name.Name
				if fd.Recv != nil {
					if typeString(fd.Recv.List[0].Type) != p.tensor || p.tensor != "Tensor" {
						continue // a method of another type, or a pointer receiver
					}
					key = p.path + ".Tensor." + fd.Name.Name
				}
				// A declaration in a file with build constraints may
				// have a twin in another; a key declared twice is not
				// trusted.
				count[key]++
				text := src[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset]
				cands = append(cands, cand{p, fd, key, declHash(text), torchName})
				// A hand-written method hides a generated one that
				// Tensor would get from *handle.
				delete(fresh, key)
			}
		}
	}
	// A function may call another found here: repeat until nothing new.
	for changed := true; changed; {
		changed = false
		for _, c := range cands {
			if !fresh[c.key] && count[c.key] == 1 && freshBody(c.pkg, c.fn, c.torchName, fresh) {
				fresh[c.key] = true
				changed = true
			}
		}
	}
	var out []handEntry
	for _, c := range cands {
		if fresh[c.key] {
			out = append(out, handEntry{c.key, c.hash})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// freshBody reports whether fn, of package p, is a single return of a call
// of a function in fresh, with its tensor parameters only as the call's
// receiver or whole arguments.
func freshBody(p handPkg, fn *ast.FuncDecl, torchName string, fresh map[string]bool) bool {
	if fn.Type.TypeParams != nil {
		return false
	}
	res := fn.Type.Results
	if res == nil || len(res.List) != 1 || len(res.List[0].Names) > 1 || typeString(res.List[0].Type) != p.tensor {
		return false
	}
	if len(fn.Body.List) != 1 {
		return false
	}
	ret, ok := fn.Body.List[0].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	call, ok := ret.Results[0].(*ast.CallExpr)
	if !ok {
		return false
	}
	// The parameters (and receiver) that could hold a tensor: all but
	// those of plain types (numbers, strings, slices of them).
	held := map[string]bool{}
	var fields []*ast.Field
	if fn.Recv != nil {
		fields = append(fields, fn.Recv.List...)
	}
	fields = append(fields, fn.Type.Params.List...)
	for _, f := range fields {
		if !plainType(f.Type) {
			for _, n := range f.Names {
				held[n.Name] = true
			}
		}
	}
	// The callee: a function of this package or of torch, or a method of
	// a parameter (or receiver) of the tensor type.
	const torchPath = "github.com/gotorch/gotorch/torch"
	var key string
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		if paramType(fn, fun.Name) != nil {
			return false // a parameter (or result) of function type
		}
		key = p.path + "." + fun.Name
	case *ast.SelectorExpr:
		x, ok := fun.X.(*ast.Ident)
		switch {
		case !ok:
			return false
		case held[x.Name] && typeString(paramType(fn, x.Name)) == p.tensor:
			key = torchPath + ".Tensor." + fun.Sel.Name
		case !held[x.Name] && paramType(fn, x.Name) == nil && x.Name == torchName && p.path != torchPath:
			key = torchPath + "." + fun.Sel.Name
		default:
			return false
		}
	default:
		return false
	}
	if !fresh[key] {
		return false
	}
	// Those parameters appear only as the receiver or whole arguments.
	mentions := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && held[id.Name] {
				found = true
			}
			return !found
		})
		return found
	}
	for _, a := range call.Args {
		if id, ok := a.(*ast.Ident); ok && held[id.Name] {
			continue
		}
		if mentions(a) {
			return false
		}
	}
	if call.Ellipsis.IsValid() {
		// f(xs...) hands the caller's slice over as it is; only plain
		// values are allowed then.
		if id, ok := call.Args[len(call.Args)-1].(*ast.Ident); ok && held[id.Name] {
			return false
		}
	}
	return true
}

// plainType reports whether a parameter of type e cannot hold a tensor: a
// number, a bool, a string, or a slice of them.
func plainType(e ast.Expr) bool {
	switch t := e.(type) {
	case *ast.Ident:
		switch t.Name {
		case "bool", "string", "int", "int8", "int16", "int32", "int64",
			"uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "byte", "rune":
			return true
		}
	case *ast.ArrayType:
		return plainType(t.Elt)
	case *ast.Ellipsis:
		return plainType(t.Elt)
	}
	return false
}

// paramType returns the type of fn's parameter, receiver or named result
// name, nil if there is none.
func paramType(fn *ast.FuncDecl, name string) ast.Expr {
	var fields []*ast.Field
	if fn.Recv != nil {
		fields = append(fields, fn.Recv.List...)
	}
	fields = append(fields, fn.Type.Params.List...)
	if fn.Type.Results != nil {
		fields = append(fields, fn.Type.Results.List...)
	}
	for _, f := range fields {
		for _, n := range f.Names {
			if n.Name == name {
				return f.Type
			}
		}
	}
	return nil
}

// typeString spells a type expression: Tensor, torch.Tensor, []int64.
func typeString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return typeString(e.X) + "." + e.Sel.Name
	case *ast.StarExpr:
		return "*" + typeString(e.X)
	case *ast.ArrayType:
		return "[]" + typeString(e.Elt)
	case *ast.Ellipsis:
		return "..." + typeString(e.Elt)
	case *ast.MapType:
		return "map[" + typeString(e.Key) + "]" + typeString(e.Value)
	case *ast.FuncType:
		return "func"
	case *ast.InterfaceType:
		return "interface"
	}
	return "?"
}

// Modules of package nn whose Forward gop-torch may treat as fresh.
//
// In a Go+ model, relu(FC1.forward(x)) passes a module's result straight
// to another call. A module is hand-written Go that may return its input
// (Identity, a Dropout in eval mode, an in-place ReLU) or a tensor it
// holds, so gop-torch treats a module's result as fresh only for the
// modules listed here, checked by hand: Forward is must(TryForward(x)),
// and TryForward checks its receiver, may size a lazy layer from x's
// shape, and returns one generated op's new tensor, keeping nothing it is
// given. nn has no forward hooks that could replace a result. Each entry
// pins the declarations of Forward and TryForward by their hashes, so that
// a change to either drops the module from gop-torch's table until it is
// checked again and this list regenerated.
var nnFreshModules = []string{"EmbeddingModule", "LayerNormModule", "LinearModule"}

// nnFresh returns the entries for nnFreshModules: the keys
// "github.com/gotorch/gotorch/nn.LinearModule.Forward" and
// ".TryForward", with their declarations' hashes. A module of the list
// without both methods stops the generator.
func nnFresh() []handEntry {
	const nnPath = "github.com/gotorch/gotorch/nn"
	want := map[string]bool{}
	for _, m := range nnFreshModules {
		want[m+".Forward"], want[m+".TryForward"] = true, true
	}
	found := map[string]string{}
	fset := token.NewFileSet()
	files, _ := filepath.Glob(filepath.Join(*root, "nn", "*.go"))
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		src, err := os.ReadFile(file)
		if err != nil {
			log.Fatal(err)
		}
		af, err := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
		if err != nil {
			log.Fatal(err)
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || fd.Body == nil {
				continue
			}
			star, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			key := typeString(star.X) + "." + fd.Name.Name
			if !want[key] {
				continue
			}
			if _, dup := found[key]; dup {
				log.Fatalf("nn declares %s twice", key)
			}
			found[key] = declHash(src[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset])
		}
	}
	var out []handEntry
	for key := range want {
		h, ok := found[key]
		if !ok {
			log.Fatalf("nnFreshModules: nn has no method %s", key)
		}
		out = append(out, handEntry{nnPath + "." + key, h})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}
