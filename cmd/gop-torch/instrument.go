package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"github.com/goplus/gogen"
)

// The GC post-pass.
//
// GoTorch frees the tensors of a training step when the next step begins:
// torch.GC() marks a step boundary and torch.FinishGC() ends a run of
// steps (see torch/memory.go). gop-torch bounds every loop that may make
// tensors, in two ways.
//
// Step loops. In the training script's own code, the loops run one after
// another on the script's goroutine, and their iterations are steps:
// the statements of MainEntry (the script's top level), the script's
// funcs (the other methods of the *_train.gox project class), and the
// function literals in them that run there and then: called in place
// (func() { ... }(), defer func() { ... }(), which includes Go+'s
// comprehensions) or passed to NoGrad (noGrad => { ... }). gop-torch
// puts
//
//   - torch.GC() as the first statement of the body of each for loop
//     (for, for-range and Go+'s for-in, which gop turns into them),
//     nested loops included: a nested loop's iterations are steps too;
//   - torch.FinishGC() as the statement after each such loop, so that the
//     code that follows a loop (an evaluation, a print) does not run
//     inside the loop's last step.
//
// So noGrad => { for x, y in testLoader { ... } } frees each evaluation
// batch's tensors at the next, as the training loop does.
//
// Bounded loops. Loops that may run inside another loop's step, or on
// another goroutine, get torch.MaybeGC() as the first statement of their
// body: the methods of model classes (a Forward runs inside a training
// step), functions outside classes, and every other function literal
// (one stored in a variable, passed as a callback such as a transform that
// a loader's workers run per example, or started with go). MaybeGC
// collects only when 4,096 tensors or 64 MiB were made since the last
// collection, and otherwise costs one lock, so a hot loop pays almost
// nothing, and it leaves the step state alone. A GC() per iteration there
// would run Go's collector (about 0.2 ms) at every iteration of a Forward
// loop, per example on a loader's workers, and a FinishGC after the loop
// would end the caller's step in its middle. These loops get no
// FinishGC.
//
// Calling GC() inside a closure or a nested loop never frees a tensor
// that the program can still use: GC frees only tensors whose handles Go
// found unreachable (weak pointers, torch/memory.go), whatever goroutine
// calls it. The choice between the two is about cost and step
// boundaries, not safety.
//
// Rules:
//
//   - Loops whose body calls nothing (i += 2, a[i] = x) cannot make
//     tensors and are left alone. Calls to Go builtins and type
//     conversions do not count as calls; calls inside a function literal
//     count only when the literal is called in place.
//   - Every way out of a step loop ends the step. The normal end and a
//     break reach the FinishGC after the loop; a labelled break reaches
//     the FinishGC after the loop it names. A continue, labelled or not,
//     reaches the GC() at the top of the loop it continues, which ends
//     the step as well. A return, a goto out of a loop and a panic reach
//     a deferred torch.FinishGC(), which gop-torch puts at the top of
//     MainEntry when it instruments a loop there. Elsewhere (script
//     funcs, literals) they leave the step open until the next GC() or
//     FinishGC(), which leaks nothing (the Trainer calls FinishGC when the
//     script ends); a deferred FinishGC there would run Go's collector at
//     every call.
//   - A loop that never ends normally (for {} without a break) gets no
//     FinishGC, which would be unreachable.
//   - A script func called from a per-example transform or a goroutine
//     still gets step loops: gop-torch cannot see where a method is
//     called from. Move such a loop into a function literal or a model
//     method to make it a bounded loop.

// gcMode is how the loops of a function are instrumented.
type gcMode int

const (
	stepLoops    gcMode = iota + 1 // GC() at the top, FinishGC() after
	boundedLoops                   // MaybeGC() at the top
)

// gcCalls makes the statements to insert. Each call returns a new
// statement; the expressions inside may be shared.
type gcCalls struct {
	gc, finish, deferFinish, maybe func() ast.Stmt
}

// instrumentFunc instruments the body of MainEntry and returns the number
// of loops that got a GC() or MaybeGC() call, function literals included.
// If MainEntry's own statements have step loops, the body starts with
// defer torch.FinishGC(), for the ways out of a loop that skip the
// FinishGC after it: return, goto and panics.
func instrumentFunc(fn *ast.FuncDecl, calls gcCalls) int {
	return instrumentDecl(fn, stepLoops, true, calls)
}

// instrumentDecl instruments a function declaration's body in mode and
// returns the number of loops instrumented. deferFinish says whether a
// body with step loops of its own starts with defer torch.FinishGC().
func instrumentDecl(fn *ast.FuncDecl, mode gcMode, deferFinish bool, calls gcCalls) int {
	if fn.Body == nil {
		return 0
	}
	in := &instrumenter{calls: calls}
	own := in.body(fn.Body, mode)
	if own > 0 && mode == stepLoops && deferFinish {
		fn.Body.List = append([]ast.Stmt{calls.deferFinish()}, fn.Body.List...)
	}
	return in.n
}

// instrumenter instruments a function body and the function literals in
// it.
type instrumenter struct {
	calls gcCalls
	n     int // loops instrumented in all
}

// body instruments the statements of a function body in mode, and the
// function literals in it, and returns the number of the body's own
// loops (not its literals') that it instrumented.
func (in *instrumenter) body(b *ast.BlockStmt, mode gcMode) int {
	in.literals(b, mode)
	own := 0
	b.List = in.list(b.List, mode, &own)
	in.n += own
	return own
}

// literals instruments the bodies of the function literals in n, the
// outermost ones: each in the mode its use gives it (see litMode), and
// the literals nested in it in turn.
func (in *instrumenter) literals(n ast.Node, mode gcMode) {
	inPlace := map[*ast.FuncLit]bool{}
	goCalls := map[*ast.CallExpr]bool{}
	ast.Inspect(n, func(x ast.Node) bool {
		switch v := x.(type) {
		case *ast.GoStmt:
			// go func() { ... }() runs on another goroutine.
			goCalls[v.Call] = true
		case *ast.CallExpr:
			if lit, ok := ast.Unparen(v.Fun).(*ast.FuncLit); ok && !goCalls[v] {
				inPlace[lit] = true
			}
			if isNoGrad(v.Fun) {
				for _, a := range v.Args {
					if lit, ok := ast.Unparen(a).(*ast.FuncLit); ok {
						inPlace[lit] = true
					}
				}
			}
		case *ast.FuncLit:
			m := boundedLoops
			if mode == stepLoops && inPlace[v] {
				m = stepLoops
			}
			in.body(v.Body, m)
			return false
		}
		return true
	})
}

// isNoGrad reports whether f names a function or method NoGrad, which
// runs its argument at once on the calling goroutine (torch.NoGrad,
// gopkg.NoGrad, Go+'s noGrad => { ... }).
func isNoGrad(f ast.Expr) bool {
	switch v := ast.Unparen(f).(type) {
	case *ast.Ident:
		return v.Name == "NoGrad"
	case *ast.SelectorExpr:
		return v.Sel.Name == "NoGrad"
	}
	return false
}

// list instruments a statement list in mode, and the statements nested in
// it, counting the loops it instruments in n.
func (in *instrumenter) list(list []ast.Stmt, mode gcMode, n *int) []ast.Stmt {
	out := make([]ast.Stmt, 0, len(list))
	for _, s := range list {
		out = append(out, s)
		if loop, label := loopOf(s); loop != nil {
			if in.loop(loop, mode, n) && mode == stepLoops && endsNormally(loop, label) {
				out = append(out, in.calls.finish())
			}
			continue
		}
		in.nested(s, mode, n)
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

// loop puts GC() or MaybeGC() at the top of a loop's body if the body
// calls anything, after instrumenting the loops nested in it. It reports
// whether it did.
func (in *instrumenter) loop(loop ast.Stmt, mode gcMode, n *int) bool {
	body := loopBody(loop)
	if body == nil {
		return false
	}
	calling := hasCall(body)
	body.List = in.list(body.List, mode, n)
	if !calling {
		return false
	}
	first := in.calls.gc
	if mode == boundedLoops {
		first = in.calls.maybe
	}
	body.List = append([]ast.Stmt{first()}, body.List...)
	*n++
	return true
}

// nested instruments the statement lists inside a statement that is not
// a loop.
func (in *instrumenter) nested(s ast.Stmt, mode gcMode, n *int) {
	switch v := s.(type) {
	case *ast.BlockStmt:
		v.List = in.list(v.List, mode, n)
	case *ast.LabeledStmt:
		in.nested(v.Stmt, mode, n)
	case *ast.IfStmt:
		in.nested(v.Body, mode, n)
		if v.Else != nil {
			in.nested(v.Else, mode, n)
		}
	case *ast.SwitchStmt:
		in.nested(v.Body, mode, n)
	case *ast.TypeSwitchStmt:
		in.nested(v.Body, mode, n)
	case *ast.SelectStmt:
		in.nested(v.Body, mode, n)
	case *ast.CaseClause:
		v.Body = in.list(v.Body, mode, n)
	case *ast.CommClause:
		v.Body = in.list(v.Body, mode, n)
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

// instrumentPackage instruments the loops of a compiled package: step
// loops in the training script's MainEntry and its other methods, bounded
// loops in every other function (model classes' methods included). If
// the package has a training script, it adds the marker method. It
// reports the number of loops instrumented and whether there was a
// MainEntry.
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
	var obj types.Object
	recvName := ""
	if main != nil {
		recvName = recvTypeName(main.Recv.List[0].Type)
		obj = pkg.Types.Scope().Lookup(recvName)
		if obj == nil {
			return 0, false, fmt.Errorf("cannot find the project class %q", recvName)
		}
	}
	old, _ := pkg.SetCurFile("", true) // gop's default file, xgo_autogen.go
	defer pkg.RestoreCurFile(old)
	// Let gogen make the expressions, so that it imports torch, under a
	// name that does not clash; only when a loop needs them, so that a
	// package without loops gets no import.
	var torch gogen.PkgRef
	exprs := map[string]*ast.CallExpr{}
	callExpr := func(name string) *ast.CallExpr {
		if e := exprs[name]; e != nil {
			return e
		}
		if torch.Types == nil {
			torch = pkg.Import(torchPath)
		}
		e := pkg.CB().Val(torch.Ref(name)).Call(0).InternalStack().Pop().Val.(*ast.CallExpr)
		exprs[name] = e
		return e
	}
	calls := gcCalls{
		gc:          func() ast.Stmt { return &ast.ExprStmt{X: callExpr("GC")} },
		finish:      func() ast.Stmt { return &ast.ExprStmt{X: callExpr("FinishGC")} },
		deferFinish: func() ast.Stmt { return &ast.DeferStmt{Call: callExpr("FinishGC")} },
		maybe:       func() ast.Stmt { return &ast.ExprStmt{X: callExpr("MaybeGC")} },
	}
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		switch {
		case fd == main:
			loops += instrumentFunc(fd, calls)
		case main != nil && fd.Recv != nil && len(fd.Recv.List) == 1 && recvTypeName(fd.Recv.List[0].Type) == recvName:
			// A script func.
			loops += instrumentDecl(fd, stepLoops, false, calls)
		default:
			loops += instrumentDecl(fd, boundedLoops, false, calls)
		}
	}
	if main == nil {
		return loops, false, nil
	}

	// The marker that tells the Trainer that the loops call GC().
	recv := pkg.NewParam(token.NoPos, "this", types.NewPointer(obj.Type()))
	ret := types.NewTuple(pkg.NewParam(token.NoPos, "", types.Typ[types.String]))
	pkg.NewFunc(recv, markerName, nil, ret, false).BodyStart(pkg).
		Val(fmt.Sprintf("%s (%d loops)", version, loops)).Return(1).
		End()
	// The Trainer methods it calls, for the flags it cannot read (flagsel.go).
	addSelectors(pkg, file, obj, recvName)
	xgoEntryPoint(file, pkg, recvName)
	return loops, true, nil
}

// xgoEntryPoint makes the project class's Main call the framework's XGo
// entry point, XGot_Trainer_Main, where gogen chose gop v1.4's
// Gopt_Trainer_Main: a framework that serves both declares both, and
// gogen takes the first name in alphabetical order. The two do the same;
// this keeps gop-torch's output, and its stack traces, on XGo's name.
func xgoEntryPoint(file *ast.File, pkg *gogen.Package, recvName string) {
	for _, d := range file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || fd.Name.Name != "Main" || fd.Body == nil ||
			len(fd.Recv.List) != 1 || recvTypeName(fd.Recv.List[0].Type) != recvName {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || !strings.HasPrefix(sel.Sel.Name, "Gopt_") {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			xgo := "XGot_" + sel.Sel.Name[len("Gopt_"):]
			for _, spec := range file.Imports {
				path, err := strconv.Unquote(spec.Path.Value)
				if err != nil || (spec.Name != nil && spec.Name.Name != x.Name) ||
					(spec.Name == nil && !strings.HasSuffix("/"+path, "/"+x.Name)) {
					continue
				}
				if t := pkg.Import(path).Types; t != nil && t.Scope().Lookup(sel.Sel.Name) != nil && t.Scope().Lookup(xgo) != nil {
					sel.Sel.Name = xgo
				}
				break
			}
			return true
		})
	}
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
