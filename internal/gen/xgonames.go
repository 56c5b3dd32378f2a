package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// XGo names of the generated ops (torch/xgo_names_gen.go).
//
// XGo writes PyTorch's snake_case in lowerCamelCase and looks a method up
// by that name or by it with the first letter capitalized: x.cumsum(0)
// finds Cumsum, x.indexSelect(…) IndexSelect. The Go names of
// nameOverrides keep Go's acronyms (MM, CumSum, IsNan, TopK), which XGo
// does not find. Rather than a second Go method for each, the generator
// declares an XGo overload of one member, a string constant:
//
//	const XGoo_Tensor_Mm = ".MM"       // x.mm(y) calls x.MM(y)
//	const XGoo_Mm = "MM"               // torch.mm(a, b) calls torch.MM(a, b)
//	const XGoo__Tensor__Cumsum_ = ".CumSum_" // x.cumsum_(0)
//
// gogen (import.go, InitXGoPackageEx) reads every XGoo_ constant of a
// package that declares GopPackage or XGoPackage and adds the overload as
// a method or function of that name, for XGo code only: Go code sees the
// constants and the one Go method. Names with an underscore use gogen's
// _Type__Method and _Func forms, since its plain form splits the type from
// the method at the first underscore.

// xgoExtraMembers are hand-written Pythonic helpers that join the XGo
// overload of an op's PyTorch name, tried after the generated op: in XGo
// x.logsumexp(1) calls LogSumExpAlong(1), which the generated
// LogSumExp([]int64, …) does not take. Keyed by PyTorch's name.
var xgoExtraMembers = map[string][]string{
	"logsumexp": {"LogSumExpAlong"},
	"topk":      {"TopKAlong"},
}

// mechanical is the Go name of a PyTorch name by the rule alone: the first
// letter of each _-separated word capitalized (cumsum → Cumsum, index_select
// → IndexSelect), the name XGo looks up.
func mechanical(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(s, "_") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// xgoAlias is one generated XGo overload constant.
type xgoAlias struct {
	xgoName string // Cumsum_
	method  bool
	members []string // Go names, tried in order
	pyName  string   // cumsum_
}

// constName is the alias's constant in gogen's spelling.
func (a xgoAlias) constName() string {
	switch {
	case a.method && strings.Contains(a.xgoName, "_"):
		return "XGoo__Tensor__" + a.xgoName
	case a.method:
		return "XGoo_Tensor_" + a.xgoName
	case strings.Contains(a.xgoName, "_"):
		return "XGoo__" + a.xgoName
	}
	return "XGoo_" + a.xgoName
}

// value is the constant's string: ".A,.B" for methods, "A,B" for functions.
func (a xgoAlias) value() string {
	m := make([]string, len(a.members))
	for i, n := range a.members {
		if a.method {
			n = "." + n
		}
		m[i] = n
	}
	return strings.Join(m, ",")
}

// xgoAliases lists an alias for every generated op whose Go name is not
// the mechanical one of its PyTorch name, where nothing else has the
// mechanical name: the primary overload's plain and in-place forms, as a
// method and as a function.
func (g *generator) xgoAliases() []xgoAlias {
	takenF, takenM := map[string]bool{}, map[string]bool{}
	for _, f := range g.fns {
		if f.isFunc {
			takenF[f.goName] = true
		}
		if f.isMethod {
			takenM[f.goName] = true
		}
	}
	handConst := func(c string) bool { _, ok := g.hand[c]; return ok }
	var out []xgoAlias
	seen := map[string]bool{}
	for _, f := range g.fns {
		name := f.d.Name
		if strings.HasPrefix(name, "_") || strings.HasSuffix(name, "_out") {
			continue
		}
		inplace := strings.HasSuffix(name, "_")
		base := strings.TrimSuffix(name, "_")
		want := camel(base)
		mech := mechanical(base)
		if inplace {
			want, mech = want+"_", mech+"_"
		}
		if f.goName != want || mech == want {
			continue // an overload with a suffix, or already XGo's name
		}
		for _, method := range []bool{true, false} {
			if method && !f.isMethod || !method && !f.isFunc {
				continue
			}
			a := xgoAlias{xgoName: mech, method: method, members: []string{f.goName}, pyName: name}
			if method {
				if takenM[mech] || g.handMeth[mech] != "" {
					continue
				}
				for _, m := range xgoExtraMembers[name] {
					if g.handMeth[m] != "" {
						a.members = append(a.members, m)
					}
				}
			} else if takenF[mech] || g.hand[mech] != "" {
				continue
			}
			if handConst(a.constName()) || seen[a.constName()] {
				continue
			}
			seen[a.constName()] = true
			out = append(out, a)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].constName() < out[j].constName() })
	return out
}

// writeXGoNames writes torch/xgo_names_gen.go.
func (g *generator) writeXGoNames() {
	writeFile(filepath.Join(*outDir, "torch", "xgo_names_gen.go"), g.xgoNamesSource())
}

func (g *generator) xgoNamesSource() []byte {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString(`
package torch

// XGo names of the ops whose Go names keep Go's acronyms (MM, CumSum,
// IsNan, TopK): each constant is an XGo overload of one member, which lets
// XGo code call the op by PyTorch's name, x.mm(y), x.cumsum(0), x.isnan(),
// torch.mm(a, b), while Go code has the one Go method. They are for XGo's
// compiler (gogen reads XGoo_ constants); Go code has no use for them.
// internal/gen/xgonames.go says how they are made.

const (
`)
	for _, a := range g.xgoAliases() {
		kind := "torch." + a.pyName
		if a.method {
			kind = "Tensor." + a.pyName
		}
		fmt.Fprintf(&b, "\t%s = %q // %s\n", a.constName(), a.value(), kind)
	}
	b.WriteString(")\n")
	return b.Bytes()
}
