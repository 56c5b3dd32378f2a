package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/format"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Errors in the user's words.
//
// gogen compiles some Go+ that Go does not accept: a variable declared and
// not used, say. Such Go fails to type-check later, in gop-torch's own
// passes or in go build, where the error would name the Go that gogen
// wrote. checkGenerated type-checks the generated Go first and reports
// what fails in the .gox files as compile errors of the Go+, at the Go+
// line (positions.go), with Go's names turned back into Go+'s (userWords).
// It also rejects what gogen accepts but Go's types cannot: an operator
// of torch.Tensor whose right operand is not a tensor or a number
// (h * "half"), which torch's Gop_ methods, taking any, would only
// reject at run time.

// checkGenerated type-checks src, the generated Go of the package in dir
// (with its hand-written Go files), and returns the errors that lie in
// its Go+ files, in the user's words, or nil. Errors elsewhere (in
// gop-torch's own additions, or an import that fails) are left to the
// passes and go build, which report them as before. base is the directory
// that the //line directives' file names are relative to.
func checkGenerated(src []byte, dir, base string, imp types.Importer) []string {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, autogenFile, src, parser.ParseComments)
	if err != nil {
		return nil
	}
	others, err := handWrittenGo(fset, dir)
	if err != nil {
		return nil
	}
	var errs []types.Error
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{Importer: imp, FakeImportC: true, Error: func(err error) {
		var te types.Error
		if errors.As(err, &te) {
			errs = append(errs, te)
		}
	}}
	conf.Check(file.Name.Name, fset, append([]*ast.File{file}, others...), info)

	var msgs []userError
	add := func(pos token.Pos, msg string) {
		p := fset.Position(pos)
		if !isGoPlusFile(p.Filename) {
			return
		}
		msgs = append(msgs, userError{file: p.Filename, line: p.Line, col: p.Column, msg: msg})
	}
	for _, e := range errs {
		add(e.Pos, e.Msg)
	}
	if len(errs) == 0 {
		for _, e := range badOperands(file, info) {
			add(e.pos, e.msg)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	words := userWordsOf(imp)
	var out []string
	seen := map[string]bool{}
	for _, m := range msgs {
		msg := words.replace(m.msg)
		if m.col == 0 {
			m.col = findColumn(filepath.Join(base, filepath.FromSlash(m.file)), m.line, msg)
		}
		s := words.errorLine(base, userError{m.file, m.line, m.col, m.msg}.String())
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// goPlusPos is the position at the start of an error: a Go+ file, its line
// and maybe a column.
var goPlusPos = regexp.MustCompile(`^([^\s:][^:]*\.(?:gox|gop)):([0-9]+)(:[0-9]+)?: `)

// errorLine returns an error of gop's or of checkGenerated,
// file:line[:col]: msg, in the user's words: its file name relative to the
// working directory, as go build writes them (gop names them relative to
// the module's root, base), and its message without the Go that gogen
// wrote (userWords.replace).
func (w userWords) errorLine(base, s string) string {
	m := goPlusPos.FindStringSubmatchIndex(s)
	if m == nil {
		return w.replace(s)
	}
	file := s[m[2]:m[3]]
	if !filepath.IsAbs(file) && base != "" {
		// Relative to base, unless it already names a file from the
		// working directory (compileErrors).
		if _, err := os.Stat(file); err != nil {
			file = filepath.Join(base, filepath.FromSlash(file))
		}
	}
	file = relToWD(file)
	return file + s[m[3]:m[1]] + w.replace(s[m[1]:])
}

// relToWD returns an absolute file name relative to the working directory
// when it is below it.
func relToWD(file string) string {
	if !filepath.IsAbs(file) {
		return file
	}
	wd, err := os.Getwd()
	if err != nil {
		return file
	}
	rel, err := filepath.Rel(wd, file)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return file
	}
	return rel
}

// isGoPlusFile reports whether a file name is a Go+ source file's.
func isGoPlusFile(name string) bool {
	return strings.HasSuffix(name, ".gox") || strings.HasSuffix(name, ".xgo") || strings.HasSuffix(name, ".gop")
}

type userError struct {
	file      string
	line, col int
	msg       string
}

func (e userError) String() string {
	if e.col > 0 {
		return fmt.Sprintf("%s:%d:%d: %s", e.file, e.line, e.col, e.msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg)
}

// namedInMsg and exprInMsg find what a message is about, for its column.
var (
	namedInMsg = regexp.MustCompile(`^(?:declared and not used|label \S+ defined and not used): ([A-Za-z_][A-Za-z0-9_]*)$`)
	exprInMsg  = regexp.MustCompile(`^invalid operation: (.+?) \(mismatched types`)
)

// findColumn returns the column of what msg is about on line of file, 0
// if it cannot tell: the directives give lines only.
func findColumn(file string, line int, msg string) int {
	src, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	lines := strings.Split(string(src), "\n")
	if line < 1 || line > len(lines) {
		return 0
	}
	l := lines[line-1]
	if m := namedInMsg.FindStringSubmatch(msg); m != nil {
		return wordColumn(l, m[1])
	}
	if m := exprInMsg.FindStringSubmatch(msg); m != nil {
		for _, e := range []string{m[1], strings.ReplaceAll(m[1], " ", "")} {
			if i := strings.Index(l, e); i >= 0 {
				return i + 1
			}
		}
	}
	return 0
}

// wordColumn returns the 1-based byte column of the first occurrence of
// word as a whole identifier in s, 0 if none.
func wordColumn(s, word string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], word)
		if i < 0 {
			return 0
		}
		i += off
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(word):])
		if !isIdentRune(before) && !isIdentRune(after) {
			return i + 1
		}
		off = i + len(word)
	}
}

func isIdentRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// operatorOf maps torch.Tensor's operator methods, by their gop v1.4 names
// (operatorMethod), to their operators.
var operatorOf = map[string]string{
	"Gop_Add": "+", "Gop_Sub": "-", "Gop_Mul": "*", "Gop_Quo": "/", "Gop_Rem": "%",
	"Gop_And": "&", "Gop_Or": "|", "Gop_Xor": "^", "Gop_AndNot": "&^",
	"Gop_Lsh": "<<", "Gop_Rsh": ">>",
	"Gop_LT": "<", "Gop_LE": "<=", "Gop_GT": ">", "Gop_GE": ">=", "Gop_EQ": "==", "Gop_NE": "!=",
	"Gop_AddAssign": "+=", "Gop_SubAssign": "-=", "Gop_MulAssign": "*=", "Gop_QuoAssign": "/=",
	"Gop_RemAssign": "%=", "Gop_AndAssign": "&=", "Gop_OrAssign": "|=", "Gop_XorAssign": "^=",
	"Gop_Neg": "-", "Gop_Dup": "+", "Gop_Not": "^",
}

type posError struct {
	pos token.Pos
	msg string
}

// badOperands finds the operators of torch.Tensor in a type-checked file
// whose right operand cannot be a tensor or a number: torch's XGo_ methods
// take any, so Go accepts h * "half", and the method would panic.
func badOperands(file *ast.File, info *types.Info) []posError {
	tc := tensorCalls{info: info}
	var errs []posError
	ast.Inspect(file, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		if !ok {
			return true
		}
		c, ok := tc.op(e)
		if !ok {
			return true
		}
		r := tc.right(c)
		op := operatorOf[c.name]
		if r == nil || op == "" {
			return true
		}
		tv, ok := info.Types[r]
		if !ok || operandOK(tv.Type) {
			return true
		}
		left := exprString(tc.recv(c))
		typ := types.TypeString(tv.Type, func(p *types.Package) string { return p.Name() })
		if tv.Value != nil && isUntyped(tv.Type) {
			typ = tv.Type.String()
		}
		ltyp := "torch.Tensor"
		if t, ok := info.Types[tc.recv(c)]; ok {
			ltyp = types.TypeString(t.Type, func(p *types.Package) string { return p.Name() })
		}
		expr := left + " " + op + " " + exprString(r)
		errs = append(errs, posError{c.call.Pos(), fmt.Sprintf(
			"invalid operation: %s (mismatched types %s and %s): the right operand of a tensor operator must be a tensor or a number", expr, ltyp, typ)})
		return true
	})
	return errs
}

func isUntyped(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}

// operandOK reports whether a value of type t may be the right operand of
// a tensor operator: what torch's gopOperand takes (a tensor, a Scalar, a
// number or a bool), or an interface, which may hold one.
func operandOK(t types.Type) bool {
	if t == nil {
		return true
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Info()&(types.IsNumeric|types.IsBoolean) != 0 || u.Kind() == types.UntypedNil || u.Kind() == types.Invalid
	case *types.Interface:
		return true
	}
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == torchPath {
		switch n.Obj().Name() {
		case "Tensor", "TempTensor", "Scalar":
			return true
		}
	}
	return false
}

// exprString formats an expression of the generated Go, which for
// operands is mostly what the user wrote.
func exprString(e ast.Expr) string {
	var b bytes.Buffer
	if err := format.Node(&b, token.NewFileSet(), e); err != nil {
		return "?"
	}
	return userWords{}.replace(b.String())
}

// userWords turns the Go names in a message back into Go+'s.
type userWords struct {
	// overloads maps the members of Go+ overloads to the overload's
	// name: ViewDims and ViewShape to View (torch.XGoo_Tensor_View).
	overloads map[string]string
	// params holds the parameters of each overload's members, in order:
	// View's are (dims ...int64) and (shape []int64).
	params map[string][]string
	// imp finds the option functions of a positional argument's hint
	// (optionhint.go); nil gives no hint.
	imp types.Importer
}

// userWordsOf reads the overloads of the torch package.
func userWordsOf(imp types.Importer) userWords {
	w := userWords{overloads: map[string]string{}, params: map[string][]string{}, imp: imp}
	if imp == nil {
		return w
	}
	p, err := imp.Import(torchPath)
	if err != nil || p == nil {
		return w
	}
	for _, name := range p.Scope().Names() {
		c, ok := p.Scope().Lookup(name).(*types.Const)
		if !ok || c.Val().Kind() != constant.String {
			continue
		}
		// XGoo_Type_Method = ".A,.B" or XGoo_Func = "A,B"; gop v1.4's
		// Gopo_ twin counts only where there is no XGoo_ one.
		var key string
		switch {
		case strings.HasPrefix(name, "XGoo_"):
			key = strings.TrimPrefix(name, "XGoo_")
		case strings.HasPrefix(name, "Gopo_") && p.Scope().Lookup("XGoo_"+name[len("Gopo_"):]) == nil:
			key = strings.TrimPrefix(name, "Gopo_")
		default:
			continue
		}
		// gogen's forms (checkTypeMethod): Type_Method, _Type__Method
		// and _Func, the latter two for names with an underscore
		// (XGoo__Tensor__Cumsum_ is x.cumsum_).
		typ := ""
		if k, ok := strings.CutPrefix(key, "_"); ok {
			key = k
			if i := strings.Index(k, "__"); i > 0 {
				typ, key = k[:i], k[i+2:]
			}
		} else if i := strings.IndexByte(key, '_'); i >= 0 {
			typ, key = key[:i], key[i+1:]
		}
		for _, m := range strings.Split(constant.StringVal(c.Val()), ",") {
			if m = strings.TrimPrefix(m, "."); m == "" {
				continue
			}
			w.overloads[m] = key
			if sig := memberSig(p, typ, m); sig != nil {
				w.params[key] = append(w.params[key], paramList(sig))
			}
		}
	}
	return w
}

// memberSig returns the signature of method name of type typ in p, or of
// function name if typ is "".
func memberSig(p *types.Package, typ, name string) *types.Signature {
	if typ == "" {
		if f, ok := p.Scope().Lookup(name).(*types.Func); ok {
			return f.Type().(*types.Signature)
		}
		return nil
	}
	tn, ok := p.Scope().Lookup(typ).(*types.TypeName)
	if !ok {
		return nil
	}
	obj, _, _ := types.LookupFieldOrMethod(tn.Type(), true, p, name)
	if f, ok := obj.(*types.Func); ok {
		return f.Type().(*types.Signature)
	}
	return nil
}

// paramList formats a signature's parameters as Go does in its messages:
// (dims ...int).
func paramList(sig *types.Signature) string {
	qual := func(p *types.Package) string { return p.Name() }
	var parts []string
	for i := 0; i < sig.Params().Len(); i++ {
		v := sig.Params().At(i)
		t := types.TypeString(v.Type(), qual)
		if sig.Variadic() && i == sig.Params().Len()-1 {
			t = "..." + strings.TrimPrefix(t, "[]")
		}
		if v.Name() != "" {
			t = v.Name() + " " + t
		}
		parts = append(parts, t)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// memberCall finds the call of an overload member that a message is
// about: gogen tries each member and reports the last one's error.
var memberCall = regexp.MustCompile(`in (?:call|argument) to ((?:[A-Za-z_][A-Za-z0-9_]*\.)*)([A-Za-z_][A-Za-z0-9_]*)`)

// overloadCall rewrites gogen's error for a call that no member of an
// overload takes, which names the last member only ("too many arguments
// in call to x.ViewShape ... want (shape []int64)"), to list what every
// member wants.
func (w userWords) overloadCall(msg string) string {
	m := memberCall.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	key, ok := w.overloads[m[2]]
	if !ok || len(w.params[key]) < 2 {
		return msg
	}
	lines := strings.Split(msg, "\n")
	head, have := lines[0], ""
	for _, l := range lines[1:] {
		if strings.HasPrefix(strings.TrimSpace(l), "have ") {
			have = l
		}
	}
	if strings.HasPrefix(head, "too many arguments") || strings.HasPrefix(head, "not enough arguments") {
		head = "cannot call " + m[1] + m[2] + " with these arguments"
	}
	out := head
	if have != "" {
		out += "\n" + have
	}
	return out + "\n\twant " + strings.Join(w.params[key], " or ")
}

var (
	// this.Epochs__1, x.Sum__0: a classfile's receiver and an overload
	// member's index.
	thisRef    = regexp.MustCompile(`\bthis\.`)
	overloadNo = regexp.MustCompile(`\b([A-Za-z_][A-Za-z0-9_]*?)__[0-9]\b`)
	// x.ViewShape( and x.ViewShape at a word's end.
	methodRef = regexp.MustCompile(`\.([A-Z][A-Za-z0-9_]*)\b`)
	// (*torch.handle).View and the like: the methods that Tensor gets from
	// its embedded handle.
	handleRef = regexp.MustCompile(`\(?\*?torch\.handle\)?`)
)

// replace rewrites a message's Go names into Go+'s: this.Epochs__1 is
// epochs, x.ViewShape is x.view, x.XGo_Mul (or x.Gop_Mul) is x.*.
func (w userWords) replace(msg string) string {
	msg = optionHint(w.imp, msg)
	msg = w.overloadCall(msg)
	msg = handleRef.ReplaceAllString(msg, "torch.Tensor")
	msg = thisRef.ReplaceAllString(msg, "")
	msg = overloadNo.ReplaceAllStringFunc(msg, func(s string) string {
		return lowerFirst(s[:len(s)-3])
	})
	msg = methodRef.ReplaceAllStringFunc(msg, func(s string) string {
		name := s[1:]
		if g, ok := operatorMethod(name); ok && operatorOf[g] != "" {
			return " " + operatorOf[g]
		}
		if o, ok := w.overloads[name]; ok {
			return "." + lowerFirst(o)
		}
		return s
	})
	return msg
}

// lowerFirst is Go+'s spelling of an exported Go name: Epochs is epochs.
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || !unicode.IsUpper(r) {
		return s
	}
	// An initialism (ID, MSE) stays as it is.
	if n < len(s) {
		r2, _ := utf8.DecodeRuneInString(s[n:])
		if unicode.IsUpper(r2) {
			return s
		}
	}
	return string(unicode.ToLower(r)) + s[n:]
}
