package main

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
)

// Temporaries passed to ops.
//
// torch.Temp frees a temporary that a tensor operator consumes. In
// relu(a*b), sum(p*p) or x.Mm(w).relu(), the temporary is consumed by a
// generated op (or a one-liner over one, or the Forward of a module that
// keeps nothing, genops.go), which takes a torch.Tensor and cannot free
// it. gop-torch writes
//
//	torch.Consume(a*b, func(t torch.Tensor) torch.Tensor { return gopkg.Relu(t) })
//
// which frees the product once the ReLU exists (torch/gop_temp.go). The
// op must return one tensor and none of its arguments, and it keeps
// nothing it is given, so the product is dead once the op returns.
//
// The other operands of the op are evaluated inside the closure, after the
// temporary instead of before it. To keep that invisible, the pass rewrites
// a call only if exactly one operand is a temporary and every other
// operand is a name, a literal (also negated), a name from a package or a
// field of one of these (simple): nothing whose evaluation could have an
// effect.

// consumeEdit is a call whose operand (the receiver if arg < 0) is a
// temporary that torch.Consume is to free.
type consumeEdit struct {
	call *ast.CallExpr
	arg  int
}

// consumable reports whether call is an op whose one temporary operand can
// be handed to torch.Consume, and which.
func (tc tensorCalls) consumable(call *ast.CallExpr) (consumeEdit, bool) {
	if call.Ellipsis.IsValid() || !tc.freshGen(call) {
		return consumeEdit{}, false
	}
	ed := consumeEdit{call: call, arg: -2}
	claim := func(i int, e ast.Expr) bool {
		if tc.fresh(e) {
			if ed.arg != -2 {
				return false // two temporaries
			}
			ed.arg = i
			return true
		}
		return tc.simple(e)
	}
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
	case *ast.SelectorExpr:
		if sel := tc.info.Selections[fun]; sel != nil {
			// A method: its receiver is an operand.
			if !claim(-1, fun.X) {
				return consumeEdit{}, false
			}
		} else if !tc.simple(fun.X) {
			return consumeEdit{}, false
		}
	default:
		return consumeEdit{}, false
	}
	for i, a := range call.Args {
		if !claim(i, a) {
			return consumeEdit{}, false
		}
	}
	if ed.arg == -2 {
		return consumeEdit{}, false
	}
	if ed.arg == -1 {
		// The receiver must be a torch.Tensor value, so that the
		// closure's parameter has its method set.
		if tv, ok := tc.info.Types[ast.Unparen(call.Fun).(*ast.SelectorExpr).X]; !ok || !isTensorValue(tv.Type) {
			return consumeEdit{}, false
		}
	} else if tv, ok := tc.info.Types[call.Args[ed.arg]]; !ok || !isTensorValue(tv.Type) {
		return consumeEdit{}, false
	}
	return ed, true
}

// simple reports whether evaluating e has no effect: a name, a literal, a
// negated literal, a name from a package, or a field of a simple value
// (this.FC2, the receiver of a model's layer). Only a field read through
// a nil pointer can fail, and it would fail as well where it stood; Go
// leaves the order of field reads among the calls of an expression
// unspecified anyway.
func (tc tensorCalls) simple(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident, *ast.BasicLit:
		return true
	case *ast.UnaryExpr:
		_, lit := ast.Unparen(e.X).(*ast.BasicLit)
		return lit && (e.Op == token.SUB || e.Op == token.ADD)
	case *ast.SelectorExpr:
		if sel := tc.info.Selections[e]; sel != nil {
			return sel.Kind() == types.FieldVal && tc.simple(e.X)
		}
		if id, ok := e.X.(*ast.Ident); ok {
			_, pkg := tc.info.Uses[id].(*types.PkgName)
			return pkg
		}
	}
	return false
}

// rewriteConsume turns ed.call, in place, into
// torch.Consume(temp, func(t torch.Tensor) torch.Tensor { return call(t) }).
func rewriteConsume(ed consumeEdit, torchName string) {
	call := ed.call
	p := call.Pos()
	inner := &ast.CallExpr{Fun: call.Fun, Args: append([]ast.Expr(nil), call.Args...), Ellipsis: call.Ellipsis, Lparen: call.Lparen, Rparen: call.Rparen}
	// The closure's parameter must not hide a name that the op's other
	// operands use.
	used := map[string]bool{torchName: true}
	ast.Inspect(inner, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			used[id.Name] = true
		}
		return true
	})
	name := "t"
	for i := 1; used[name]; i++ {
		name = "t" + strconv.Itoa(i)
	}
	param := &ast.Ident{Name: name, NamePos: p}
	var temp ast.Expr
	if ed.arg < 0 {
		sel := ast.Unparen(call.Fun).(*ast.SelectorExpr)
		temp = sel.X
		inner.Fun = &ast.SelectorExpr{X: param, Sel: sel.Sel}
	} else {
		temp = call.Args[ed.arg]
		inner.Args[ed.arg] = param
	}
	tensorType := func() ast.Expr {
		return &ast.SelectorExpr{X: &ast.Ident{Name: torchName, NamePos: p}, Sel: &ast.Ident{Name: "Tensor", NamePos: p}}
	}
	lit := &ast.FuncLit{
		Type: &ast.FuncType{
			Func:    p,
			Params:  &ast.FieldList{List: []*ast.Field{{Names: []*ast.Ident{{Name: name, NamePos: p}}, Type: tensorType()}}},
			Results: &ast.FieldList{List: []*ast.Field{{Type: tensorType()}}},
		},
		Body: &ast.BlockStmt{List: []ast.Stmt{&ast.ReturnStmt{Return: p, Results: []ast.Expr{inner}}}},
	}
	*call = ast.CallExpr{
		Fun:    &ast.SelectorExpr{X: &ast.Ident{Name: torchName, NamePos: p}, Sel: &ast.Ident{Name: "Consume", NamePos: p}},
		Lparen: p, Args: []ast.Expr{temp, lit}, Rparen: call.End(),
	}
}
