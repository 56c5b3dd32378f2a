package main

import (
	"bufio"
	"go/build"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// Errors that teach: a positional argument where an option is expected.
//
// PyTorch takes most optional arguments by position or by keyword:
// clip_grad_norm_(params, 1.0, 2.0) and F.dropout(x, 0.5) are valid. In
// GoTorch an optional argument is always an option, named With plus the
// keyword (optim.WithNormType(2.0), F.WithP(0.5)), so the positional form
// fails to type-check with "cannot use 2.0 ... as optim.Option". The one
// rule: such an error gets a line that names the option, read from the
// callee's documentation ("Options: optim.WithNormType (2),
// optim.WithErrorIfNonfinite (false)."), whose parameter takes the value;
// when several do, it lists them in PyTorch's order.

// optionArg matches gogen's and go/types' messages for a value given
// where an option type is expected.
var optionArg = regexp.MustCompile(`cannot use (.+?) \((?:type |variable of type )?([^()]+?)(?: constant)?\) as (?:type )?(\S+)\.(Option|GenerateOption)(?: value)? in argument to ([A-Za-z_][A-Za-z0-9_]*\.)?([A-Za-z_][A-Za-z0-9_]*)`)

// modulePath is GoTorch's module, whose packages the hint reads.
const modulePath = "github.com/gotorch/gotorch"

// calleePackages maps the package names (and XGo's usual aliases) that a
// call names to the packages whose functions take options.
var calleePackages = map[string]string{
	"torch": "torch", "nn": "nn", "F": "nn/functional", "functional": "nn/functional",
	"optim": "nn/optim", "utils": "nn/utils", "init": "nn/init", "nninit": "nn/init",
	"vision": "models/vision", "text": "models/text", "parallel": "nn/parallel",
	"distributed": "torch/distributed", "pt": "torch/pt", "jit": "torch/jit", "aoti": "torch/aoti",
}

// optionHint returns msg with a line that names the option a positional
// argument stands for, or msg unchanged when it is not such an error or
// the callee's options are unknown.
func optionHint(imp types.Importer, msg string) string {
	m := optionArg.FindStringSubmatch(msg)
	if m == nil || imp == nil {
		return msg
	}
	value, valueType, optPkg, qual, name := m[1], m[2], m[3], strings.TrimSuffix(m[5], "."), upperFirst(m[6])
	if !strings.Contains(optPkg, "/") {
		if p, ok := calleePackages[optPkg]; ok {
			optPkg = modulePath + "/" + p
		}
	}
	pkg := modulePath + "/torch" // x.std(...): a method of torch.Tensor
	if p, ok := calleePackages[qual]; ok {
		pkg = modulePath + "/" + p
	}
	opts := documentedOptions(pkg, name)
	if len(opts) == 0 {
		return msg
	}
	var fits, all []string
	for _, o := range opts {
		q, fn := o.pkg, o.name
		if q == "" {
			q = filepath.Base(pkg)
			if q == "functional" {
				q = "F"
			}
		}
		all = append(all, q+"."+lowerFirst(fn))
		if takes(imp, qualifiedPath(q, optPkg), fn, valueType) {
			fits = append(fits, q+"."+lowerFirst(fn)+"("+value+")")
		}
	}
	call := lowerFirst(name)
	if qual != "" && calleePackages[qual] != "" {
		call = qual + "." + call
	}
	hint := "\n\t" + call + " takes its optional arguments as options"
	switch len(fits) {
	case 0:
		hint += ": " + strings.Join(all, ", ")
	case 1:
		hint += ": write " + fits[0]
	default:
		hint += ": write one of " + strings.Join(fits, ", ")
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		return msg[:i] + hint + msg[i:]
	}
	return msg + hint
}

// qualifiedPath is the import path of the package an option is qualified
// with in the docs (optim, F), or optPkg, the package of the option type
// the call wants, when the docs do not qualify it.
func qualifiedPath(q, optPkg string) string {
	if p, ok := calleePackages[q]; ok {
		return modulePath + "/" + p
	}
	return optPkg
}

// takes reports whether the option function fn of package path takes a
// value of the type a message names (untyped float, float64, bool, …).
func takes(imp types.Importer, path, fn, valueType string) bool {
	p, err := imp.Import(path)
	if err != nil || p == nil {
		return false
	}
	f, ok := p.Scope().Lookup(fn).(*types.Func)
	if !ok {
		return false
	}
	sig := f.Type().(*types.Signature)
	if sig.Params().Len() == 0 {
		return false
	}
	t := sig.Params().At(0).Type()
	if sig.Variadic() && sig.Params().Len() == 1 {
		t = t.(*types.Slice).Elem()
	}
	b, ok := t.Underlying().(*types.Basic)
	if !ok {
		return strings.HasSuffix(valueType, types.TypeString(t, func(p *types.Package) string { return p.Name() })) ||
			strings.HasSuffix(valueType, types.TypeString(t, nil))
	}
	info := b.Info()
	switch strings.TrimPrefix(valueType, "untyped ") {
	case "float", "rune":
		return info&types.IsFloat != 0 || valueType == "untyped rune" && info&types.IsInteger != 0
	case "int":
		return info&types.IsNumeric != 0 && info&types.IsComplex == 0
	case "bool":
		return info&types.IsBoolean != 0
	case "string":
		return info&types.IsString != 0
	}
	return types.TypeString(t, nil) == valueType
}

// docOption is an option in a function's "Options:" line.
type docOption struct{ pkg, name string }

var (
	docMu    sync.Mutex
	docCache = map[string][]docOption{}
	// optionsLine finds the options in a doc comment: "Options:
	// optim.WithNormType (2), optim.WithErrorIfNonfinite (false)."
	optionsLine = regexp.MustCompile(`(?s)Options?:\s*(.+?)(?:\.\s*$|\.\s*\n\s*\n|$)`)
	optionName  = regexp.MustCompile(`\b(?:([a-z][A-Za-z0-9]*)\.)?(With[A-Z][A-Za-z0-9]*)\b`)
)

// documentedOptions returns the options that the documentation of
// function (or torch.Tensor method) name in package path lists, in order.
func documentedOptions(path, name string) []docOption {
	key := path + "." + name
	docMu.Lock()
	defer docMu.Unlock()
	if o, ok := docCache[key]; ok {
		return o
	}
	var opts []docOption
	if bp, err := build.Default.Import(path, ".", build.FindOnly); err == nil {
		doc := funcDoc(bp.Dir, name)
		if m := optionsLine.FindStringSubmatch(doc); m != nil {
			seen := map[docOption]bool{}
			for _, o := range optionName.FindAllStringSubmatch(m[1], -1) {
				d := docOption{o[1], o[2]}
				if !seen[d] {
					seen[d] = true
					opts = append(opts, d)
				}
			}
		}
	}
	docCache[key] = opts
	return opts
}

// declaresFunc finds the declaration of a function or method name in a line.
func declaresFunc(line, name string) bool {
	rest, ok := strings.CutPrefix(line, "func ")
	if !ok {
		return false
	}
	if strings.HasPrefix(rest, "(") {
		i := strings.Index(rest, ") ")
		if i < 0 {
			return false
		}
		rest = rest[i+2:]
	}
	return strings.HasPrefix(rest, name+"(") || strings.HasPrefix(rest, name+"[")
}

// funcDoc returns the doc comment of the first declaration of name in the
// non-test Go files of dir, without the comment markers. It reads the
// files as text: the generated ones are too large to parse for one
// comment.
func funcDoc(dir, name string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := os.Open(file)
		if err != nil {
			continue
		}
		var doc []string
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "//"):
				doc = append(doc, strings.TrimPrefix(strings.TrimPrefix(line, "//"), " "))
			case declaresFunc(line, name):
				f.Close()
				return strings.Join(doc, "\n")
			default:
				doc = doc[:0]
			}
		}
		f.Close()
	}
	return ""
}

// upperFirst is the Go name of an XGo spelling: clipGradNorm_ is
// ClipGradNorm_.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}
