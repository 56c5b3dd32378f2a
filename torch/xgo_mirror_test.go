package torch_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// TestXGoNamesMirrorGop checks that every Go+ name XGo looks up has its
// twin: each Gopo_ overload list an XGoo_ constant, each Gop_ operator
// method an XGo_ one (XGo v1.6's gogen knows only the XGo names, gop v1.4's
// only the Gop ones; torch/xgo.go). An overload added on one side only
// broke x.argmax(0) in XGo scripts.
func TestXGoNamesMirrorGop(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	require.NoError(t, err)
	consts := map[string]bool{}
	for _, f := range pkgs["torch"].Files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					consts[n.Name] = true
				}
			}
		}
	}
	n := 0
	for c := range consts {
		if rest, ok := strings.CutPrefix(c, "Gopo_"); ok {
			n++
			assert.True(t, consts["XGoo_"+rest], "%s has no XGoo_%s", c, rest)
		}
	}
	assert.Positive(t, n)
	for _, typ := range []reflect.Type{reflect.TypeOf(torch.Tensor{}), reflect.TypeOf(torch.TempTensor{})} {
		for i := 0; i < typ.NumMethod(); i++ {
			m := typ.Method(i).Name
			if rest, ok := strings.CutPrefix(m, "Gop_"); ok {
				_, has := typ.MethodByName("XGo_" + rest)
				assert.True(t, has, "%v.%s has no XGo_%s", typ, m, rest)
			}
		}
	}
}
