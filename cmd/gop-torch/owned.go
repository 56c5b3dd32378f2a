package main

import (
	"go/ast"
	"go/token"
	"go/types"
)

// The owned-locals post-pass.
//
// Python frees a tensor as soon as its last name is rebound or goes out of
// scope. Go cannot: a tensor left to GoTorch's collector lives until the
// next collection. But in
//
//	var s torch.Tensor
//	for i := 0; i < n; i++ {
//		s = x + y
//	}
//
// nothing but s ever sees a sum, so each sum is dead once s gets the next
// one. gop-torch finds such variables in the generated Go and frees their
// tensors itself:
//
//   - an assignment s = e becomes s = torch.Rebind(s, e), which frees the
//     old tensor once e has been evaluated (torch/gop_temp.go);
//   - at the end of the block that declares s, s.Free() is added, unless
//     the block ends with a statement that may not fall through (a return,
//     a branch, a panic, a loop without a condition, an if with an else, a
//     switch or a select), where the last tensor is left to the collector,
//     or unless the code frees it already (s.Free(), which also makes the
//     pass idempotent).
//
// A variable is owned, and rewritten, only if the pass can see every
// reference to its tensors. Rules:
//
//   - It is a local variable of type torch.Tensor (not a parameter, a
//     result or a field), declared alone with := or var.
//   - Every value it is given is the result of a tensor operator (a + b,
//     -a, a < b, …, but not +a, which returns a itself), of a generated op
//     that returns none of its arguments (x.Mm(w), torch.Relu(x); see
//     genops.go), or the zero Tensor of its var declaration: a fresh
//     tensor that nothing else holds.
//   - Every other use reads it without keeping a copy: as an operand of a
//     tensor operator (+a excluded), as the receiver or an argument of a
//     generated op (which keeps no Go value it is given) that returns none
//     of its arguments, or of any generated op as a statement whose result
//     is dropped (s.Add_(y), torch.AddOut(s, a, b)) or assigned back to s
//     by a generated in-place method of s (s = s.Add_(y), which keeps
//     s's tensor and is not rewritten), as the receiver of a
//     torch.Tensor method that takes a value receiver and returns no
//     tensors (s.Item(), s.Shape(), s.Backward()), as the receiver or
//     operand of an assignment operator (s += a), or as an argument of
//     fmt's print functions (Go+'s echo).
//   - Closures, go and defer statements do not refer to it.
//
// Anything else (passing it to another function, returning it, storing it,
// taking its address) leaves the variable to the collector, as before.
// Freeing drops GoTorch's reference only, so autograd keeps what it saved
// for the backward pass.

// ownedVar is a variable the pass may rewrite.
type ownedVar struct {
	obj     *types.Var
	fn      ast.Node          // the FuncDecl or FuncLit that declares it
	block   *ast.BlockStmt    // the block a statement of which declares it, if any
	assigns []*ast.AssignStmt // its assignments s = e
	bad     bool              // a use the pass cannot follow
	freed   bool              // the code frees it already (s.Free())
}

// printFuncs are fmt's functions that read their arguments and keep none.
var printFuncs = map[string]bool{
	"Print": true, "Println": true, "Printf": true,
	"Sprint": true, "Sprintln": true, "Sprintf": true,
	"Fprint": true, "Fprintln": true, "Fprintf": true,
}

// fresh reports whether e is the result of a tensor operator or of a
// generated op that returns none of its arguments: a new tensor that
// nothing else holds (an expression temporary, for temps.go).
func (tc tensorCalls) fresh(e ast.Expr) bool {
	if c, ok := tc.op(e); ok {
		return tensorOps[c.name]
	}
	return tc.freshGen(e)
}

// isTensorValue reports whether t is torch.Tensor itself, not a pointer.
func isTensorValue(t types.Type) bool {
	_, ptr := types.Unalias(t).(*types.Pointer)
	return !ptr && isTensor(t)
}

// holdsTensor reports whether a value of type t can hold a tensor.
func holdsTensor(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	if isTensor(t) {
		return true
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == torchPath && n.Obj().Name() == "TempTensor" {
		return true
	}
	switch u := types.Unalias(t).Underlying().(type) {
	case *types.Basic:
		return false
	case *types.Pointer:
		return holdsTensor(u.Elem(), seen)
	case *types.Slice:
		return holdsTensor(u.Elem(), seen)
	case *types.Array:
		return holdsTensor(u.Elem(), seen)
	case *types.Map:
		return holdsTensor(u.Key(), seen) || holdsTensor(u.Elem(), seen)
	case *types.Struct:
		for i := range u.NumFields() {
			if holdsTensor(u.Field(i).Type(), seen) {
				return true
			}
		}
		return false
	}
	return true // interfaces, channels, functions: could be anything
}

// readsOnly reports whether the selection x.m, called, reads x without
// keeping it: a torch.Tensor method with a value receiver, no tensor in its
// results, and no parameter through which it could hand x out (a pointer,
// slice, map, channel, function or interface that can hold a tensor; the
// elements of a variadic parameter count as values).
func readsOnly(sel *types.Selection) bool {
	if sel == nil || sel.Kind() != types.MethodVal || !isTensorValue(sel.Recv()) {
		return false
	}
	sig, ok := sel.Obj().Type().(*types.Signature)
	if !ok || sig.Recv() == nil || !isTensorValue(sig.Recv().Type()) {
		return false
	}
	for i := range sig.Results().Len() {
		if holdsTensor(sig.Results().At(i).Type(), map[types.Type]bool{}) {
			return false
		}
	}
	for i := range sig.Params().Len() {
		t := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			if sl, ok := t.Underlying().(*types.Slice); ok {
				t = sl.Elem()
			}
		}
		if refersOut(t) {
			return false
		}
	}
	return true
}

// refersOut reports whether a parameter of type t could carry a tensor
// back out of a call: a reference type that can hold one.
func refersOut(t types.Type) bool {
	switch types.Unalias(t).Underlying().(type) {
	case *types.Basic, *types.Struct, *types.Array:
		return false // copied in; tensors inside are the caller's copies
	}
	return holdsTensor(t, map[types.Type]bool{})
}

// ownedLocals finds the owned variables of file.
func (tc tensorCalls) ownedLocals(file *ast.File) []*ownedVar {
	info := tc.info
	vars := map[*types.Var]*ownedVar{}
	var order []*ownedVar
	var stack []ast.Node
	// enclosing returns the innermost function around the top of the
	// stack, and whether a go or defer statement lies between.
	enclosing := func() (ast.Node, bool) {
		deferred := false
		for i := len(stack) - 1; i >= 0; i-- {
			switch n := stack[i].(type) {
			case *ast.FuncDecl, *ast.FuncLit:
				return n, deferred
			case *ast.DeferStmt, *ast.GoStmt:
				deferred = true
			}
		}
		return nil, deferred
	}
	// parent returns the node above stack[i], skipping parentheses, and
	// the child on the way to it.
	parent := func(i int) (ast.Node, ast.Node, int) {
		child := stack[i]
		for i--; i >= 0; i-- {
			if _, ok := stack[i].(*ast.ParenExpr); !ok {
				return stack[i], child, i
			}
			child = stack[i]
		}
		return nil, child, -1
	}
	declare := func(id *ast.Ident, v *types.Var) {
		if v.Name() == "_" {
			return
		}
		p, _, pi := parent(len(stack) - 1)
		var block *ast.BlockStmt
		switch p := p.(type) {
		case *ast.AssignStmt:
			if p.Tok != token.DEFINE || len(p.Lhs) != 1 || len(p.Rhs) != 1 || !tc.fresh(p.Rhs[0]) {
				return
			}
			if pi > 0 {
				if b, ok := stack[pi-1].(*ast.BlockStmt); ok {
					block = b
				}
			}
		case *ast.ValueSpec:
			if len(p.Names) != 1 || len(p.Values) > 1 || (len(p.Values) == 1 && !tc.fresh(p.Values[0])) {
				return
			}
			// ValueSpec ← GenDecl ← DeclStmt ← BlockStmt
			if pi >= 3 {
				if b, ok := stack[pi-3].(*ast.BlockStmt); ok {
					block = b
				}
			}
		default:
			return // parameters, results, range and switch variables
		}
		fn, deferred := enclosing()
		if fn == nil || deferred {
			return
		}
		o := &ownedVar{obj: v, fn: fn, block: block}
		vars[v] = o
		order = append(order, o)
	}
	// use checks one use of o: the identifier on top of the stack.
	use := func(o *ownedVar) {
		if fn, deferred := enclosing(); fn != o.fn || deferred {
			o.bad = true
			return
		}
		p, child, pi := parent(len(stack) - 1)
		switch p := p.(type) {
		case *ast.AssignStmt:
			for _, l := range p.Lhs {
				if ast.Unparen(l) == child {
					if p.Tok == token.ASSIGN && len(p.Lhs) == 1 && len(p.Rhs) == 1 && tc.fresh(p.Rhs[0]) {
						o.assigns = append(o.assigns, p)
						return
					}
					if tc.updatesSelf(p, o.obj) {
						return // s = s.Add_(y): s keeps its tensor
					}
					o.bad = true
					return
				}
			}
		case *ast.SelectorExpr:
			if p.X != child || pi < 1 {
				break
			}
			call, ok := stack[pi-1].(*ast.CallExpr)
			if !ok || call.Fun != p {
				break
			}
			if c, ok := tc.op(call); ok && !c.methExpr && (tensorOps[c.name] || assignOps[c.name]) {
				return
			}
			if readsOnly(info.Selections[p]) {
				o.freed = o.freed || p.Sel.Name == "Free"
				return
			}
			if gp, _, _ := parent(pi - 1); tc.readsArg(call, gp) || tc.updatesSelf(gp, o.obj) {
				return
			}
		case *ast.CallExpr:
			if c, ok := tc.op(p); ok && (tensorOps[c.name] || assignOps[c.name]) {
				if c.methExpr && p.Args[0] == child && assignOps[c.name] {
					break // (*torch.Tensor).Gop_AddAssign(&s, …) is not this form
				}
				return
			}
			if p.Fun != child {
				if gp, _, _ := parent(pi); tc.readsArg(p, gp) || tc.updatesSelf(gp, o.obj) {
					return
				}
			}
			if sel, ok := p.Fun.(*ast.SelectorExpr); ok && p.Fun != child {
				if f, ok := info.Uses[sel.Sel].(*types.Func); ok && f.Pkg() != nil && f.Pkg().Path() == "fmt" && printFuncs[f.Name()] {
					return
				}
			}
		}
		o.bad = true
	}
	ast.Inspect(file, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		if v, ok := info.Defs[id].(*types.Var); ok && !v.IsField() && isTensorValue(v.Type()) {
			declare(id, v)
		} else if v, ok := info.Uses[id].(*types.Var); ok {
			if o := vars[v]; o != nil {
				use(o)
			}
		}
		return true
	})
	var owned []*ownedVar
	for _, o := range order {
		if !o.bad {
			owned = append(owned, o)
		}
	}
	return owned
}

// fallsThrough reports whether control surely reaches the end of a block
// whose last statement is s, so that a statement can be added after it
// without making it unreachable or a function's end reachable.
func fallsThrough(s ast.Stmt, info *types.Info) bool {
	switch s := s.(type) {
	case *ast.ExprStmt:
		if call, ok := ast.Unparen(s.X).(*ast.CallExpr); ok {
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
				if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "panic" {
					return false
				}
			}
		}
		return true
	case *ast.AssignStmt, *ast.DeclStmt, *ast.IncDecStmt, *ast.SendStmt, *ast.RangeStmt, *ast.EmptyStmt:
		return true
	case *ast.ForStmt:
		return s.Cond != nil
	case *ast.IfStmt:
		return s.Else == nil
	}
	return false
}

// rewriteOwned rewrites the owned variables: s = torch.Rebind(s, e) for
// their assignments where torchName names the torch package (visible),
// s.Free() at the end of the blocks that declare them. An assignment
// where a local declaration hides the package leaves the old tensor to the
// collector. It returns how many variables it rewrote, and how many
// Rebind calls (which name the torch package) it wrote.
func rewriteOwned(owned []*ownedVar, torchName string, info *types.Info, visible func(token.Pos) bool) (n, rebinds int) {
	frees := map[*ast.BlockStmt][]*ownedVar{}
	var blocks []*ast.BlockStmt
	for _, o := range owned {
		done := false
		for _, a := range o.assigns {
			if !visible(a.Pos()) {
				continue
			}
			rhs := a.Rhs[0]
			p := rhs.Pos()
			a.Rhs[0] = &ast.CallExpr{
				Fun:    &ast.SelectorExpr{X: &ast.Ident{Name: torchName, NamePos: p}, Sel: &ast.Ident{Name: "Rebind", NamePos: p}},
				Lparen: p, Args: []ast.Expr{&ast.Ident{Name: o.obj.Name(), NamePos: p}, rhs}, Rparen: rhs.End(),
			}
			rebinds++
			done = true
		}
		if b := o.block; b != nil && !o.freed && len(b.List) > 0 && fallsThrough(b.List[len(b.List)-1], info) {
			if frees[b] == nil {
				blocks = append(blocks, b)
			}
			frees[b] = append(frees[b], o)
			done = true
		}
		if done {
			n++
		}
	}
	for _, b := range blocks {
		p := b.List[len(b.List)-1].End()
		vs := frees[b]
		for i := len(vs) - 1; i >= 0; i-- {
			b.List = append(b.List, &ast.ExprStmt{X: &ast.CallExpr{
				Fun:    &ast.SelectorExpr{X: &ast.Ident{Name: vs[i].obj.Name(), NamePos: p}, Sel: &ast.Ident{Name: "Free", NamePos: p}},
				Lparen: p, Rparen: p,
			}})
		}
	}
	return n, rebinds
}
