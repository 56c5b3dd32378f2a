package torch

import (
	"math"
	"strconv"
	"strings"
)

// Printing follows PyTorch 1.13's torch/_tensor_str.py with its default
// print options: precision 4, threshold 1000, edgeitems 3, linewidth 80.
const (
	printPrecision = 4
	printThreshold = 1000
	printEdgeItems = 3
	printLineWidth = 80
)

// String prints t the way PyTorch's repr does:
//
//	tensor([[1., 2.],
//	        [3., 4.]], dtype=torch.float64, requires_grad=True)
func (t Tensor) String() string {
	if t.handle == nil {
		return "tensor(undefined)"
	}
	if !t.handle.live() {
		return "tensor(freed)"
	}
	const prefix = "tensor("
	indent := len(prefix)
	var suffixes []string
	dev := t.Device()
	if dev.Type != CPUDevice {
		suffixes = append(suffixes, "device='"+dev.String()+"'")
	}
	dtype := t.DType()
	shape := t.Shape()
	numel := t.Numel()
	body := "[]"
	forceNewline := false
	if dev.Type == MetaDevice {
		// A meta tensor has no data: PyTorch prints its size and dtype.
		body = "..."
		suffixes = append(suffixes, "size="+pyTuple(shape))
		if dtype != defaultDType {
			suffixes = append(suffixes, "dtype="+dtype.String())
		}
	} else if numel > 0 && t.NBytes() == 0 {
		// No storage: a sparse tensor. PyTorch prints its parts.
		var parts string
		parts, forceNewline, suffixes = t.sparseParts(dtype, shape, indent, suffixes)
		body = parts
	} else if numel == 0 {
		if len(shape) != 1 {
			suffixes = append(suffixes, "size="+pyTuple(shape))
		}
		if dtype != defaultDType {
			suffixes = append(suffixes, "dtype="+dtype.String())
		}
	} else {
		if !defaultPrintDType(dtype) {
			suffixes = append(suffixes, "dtype="+dtype.String())
		}
		body = tensorBody(t.Detach(), dtype, shape, numel, indent)
	}
	if fn := t.GradFn(); fn != "" {
		suffixes = append(suffixes, "grad_fn=<"+fn+">")
	} else if t.RequiresGrad() {
		suffixes = append(suffixes, "requires_grad=True")
	}
	return addSuffixes(prefix+body, suffixes, indent, forceNewline)
}

// defaultPrintDType reports whether PyTorch's repr leaves out the dtype:
// the default float32, its complex counterpart, int64 and bool.
func defaultPrintDType(d DType) bool {
	switch d {
	case defaultDType, Complex64, Int64, Bool:
		return true
	}
	return false
}

// sparseParts prints a sparse tensor's parts as PyTorch 1.13 does: the
// indices and values of a COO tensor, the compressed and plain indices and
// the values of a CSR one, each on its own line, and the size, nnz, dtype
// and layout among the suffixes. Other layouts print as "...".
func (t Tensor) sparseParts(dtype DType, shape []int64, indent int, suffixes []string) (body string, forceNewline bool, _ []string) {
	nnz, err := t.TryInternalNnz()
	if err != nil {
		return "...", false, append(suffixes, "size="+pyTuple(shape))
	}
	suffixes = append(suffixes, "size="+pyTuple(shape), "nnz="+strconv.FormatInt(nnz, 10))
	if !defaultPrintDType(dtype) {
		suffixes = append(suffixes, "dtype="+dtype.String())
	}
	part := func(name string, p Tensor) string {
		pre := name + "=tensor("
		return pre + innerTensor(p.Detach(), indent+len(pre)) + ")"
	}
	sep := ",\n" + strings.Repeat(" ", indent)
	if indices, err := t.TryInternalIndices(); err == nil {
		body = part("indices", indices) + sep + part("values", t.InternalValues())
		return body, true, append(suffixes, "layout=torch.sparse_coo")
	}
	if crow, err := t.TryCrowIndices(); err == nil {
		body = part("crow_indices", crow) + sep + part("col_indices", t.ColIndices()) + sep + part("values", t.Values())
		return body, false, append(suffixes, "layout=torch.sparse_csr")
	}
	return "...", false, suffixes
}

// innerTensor is PyTorch's _tensor_str of a tensor printed inside another
// (a sparse tensor's indices and values): its values, with the size after
// them when it has none.
func innerTensor(t Tensor, indent int) string {
	shape := t.Shape()
	numel := t.Numel()
	if numel == 0 {
		return "[], size=" + pyTuple(shape)
	}
	return tensorBody(t, t.DType(), shape, numel, indent)
}

func pyTuple(shape []int64) string {
	parts := make([]string, len(shape))
	for i, s := range shape {
		parts[i] = strconv.FormatInt(s, 10)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func addSuffixes(s string, suffixes []string, indent int, forceNewline bool) string {
	var b strings.Builder
	b.WriteString(s)
	last := len(s) - strings.LastIndexByte(s, '\n') + 1 // as Python computes it
	for _, suf := range suffixes {
		if forceNewline || last+len(suf)+2 > printLineWidth {
			forceNewline = false
			b.WriteString(",\n" + strings.Repeat(" ", indent) + suf)
			last = indent + len(suf)
		} else {
			b.WriteString(", " + suf)
			last += len(suf) + 2
		}
	}
	b.WriteString(")")
	return b.String()
}

// printer holds a tensor's values, flattened, and its formatters.
type printer struct {
	shape     []int64
	strides   []int64
	summarize bool
	re, im    []float64 // floating and complex values
	ints      []int64   // integer values
	bools     []bool
	f1, f2    *formatter
}

func tensorBody(t Tensor, dtype DType, shape []int64, numel int64, indent int) string {
	p := &printer{shape: shape, summarize: numel > printThreshold}
	if p.summarize {
		// Only the edges are printed: copy only them, as PyTorch's
		// get_summarized_data does. A tensor expanded to 2^40 elements
		// prints from its 6^dims corners instead of running out of memory.
		t = summarized(t, shape)
		defer t.Free()
	}
	kept := t.Shape()
	p.strides = make([]int64, len(kept))
	s := int64(1)
	for i := len(kept) - 1; i >= 0; i-- {
		p.strides[i] = s
		s *= kept[i]
	}
	idx := p.shownIndices()
	switch {
	case dtype.IsComplex():
		c := ToSlice[complex128](t)
		p.re, p.im = make([]float64, len(c)), make([]float64, len(c))
		for i, v := range c {
			p.re[i], p.im[i] = real(v), imag(v)
		}
		p.f1 = newFloatFormatter(pick(p.re, idx))
		p.f2 = newFloatFormatter(pick(p.im, idx))
	case dtype.IsFloatingPoint():
		p.re = ToSlice[float64](t)
		p.f1 = newFloatFormatter(pick(p.re, idx))
	case dtype == Bool:
		p.bools = ToSlice[bool](t)
		p.f1 = &formatter{maxWidth: 1}
		for _, i := range idx {
			p.f1.maxWidth = max(p.f1.maxWidth, len(pyBool(p.bools[i])))
		}
	default:
		p.ints = ToSlice[int64](t)
		p.f1 = &formatter{maxWidth: 1}
		for _, i := range idx {
			p.f1.maxWidth = max(p.f1.maxWidth, len(strconv.FormatInt(p.ints[i], 10)))
		}
	}
	return p.str(0, 0, indent)
}

func pick(v []float64, idx []int64) []float64 {
	out := make([]float64, len(idx))
	for i, j := range idx {
		out[i] = v[j]
	}
	return out
}

// summarized returns the edges of t along every dimension longer than
// 2×printEdgeItems: its first and last printEdgeItems entries.
func summarized(t Tensor, shape []int64) Tensor {
	t = t.Share()
	for d, n := range shape {
		if n <= 2*printEdgeItems {
			continue
		}
		head := t.Narrow(int64(d), 0, printEdgeItems)
		tail := t.Narrow(int64(d), n-printEdgeItems, printEdgeItems)
		next := Cat([]Tensor{head, tail}, WithDim(int64(d)))
		head.Free()
		tail.Free()
		t.Free()
		t = next
	}
	return t
}

// rows returns the positions along dim d of the values printed, in the
// tensor the printer holds (only the edges, when summarized); -1 marks
// "...".
func (p *printer) rows(d int) []int64 {
	n := p.shape[d]
	if p.summarize && n > 2*printEdgeItems {
		r := []int64{}
		for i := int64(0); i < printEdgeItems; i++ {
			r = append(r, i)
		}
		r = append(r, -1)
		for i := int64(printEdgeItems); i < 2*printEdgeItems; i++ {
			r = append(r, i)
		}
		return r
	}
	r := make([]int64, n)
	for i := range r {
		r[i] = int64(i)
	}
	return r
}

// shownIndices lists the flat indices of the elements that are printed.
func (p *printer) shownIndices() []int64 {
	var out []int64
	var walk func(d int, off int64)
	walk = func(d int, off int64) {
		if d == len(p.shape) {
			out = append(out, off)
			return
		}
		for _, i := range p.rows(d) {
			if i >= 0 {
				walk(d+1, off+i*p.strides[d])
			}
		}
	}
	walk(0, 0)
	return out
}

func (p *printer) value(i int64) string {
	switch {
	case p.f2 != nil:
		re := p.f1.format(p.re[i])
		im := strings.TrimLeft(p.f2.format(p.im[i])+"j", " ")
		if im[0] == '+' || im[0] == '-' {
			return re + im
		}
		return re + "+" + im
	case p.re != nil:
		return p.f1.format(p.re[i])
	case p.bools != nil:
		return p.f1.pad(pyBool(p.bools[i]))
	default:
		return p.f1.pad(strconv.FormatInt(p.ints[i], 10))
	}
}

func (p *printer) str(d int, off int64, indent int) string {
	if len(p.shape) == 0 {
		return p.value(0)
	}
	if d == len(p.shape)-1 {
		return p.vector(off, indent)
	}
	var parts []string
	for _, i := range p.rows(d) {
		if i < 0 {
			parts = append(parts, "...")
			continue
		}
		parts = append(parts, p.str(d+1, off+i*p.strides[d], indent+1))
	}
	rest := len(p.shape) - d
	sep := "," + strings.Repeat("\n", rest-1) + strings.Repeat(" ", indent+1)
	return "[" + strings.Join(parts, sep) + "]"
}

func (p *printer) vector(off int64, indent int) string {
	elemLen := p.f1.maxWidth + 2
	if p.f2 != nil {
		elemLen += p.f2.maxWidth + 1
	}
	perLine := max(1, (printLineWidth-indent)/elemLen)
	var data []string
	d := len(p.shape) - 1
	for _, i := range p.rows(d) {
		if i < 0 {
			data = append(data, " ...")
			continue
		}
		data = append(data, p.value(off+i*p.strides[d]))
	}
	var lines []string
	for i := 0; i < len(data); i += perLine {
		lines = append(lines, strings.Join(data[i:min(i+perLine, len(data))], ", "))
	}
	return "[" + strings.Join(lines, ",\n"+strings.Repeat(" ", indent+1)) + "]"
}

// formatter is PyTorch's _Formatter.
type formatter struct {
	floating bool
	intMode  bool
	sciMode  bool
	maxWidth int
}

func newFloatFormatter(vals []float64) *formatter {
	f := &formatter{floating: true, intMode: true, maxWidth: 1}
	var nz []float64
	for _, v := range vals {
		if !math.IsInf(v, 0) && !math.IsNaN(v) && v != 0 {
			nz = append(nz, v)
		}
	}
	if len(nz) == 0 {
		return f
	}
	lo, hi := math.Inf(1), 0.0
	for _, v := range nz {
		a := math.Abs(v)
		lo, hi = min(lo, a), max(hi, a)
		if v != math.Ceil(v) {
			f.intMode = false
		}
	}
	switch {
	case f.intMode && (hi/lo > 1000 || hi > 1e8):
		f.sciMode = true
	case f.intMode:
		for _, v := range nz {
			f.maxWidth = max(f.maxWidth, len(pyFloat(v, 'f', 0))+1)
		}
		return f
	case hi/lo > 1000 || hi > 1e8 || lo < 1e-4:
		f.sciMode = true
	}
	verb := byte('f')
	if f.sciMode {
		verb = 'e'
	}
	for _, v := range nz {
		f.maxWidth = max(f.maxWidth, len(pyFloat(v, verb, printPrecision)))
	}
	return f
}

func (f *formatter) format(v float64) string {
	var s string
	switch {
	case f.sciMode:
		s = pyFloat(v, 'e', printPrecision)
	case f.intMode:
		s = pyFloat(v, 'f', 0)
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			s += "."
		}
	default:
		s = pyFloat(v, 'f', printPrecision)
	}
	return f.pad(s)
}

func (f *formatter) pad(s string) string {
	if n := f.maxWidth - len(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}

// pyFloat formats like Python's format(v, '.{prec}{verb}').
func pyFloat(v float64, verb byte, prec int) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, verb, prec, 64)
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
