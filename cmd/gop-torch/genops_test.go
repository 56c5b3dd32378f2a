package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGenOpsMatchTorch checks genOps against the generated Go API it
// describes (torch/ops_gen.go): every listed op has the forms its flags
// say, panicking and Try, and an op is marked aliasing exactly when its
// implementation returns one of its parameters.
func TestGenOpsMatchTorch(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../torch/ops_gen.go", nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	funcs, methods := map[string]bool{}, map[string]bool{}
	aliases := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil {
			methods[name] = true
			continue
		}
		funcs[name] = true
		// genX implements op X; it aliases if it assigns a parameter to a
		// result: r0_ = self.
		if op, ok := strings.CutPrefix(name, "gen"); ok {
			params := map[string]bool{}
			for _, p := range fd.Type.Params.List {
				for _, n := range p.Names {
					params[n.Name] = true
				}
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if a, ok := n.(*ast.AssignStmt); ok && len(a.Rhs) == 1 {
					if id, ok := a.Rhs[0].(*ast.Ident); ok && params[id.Name] {
						aliases[op] = true
					}
				}
				return true
			})
		}
	}
	require.NotEmpty(t, genOps)
	for name, k := range genOps {
		if k&genFunc != 0 {
			assert.True(t, funcs[name] && funcs["Try"+name], "%s: no function %s or Try%[1]s in torch/ops_gen.go", name)
		}
		if k&genMethod != 0 {
			assert.True(t, methods[name] && methods["Try"+name], "%s: no method %s or Try%[1]s in torch/ops_gen.go", name)
		}
		assert.Equal(t, aliases[name], k&genAliases != 0, "%s: aliasing", name)
	}
	assert.True(t, genOps["Add_"]&genAliases != 0 && genOps["Add"]&genAliases == 0)
}
