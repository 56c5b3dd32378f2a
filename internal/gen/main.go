// Command gen generates GoTorch's bindings of libtorch's native functions.
//
// It reads the declarations of every libtorch version it knows, compact
// extracts of torchgen's Declarations.yaml committed in decls/ (made by
// decls/refresh.sh), binds their union (versions.go), and writes:
//
//   - cgotorch/ops_gen.h: the C ABI of every generated function;
//   - cgotorch/ops/shard<N>/ops_gen.cc: its C++ implementation, split into
//     several cgo packages so that they compile in parallel, each function
//     guarded by the libtorch versions that have it;
//   - torch/ops_gen.go: the Go API, a panicking and an error-returning
//     form of each function (and method, where PyTorch has one);
//   - torch/options_gen.go: the keyword options (torch.WithDim, …);
//   - internal/gen/skipped.md: every declaration not generated, and why,
//     and the functions not in every version.
//
// Run it with go generate ./... from the repository root; it needs no
// PyTorch. -declarations (or GOTORCH_DECLARATIONS) binds one
// Declarations.yaml alone instead, for example to try an unreleased
// version.
package main

//go:generate go run . -root ../..

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var (
	declPath = flag.String("declarations", os.Getenv("GOTORCH_DECLARATIONS"), "bind this one Declarations.yaml instead of the extracts in decls/")
	root     = flag.String("root", "../..", "repository root: hand-written names are read from its torch/")
	outDir   = flag.String("out", "", "where to write the generated files (default: -root)")
	nShards  = flag.Int("shards", 4, "number of C++ packages the shim is split into")
	declsDir = flag.String("decls", "", "folder of the versions' extracts (default: internal/gen/decls under -root)")
	extract  = flag.String("extract", "", "write the compact extract of -declarations to this file (decls/v<version>.yaml.gz) and exit")
)

// Declarations.yaml, as much of it as the generator reads.
type decl struct {
	Name          string   `yaml:"name,omitempty"`
	OperatorName  string   `yaml:"operator_name,omitempty"`
	OverloadName  string   `yaml:"overload_name,omitempty"`
	Schema        string   `yaml:"schema_string,omitempty"`
	Arguments     []arg    `yaml:"arguments,omitempty"`
	MethodOf      []string `yaml:"method_of,omitempty"`
	Returns       []ret    `yaml:"returns,omitempty"`
	Inplace       bool     `yaml:"inplace,omitempty"`
	Deprecated    bool     `yaml:"deprecated,omitempty"`
	IsFactory     bool     `yaml:"is_factory_method,omitempty"`
	Abstract      bool     `yaml:"abstract,omitempty"`
	Mode          string   `yaml:"mode,omitempty"`
	PythonModule  string   `yaml:"python_module,omitempty"`
	CategoryOverr string   `yaml:"category_override,omitempty"`
}

type arg struct {
	Name       string    `yaml:"name,omitempty"`
	Type       string    `yaml:"type,omitempty"`
	Dynamic    string    `yaml:"dynamic_type,omitempty"`
	Default    yaml.Node `yaml:"default,omitempty"`
	KwargOnly  bool      `yaml:"kwarg_only,omitempty"`
	Output     bool      `yaml:"output,omitempty"`
	Nullable   bool      `yaml:"is_nullable,omitempty"`
	Annotation *string   `yaml:"annotation,omitempty"`
}

type ret struct {
	Name string `yaml:"name,omitempty"`
	Type string `yaml:"type,omitempty"`
}

func main() {
	log.SetFlags(0)
	log.SetPrefix("gen: ")
	flag.Parse()
	if *extract != "" {
		if *declPath == "" {
			log.Fatal("-extract needs -declarations")
		}
		writeExtract(*declPath, *extract)
		return
	}
	if *outDir == "" {
		*outDir = *root
	}
	var g *generator
	if *declPath != "" {
		// One Declarations.yaml, bound for its version alone.
		data, err := os.ReadFile(*declPath)
		if err != nil {
			log.Fatal(err)
		}
		var decls []decl
		if err := yaml.Unmarshal(data, &decls); err != nil {
			log.Fatalf("%s: %v", *declPath, err)
		}
		g = newGenerator(decls)
	} else {
		dir := *declsDir
		if dir == "" {
			dir = filepath.Join(*root, "internal", "gen", "decls")
		}
		sets, err := loadDeclSets(dir)
		if err != nil {
			log.Fatal(err)
		}
		bind, avail, skipped := union(sets)
		g = newGenerator(bind)
		g.avail, g.skips = avail, skipped
		for _, s := range sets {
			g.versions = append(g.versions, s.v)
		}
	}
	g.run()
}

// ---------------------------------------------------------------------------
// Argument kinds.

// kind describes how one C++ argument type crosses C and Go.
type kind struct {
	goType string // Go parameter type
	opt    optKind
	// nullable: the Go zero value (nil slice, zero Tensor, nil *Generator)
	// stands for None, so the argument can stay positional.
	nullable bool
	// hasFlag: a C "has" flag travels with the value (scalar optionals).
	hasFlag bool
}

// optKind is the Go type of an option's value: options with one name share
// one constructor, so their kinds must agree.
type optKind string

const (
	okNum     optKind = "num" // int64, double, Scalar: generic constructor
	okInts    optKind = "ints"
	okFloats  optKind = "floats"
	okBool    optKind = "bool"
	okTensor  optKind = "tensor"
	okString  optKind = "string"
	okDType   optKind = "dtype"
	okDevice  optKind = "device"
	okMemFmt  optKind = "memfmt"
	okLayout  optKind = "layout"
	okGen     optKind = "generator"
	okBools   optKind = "bools"
	okScalars optKind = "scalars"
	okTensors optKind = "tensors"
)

var kinds = map[string]kind{
	"const at::Tensor &":                           {goType: "Tensor", opt: okTensor},
	"at::Tensor &":                                 {goType: "Tensor", opt: okTensor},
	"const c10::optional<at::Tensor> &":            {goType: "Tensor", opt: okTensor, nullable: true},
	"at::TensorList":                               {goType: "[]Tensor", opt: okTensors},
	"const at::ITensorListRef &":                   {goType: "[]Tensor", opt: okTensors},
	"const c10::List<c10::optional<at::Tensor>> &": {goType: "[]Tensor", opt: okTensors},
	"int64_t":                             {goType: "int64", opt: okNum},
	"c10::optional<int64_t>":              {goType: "int64", opt: okNum, hasFlag: true},
	"at::IntArrayRef":                     {goType: "[]int64", opt: okInts},
	"at::OptionalIntArrayRef":             {goType: "[]int64", opt: okInts, nullable: true},
	"bool":                                {goType: "bool", opt: okBool},
	"c10::optional<bool>":                 {goType: "bool", opt: okBool, hasFlag: true},
	"double":                              {goType: "float64", opt: okNum},
	"c10::optional<double>":               {goType: "float64", opt: okNum, hasFlag: true},
	"const at::Scalar &":                  {goType: "Scalar", opt: okNum},
	"const c10::optional<at::Scalar> &":   {goType: "Scalar", opt: okNum, hasFlag: true},
	"at::ArrayRef<at::Scalar>":            {goType: "[]Scalar", opt: okScalars},
	"c10::optional<at::ArrayRef<double>>": {goType: "[]float64", opt: okFloats, nullable: true},
	"at::ScalarType":                      {goType: "DType", opt: okDType},
	"c10::optional<at::ScalarType>":       {goType: "DType", opt: okDType, hasFlag: true},
	"c10::string_view":                    {goType: "string", opt: okString},
	"c10::optional<c10::string_view>":     {goType: "string", opt: okString, hasFlag: true},
	"c10::optional<at::MemoryFormat>":     {goType: "MemoryFormat", opt: okMemFmt, hasFlag: true},
	"at::MemoryFormat":                    {goType: "MemoryFormat", opt: okMemFmt},
	"c10::optional<at::Layout>":           {goType: "Layout", opt: okLayout, hasFlag: true},
	"at::Layout":                          {goType: "Layout", opt: okLayout},
	"c10::optional<at::Device>":           {goType: "Device", opt: okDevice, hasFlag: true},
	"at::Device":                          {goType: "Device", opt: okDevice},
	"c10::optional<at::Generator>":        {goType: "*Generator", opt: okGen, nullable: true},
	"::std::array<bool,2>":                {goType: "[2]bool", opt: okBools},
	"::std::array<bool,3>":                {goType: "[3]bool", opt: okBools},
	"::std::array<bool,4>":                {goType: "[4]bool", opt: okBools},
	"at::TensorOptions":                   {goType: "", opt: ""},
}

var unsupportedTypes = map[string]string{
	"at::Dimname":                    "named tensors (Dimname) are not supported",
	"at::DimnameList":                "named tensors (Dimname[]) are not supported",
	"c10::optional<at::DimnameList>": "named tensors (Dimname[]?) are not supported",
	"at::Storage":                    "raw Storage arguments are not exposed",
	"at::Stream":                     "CUDA/device streams are not exposed",
}

// Return kinds.
var retKinds = map[string]string{
	"at::Tensor":                "tensor",
	"at::Tensor &":              "tensor",
	"const at::Tensor &":        "tensor",
	"::std::vector<at::Tensor>": "tensors",
	"bool":                      "bool",
	"int64_t":                   "int",
	"double":                    "float",
	"at::ScalarType":            "dtype",
	"at::Scalar":                "scalar",
	"::std::vector<int64_t>":    "ints",
	"at::QScheme":               "qscheme",
}

// Names Go reserves, which cannot be parameter names.
var goReserved = map[string]bool{
	"break": true, "case": true, "chan": true, "const": true, "continue": true, "default": true,
	"defer": true, "else": true, "fallthrough": true, "for": true, "func": true, "go": true, "goto": true,
	"if": true, "import": true, "interface": true, "map": true, "package": true, "range": true,
	"return": true, "select": true, "struct": true, "switch": true, "type": true, "var": true,
	"len": true, "cap": true, "copy": true, "append": true, "new": true, "make": true, "min": true,
	"max": true, "real": true, "imag": true, "complex": true, "string": true, "error": true,
	"print": true, "panic": true, "opts": true, "C": true, "unsafe": true, "runtime": true,
	"self": false,
}

// camel is the naming rule (issue 37): the Go name of a PyTorch name is
// that name with the first letter of each _-separated word capitalized,
// mechanically and with no exceptions: mm → Mm, cumsum → Cumsum, isnan →
// Isnan, topk → Topk, index_select → IndexSelect. It is the name XGo looks
// up for x.mm(y), x.cumsum(0) and x.indexSelect(…), so every op is found
// under PyTorch's name without an alias. Go's acronym casing (MM, CumSum)
// would hide the op from XGo, and is not used.
func camel(s string) string {
	var b strings.Builder
	for _, part := range strings.Split(s, "_") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

func lowerCamel(s string) string {
	c := camel(s)
	if c == "" {
		return c
	}
	// Lower an all-caps prefix whole: a parameter "LU" → "lu".
	i := 1
	for i < len(c) && c[i] >= 'A' && c[i] <= 'Z' && (i+1 == len(c) || c[i+1] >= 'A' && c[i+1] <= 'Z') {
		i++
	}
	return strings.ToLower(c[:i]) + c[i:]
}

// ---------------------------------------------------------------------------
// The generator.

type param struct {
	a        arg
	k        kind
	goName   string // Go parameter or local name
	isOption bool
	optName  string // the option's constructor suffix: WithDim → "Dim"
	defGo    string // Go expression of the default; "" means None
}

type function struct {
	d         decl
	goName    string
	cName     string
	params    []param // in the C++ API order
	self      int     // index of the method receiver, or -1
	isMethod  bool
	isFunc    bool
	tensorOpt bool          // has a TensorOptions argument
	shard     int           // the shard package holding its C++ and glue
	avail     *availability // the libtorch versions it exists in; nil: all
	rets      []string
	retAlias  []int // for each return: the index of the argument it aliases, or -1
}

// autogradEngineOps are the declarations whose kernel runs the autograd
// engine, which writes into leaves' gradients.
var autogradEngineOps = map[string]bool{"_backward": true}

type skip struct {
	d   decl
	why string
}

type optInfo struct {
	name string // the option's Go name without With, e.g. "Keepdim"
	kind optKind
}

type generator struct {
	decls    []decl
	fns      []*function
	skips    []skip
	opts     map[string]*optInfo
	hand     map[string]string // hand-written Go names → file
	handMeth map[string]string
	avail    map[string]*availability // by declKey; nil for a single version
	versions []libVersion             // the versions bound, oldest first

}

func newGenerator(decls []decl) *generator {
	return &generator{decls: decls, opts: map[string]*optInfo{}}
}

// skipPrefixes and skipNames: declarations not worth a Go binding.
var skipPrefixes = map[string]string{
	"_foreach":    "the _foreach_* batched kernels are internal to optimizers",
	"_fused_adam": "fused optimizer kernel (CUDA only)",
	"_cudnn":      "cuDNN-specific internal kernel",
	"_nested":     "nested tensors are not supported",
	"_sparse_csr": "sparse CSR internals are not exposed",
	"_mps":        "MPS-specific internal kernel",
	"_test":       "PyTorch test helper",
	"_thnn":       "legacy THNN internal kernel",
}

var skipNames = map[string]string{
	"to":             "hand-written as Tensor.To(targets ...Target)",
	"item":           "hand-written as Tensor.Item/ItemInt/ItemBool/ItemComplex",
	"data":           "Go has Detach",
	"dim":            "hand-written as Tensor.Dim",
	"numel":          "hand-written as Tensor.Numel",
	"size":           "hand-written as Tensor.Size and Tensor.Shape",
	"is_leaf":        "hand-written as Tensor.IsLeaf",
	"requires_grad_": "hand-written as Tensor.SetRequiresGrad",
	"backward":       "hand-written as Tensor.Backward",
	"set_data":       "mutating a tensor's data in place is not exposed",
	"output_nr":      "autograd internal",
	"_version":       "autograd internal",
	"record_stream":  "CUDA streams are not exposed",
	"_pin_memory":    "CUDA pinned memory is not exposed",
	"from_file":      "reads raw files outside GoTorch's checks",
}

func (g *generator) run() {
	g.loadHandWritten()
	for _, d := range g.decls {
		f, why := g.build(d)
		if why != "" {
			g.skips = append(g.skips, skip{d, why})
			continue
		}
		if a := g.avail[declKey(d)]; a != nil && !a.all() {
			f.avail = a
		}
		g.fns = append(g.fns, f)
	}
	g.name()
	g.collectOptions()
	g.writeC()
	g.writeGo()
	g.writeOptions()
	g.writeGopTorch()
	g.writeReport()
	log.Printf("%d declarations: %d generated, %d skipped (see internal/gen/skipped.md)", len(g.fns)+len(g.skips), len(g.fns), len(g.skips))
}

// loadHandWritten collects the names package torch already defines by hand,
// so that generated code never collides with them.
func (g *generator) loadHandWritten() {
	g.hand, g.handMeth = map[string]string{}, map[string]string{}
	dir := filepath.Join(*root, "torch")
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	fset := token.NewFileSet()
	for _, file := range files {
		base := filepath.Base(file)
		if strings.HasSuffix(base, "_gen.go") || strings.HasSuffix(base, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			log.Fatal(err)
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					if id, ok := d.Recv.List[0].Type.(*ast.Ident); ok && id.Name == "Tensor" {
						g.handMeth[d.Name.Name] = base
					}
				} else {
					g.hand[d.Name.Name] = base
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						g.hand[s.Name.Name] = base
					case *ast.ValueSpec:
						for _, n := range s.Names {
							g.hand[n.Name] = base
						}
					}
				}
			}
		}
	}
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (g *generator) build(d decl) (*function, string) {
	if why, ok := skipNames[d.Name]; ok {
		return nil, why
	}
	for p, why := range skipPrefixes {
		if strings.HasPrefix(d.Name, p) {
			return nil, why
		}
	}
	f := &function{d: d, self: -1}
	f.isMethod = has(d.MethodOf, "Tensor")
	f.isFunc = has(d.MethodOf, "namespace")
	if !f.isMethod && !f.isFunc {
		return nil, "neither a function nor a method of Tensor"
	}
	used := map[string]bool{}
	for i, a := range d.Arguments {
		if why, ok := unsupportedTypes[a.Type]; ok {
			return nil, fmt.Sprintf("argument %s: %s", a.Name, why)
		}
		k, ok := kinds[a.Type]
		if !ok {
			return nil, fmt.Sprintf("argument %s: unsupported type %s", a.Name, a.Type)
		}
		if a.Type == "at::TensorOptions" {
			f.tensorOpt = true
			f.params = append(f.params, param{a: a, k: k})
			continue
		}
		p := param{a: a, k: k, goName: lowerCamel(a.Name)}
		if p.goName == "" || goReserved[p.goName] {
			p.goName += "_"
		}
		for used[p.goName] {
			p.goName += "_"
		}
		used[p.goName] = true
		if a.Default.Kind != 0 {
			def, ok := goDefault(a, k)
			if !ok {
				return nil, fmt.Sprintf("argument %s: cannot translate default %q", a.Name, a.Default.Value)
			}
			p.isOption, p.defGo = true, def
		} else if k.hasFlag {
			// A nullable scalar with no default: None unless given.
			p.isOption = true
		}
		if a.Name == "self" && f.isMethod && f.self < 0 && (k.goType == "Tensor") {
			f.self = i
			p.isOption = false
		}
		if p.isOption {
			p.optName = camel(a.Name)
			if p.optName == "" {
				return nil, "option with an empty name"
			}
		}
		f.params = append(f.params, p)
	}
	if f.isMethod && f.self < 0 {
		if !f.isFunc {
			return nil, "method without a self tensor"
		}
		f.isMethod = false
	}
	for _, r := range d.Returns {
		rk, ok := retKinds[r.Type]
		if !ok {
			return nil, fmt.Sprintf("unsupported return type %s", r.Type)
		}
		f.rets = append(f.rets, rk)
		alias := -1
		if rk == "tensor" && strings.HasSuffix(r.Type, "&") {
			for i, a := range d.Arguments {
				if a.Name == r.Name && strings.HasPrefix(a.Type, "at::Tensor &") {
					alias = i
				}
			}
			if alias < 0 {
				// const Tensor& returns of in-place ops alias self.
				for i, a := range d.Arguments {
					if a.Name == "self" && strings.Contains(a.Type, "Tensor &") {
						alias = i
					}
				}
			}
		}
		f.retAlias = append(f.retAlias, alias)
	}
	return f, ""
}

// goDefault translates a C++ default into a Go expression; "" means None.
func goDefault(a arg, k kind) (string, bool) {
	v := strings.TrimSpace(a.Default.Value)
	if v == "c10::nullopt" || v == "None" || (v == "{}" && (k.nullable || k.hasFlag)) {
		return "", true
	}
	switch k.goType {
	case "Tensor":
		return "", v == "{}"
	case "bool":
		switch strings.ToLower(v) {
		case "true":
			return "true", true
		case "false":
			return "false", true
		}
	case "int64":
		switch v {
		case "at::Reduction::Mean":
			return "int64(1)", true
		case "at::Reduction::Sum":
			return "int64(2)", true
		case "at::Reduction::None":
			return "int64(0)", true
		}
		if _, err := strconv.ParseInt(v, 10, 64); err == nil {
			return "int64(" + v + ")", true
		}
	case "float64":
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return "float64(" + v + ")", true
		}
	case "Scalar":
		if _, err := strconv.ParseInt(v, 10, 64); err == nil {
			return "intScalar(" + v + ")", true
		}
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			return "floatScalar(" + v + ")", true
		}
	case "[]int64":
		v = strings.Trim(v, "{}[]")
		if v == "" {
			return "[]int64{}", true
		}
		for _, x := range strings.Split(v, ",") {
			if _, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64); err != nil {
				return "", false
			}
		}
		return "[]int64{" + v + "}", true
	case "string":
		if s, err := strconv.Unquote(v); err == nil {
			return strconv.Quote(s), true
		}
		if strings.HasPrefix(v, "'") {
			return strconv.Quote(strings.Trim(v, "'")), true
		}
	case "MemoryFormat":
		switch v {
		case "MemoryFormat::Contiguous", "at::MemoryFormat::Contiguous", "c10::MemoryFormat::Contiguous":
			return "ContiguousFormat", true
		case "MemoryFormat::Preserve", "at::MemoryFormat::Preserve", "c10::MemoryFormat::Preserve":
			return "PreserveFormat", true
		}
	case "DType":
		if strings.HasPrefix(v, "at::k") {
			return v[len("at::k"):], true
		}
	case "[2]bool", "[3]bool", "[4]bool":
		v = strings.Trim(v, "{}[]")
		parts := strings.Split(v, ",")
		out := make([]string, len(parts))
		for i, p := range parts {
			switch strings.ToLower(strings.TrimSpace(p)) {
			case "true":
				out[i] = "true"
			case "false":
				out[i] = "false"
			default:
				return "", false
			}
		}
		return k.goType + "{" + strings.Join(out, ", ") + "}", true
	}
	return "", false
}

// name gives every function its Go and C names.
func (g *generator) name() {
	// Group by declaration name; the commonest overload gets the plain Go
	// name: the one with an empty name, else the Tensor one (eq.Tensor
	// rather than eq.Scalar), else the first one listed.
	rank := func(ov string) int {
		switch ov {
		case "":
			return 2
		case "Tensor":
			return 1
		}
		return 0
	}
	primary := map[string]string{}
	for _, f := range g.fns {
		n := f.d.Name
		if cur, ok := primary[n]; !ok || rank(f.d.OverloadName) > rank(cur) {
			primary[n] = f.d.OverloadName
		}
	}
	taken := map[string]bool{} // package-level names
	takenM := map[string]bool{}
	for n := range g.hand {
		taken[n] = true
	}
	for n := range g.handMeth {
		takenM[n] = true
	}
	var kept []*function
	for _, f := range g.fns {
		d := f.d
		name, inplace, out := d.Name, false, false
		for _, a := range d.Arguments {
			if a.Output {
				out = true
			}
		}
		if strings.HasSuffix(name, "_out") && out {
			name = strings.TrimSuffix(name, "_out")
		} else {
			out = false
		}
		if strings.HasSuffix(name, "_") && !strings.HasSuffix(name, "__") {
			name, inplace = strings.TrimSuffix(name, "_"), true
		}
		internal := strings.HasPrefix(name, "_")
		base := camel(strings.TrimLeft(name, "_"))
		if internal {
			base = "Internal" + base
		}
		if strings.HasPrefix(strings.TrimLeft(name, "_"), "_") || base == "" || base == "Internal" {
			g.skips = append(g.skips, skip{d, "name has no Go form"})
			continue
		}
		ov := d.OverloadName
		if out {
			ov = strings.TrimSuffix(strings.TrimSuffix(ov, "out"), "_")
		}
		suffix := ""
		if ov != primary[d.Name] && ov != "" {
			suffix = camel(ov)
		}
		goName := base + suffix
		if out {
			goName += "Out"
		}
		if inplace {
			goName += "_"
		}
		// Resolve collisions among generated names.
		cand := goName
		for i := 2; g.collides(f, cand, taken, takenM); i++ {
			if i == 2 && suffix == "" && ov != "" {
				cand = base + camel(ov)
				if out {
					cand += "Out"
				}
				if inplace {
					cand += "_"
				}
				continue
			}
			cand = fmt.Sprintf("%s%d", goName, i)
		}
		if hw := g.handCollision(f, goName); hw != "" && cand != goName {
			g.skips = append(g.skips, skip{d, "hand-written in torch/" + hw})
			continue
		}
		f.goName = cand
		if f.isFunc {
			taken[cand], taken["Try"+cand] = true, true
		}
		if f.isMethod {
			takenM[cand], takenM["Try"+cand] = true, true
		}
		f.cName = "atg_" + d.Name
		if d.OverloadName != "" {
			f.cName += "_" + d.OverloadName
		}
		kept = append(kept, f)
	}
	g.fns = kept
}

func (g *generator) collides(f *function, n string, taken, takenM map[string]bool) bool {
	if f.isFunc && (taken[n] || taken["Try"+n]) {
		return true
	}
	if f.isMethod && (takenM[n] || takenM["Try"+n]) {
		return true
	}
	return false
}

func (g *generator) handCollision(f *function, n string) string {
	if f.isFunc {
		if file, ok := g.hand[n]; ok {
			return file
		}
		if file, ok := g.hand["Try"+n]; ok {
			return file
		}
	}
	if f.isMethod {
		if file, ok := g.handMeth[n]; ok {
			return file
		}
		if file, ok := g.handMeth["Try"+n]; ok {
			return file
		}
	}
	return ""
}

// collectOptions gives each keyword one option constructor. Integer
// keywords that are lists elsewhere (dim) take a list; numbers of any kind
// share one generic constructor. Keywords whose kinds still disagree get
// the minority kind's name appended.
func (g *generator) collectOptions() {
	type use struct {
		kinds  map[optKind]int
		nonInt bool // a num user that is not int64
	}
	uses := map[string]*use{}
	add := func(name string, k optKind, goType string) {
		u := uses[name]
		if u == nil {
			u = &use{kinds: map[optKind]int{}}
			uses[name] = u
		}
		u.kinds[k]++
		if k == okNum && goType != "int64" {
			u.nonInt = true
		}
	}
	for _, f := range g.fns {
		for _, p := range f.params {
			if p.isOption {
				add(p.optName, p.k.opt, p.k.goType)
			}
		}
		if f.tensorOpt {
			add("Dtype", okDType, "DType")
			add("Device", okDevice, "Device")
			add("Layout", okLayout, "Layout")
			add("RequiresGrad", okBool, "bool")
		}
	}
	effective := func(name string, k optKind) optKind {
		u := uses[name]
		if k == okNum && !u.nonInt && u.kinds[okInts] > 0 {
			return okInts
		}
		return k
	}
	best := map[string]optKind{}
	for name, u := range uses {
		counts := map[optKind]int{}
		for k, n := range u.kinds {
			counts[effective(name, k)] += n
		}
		var b optKind
		for k, n := range counts {
			if b == "" || n > counts[b] || (n == counts[b] && k < b) {
				b = k
			}
		}
		best[name] = b
		for k := range counts {
			n := name
			if k != b {
				n = name + camel(string(k))
			}
			g.opts[n] = &optInfo{name: n, kind: k}
		}
	}
	for _, f := range g.fns {
		for i := range f.params {
			p := &f.params[i]
			if !p.isOption {
				continue
			}
			k := effective(p.optName, p.k.opt)
			if k != best[p.optName] {
				p.optName += camel(string(k))
			}
		}
	}
}

// ---------------------------------------------------------------------------
// C and C++.

// cParams returns the C parameters of p and the C++ expression built from
// them.
func cParams(p param) ([]string, string) {
	n := "a_" + p.a.Name
	switch p.a.Type {
	case "const at::Tensor &":
		return []string{"gt_tensor " + n}, "T(" + n + ")"
	case "at::Tensor &":
		return []string{"gt_tensor " + n}, "TM(" + n + ")"
	case "const c10::optional<at::Tensor> &":
		return []string{"gt_tensor " + n}, "opt(" + n + ")"
	case "at::TensorList", "const at::ITensorListRef &":
		return []string{"gt_tensor *" + n, "int64_t " + n + "_len"}, "tensor_list(" + n + ", " + n + "_len)"
	case "const c10::List<c10::optional<at::Tensor>> &":
		return []string{"gt_tensor *" + n, "int64_t " + n + "_len"}, "opt_tensor_list(" + n + ", " + n + "_len)"
	case "int64_t":
		return []string{"int64_t " + n}, n
	case "c10::optional<int64_t>":
		return []string{"int64_t " + n, "int " + n + "_has"}, "optional<int64_t>(" + n + ", " + n + "_has)"
	case "at::IntArrayRef":
		return []string{"const int64_t *" + n, "int64_t " + n + "_len"}, "IA(" + n + ", " + n + "_len)"
	case "at::OptionalIntArrayRef":
		return []string{"const int64_t *" + n, "int64_t " + n + "_len"}, "OIA(" + n + ", " + n + "_len)"
	case "bool":
		return []string{"int " + n}, "(" + n + " != 0)"
	case "c10::optional<bool>":
		return []string{"int " + n, "int " + n + "_has"}, "optional<bool>(" + n + " != 0, " + n + "_has)"
	case "double":
		return []string{"double " + n}, n
	case "c10::optional<double>":
		return []string{"double " + n, "int " + n + "_has"}, "optional<double>(" + n + ", " + n + "_has)"
	case "const at::Scalar &":
		return []string{"gt_scalar " + n}, "S(" + n + ")"
	case "const c10::optional<at::Scalar> &":
		return []string{"gt_scalar " + n, "int " + n + "_has"}, "optional<at::Scalar>(S(" + n + "), " + n + "_has)"
	case "at::ArrayRef<at::Scalar>":
		return []string{"const gt_scalar *" + n, "int64_t " + n + "_len"}, "scalar_list(" + n + ", " + n + "_len)"
	case "c10::optional<at::ArrayRef<double>>":
		return []string{"const double *" + n, "int64_t " + n + "_len"}, "ODA(" + n + ", " + n + "_len)"
	case "at::ScalarType":
		return []string{"int32_t " + n}, "scalar_type(" + n + ")"
	case "c10::optional<at::ScalarType>":
		return []string{"int32_t " + n, "int " + n + "_has"}, "optional<at::ScalarType>(scalar_type(" + n + "_has ? " + n + " : 0), " + n + "_has)"
	case "c10::string_view":
		return []string{"const char *" + n}, "c10::string_view(" + n + ")"
	case "c10::optional<c10::string_view>":
		return []string{"const char *" + n, "int " + n + "_has"}, "optional<c10::string_view>(c10::string_view(" + n + " ? " + n + " : \"\"), " + n + "_has)"
	case "at::MemoryFormat":
		return []string{"int32_t " + n}, "memory_format(" + n + ")"
	case "c10::optional<at::MemoryFormat>":
		return []string{"int32_t " + n, "int " + n + "_has"}, "optional<at::MemoryFormat>(memory_format(" + n + "_has ? " + n + " : 0), " + n + "_has)"
	case "at::Layout":
		return []string{"int32_t " + n}, "layout(" + n + ")"
	case "c10::optional<at::Layout>":
		return []string{"int32_t " + n, "int " + n + "_has"}, "optional<at::Layout>(layout(" + n + "_has ? " + n + " : 0), " + n + "_has)"
	case "at::Device":
		return []string{"int32_t " + n, "int32_t " + n + "_index"}, "device(" + n + ", " + n + "_index)"
	case "c10::optional<at::Device>":
		return []string{"int32_t " + n, "int32_t " + n + "_index", "int " + n + "_has"}, "optional<at::Device>(device(" + n + ", " + n + "_index), " + n + "_has)"
	case "c10::optional<at::Generator>":
		return []string{"gt_generator " + n}, "generator(" + n + ")"
	case "::std::array<bool,2>", "::std::array<bool,3>", "::std::array<bool,4>":
		size := p.a.Type[len("::std::array<bool,") : len(p.a.Type)-1]
		return []string{"int " + n}, "bool_array<" + size + ">(" + n + ")"
	case "at::TensorOptions":
		return []string{"int32_t a_dtype", "int32_t a_device", "int32_t a_device_index", "int32_t a_layout", "int a_requires_grad"},
			"options(a_dtype, a_device, a_device_index, a_layout)"
	}
	panic("no C form for " + p.a.Type)
}

func (f *function) singleTensor() bool {
	return len(f.rets) == 1 && f.rets[0] == "tensor" && f.retAlias[0] < 0
}

// cparam is one C parameter: out parameters carry results.
type cparam struct {
	ctype, name string
	out         bool
}

func splitCParam(decl string, out bool) cparam {
	i := strings.LastIndex(decl, " ")
	t, n := decl[:i], decl[i+1:]
	for strings.HasPrefix(n, "*") {
		t += " *"
		n = n[1:]
	}
	t = strings.ReplaceAll(t, "  ", " ")
	return cparam{ctype: t, name: n, out: out}
}

// cParamList returns the C parameters: result out-pointers, then arguments.
func (f *function) cParamList() []cparam {
	var ps []cparam
	outs := func(ds ...string) {
		for _, d := range ds {
			ps = append(ps, splitCParam(d, true))
		}
	}
	if !f.singleTensor() {
		for i, r := range f.rets {
			n := fmt.Sprintf("r%d", i)
			switch r {
			case "tensor":
				if f.retAlias[i] < 0 {
					outs("gt_tensor *" + n)
				}
			case "tensors":
				outs("gt_tensor **"+n, "int64_t *"+n+"_len")
			case "bool":
				outs("int *" + n)
			case "int", "qscheme":
				outs("int64_t *" + n)
			case "float":
				outs("double *" + n)
			case "dtype":
				outs("int32_t *" + n)
			case "scalar":
				outs("gt_scalar *" + n)
			case "ints":
				outs("int64_t **"+n, "int64_t *"+n+"_len")
			}
		}
	}
	for _, p := range f.params {
		c, _ := cParams(p)
		for _, d := range c {
			ps = append(ps, splitCParam(d, false))
		}
	}
	return ps
}

// cSignature returns the C declaration.
func (f *function) cSignature() string {
	var ps []string
	for _, p := range f.cParamList() {
		sep := " "
		if strings.HasSuffix(p.ctype, "*") {
			sep = ""
		}
		ps = append(ps, p.ctype+sep+p.name)
	}
	res := "gt_error"
	if f.singleTensor() {
		res = "gt_tensor_result"
	}
	if len(ps) == 0 {
		ps = []string{"void"}
	}
	return res + " " + f.cName + "(" + strings.Join(ps, ", ") + ")"
}

// glueName is the Go name of the cgo glue function for f.
func (f *function) glueName() string {
	return strings.ToUpper(f.cName[:1]) + f.cName[1:]
}

// glueOuts says, for each C out-parameter type, the C type of the glue's
// local and the Go type it returns.
var glueOuts = map[string]struct{ local, goType string }{
	"gt_tensor *":   {"C.gt_tensor", "unsafe.Pointer"},
	"gt_tensor * *": {"*C.gt_tensor", "unsafe.Pointer"},
	"int64_t * *":   {"*C.int64_t", "unsafe.Pointer"},
	"int64_t *":     {"C.int64_t", "int64"},
	"int *":         {"C.int", "int32"},
	"int32_t *":     {"C.int32_t", "int32"},
	"double *":      {"C.double", "float64"},
}

// glue returns the Go function in a shard package that calls f's C
// function with Go-typed arguments, so that only the shard packages run cgo
// over the thousands of generated C names.
func (f *function) glue() string {
	var params, pre, cargs, outDecls, rets, retVals []string
	for _, p := range f.cParamList() {
		n := p.name
		if p.out {
			if p.ctype == "gt_scalar *" {
				outDecls = append(outDecls, "var "+n+" C.gt_scalar")
				rets = append(rets, "int64", "float64", "float64", "int32")
				retVals = append(retVals, "int64("+n+".i)", "float64("+n+".re)", "float64("+n+".im)", "int32("+n+".kind)")
			} else {
				o, ok := glueOuts[p.ctype]
				if !ok {
					panic("no glue for out " + p.ctype)
				}
				outDecls = append(outDecls, "var "+n+" "+o.local)
				rets, retVals = append(rets, o.goType), append(retVals, o.goType+"("+n+")")
			}
			cargs = append(cargs, "&"+n)
			continue
		}
		switch p.ctype {
		case "gt_tensor":
			params, cargs = append(params, n+" unsafe.Pointer"), append(cargs, "C.gt_tensor("+n+")")
		case "gt_tensor *":
			params, cargs = append(params, n+" unsafe.Pointer"), append(cargs, "(*C.gt_tensor)("+n+")")
		case "gt_generator":
			params, cargs = append(params, n+" unsafe.Pointer"), append(cargs, "C.gt_generator("+n+")")
		case "const gt_scalar *":
			params, cargs = append(params, n+" unsafe.Pointer"), append(cargs, "(*C.gt_scalar)("+n+")")
		case "int64_t":
			params, cargs = append(params, n+" int64"), append(cargs, "C.int64_t("+n+")")
		case "const int64_t *":
			params, cargs = append(params, n+" *int64"), append(cargs, "(*C.int64_t)(unsafe.Pointer("+n+"))")
		case "int":
			params, cargs = append(params, n+" int32"), append(cargs, "C.int("+n+")")
		case "int32_t":
			params, cargs = append(params, n+" int32"), append(cargs, "C.int32_t("+n+")")
		case "double":
			params, cargs = append(params, n+" float64"), append(cargs, "C.double("+n+")")
		case "const double *":
			params, cargs = append(params, n+" *float64"), append(cargs, "(*C.double)(unsafe.Pointer("+n+"))")
		case "gt_scalar":
			params = append(params, n+"_i int64", n+"_re float64", n+"_im float64", n+"_kind int32")
			cargs = append(cargs, "C.gt_scalar{i: C.int64_t("+n+"_i), re: C.double("+n+"_re), im: C.double("+n+"_im), kind: C.int32_t("+n+"_kind)}")
		case "const char *":
			params = append(params, n+" string")
			pre = append(pre, n+"_s := C.CString("+n+")", "defer C.free(unsafe.Pointer("+n+"_s))")
			cargs = append(cargs, n+"_s")
		default:
			panic("no glue for " + p.ctype)
		}
	}
	var b strings.Builder
	call := "C." + f.cName + "(" + strings.Join(cargs, ", ") + ")"
	if f.singleTensor() {
		fmt.Fprintf(&b, "func %s(%s) (unsafe.Pointer, unsafe.Pointer, int64) {\n", f.glueName(), strings.Join(params, ", "))
		for _, l := range pre {
			b.WriteString(l + "\n")
		}
		fmt.Fprintf(&b, "r := %s\nreturn unsafe.Pointer(r.t), unsafe.Pointer(r.err), int64(r.nbytes)\n}\n\n", call)
		return b.String()
	}
	rets = append(rets, "unsafe.Pointer")
	fmt.Fprintf(&b, "func %s(%s) (%s) {\n", f.glueName(), strings.Join(params, ", "), strings.Join(rets, ", "))
	for _, l := range append(pre, outDecls...) {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "e := %s\nreturn %s\n}\n\n", call, strings.Join(append(retVals, "unsafe.Pointer(e)"), ", "))
	return b.String()
}

func (f *function) cppCall() string {
	var args []string
	selfExpr := ""
	for i, p := range f.params {
		_, e := cParams(p)
		if i == f.self && !f.isFunc {
			selfExpr = e
			continue
		}
		args = append(args, e)
	}
	if f.isFunc {
		return "at::" + f.d.Name + "(" + strings.Join(args, ", ") + ")"
	}
	return selfExpr + "." + f.d.Name + "(" + strings.Join(args, ", ") + ")"
}

// cBody is f's C function. One that not every libtorch version has calls
// libtorch under its version guard and returns ErrUnsupported's message
// otherwise.
func (f *function) cBody() string {
	body := f.cBodyCall(f.cppCall(), "")
	if f.avail == nil {
		return body
	}
	sig := f.cSignature() + " {\n"
	inner := func(body string) string { return strings.TrimSuffix(strings.TrimPrefix(body, sig), "}\n") }
	var b strings.Builder
	fmt.Fprintf(&b, "%s#if %s\n%s", sig, f.avail.guard(nil), inner(body))
	done := map[string]bool{}
	for _, alt := range f.avail.alt {
		if alt == nil || done[cABI(alt)] {
			continue
		}
		done[cABI(alt)] = true
		pre, call, _ := adapt(f, alt)
		fmt.Fprintf(&b, "#elif %s\n  // As libtorch declares it there: %s\n%s", f.avail.guard(alt), alt.d.Schema, inner(f.cBodyCall(call, strings.Join(pre, " ")+" ")))
	}
	ret := "unsupported"
	if f.singleTensor() {
		ret = "unsupported_tensor"
	}
	fmt.Fprintf(&b, "#else\n  return %s(%q, %q);\n#endif\n}\n", ret, f.d.Name, f.avail.why())
	return b.String()
}

// cBodyCall is f's C function calling libtorch with call, after the
// statements pre (checks that the call may be made) and the checks of
// trustedArgs, inside the guard.
func (f *function) cBodyCall(call, pre string) string {
	chk := strings.TrimLeft(pre, " ") + f.checkCalls()
	var b strings.Builder
	b.WriteString(f.cSignature() + " {\n")
	if f.singleTensor() {
		if f.tensorOpt {
			call = "with_grad(" + call + ", a_requires_grad)"
		}
		fmt.Fprintf(&b, "  return tensor_result([&] { %sreturn %s; });\n}\n", chk, call)
		return b.String()
	}
	if len(f.rets) == 0 {
		fmt.Fprintf(&b, "  return guard([&] { %s%s; });\n}\n", chk, call)
		return b.String()
	}
	b.WriteString("  return guard([&] {\n")
	if chk != "" {
		b.WriteString("    " + strings.TrimSpace(chk) + "\n")
	}
	if len(f.rets) == 1 {
		fmt.Fprintf(&b, "    auto res = %s;\n", call)
	} else {
		fmt.Fprintf(&b, "    auto res_tuple = %s;\n", call)
	}
	for i, r := range f.rets {
		v := "res"
		if len(f.rets) > 1 {
			v = fmt.Sprintf("std::get<%d>(res_tuple)", i)
		}
		n := fmt.Sprintf("r%d", i)
		switch r {
		case "tensor":
			if f.retAlias[i] < 0 {
				fmt.Fprintf(&b, "    *%s = wrap_opt(%s);\n", n, v)
			} else {
				fmt.Fprintf(&b, "    (void)%s;\n", v)
			}
		case "tensors":
			fmt.Fprintf(&b, "    *%s = wrap_list(%s, %s_len);\n", n, v, n)
		case "bool":
			fmt.Fprintf(&b, "    *%s = %s ? 1 : 0;\n", n, v)
		case "int":
			fmt.Fprintf(&b, "    *%s = %s;\n", n, v)
		case "qscheme":
			fmt.Fprintf(&b, "    *%s = static_cast<int64_t>(%s);\n", n, v)
		case "float":
			fmt.Fprintf(&b, "    *%s = %s;\n", n, v)
		case "dtype":
			fmt.Fprintf(&b, "    *%s = static_cast<int32_t>(%s);\n", n, v)
		case "scalar":
			fmt.Fprintf(&b, "    *%s = from_scalar(%s);\n", n, v)
		case "ints":
			fmt.Fprintf(&b, "    *%s = int_list(%s, %s_len);\n", n, v, n)
		}
	}
	b.WriteString("  });\n}\n")
	return b.String()
}

const header = "// Code generated by internal/gen from PyTorch's Declarations.yaml. DO NOT EDIT.\n"

// prebuiltGo is each shard's prebuilt_gen.go: with the gotorch_prebuilt
// tag (the Makefile's train and test targets) the shard's C++ is left out
// (its ops_gen.cc says so) and comes from the shared library
// scripts/prebuilt.sh builds once per content.
const prebuiltGo = `//go:build gotorch_prebuilt

%s
package shard%d

// #cgo LDFLAGS: -lgotorch_cgo
import "C"
`

// headerStamp returns a comment with the SHA-256 of each named header. The
// go command's build cache hashes the files in a package's own folder, not
// headers it includes from elsewhere: a shard that includes
// ../../internal.h kept its cached object code when internal.h changed, and
// a build linked shards compiled against the old handle representation
// with a cgotorch compiled against the new one. Stamping the headers into
// a file of each including package makes any change to them change that
// package, and TestGeneratedUpToDate fails until go generate is run.
// ops_gen.h, written by this run, is passed as data.
func headerStamp(root string, names []string, generated map[string][]byte) string {
	var b strings.Builder
	b.WriteString("// Headers this package includes from outside its folder (the build cache\n// does not see them; a change to one must change this file):\n")
	for _, n := range names {
		data, ok := generated[n]
		if !ok {
			var err error
			data, err = os.ReadFile(filepath.Join(root, "cgotorch", n))
			if err != nil {
				log.Fatal(err)
			}
		}
		fmt.Fprintf(&b, "//   %s sha256 %x\n", n, sha256.Sum256(data))
	}
	return b.String()
}

func (g *generator) writeC() {
	var h bytes.Buffer
	h.WriteString("/* Code generated by internal/gen from PyTorch's Declarations.yaml. DO NOT EDIT. */\n")
	h.WriteString("#ifndef GOTORCH_OPS_GEN_H_\n#define GOTORCH_OPS_GEN_H_\n\n#include \"cgotorch.h\"\n\n")
	h.WriteString("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n")
	for _, f := range g.fns {
		fmt.Fprintf(&h, "/* %s */\n%s;\n", f.d.Schema, f.cSignature())
	}
	h.WriteString("\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n")
	writeFile(filepath.Join(*outDir, "cgotorch", "ops_gen.h"), h.Bytes())
	stamp := headerStamp(*root, []string{"internal.h", "checks.h", "cgotorch.h", "ops_gen.h"},
		map[string][]byte{"ops_gen.h": h.Bytes()})

	// Shards: contiguous runs of functions, balanced by count.
	per := (len(g.fns) + *nShards - 1) / *nShards
	for s := 0; s < *nShards; s++ {
		var b bytes.Buffer
		// make links the C++ of every cgotorch package from one shared
		// library it builds once per content (scripts/prebuilt.sh); with
		// the gotorch_prebuilt tag the go command leaves this file out.
		b.WriteString("//go:build !gotorch_prebuilt\n\n")
		b.WriteString(header)
		b.WriteString(stamp)
		b.WriteString("#include \"../../internal.h\"\n#include \"../../checks.h\"\n#include \"../../ops_gen.h\"\n\nusing namespace gotorch;\n\nextern \"C\" {\n\n")
		for i := s * per; i < (s+1)*per && i < len(g.fns); i++ {
			b.WriteString(g.fns[i].cBody())
			b.WriteString("\n")
		}
		b.WriteString("}  // extern \"C\"\n")
		dir := filepath.Join(*outDir, "cgotorch", "ops", fmt.Sprintf("shard%d", s))
		os.MkdirAll(dir, 0o755)
		writeFile(filepath.Join(dir, "ops_gen.cc"), b.Bytes())
		writeFile(filepath.Join(dir, "prebuilt_gen.go"), []byte(fmt.Sprintf(prebuiltGo, header, s)))
		var gb bytes.Buffer
		gb.WriteString(header)
		fmt.Fprintf(&gb, "\n// Package shard%d holds part %d of %d of the generated C++ shim and its cgo\n// glue: Go functions with Go-typed arguments that package torch calls. The\n// parts compile in parallel.\npackage shard%d\n\n", s, s+1, *nShards, s)
		gb.WriteString("/*\n#cgo CXXFLAGS: -O1 -fno-strict-aliasing -I/usr/include/torch/csrc/api/include -Wno-deprecated-declarations\n#cgo CFLAGS: -I${SRCDIR}/../..\n#cgo LDFLAGS: -ltorch_cpu -lc10\n#include <stdlib.h>\n#include \"ops_gen.h\"\n*/\nimport \"C\"\n\nimport \"unsafe\"\n\nvar _ unsafe.Pointer\n\n")
		for i := s * per; i < (s+1)*per && i < len(g.fns); i++ {
			g.fns[i].shard = s
			gb.WriteString(g.fns[i].glue())
		}
		os.Remove(filepath.Join(dir, "shard.go"))
		writeFile(filepath.Join(dir, "glue_gen.go"), gb.Bytes())
	}
	checkAllUsed()
}

func writeFile(path string, data []byte) {
	os.MkdirAll(filepath.Dir(path), 0o755)
	if strings.HasSuffix(path, ".go") {
		src, err := format.Source(data)
		if err != nil {
			os.WriteFile(path+".broken", data, 0o644)
			log.Fatalf("%s: %v", path, err)
		}
		data = src
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		log.Fatal(err)
	}
}

func (g *generator) writeReport() {
	var b bytes.Buffer
	b.WriteString("<!-- Code generated by internal/gen. DO NOT EDIT. -->\n# Declarations not generated\n\n")
	if len(g.versions) > 0 {
		var vs []string
		for _, v := range g.versions {
			vs = append(vs, v.String())
		}
		fmt.Fprintf(&b, "Of %d declarations in the union of libtorch %s (internal/gen/decls), %d are generated and the %d below are not.\n\n",
			len(g.fns)+len(g.skips), strings.Join(vs, ", "), len(g.fns), len(g.skips))
	} else {
		fmt.Fprintf(&b, "Of %d declarations in Declarations.yaml, %d are generated and the %d below are not.\n\n", len(g.fns)+len(g.skips), len(g.fns), len(g.skips))
	}
	byWhy := map[string]int{}
	for _, s := range g.skips {
		byWhy[s.why]++
	}
	var whys []string
	for w := range byWhy {
		whys = append(whys, w)
	}
	sort.Slice(whys, func(i, j int) bool {
		return byWhy[whys[i]] > byWhy[whys[j]] || byWhy[whys[i]] == byWhy[whys[j]] && whys[i] < whys[j]
	})
	b.WriteString("## Summary\n\n| count | reason |\n| ---: | --- |\n")
	for _, w := range whys {
		fmt.Fprintf(&b, "| %d | %s |\n", byWhy[w], w)
	}
	b.WriteString("\n## Every skipped declaration\n\n| declaration | reason |\n| --- | --- |\n")
	for _, s := range g.skips {
		fmt.Fprintf(&b, "| `%s` | %s |\n", strings.ReplaceAll(s.d.Schema, "|", "\\|"), s.why)
	}
	var partial []*function
	for _, f := range g.fns {
		if f.avail != nil {
			partial = append(partial, f)
		}
	}
	var missing []*function
	for _, f := range partial {
		if !f.avail.everywhere() {
			missing = append(missing, f)
		}
	}
	partial = missing
	if len(partial) > 0 {
		fmt.Fprintf(&b, "\n## Generated, but not in every libtorch\n\nThese %d return ErrUnsupported where the linked libtorch lacks them.\n\n| function | availability |\n| --- | --- |\n", len(partial))
		for _, f := range partial {
			fmt.Fprintf(&b, "| `%s` | %s |\n", f.goName, f.avail.why())
		}
	}
	writeFile(filepath.Join(*outDir, "internal", "gen", "skipped.md"), b.Bytes())
}

// ---------------------------------------------------------------------------
// Go.

var goRetTypes = map[string]string{
	"tensor": "Tensor", "tensors": "[]Tensor", "bool": "bool", "int": "int64", "float": "float64",
	"dtype": "DType", "scalar": "Scalar", "ints": "[]int64", "qscheme": "int64",
}

var goZero = map[string]string{
	"tensor": "Tensor{}", "tensors": "nil", "bool": "false", "int": "0", "float": "0",
	"dtype": "0", "scalar": "Scalar{}", "ints": "nil", "qscheme": "0",
}

func (f *function) goParams(forMethod bool) (decls []string, names []string) {
	for i, p := range f.params {
		if p.isOption || p.a.Type == "at::TensorOptions" {
			continue
		}
		if forMethod && i == f.self {
			continue
		}
		decls = append(decls, p.goName+" "+p.k.goType)
		names = append(names, p.goName)
	}
	return
}

func (f *function) hasOptions() bool {
	if f.tensorOpt {
		return true
	}
	for _, p := range f.params {
		if p.isOption {
			return true
		}
	}
	return false
}

func (f *function) goResults() []string {
	var rs []string
	for _, r := range f.rets {
		rs = append(rs, goRetTypes[r])
	}
	return rs
}

func (f *function) optionNames() []string {
	var ns []string
	for _, p := range f.params {
		if p.isOption {
			ns = append(ns, "With"+p.optName)
		}
	}
	if f.tensorOpt {
		ns = append(ns, "WithDtype", "WithDevice", "WithLayout", "WithRequiresGrad")
	}
	return ns
}

func (f *function) doc(name string) string {
	var b strings.Builder
	pyName := f.d.Name
	if f.d.OverloadName != "" {
		pyName += "." + f.d.OverloadName
	}
	fmt.Fprintf(&b, "// %s is PyTorch's %s.\n//\n//\t%s\n", name, pyName, f.d.Schema)
	if ns := f.optionNames(); len(ns) > 0 {
		fmt.Fprintf(&b, "//\n// Options: %s.\n", strings.Join(ns, ", "))
	}
	if f.avail != nil {
		fmt.Fprintf(&b, "//\n// %s\n", f.avail.goDoc())
	}
	return b.String()
}

// goOptionRead returns Go statements that set the local of p from option o.
func (g *generator) goOptionRead(p param) string {
	okind := g.opts[p.optName].kind
	x := p.goName
	var s string
	switch p.k.goType {
	case "Tensor":
		s = x + " = o.t"
	case "[]Tensor":
		s = x + " = o.ts"
	case "int64":
		if okind == okInts {
			s = "if " + x + ", err_ = o.one(op); err_ != nil { return }"
		} else {
			s = "if " + x + ", err_ = o.int64(op); err_ != nil { return }"
		}
	case "float64":
		s = x + " = o.s.Float()"
	case "Scalar":
		s = x + " = o.s"
	case "[]int64":
		s = x + " = o.ints\nif " + x + " == nil { " + x + " = []int64{} }"
	case "bool":
		s = x + " = o.b"
	case "[]float64":
		s = x + " = o.floats\nif " + x + " == nil { " + x + " = []float64{} }"
	case "[]Scalar":
		s = x + " = o.scalars"
	case "DType":
		s = x + " = DType(o.i)"
	case "string":
		s = x + " = o.str"
	case "MemoryFormat":
		s = x + " = MemoryFormat(o.i)"
	case "Layout":
		s = x + " = Layout(o.i)"
	case "Device":
		s = x + " = o.device()"
	case "*Generator":
		s = x + " = o.gen"
	case "[2]bool", "[3]bool", "[4]bool":
		s = "if err_ = o.boolArray(op, " + x + "[:]); err_ != nil { return }"
	default:
		panic("no option read for " + p.k.goType)
	}
	if p.k.hasFlag {
		s += "\n" + x + "Has = true"
	}
	return s
}

// goCArgs returns the Go expressions passed to the glue for p, and
// statements to run before the call. unpin holds the statements that
// unpin the tensors of the parameters before p, run when p's check fails.
func goCArgs(p param, unpin string) (pre []string, args []string) {
	x := p.goName
	c := x + "C"
	switch p.k.goType {
	case "Tensor":
		fn := "ptr"
		if p.k.nullable || p.isOption {
			fn = "optPtr"
		}
		pre = append(pre, fmt.Sprintf("%s, err_ := %s.%s(op, %q)\nif err_ != nil { %sreturn }", c, x, fn, p.a.Name, unpin))
		args = append(args, "unsafe.Pointer("+c+")")
	case "[]Tensor":
		fn := "tensorPtrs"
		if strings.Contains(p.a.Type, "optional") {
			fn = "optTensorPtrs"
		}
		pre = append(pre, fmt.Sprintf("%s, err_ := %s(op, %q, %s)\nif err_ != nil { %sreturn }", c, fn, p.a.Name, x, unpin))
		args = append(args, "tensorsPtr("+c+")", "int64(len("+c+"))")
	case "int64":
		args = append(args, x)
	case "[]int64":
		if p.k.nullable {
			args = append(args, "i64p("+x+")", "optLen(len("+x+"), "+x+" == nil)")
		} else {
			args = append(args, "i64p("+x+")", "int64(len("+x+"))")
		}
	case "bool":
		args = append(args, "b32("+x+")")
	case "float64":
		args = append(args, x)
	case "Scalar":
		args = append(args, x+".i", x+".re", x+".im", x+".kind")
	case "[]Scalar":
		pre = append(pre, c+" := scalarsC("+x+")")
		args = append(args, "scalarsPtr("+c+")", "int64(len("+c+"))")
	case "[]float64":
		args = append(args, "f64p("+x+")", "optLen(len("+x+"), "+x+" == nil)")
	case "DType", "MemoryFormat", "Layout":
		args = append(args, "int32("+x+")")
	case "string":
		args = append(args, x)
	case "Device":
		args = append(args, "int32("+x+".Type)", "int32("+x+".Index)")
	case "*Generator":
		pre = append(pre, fmt.Sprintf("%s, err_ := %s.ptr(op)\nif err_ != nil { %sreturn }", c, x, unpin))
		args = append(args, "unsafe.Pointer("+c+")")
	case "[2]bool", "[3]bool", "[4]bool":
		args = append(args, "boolMask("+x+"[:])")
	default:
		panic("no C args for " + p.k.goType)
	}
	if p.k.hasFlag {
		args = append(args, "b32("+x+"Has)")
	}
	return
}

// convolutionOp matches the convolutions: conv1d, conv_transpose2d,
// _convolution, mkldnn_convolution, slow_conv3d, thnn_conv2d and the like,
// not _convert_indices_from_coo_to_csr.
var convolutionOp = regexp.MustCompile(`^_?(conv[123]d|conv_|convolution|[a-z]+_convolution|slow_conv|thnn_conv)`)

// isConvolution reports whether op is a convolution, which runs the
// convolution self-check first.
func isConvolution(op string) bool { return convolutionOp.MatchString(op) }

func (g *generator) goImpl(f *function) string {
	var b strings.Builder
	decls, _ := f.goParams(false)
	if f.hasOptions() {
		decls = append(decls, "opts []Option")
	}
	var results []string
	for i, r := range f.goResults() {
		results = append(results, fmt.Sprintf("r%d_ %s", i, r))
	}
	results = append(results, "err_ error")
	fmt.Fprintf(&b, "func gen%s(%s) (%s) {\n", f.goName, strings.Join(decls, ", "), strings.Join(results, ", "))
	fmt.Fprintf(&b, "const op = %q\n", f.d.Name)
	if isConvolution(f.d.Name) {
		// The oneDNN convolution self-check, once per process (torch/convcheck.go).
		b.WriteString("convGuard()\n")
	}
	// Option locals and their defaults.
	if f.hasOptions() {
		for _, p := range f.params {
			if !p.isOption {
				continue
			}
			if p.defGo != "" {
				fmt.Fprintf(&b, "%s := %s\n", p.goName, p.defGo)
			} else {
				fmt.Fprintf(&b, "var %s %s\n", p.goName, p.k.goType)
			}
			if p.k.hasFlag {
				fmt.Fprintf(&b, "%sHas := %v\n", p.goName, p.defGo != "")
			}
		}
		if f.tensorOpt {
			def := "dtypeUnset"
			for _, p := range f.params {
				if p.a.Type == "at::TensorOptions" && p.a.Default.Kind != 0 && strings.HasPrefix(p.a.Default.Value, "at::k") {
					def = strings.TrimPrefix(p.a.Default.Value, "at::k")
				}
			}
			fmt.Fprintf(&b, "var to_ = tensorOptions{dtype: %s, layout: -1, device: Device{Type: -1, Index: -1}}\n", def)
		}
		b.WriteString("for _, o := range opts {\nswitch o.key {\n")
		for _, p := range f.params {
			if p.isOption {
				fmt.Fprintf(&b, "case opt%s:\n%s\n", p.optName, g.goOptionRead(p))
			}
		}
		if f.tensorOpt {
			b.WriteString("case optDtype, optDevice, optLayout, optRequiresGrad:\nto_.set(o)\n")
		}
		b.WriteString("default:\nerr_ = badOption(op, o)\nreturn\n}\n}\n")
	}
	// Tensors are pinned for the call (Tensor.ptr) and unpinned after it,
	// or when a later argument's check fails; a generator is kept alive.
	var cargs []string
	var keeps []string
	var unpin strings.Builder
	for _, p := range f.params {
		if p.a.Type == "at::TensorOptions" {
			cargs = append(cargs, "to_.cDtype()", "to_.cDevice()", "to_.cDeviceIndex()", "to_.cLayout()", "b32(to_.requiresGrad)")
			continue
		}
		pre, args := goCArgs(p, unpin.String())
		for _, s := range pre {
			b.WriteString(s + "\n")
		}
		cargs = append(cargs, args...)
		var k string
		switch p.k.goType {
		case "Tensor":
			k = p.goName + ".unpin()"
		case "[]Tensor":
			k = "unpinAll(" + p.goName + ")"
		case "*Generator":
			k = "runtime.KeepAlive(" + p.goName + ")"
		}
		if k != "" {
			keeps = append(keeps, k)
			unpin.WriteString(k + "; ")
		}
	}
	call := fmt.Sprintf("shard%d.%s(%s)", f.shard, f.glueName(), strings.Join(cargs, ", "))
	// The glue returns the out values, then the error.
	var outs []string
	if f.singleTensor() {
		outs = []string{"t_", "e_", "n_"}
	} else {
		for i, r := range f.rets {
			n := fmt.Sprintf("r%d", i)
			switch r {
			case "tensor":
				if f.retAlias[i] < 0 {
					outs = append(outs, n)
				}
			case "tensors", "ints":
				outs = append(outs, n, n+"Len")
			case "scalar":
				outs = append(outs, n+"I", n+"Re", n+"Im", n+"Kind")
			default:
				outs = append(outs, n)
			}
		}
	}
	if !f.singleTensor() {
		outs = append(outs, "e_")
	}
	// An op that runs the autograd engine accumulates into gradients: it
	// holds gradMu for reading, as Tensor.Backward does (torch/autograd.go),
	// so that ZeroGrad and hook changes wait for it.
	engine := autogradEngineOps[f.d.Name]
	if engine {
		b.WriteString("gradMu.RLock()\n")
	}
	b.WriteString(strings.Join(outs, ", ") + " := " + call + "\n")
	// Out of memory: GoTorch has collected; run the op once more, with its
	// arguments still pinned (gen_support.go, oomRetry).
	b.WriteString("if e_ != nil && oomRetry(e_) {\n" + strings.Join(outs, ", ") + " = " + call + "\n}\n")
	if engine {
		b.WriteString("gradMu.RUnlock()\n")
	}
	for _, k := range keeps {
		b.WriteString(k + "\n")
	}
	if f.singleTensor() {
		b.WriteString("r0_, err_ = tensorResultP(op, t_, e_, n_)\nreturn\n}\n")
		return b.String()
	}
	b.WriteString("if err_ = cErrorP(op, e_); err_ != nil { return }\n")
	for i, r := range f.rets {
		n := fmt.Sprintf("r%d", i)
		switch r {
		case "tensor":
			if f.retAlias[i] >= 0 {
				fmt.Fprintf(&b, "%s_ = %s\n", n, f.paramByArg(f.retAlias[i]).goName)
			} else {
				fmt.Fprintf(&b, "%s_ = newTensorP(%s)\n", n, n)
			}
		case "tensors":
			fmt.Fprintf(&b, "%s_ = tensorList(%s, %sLen)\n", n, n, n)
		case "bool":
			fmt.Fprintf(&b, "%s_ = %s != 0\n", n, n)
		case "int", "qscheme", "float":
			fmt.Fprintf(&b, "%s_ = %s\n", n, n)
		case "dtype":
			fmt.Fprintf(&b, "%s_ = DType(%s)\n", n, n)
		case "scalar":
			fmt.Fprintf(&b, "%s_ = Scalar{i: %sI, re: %sRe, im: %sIm, kind: %sKind}\n", n, n, n, n, n)
		case "ints":
			fmt.Fprintf(&b, "%s_ = int64List(%s, %sLen)\n", n, n, n)
		}
	}
	b.WriteString("return\n}\n")
	return b.String()
}

func (f *function) paramByArg(i int) param {
	name := f.d.Arguments[i].Name
	for _, p := range f.params {
		if p.a.Name == name {
			return p
		}
	}
	panic("no param " + name)
}

func (g *generator) goWrappers(f *function) string {
	var b strings.Builder
	results := f.goResults()
	var rnames []string
	for i := range results {
		rnames = append(rnames, fmt.Sprintf("r%d", i))
	}
	tryResults := append(append([]string{}, results...), "error")
	retList := func(rs []string) string {
		if len(rs) == 1 {
			return rs[0]
		}
		return "(" + strings.Join(rs, ", ") + ")"
	}
	optDecl, optPass := "", ""
	if f.hasOptions() {
		optDecl, optPass = "opts ...Option", "opts"
	}
	emit := func(recv string, forMethod bool) {
		decls, names := f.goParams(forMethod)
		callNames := append([]string{}, names...)
		if forMethod {
			// Put self back in its place.
			callNames = nil
			_, all := f.goParams(false)
			callNames = all
		}
		if optDecl != "" {
			decls = append(decls, optDecl)
			callNames = append(callNames, optPass)
		}
		params := strings.Join(decls, ", ")
		args := strings.Join(callNames, ", ")
		// Panicking form.
		b.WriteString(f.doc(f.goName))
		if len(results) == 0 {
			fmt.Fprintf(&b, "func %s%s(%s) {\nmust(gen%s(%s))\n}\n\n", recv, f.goName, params, f.goName, args)
		} else {
			fmt.Fprintf(&b, "func %s%s(%s) %s {\n%s, err := gen%s(%s)\nif err != nil { panic(err) }\nreturn %s\n}\n\n",
				recv, f.goName, params, retList(results), strings.Join(rnames, ", "), f.goName, args, strings.Join(rnames, ", "))
		}
		// Error-returning form.
		fmt.Fprintf(&b, "// Try%s is %s that returns its error.\n", f.goName, f.goName)
		fmt.Fprintf(&b, "func %sTry%s(%s) %s {\nreturn gen%s(%s)\n}\n\n", recv, f.goName, params, retList(tryResults), f.goName, args)
	}
	if f.isFunc {
		emit("", false)
	}
	if f.isMethod {
		if gopOverloaded[f.goName] {
			// The panicking form is a method of *handle, promoted to
			// Tensor, so that Go+ may overload the name on Tensor.
			before := b.String()
			emit("(self Tensor) ", true)
			src := b.String()[len(before):]
			head := "func (self Tensor) " + f.goName + "("
			i := strings.Index(src, head)
			j := i + strings.Index(src[i:], "{\n") + 2
			src = src[:i] + "func (h *handle) " + f.goName + "(" + src[i+len(head):j] + "self := Tensor{h}\n" + src[j:]
			b.Reset()
			b.WriteString(before + src)
		} else {
			emit("(self Tensor) ", true)
		}
	}
	return b.String()
}

// gopOverloaded are the Tensor methods that Go+ code calls with Python's
// signatures (x.sum(1), x.view(-1, 784)). Their generated panicking forms
// are methods of *handle, which Tensor embeds: Go code calls them on a
// Tensor as usual, and the Gopo_ constants of torch/gop_overloads.go
// declare Go+ overloads of the same names on Tensor itself.
var gopOverloaded = map[string]bool{
	"Sum": true, "Mean": true, "Prod": true, "Max": true, "Min": true,
	"Amax": true, "Amin": true, "View": true, "Reshape": true,
	"Permute": true, "Flatten": true, "Squeeze": true,
	"Std": true, "Var": true, "Argmax": true, "Argmin": true,
	"Logsumexp": true, "Topk": true,
}

func (g *generator) writeGo() {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString("\n")
	b.WriteString(headerStamp(*root, []string{"cgotorch.h"}, nil))
	b.WriteString("\npackage torch\n\nimport (\n\t\"runtime\"\n\t\"unsafe\"\n\n")
	for s := 0; s < *nShards; s++ {
		fmt.Fprintf(&b, "\t\"github.com/gotorch/gotorch/cgotorch/ops/shard%d\"\n", s)
	}
	b.WriteString(")\n\nvar _ = unsafe.Pointer(nil)\nvar _ = runtime.KeepAlive\n\n")
	for _, f := range g.fns {
		b.WriteString(g.goWrappers(f))
		b.WriteString(g.goImpl(f))
		b.WriteString("\n")
	}
	writeFile(filepath.Join(*outDir, "torch", "ops_gen.go"), b.Bytes())
}

func (g *generator) writeOptions() {
	var names []string
	for n := range g.opts {
		names = append(names, n)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString("\npackage torch\n\nconst (\n\t_ optKey = iota\n")
	for _, n := range names {
		fmt.Fprintf(&b, "\topt%s\n", n)
	}
	b.WriteString(")\n\nvar optNames = [...]string{\n")
	for _, n := range names {
		fmt.Fprintf(&b, "\topt%s: %q,\n", n, snake(n))
	}
	b.WriteString("}\n\n")
	for _, n := range names {
		o := g.opts[n]
		kw := snake(n)
		switch o.kind {
		case okNum:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s.\nfunc With%s[T Element](v T) Option { return Option{key: opt%s, s: S(v)} }\n\n", n, kw, n, n)
		case okInts:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s: one value or a list.\nfunc With%s(v ...int64) Option { return Option{key: opt%s, ints: v} }\n\n", n, kw, n, n)
		case okFloats:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s.\nfunc With%s(v ...float64) Option { return Option{key: opt%s, floats: v} }\n\n", n, kw, n, n)
		case okBool:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s.\nfunc With%s(v bool) Option { return Option{key: opt%s, b: v} }\n\n", n, kw, n, n)
		case okTensor:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s.\nfunc With%s(t Tensor) Option { return Option{key: opt%s, t: t} }\n\n", n, kw, n, n)
		case okTensors:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s.\nfunc With%s(ts ...Tensor) Option { return Option{key: opt%s, ts: ts} }\n\n", n, kw, n, n)
		case okString:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s.\nfunc With%s(s string) Option { return Option{key: opt%s, str: s} }\n\n", n, kw, n, n)
		case okDType:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s.\nfunc With%s(d DType) Option { return Option{key: opt%s, i: int64(d)} }\n\n", n, kw, n, n)
		case okDevice:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s.\nfunc With%s(d Device) Option { return Option{key: opt%s, i: int64(d.Type), f: float64(d.Index)} }\n\n", n, kw, n, n)
		case okMemFmt:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s.\nfunc With%s(m MemoryFormat) Option { return Option{key: opt%s, i: int64(m)} }\n\n", n, kw, n, n)
		case okLayout:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s.\nfunc With%s(l Layout) Option { return Option{key: opt%s, i: int64(l)} }\n\n", n, kw, n, n)
		case okGen:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s.\nfunc With%s(g *Generator) Option { return Option{key: opt%s, gen: g} }\n\n", n, kw, n, n)
		case okBools:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s.\nfunc With%s(v ...bool) Option { return Option{key: opt%s, bools: v} }\n\n", n, kw, n, n)
		case okScalars:
			fmt.Fprintf(&b, "// With%s sets the keyword argument %s.\nfunc With%s(v ...Scalar) Option { return Option{key: opt%s, scalars: v} }\n\n", n, kw, n, n)
		default:
			panic("option kind " + string(o.kind))
		}
	}
	b.WriteString(g.optionForms())
	writeFile(filepath.Join(*outDir, "torch", "options_gen.go"), b.Bytes())
}

// optionForms writes optForms: for each ATen name whose overloads take
// different options, the Go forms that take each option that some
// overload rejects, so that badOption can name them: x.Sort(WithStable(true))
// fails with "unexpected option stable: SortStable takes it". The _out
// forms are named only where no other form takes the option.
func (g *generator) optionForms() string {
	type forms struct {
		all   []*function
		takes map[string][]*function
	}
	byOp := map[string]*forms{}
	for _, f := range g.fns {
		fs := byOp[f.d.Name]
		if fs == nil {
			fs = &forms{takes: map[string][]*function{}}
			byOp[f.d.Name] = fs
		}
		fs.all = append(fs.all, f)
		seen := map[string]bool{}
		add := func(n string) {
			if !seen[n] {
				seen[n] = true
				fs.takes[n] = append(fs.takes[n], f)
			}
		}
		for _, p := range f.params {
			if p.isOption {
				add(p.optName)
			}
		}
		if f.tensorOpt {
			for _, n := range []string{"Dtype", "Device", "Layout", "RequiresGrad"} {
				add(n)
			}
		}
	}
	var ops []string
	for op := range byOp {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	var b strings.Builder
	b.WriteString("// optForms are, for each ATen name whose overloads take different\n")
	b.WriteString("// options, the Go forms that take an option some other overload rejects.\n")
	b.WriteString("var optForms = map[string]map[optKey]string{\n")
	for _, op := range ops {
		fs := byOp[op]
		if len(fs.all) < 2 {
			continue
		}
		var keys []string
		for k, takers := range fs.takes {
			if len(takers) < len(fs.all) {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			continue
		}
		sort.Strings(keys)
		fmt.Fprintf(&b, "%q: {", op)
		for _, k := range keys {
			var names, outs []string
			for _, f := range fs.takes[k] {
				if strings.HasSuffix(f.goName, "Out") {
					outs = append(outs, f.goName)
				} else {
					names = append(names, f.goName)
				}
			}
			if len(names) == 0 {
				names = outs
			}
			if len(names) > 3 {
				names = append(names[:3:3], "others")
			}
			fmt.Fprintf(&b, "opt%s: %q, ", k, strings.Join(names, ", "))
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// writeGopTorch writes cmd/gop-torch/genops_gen.go: for every generated
// op, whether it is a function, a Tensor method or both, and whether a
// tensor it returns may be one of its arguments (in-place and out= ops
// return self or out), and whether every result is the method's receiver
// (in-place ops). gop-torch's lifetime passes treat the results of
// the other ops as fresh tensors that nothing else holds, and passing a
// tensor to any generated op as a read that keeps no copy.
func (g *generator) writeGopTorch() {
	writeFile(filepath.Join(*outDir, "cmd", "gop-torch", "genops_gen.go"), g.gopTorchSource())
}

// gopTorchSource is the unformatted source of genops_gen.go.
func (g *generator) gopTorchSource() []byte {
	var b bytes.Buffer
	b.WriteString(header)
	b.WriteString(`
package main

// genOps are package torch's generated ops (torch/ops_gen.go) by Go name,
// without the Try prefix of their error-returning forms. See genOpOf (genops.go).
var genOps = map[string]genOp{
`)
	for _, f := range g.fns {
		var flags []string
		if f.isFunc {
			flags = append(flags, "genFunc")
		}
		if f.isMethod {
			flags = append(flags, "genMethod")
		}
		if f.aliases() {
			flags = append(flags, "genAliases")
		}
		if f.returnsSelf() {
			flags = append(flags, "genSelf")
		}
		fmt.Fprintf(&b, "\t%q: %s,\n", f.goName, strings.Join(flags, " | "))
	}
	b.WriteString(`}

// handFresh are the hand-written functions and Tensor methods of packages
// torch and gopkg that return a new tensor and keep nothing they are
// given, as the generated op that each of them calls, and the Forward and
// TryForward methods of the nn modules that do the same
// (internal/gen/fresh.go), by import path and name, with a hash of their
// declaration's source.
var handFresh = map[string]string{
`)
	entries := append(g.handFresh(), nnFresh()...)
	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	for _, e := range entries {
		fmt.Fprintf(&b, "\t%q: %q,\n", e.key, e.hash)
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// aliases reports whether a tensor f returns may be one of its arguments.
func (f *function) aliases() bool {
	for _, a := range f.retAlias {
		if a >= 0 {
			return true
		}
	}
	return false
}

// returnsSelf reports whether f is a method every result of which is its
// receiver: in-place ops, x.Add_(y) returns x.
func (f *function) returnsSelf() bool {
	if !f.isMethod || f.self < 0 || len(f.retAlias) == 0 {
		return false
	}
	for _, a := range f.retAlias {
		if a != f.self {
			return false
		}
	}
	return true
}

// snake turns an option's Go name back into PyTorch's keyword.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r + 'a' - 'A')
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
