package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"

	"github.com/goplus/gogen"
)

// The GC post-pass.
//
// GoTorch frees the tensors of a training step when the next step begins:
// torch.GC() marks a step boundary and torch.FinishGC() ends a run of
// steps (see torch/memory.go). gop-torch puts these calls into the
// training script, the MainEntry method of the *_train.gox project
// class:
//
//   - torch.GC() as the first statement of the body of each for loop
//     (for, for-range and Go+'s for-in, which gop turns into them),
//     nested loops included: a nested loop's iterations are steps too;
//   - torch.FinishGC() as the statement after each such loop, so that the
//     code that follows a loop (an evaluation, a print) does not run
//     inside the loop's last step.
//
// Rules:
//
//   - Loops whose body calls nothing (i += 2, a[i] = x) cannot make
//     tensors and are left alone: a GC() runs Go's collector, far too
//     costly for them. Calls to Go builtins and type conversions do not
//     count as calls.
//   - Every way out of a loop ends the step. The normal end and a break
//     reach the FinishGC after the loop; a labelled break reaches the
//     FinishGC after the loop it names. A continue, labelled or not,
//     reaches the GC() at the top of the loop it continues, which ends
//     the step as well. A return, a goto out of a loop and a panic reach
//     a deferred torch.FinishGC(), which gop-torch puts at the top of
//     MainEntry when it instruments a loop there.
//   - A loop that never ends normally (for {} without a break) gets no
//     FinishGC, which would be unreachable.
//   - Only the statements of MainEntry are instrumented, not closures
//     (func literals, Go+ lambdas and comprehensions), other methods or
//     model classes: their loops may run inside a step, where a GC()
//     would end the step early.

// gcCalls makes the statements to insert. Each call returns a new
// statement; the expressions inside may be shared.
type gcCalls struct {
	gc, finish, deferFinish func() ast.Stmt
}

// instrumentFunc instruments the body of a function and returns the
// number of loops that got a GC() call. If there are any, the body starts
// with defer torch.FinishGC(), for the ways out of a loop that skip the
// FinishGC after it: return, goto and panics.
func instrumentFunc(fn *ast.FuncDecl, calls gcCalls) int {
	if fn.Body == nil {
		return 0
	}
	n := 0
	fn.Body.List = instrumentList(fn.Body.List, calls, &n)
	if n > 0 {
		fn.Body.List = append([]ast.Stmt{calls.deferFinish()}, fn.Body.List...)
	}
	return n
}

// instrumentList instruments a statement list and the statements nested
// in it.
func instrumentList(list []ast.Stmt, calls gcCalls, n *int) []ast.Stmt {
	out := make([]ast.Stmt, 0, len(list))
	for _, s := range list {
		out = append(out, s)
		if loop, label := loopOf(s); loop != nil {
			if instrumentLoop(loop, calls, n) && endsNormally(loop, label) {
				out = append(out, calls.finish())
			}
			continue
		}
		instrumentNested(s, calls, n)
	}
	return out
}

// loopOf returns the loop that s is, possibly under labels, and its label.
func loopOf(s ast.Stmt) (loop ast.Stmt, label string) {
	for {
		switch v := s.(type) {
		case *ast.LabeledStmt:
			label = v.Label.Name
			s = v.Stmt
			continue
		case *ast.ForStmt, *ast.RangeStmt:
			return v, label
		}
		return nil, ""
	}
}

func loopBody(loop ast.Stmt) *ast.BlockStmt {
	switch v := loop.(type) {
	case *ast.ForStmt:
		return v.Body
	case *ast.RangeStmt:
		return v.Body
	}
	return nil
}

// instrumentLoop puts GC() at the top of a loop's body if the body calls
// anything, after instrumenting the loops nested in it. It reports
// whether it did.
func instrumentLoop(loop ast.Stmt, calls gcCalls, n *int) bool {
	body := loopBody(loop)
	if body == nil {
		return false
	}
	calling := hasCall(body)
	body.List = instrumentList(body.List, calls, n)
	if !calling {
		return false
	}
	body.List = append([]ast.Stmt{calls.gc()}, body.List...)
	*n++
	return true
}

// instrumentNested instruments the statement lists inside a statement
// that is not a loop.
func instrumentNested(s ast.Stmt, calls gcCalls, n *int) {
	switch v := s.(type) {
	case *ast.BlockStmt:
		v.List = instrumentList(v.List, calls, n)
	case *ast.LabeledStmt:
		instrumentNested(v.Stmt, calls, n)
	case *ast.IfStmt:
		instrumentNested(v.Body, calls, n)
		if v.Else != nil {
			instrumentNested(v.Else, calls, n)
		}
	case *ast.SwitchStmt:
		instrumentNested(v.Body, calls, n)
	case *ast.TypeSwitchStmt:
		instrumentNested(v.Body, calls, n)
	case *ast.SelectStmt:
		instrumentNested(v.Body, calls, n)
	case *ast.CaseClause:
		v.Body = instrumentList(v.Body, calls, n)
	case *ast.CommClause:
		v.Body = instrumentList(v.Body, calls, n)
	}
}

// builtins are Go's predeclared functions and types, whose calls and
// conversions make no tensors.
var builtins = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "complex": true,
	"copy": true, "delete": true, "imag": true, "len": true, "make": true,
	"max": true, "min": true, "new": true, "panic": true, "print": true,
	"println": true, "real": true, "recover": true,
	"bool": true, "byte": true, "complex64": true, "complex128": true,
	"error": true, "float32": true, "float64": true, "int": true, "int8": true,
	"int16": true, "int32": true, "int64": true, "rune": true, "string": true,
	"uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"uintptr": true, "any": true,
}

// hasCall reports whether n calls a function or method, outside func
// literals (a call of a func literal counts).
func hasCall(n ast.Node) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if found {
			return false
		}
		switch v := x.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			switch f := ast.Unparen(v.Fun).(type) {
			case *ast.Ident:
				if !builtins[f.Name] {
					found = true
				}
			case *ast.ArrayType, *ast.MapType, *ast.ChanType, *ast.FuncType,
				*ast.InterfaceType, *ast.StructType:
				// a conversion
			case *ast.StarExpr:
				// a conversion to a pointer type
			default:
				found = true
			}
		}
		return !found
	})
	return found
}

// endsNormally reports whether control can reach the statement after a
// loop: it has a condition, ranges over something, or a break leaves it.
func endsNormally(loop ast.Stmt, label string) bool {
	if f, ok := loop.(*ast.ForStmt); ok && f.Cond == nil {
		return breaks(f.Body, label, 0)
	}
	return true
}

// breaks reports whether a break in n leaves the loop whose body n is:
// an unlabelled break outside nested loops, switches and selects, or a
// break to label.
func breaks(n ast.Node, label string, depth int) bool {
	found := false
	ast.Inspect(n, func(x ast.Node) bool {
		if found {
			return false
		}
		switch v := x.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BranchStmt:
			if v.Tok == token.BREAK {
				if v.Label == nil && depth == 0 {
					found = true
				} else if v.Label != nil && label != "" && v.Label.Name == label {
					found = true
				}
			}
		case *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.SelectStmt:
			if x != n {
				// An unlabelled break inside binds to this statement.
				var body *ast.BlockStmt
				switch s := v.(type) {
				case *ast.ForStmt:
					body = s.Body
				case *ast.RangeStmt:
					body = s.Body
				case *ast.SwitchStmt:
					body = s.Body
				case *ast.TypeSwitchStmt:
					body = s.Body
				case *ast.SelectStmt:
					body = s.Body
				}
				if breaks(body, label, depth+1) {
					found = true
				}
				return false
			}
		}
		return true
	})
	return found
}

// instrumentPackage finds the training script's MainEntry in a compiled
// package, inserts the GC calls and adds the marker method. It reports the
// number of loops instrumented and whether there was a MainEntry.
func instrumentPackage(pkg *gogen.Package) (loops int, entry bool, err error) {
	file := pkg.ASTFile()
	if file == nil {
		return 0, false, nil
	}
	var main *ast.FuncDecl
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || fd.Name.Name != "MainEntry" || len(fd.Recv.List) != 1 {
			continue
		}
		if main != nil {
			return 0, false, fmt.Errorf("two MainEntry methods")
		}
		main = fd
	}
	if main == nil {
		return 0, false, nil
	}
	recvName := recvTypeName(main.Recv.List[0].Type)
	obj := pkg.Types.Scope().Lookup(recvName)
	if obj == nil {
		return 0, false, fmt.Errorf("cannot find the project class %q", recvName)
	}
	old, _ := pkg.SetCurFile("", true) // gop's default file, gop_autogen.go
	defer pkg.RestoreCurFile(old)
	torch := pkg.Import(torchPath)
	cb := pkg.CB()
	callExpr := func(name string) *ast.CallExpr {
		// Let gogen make the expression, so that it imports torch, under
		// a name that does not clash.
		return cb.Val(torch.Ref(name)).Call(0).InternalStack().Pop().Val.(*ast.CallExpr)
	}
	gc, finish := callExpr("GC"), callExpr("FinishGC")
	calls := gcCalls{
		gc:          func() ast.Stmt { return &ast.ExprStmt{X: gc} },
		finish:      func() ast.Stmt { return &ast.ExprStmt{X: finish} },
		deferFinish: func() ast.Stmt { return &ast.DeferStmt{Call: finish} },
	}
	loops = instrumentFunc(main, calls)

	// The marker that tells the Trainer that the loops call GC().
	recv := pkg.NewParam(token.NoPos, "this", types.NewPointer(obj.Type()))
	ret := types.NewTuple(pkg.NewParam(token.NoPos, "", types.Typ[types.String]))
	pkg.NewFunc(recv, markerName, nil, ret, false).BodyStart(pkg).
		Val(fmt.Sprintf("%s (%d loops)", version, loops)).Return(1).
		End()
	return loops, true, nil
}

func recvTypeName(x ast.Expr) string {
	for {
		switch v := x.(type) {
		case *ast.StarExpr:
			x = v.X
		case *ast.ParenExpr:
			x = v.X
		case *ast.Ident:
			return v.Name
		default:
			return ""
		}
	}
}
