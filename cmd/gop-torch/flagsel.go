package main

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"

	"github.com/goplus/gogen"
)

// The methods of the Trainer that a training script calls, so that a
// flag the script cannot read is an error before the run
// (classfile/knobs.go) rather than after it.

const (
	classfilePath = "github.com/gotorch/gotorch/classfile"
	selectorsName = "GopTorchSelectors"
)

// trainerSelectors returns the names of classfile.Trainer's methods that
// the package's code selects (x.Epochs__0, this.Fit), sorted; ok is false
// when the project class itself is passed somewhere as a value (other than
// to the framework's entry point in Main), which could call any method.
func trainerSelectors(file *ast.File, trainer *types.Named, recvName string) (names []string, ok bool) {
	methods := map[string]bool{}
	for i := 0; i < trainer.NumMethods(); i++ {
		methods[trainer.Method(i).Name()] = true
	}
	seen := map[string]bool{}
	ok = true
	for _, d := range file.Decls {
		fd, isFunc := d.(*ast.FuncDecl)
		if !isFunc || fd.Body == nil {
			continue
		}
		this := ""
		if fd.Recv != nil && len(fd.Recv.List) == 1 && recvTypeName(fd.Recv.List[0].Type) == recvName && len(fd.Recv.List[0].Names) == 1 {
			this = fd.Recv.List[0].Names[0].Name
		}
		entry := this != "" && fd.Name.Name == "Main"
		asReceiver := map[*ast.Ident]bool{}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			sel, isSel := n.(*ast.SelectorExpr)
			if !isSel {
				return true
			}
			if methods[sel.Sel.Name] {
				seen[sel.Sel.Name] = true
			}
			if id, isID := sel.X.(*ast.Ident); isID {
				asReceiver[id] = true
			}
			return true
		})
		if this == "" || entry {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if id, isID := n.(*ast.Ident); isID && id.Name == this && !asReceiver[id] {
				ok = false
			}
			return true
		})
	}
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, ok
}

// addSelectors gives the project class the method GopTorchSelectors,
// which lists the Trainer methods the script calls, when the class embeds
// classfile.Trainer and its code does not pass the class on.
func addSelectors(pkg *gogen.Package, file *ast.File, class types.Object, recvName string) {
	st, isStruct := class.Type().Underlying().(*types.Struct)
	if !isStruct {
		return
	}
	var trainer *types.Named
	for i := 0; i < st.NumFields(); i++ {
		f := st.Field(i)
		if !f.Embedded() {
			continue
		}
		t := f.Type()
		if p, isPtr := t.(*types.Pointer); isPtr {
			t = p.Elem()
		}
		if n, isNamed := t.(*types.Named); isNamed && n.Obj().Pkg() != nil &&
			n.Obj().Pkg().Path() == classfilePath && n.Obj().Name() == "Trainer" {
			trainer = n
		}
	}
	if trainer == nil {
		return
	}
	names, ok := trainerSelectors(file, trainer, recvName)
	if !ok {
		return
	}
	strs := types.NewSlice(types.Typ[types.String])
	recv := pkg.NewParam(token.NoPos, "this", types.NewPointer(class.Type()))
	ret := types.NewTuple(pkg.NewParam(token.NoPos, "", strs))
	cb := pkg.NewFunc(recv, selectorsName, nil, ret, false).BodyStart(pkg)
	for _, n := range names {
		cb.Val(n)
	}
	cb.SliceLit(strs, len(names)).Return(1).End()
}
