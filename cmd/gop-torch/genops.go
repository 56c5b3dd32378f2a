package main

import (
	"crypto/sha256"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
)

// genOp says what gop-torch knows of one of package torch's generated ops
// (genOps, written by internal/gen with torch/ops_gen.go).
type genOp uint8

const (
	genFunc    genOp = 1 << iota // a function of package torch
	genMethod                    // a method of torch.Tensor
	genAliases                   // a tensor result may be an argument (in-place and out= ops)
	genSelf                      // every result of the method form is its receiver (in-place ops)
)

// genOpOf reports whether call calls one of package torch's generated
// ops (either form, panicking or Try), and what genOps says of it. A
// generated op keeps no Go value it is given, and the tensors it returns
// are new handles unless it aliases: in-place and out= ops return their
// self or out argument.
//
// A function counts only if it is declared in torch/ops_gen.go, so that a
// hand-written function that shares a generated op's name is never taken
// for one. The table must come from the same GoTorch as the torch package
// the program builds with, as it does when gop-torch runs from that
// module (go run ./cmd/gop-torch); a gop-torch built from another version
// could misjudge an op whose aliasing changed between the two.
func (tc tensorCalls) genOpOf(call *ast.CallExpr) (genOp, bool) {
	var id *ast.Ident
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = fun
	case *ast.SelectorExpr:
		if sel := tc.info.Selections[fun]; sel != nil && sel.Kind() != types.MethodVal {
			return 0, false // a method expression, (torch.Tensor).Mm(x, w)
		}
		id = fun.Sel
	default:
		return 0, false
	}
	f, ok := tc.info.Uses[id].(*types.Func)
	if !ok || f.Pkg() == nil {
		return 0, false
	}
	sig := f.Type().(*types.Signature)
	if k, ok := tc.handFreshOp(f, sig); ok {
		return k, true
	}
	if f.Pkg().Path() != torchPath {
		return 0, false
	}
	if tc.fset == nil || filepath.Base(tc.fset.PositionFor(f.Pos(), false).Filename) != "ops_gen.go" {
		return 0, false
	}
	name := f.Name()
	k, ok := genOps[name]
	if !ok && strings.HasPrefix(name, "Try") {
		if r := sig.Results(); r.Len() > 0 && types.Identical(r.At(r.Len()-1).Type(), types.Universe.Lookup("error").Type()) {
			k, ok = genOps[name[len("Try"):]]
		}
	}
	if !ok {
		return 0, false
	}
	want := genFunc
	if sig.Recv() != nil {
		want = genMethod
	}
	return k, k&want != 0
}

// handFreshOp reports whether f is one of the hand-written functions or
// Tensor methods of torch and gopkg that handFresh lists: a single call of
// a generated op that aliases nothing, which it is then taken for. The
// entry counts only if f's declaration, in the source that the program
// builds with, hashes as it did when the table was made: an edited
// function (or another GoTorch's) is left alone.
func (tc tensorCalls) handFreshOp(f *types.Func, sig *types.Signature) (genOp, bool) {
	path := f.Pkg().Path()
	if path == nnPath {
		return tc.nnFreshForward(f, sig)
	}
	if path != torchPath && path != gopkgPath {
		return 0, false
	}
	k, key := genFunc, path+"."+f.Name()
	if r := sig.Recv(); r != nil {
		if path != torchPath || !isTensorValue(r.Type()) {
			return 0, false
		}
		k, key = genMethod, path+".Tensor."+f.Name()
	}
	want, ok := handFresh[key]
	if !ok || tc.fset == nil || tc.decls == nil {
		return 0, false
	}
	pos := tc.fset.PositionFor(f.Pos(), false)
	if !pos.IsValid() || pos.Filename == "" || tc.decls.hash(pos) != want {
		return 0, false
	}
	return k, true
}

// gopkgPath is the Go+ classfile vocabulary's package.
const gopkgPath = "github.com/gotorch/gotorch/gopkg"

// nnPath is the package of the modules.
const nnPath = "github.com/gotorch/gotorch/nn"

// nnFreshForward reports whether f is the Forward method of one of the nn
// modules that handFresh lists (internal/gen/fresh.go: Linear, LayerNorm,
// Embedding): its result is a new tensor and it keeps nothing it is
// given, as a generated op. So in relu(FC1.forward(x)) the linear layer's
// output is a temporary that the ReLU consumes, and in FC2.forward(relu(h))
// the layer consumes the ReLU's, as nn.Sequential frees each intermediate
// once the next layer has it. The entry counts only if both Forward and
// TryForward hash as they did when the table was made.
func (tc tensorCalls) nnFreshForward(f *types.Func, sig *types.Signature) (genOp, bool) {
	if f.Name() != "Forward" || tc.fset == nil || tc.decls == nil {
		return 0, false
	}
	r := sig.Recv()
	if r == nil {
		return 0, false
	}
	ptr, ok := types.Unalias(r.Type()).(*types.Pointer)
	if !ok {
		return 0, false
	}
	named, ok := types.Unalias(ptr.Elem()).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != nnPath || named.TypeArgs().Len() > 0 {
		return 0, false
	}
	var try *types.Func
	for i := range named.NumMethods() {
		if m := named.Method(i); m.Name() == "TryForward" {
			try = m
		}
	}
	if try == nil {
		return 0, false
	}
	for _, m := range []*types.Func{f, try} {
		want, ok := handFresh[nnPath+"."+named.Obj().Name()+"."+m.Name()]
		if !ok {
			return 0, false
		}
		pos := tc.fset.PositionFor(m.Pos(), false)
		if !pos.IsValid() || pos.Filename == "" || tc.decls.hash(pos) != want {
			return 0, false
		}
	}
	return genMethod, true
}

// declHashes caches the hashes of the function declarations of source
// files, by file and the line of each function's name (export data gives
// imported objects a line, not always a column).
type declHashes map[string]map[int]string

// hash returns the hash of the declaration of the function named on
// pos's line, as internal/gen's declHash makes it, or "" if the file
// cannot be read or the line names two functions.
func (d declHashes) hash(pos token.Position) string {
	m, ok := d[pos.Filename]
	if !ok {
		m = map[int]string{}
		d[pos.Filename] = m
		if src, err := os.ReadFile(pos.Filename); err == nil {
			fset := token.NewFileSet()
			if f, err := parser.ParseFile(fset, pos.Filename, src, parser.SkipObjectResolution); err == nil {
				for _, decl := range f.Decls {
					fd, ok := decl.(*ast.FuncDecl)
					if !ok {
						continue
					}
					line := fset.Position(fd.Name.Pos()).Line
					text := src[fset.Position(fd.Pos()).Offset:fset.Position(fd.End()).Offset]
					if _, dup := m[line]; dup {
						m[line] = "" // two functions on one line
					} else {
						m[line] = fmt.Sprintf("%x", sha256.Sum256(text))[:16]
					}
				}
			}
		}
	}
	return m[pos.Line]
}

// freshGen reports whether e calls a generated op that returns one tensor
// and never one of its arguments: a new tensor that nothing else holds.
func (tc tensorCalls) freshGen(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	k, ok := tc.genOpOf(call)
	if !ok || k&genAliases != 0 {
		return false
	}
	tv, ok := tc.info.Types[call]
	return ok && isTensorValue(tv.Type)
}

// readsArg reports whether call, a call that has x among its operands
// (an argument, or the receiver of a method), only reads x: call is a
// generated op that returns none of its arguments, or one whose result is
// dropped (an expression statement, parent).
func (tc tensorCalls) readsArg(call *ast.CallExpr, parent ast.Node) bool {
	k, ok := tc.genOpOf(call)
	if !ok {
		return false
	}
	if k&genAliases == 0 {
		return true
	}
	s, ok := parent.(*ast.ExprStmt)
	return ok && ast.Unparen(s.X) == call
}

// updatesSelf reports whether n is an assignment v = v.M(…) where M is a
// generated in-place op whose result is its receiver (genSelf): v keeps
// its tensor, updated in place.
func (tc tensorCalls) updatesSelf(n ast.Node, v *types.Var) bool {
	a, ok := n.(*ast.AssignStmt)
	if !ok || a.Tok != token.ASSIGN || len(a.Lhs) != 1 || len(a.Rhs) != 1 {
		return false
	}
	l, ok := ast.Unparen(a.Lhs[0]).(*ast.Ident)
	if !ok || tc.info.Uses[l] != v {
		return false
	}
	call, ok := ast.Unparen(a.Rhs[0]).(*ast.CallExpr)
	if !ok {
		return false
	}
	// v.M: a method of v (a package's function would be pkg.M).
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if r, ok := ast.Unparen(sel.X).(*ast.Ident); !ok || tc.info.Uses[r] != v {
		return false
	}
	k, ok := tc.genOpOf(call)
	return ok && k&genSelf != 0
}
