package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Several libtorch versions, one binding.
//
// internal/gen/decls holds, for each libtorch version the binding knows,
// a compact extract of its Declarations.yaml (decls/v<version>.yaml.gz):
// only the fields the generator reads, with 2.x's spellings normalized to
// 1.13's (normalizeType). decls/refresh.sh makes one from a PyTorch's
// torchgen. The generator builds every version's functions, binds the
// union, and guards each C++ function by the range of versions whose
// declaration it was generated from (see union and versionGuard).

// libVersion is a libtorch release, major.minor.patch.
type libVersion struct{ major, minor, patch int }

func parseVersion(s string) (libVersion, error) {
	var v libVersion
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("version %q: want major.minor.patch", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 99 {
			return v, fmt.Errorf("version %q: bad number %q", s, p)
		}
		switch i {
		case 0:
			v.major = n
		case 1:
			v.minor = n
		case 2:
			v.patch = n
		}
	}
	return v, nil
}

func (v libVersion) String() string { return fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch) }

// code is the number the C++ guards compare with GT_LIBTORCH
// (cgotorch/internal.h): 2.6.0 is 20600.
func (v libVersion) code() int { return v.major*10000 + v.minor*100 + v.patch }

// declSet is one version's declarations.
type declSet struct {
	v     libVersion
	decls []decl
}

var declFile = regexp.MustCompile(`^v(\d+\.\d+\.\d+)\.yaml\.gz$`)

// loadDeclSets reads every extract in dir, oldest version first.
func loadDeclSets(dir string) ([]declSet, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var sets []declSet
	for _, e := range ents {
		m := declFile.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		v, err := parseVersion(m[1])
		if err != nil {
			return nil, err
		}
		decls, err := readExtract(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		sets = append(sets, declSet{v, decls})
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("%s: no v<version>.yaml.gz extracts", dir)
	}
	sort.Slice(sets, func(i, j int) bool { return sets[i].v.code() < sets[j].v.code() })
	return sets, nil
}

func readExtract(path string) ([]decl, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var decls []decl
	if err := yaml.Unmarshal(data, &decls); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return decls, nil
}

// normalizeType spells a C++ type or default the way 1.13's declarations
// do: 2.x writes ::std::optional and ::std::nullopt where 1.13 wrote
// c10::optional and c10::nullopt (c10's names are aliases of std's in
// 2.x, so the generated C++ compiles against both).
func normalizeType(s string) string {
	s = strings.ReplaceAll(s, "::std::optional<", "c10::optional<")
	s = strings.ReplaceAll(s, "::std::nullopt", "c10::nullopt")
	return s
}

// writeExtract writes the compact, normalized extract of a
// Declarations.yaml: the fields of decl, nothing else, gzipped without a
// timestamp so that the same input gives the same bytes.
func writeExtract(declarations, out string) {
	data, err := os.ReadFile(declarations)
	if err != nil {
		log.Fatal(err)
	}
	var decls []decl
	if err := yaml.Unmarshal(data, &decls); err != nil {
		log.Fatalf("%s: %v", declarations, err)
	}
	for i := range decls {
		d := &decls[i]
		d.Schema = normalizeType(d.Schema)
		for j := range d.Arguments {
			a := &d.Arguments[j]
			a.Type = normalizeType(a.Type)
			a.Dynamic = normalizeType(a.Dynamic)
			if a.Default.Kind != 0 {
				a.Default.Value = normalizeType(a.Default.Value)
				// Only the value matters; drop positions and comments.
				a.Default = yaml.Node{Kind: a.Default.Kind, Tag: a.Default.Tag, Value: a.Default.Value, Style: a.Default.Style}
			}
		}
		for j := range d.Returns {
			d.Returns[j].Type = normalizeType(d.Returns[j].Type)
		}
	}
	var y bytes.Buffer
	enc := yaml.NewEncoder(&y)
	enc.SetIndent(1)
	if err := enc.Encode(decls); err != nil {
		log.Fatal(err)
	}
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	zw.Write(y.Bytes())
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(out, z.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("%s: %d declarations, %d bytes", out, len(decls), z.Len())
}

// availability says in which of the known versions a bound function can
// call libtorch: its declaration is there, builds, and has the C ABI of
// the declaration the binding was generated from.
type availability struct {
	sets    []libVersion // every known version, oldest first
	same    []bool       // per version: callable
	present []bool       // per version: declared at all
	// alt, per version: the function as that version declares it, where
	// its C ABI differs but its call can be made from the bound one's
	// arguments (adapt); such a version is callable too (same is true).
	alt []*function
}

// all reports whether every known version calls the function as the
// bound declaration says.
func (a *availability) all() bool {
	for i, s := range a.same {
		if !s || a.alt[i] != nil {
			return false
		}
	}
	return true
}

// everywhere reports whether every known version can call the function,
// some through adapt.
func (a *availability) everywhere() bool {
	for _, s := range a.same {
		if !s {
			return false
		}
	}
	return true
}

// guard is the preprocessor condition under which the function calls
// libtorch as the bound declaration says (alt nil) or as the version
// declaration alt says: one range per run of versions that can, open at
// either end where the run reaches the oldest or the newest known
// version, so that versions between and beyond the known ones build from
// the same guards.
func (a *availability) guard(alt *function) string {
	match := func(i int) bool {
		if !a.same[i] {
			return false
		}
		if alt == nil {
			return a.alt[i] == nil
		}
		return a.alt[i] != nil && cABI(a.alt[i]) == cABI(alt)
	}
	var conds []string
	for i := 0; i < len(a.same); {
		if !match(i) {
			i++
			continue
		}
		j := i
		for j+1 < len(a.same) && match(j+1) {
			j++
		}
		var c []string
		// Whole minor releases: ops do not change in patch releases, and
		// packagers' headers do not always carry the patch number
		// (Debian 12's 1.13.1 says 1.13.0).
		if i > 0 {
			c = append(c, fmt.Sprintf("GT_LIBTORCH >= %d", a.sets[i].major*10000+a.sets[i].minor*100))
		}
		if j < len(a.same)-1 {
			c = append(c, fmt.Sprintf("GT_LIBTORCH <= %d", a.sets[j].major*10000+a.sets[j].minor*100+99))
		}
		conds = append(conds, "("+strings.Join(c, " && ")+")")
		i = j + 1
	}
	if len(conds) == 0 {
		return "0"
	}
	return strings.Join(conds, " || ")
}

// why says, for the versions outside the guard, why the function is not
// there: the message of its ErrUnsupported.
func (a *availability) why() string {
	first, last := -1, -1
	for i, s := range a.same {
		if s {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	var parts []string
	if first > 0 {
		changed := false
		for i := 0; i < first; i++ {
			changed = changed || a.present[i]
		}
		if changed {
			parts = append(parts, fmt.Sprintf("needs libtorch >= %s (libtorch %s declares it with other arguments)", a.sets[first], a.sets[first-1]))
		} else {
			parts = append(parts, fmt.Sprintf("needs libtorch >= %s", a.sets[first]))
		}
	}
	if last >= 0 && last < len(a.same)-1 {
		if a.present[last+1] {
			parts = append(parts, fmt.Sprintf("libtorch %s declares it with other arguments than %s", a.sets[last+1], a.sets[last]))
		} else {
			parts = append(parts, fmt.Sprintf("removed after libtorch %s (not in %s)", a.sets[last], a.sets[last+1]))
		}
	}
	for i := first + 1; i < last; i++ {
		if !a.same[i] {
			parts = append(parts, fmt.Sprintf("not available in libtorch %s", a.sets[i]))
		}
	}
	if len(parts) == 0 {
		var vs []string
		for _, v := range a.sets {
			vs = append(vs, v.String())
		}
		parts = append(parts, "its declaration changed between the versions the binding knows ("+strings.Join(vs, ", ")+"), and this one lies between them")
	}
	return strings.Join(parts, "; ")
}

// goDoc is the line the Go doc comment gets about versions, or "".
func (a *availability) goDoc() string {
	if a.everywhere() {
		var vs []string
		for i, alt := range a.alt {
			if alt != nil {
				vs = append(vs, a.sets[i].String())
			}
		}
		return "libtorch " + strings.Join(vs, ", ") + " declares it with other arguments: there, an argument it lacks must keep its default, or the call returns ErrUnsupported."
	}
	return "Not in every libtorch: " + a.why() + "; elsewhere it returns ErrUnsupported."
}

// declKey identifies a declaration across versions.
func declKey(d decl) string { return d.Name + "." + d.OverloadName }

// cABI is what must agree between two versions' declarations of one
// function for one C++ body to call both: the C++ name, the argument
// types in order (C++ passes them by position: a renamed argument, such as
// 2.14's grad_output for grad, changes nothing), the returns, which
// argument each returned reference aliases, and function or method.
func cABI(f *function) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s func=%v method=%v self=%d|", f.d.Name, f.isFunc, f.isMethod, f.self)
	for _, a := range f.d.Arguments {
		fmt.Fprintf(&b, "%s|", a.Type)
	}
	for i, r := range f.d.Returns {
		fmt.Fprintf(&b, "->%s %d", r.Type, f.retAlias[i])
	}
	return b.String()
}

// union returns the declarations to bind, in a stable order (each
// version's new ones after those of the versions before it), and the
// availability of each by key. The binding follows the newest version
// whose declaration the generator can build; a version whose declaration
// builds to another C ABI is outside the guard, as is one that lacks it.
// skipped holds the keys no version could build, with the newest reason.
func union(sets []declSet) (bind []decl, avail map[string]*availability, skipped []skip) {
	versions := make([]libVersion, len(sets))
	for i, s := range sets {
		versions[i] = s.v
	}
	type built struct {
		d   decl
		f   *function
		why string
	}
	per := make([]map[string]built, len(sets))
	var order []string
	seen := map[string]bool{}
	for i, s := range sets {
		g := newGenerator(s.decls)
		per[i] = map[string]built{}
		for _, d := range s.decls {
			k := declKey(d)
			if _, dup := per[i][k]; dup {
				continue
			}
			f, why := g.build(d)
			per[i][k] = built{d, f, why}
			if !seen[k] {
				seen[k] = true
				order = append(order, k)
			}
		}
	}
	avail = map[string]*availability{}
	for _, k := range order {
		rep := -1
		for i := len(sets) - 1; i >= 0; i-- {
			if b, ok := per[i][k]; ok && b.f != nil {
				rep = i
				break
			}
		}
		if rep < 0 {
			for i := len(sets) - 1; i >= 0; i-- {
				if b, ok := per[i][k]; ok {
					skipped = append(skipped, skip{b.d, b.why})
					break
				}
			}
			continue
		}
		a := &availability{sets: versions, same: make([]bool, len(sets)), present: make([]bool, len(sets)), alt: make([]*function, len(sets))}
		repF := per[rep][k].f
		want := cABI(repF)
		for i := range sets {
			b, ok := per[i][k]
			a.present[i] = ok
			a.same[i] = ok && b.f != nil && cABI(b.f) == want
			if ok && b.f != nil && !a.same[i] {
				if _, _, ok := adapt(repF, b.f); ok {
					a.same[i], a.alt[i] = true, b.f
				}
			}
		}
		avail[k] = a
		bind = append(bind, per[rep][k].d)
	}
	return bind, avail, skipped
}

// The calls of versions that declare a function with other arguments.
//
// The binding takes the newest declaration's arguments. An older
// declaration is still called where each of its arguments can be made
// from them: the argument of the same name (or, failing that, of the same
// type at the same position), converted where the type changed
// (argConversions), or its own default where the newer declaration has no
// such argument. An argument that only the newer declaration has must be
// left at its default; anything else is refused with ErrUnsupported at run
// time, so that no call changes meaning silently.

// argConversions turn the C++ expression of the bound argument type (key:
// "bound type -> older type") into the older type; the helper checks the
// value and throws ErrUnsupported's message if it cannot be converted.
var argConversions = map[string]string{
	"const c10::optional<at::Scalar> & -> c10::optional<int64_t>": "scalar_to_int_opt",
	"const at::Scalar & -> int64_t":                               "scalar_to_int",
}

// adapt returns the statements that check the bound function rep's
// arguments and the C++ call of old made from them; ok is false if old
// cannot be called that way.
func adapt(rep, old *function) (pre []string, call string, ok bool) {
	if len(rep.rets) != len(old.rets) || rep.isFunc != old.isFunc {
		return nil, "", false
	}
	for i := range rep.rets {
		if rep.rets[i] != old.rets[i] || (rep.retAlias[i] < 0) != (old.retAlias[i] < 0) {
			return nil, "", false
		}
	}
	if rep.tensorOpt != old.tensorOpt {
		return nil, "", false
	}
	repByName := map[string]int{}
	for i, p := range rep.params {
		repByName[p.a.Name] = i
	}
	oldNames := map[string]bool{}
	for _, p := range old.params {
		oldNames[p.a.Name] = true
	}
	used := make([]bool, len(rep.params))
	var args []string
	selfExpr := ""
	for j, op := range old.params {
		ri, found := repByName[op.a.Name]
		if !found && j < len(rep.params) && rep.params[j].a.Type == op.a.Type && !oldNames[rep.params[j].a.Name] {
			ri, found = j, true
		}
		var e string
		switch {
		case found && used[ri]:
			return nil, "", false
		case found && rep.params[ri].a.Type == op.a.Type:
			_, e = cParams(rep.params[ri])
			used[ri] = true
		case found && rep.params[ri].k.goType == "Tensor" && op.k.goType == "Tensor" && rep.params[ri].k.nullable == op.k.nullable:
			// const Tensor& and Tensor& (2.x marks more arguments
			// mutable, or fewer): the same handle, viewed as the older
			// declaration wants.
			_, e = cParams(param{a: arg{Name: rep.params[ri].a.Name, Type: op.a.Type}, k: op.k})
			used[ri] = true
		case found:
			conv, ok := argConversions[rep.params[ri].a.Type+" -> "+op.a.Type]
			if !ok {
				return nil, "", false
			}
			_, re := cParams(rep.params[ri])
			e = fmt.Sprintf("%s(%s, %q)", conv, re, op.a.Name)
			used[ri] = true
		case op.a.Default.Kind != 0 && op.a.Type != "at::TensorOptions":
			e = op.a.Default.Value
		default:
			return nil, "", false
		}
		if j == old.self && !old.isFunc {
			selfExpr = e
			continue
		}
		args = append(args, e)
	}
	for i, p := range rep.params {
		if used[i] {
			continue
		}
		n := "a_" + p.a.Name
		var unset string
		switch {
		case p.a.Type == "at::TensorOptions":
			return nil, "", false
		case p.k.hasFlag:
			unset = "!" + n + "_has"
		case p.a.Type == "const c10::optional<at::Tensor> &", p.a.Type == "c10::optional<at::Generator>":
			unset = n + " == nullptr"
		case p.a.Type == "at::OptionalIntArrayRef", p.a.Type == "c10::optional<at::ArrayRef<double>>":
			unset = n + "_len < 0"
		case p.a.Type == "c10::string_view" && p.a.Default.Kind != 0 && strings.HasPrefix(p.a.Default.Value, `"`):
			unset = "c10::string_view(" + n + ") == " + p.a.Default.Value
		case p.a.Default.Kind != 0 && (p.k.goType == "bool" || p.k.goType == "int64" || p.k.goType == "float64"):
			_, e := cParams(p)
			unset = e + " == " + p.a.Default.Value
		default:
			return nil, "", false
		}
		pre = append(pre, fmt.Sprintf("if (!(%s)) unsupported_argument(%q, %q);", unset, rep.d.Name, p.a.Name))
	}
	if old.isFunc {
		call = "at::" + old.d.Name + "(" + strings.Join(args, ", ") + ")"
	} else {
		call = selfExpr + "." + old.d.Name + "(" + strings.Join(args, ", ") + ")"
	}
	return pre, call, true
}
