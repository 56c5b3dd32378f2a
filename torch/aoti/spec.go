package aoti

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gotorch/gotorch/torch"
)

// MetadataKey is the package metadata key under which gotorch_aoti.py
// records the input spec.
const MetadataKey = "gotorch_inputs"

// SpecVersion is the version of the input spec format this package reads.
const SpecVersion = 1

// Limits on a spec, so that a hostile package cannot make parsing or
// checking expensive.
const (
	maxSpecBytes = 1 << 20
	maxInputs    = 4096
	maxRank      = 64
	maxSymbols   = 4096
	maxSymName   = 64
	maxMul       = 1 << 31
	maxAdd       = 1 << 40
	maxSize      = 1 << 62
)

// ErrBadSpec is the cause of an error about an input spec that cannot be
// parsed or does not fit the package.
var ErrBadSpec = errors.New("bad AOTInductor input spec")

// Dim is one dimension of an input: a static size (Sym == ""), or
// Mul*Sym + Add for a symbol of the exported program's dynamic shapes.
type Dim struct {
	Size     int64
	Sym      string
	Mul, Add int64
}

// Static returns a static dimension of size n.
func Static(n int64) Dim { return Dim{Size: n} }

// Dynamic returns the dimension that is the symbol sym itself.
func Dynamic(sym string) Dim { return Dim{Sym: sym, Mul: 1} }

func (d Dim) String() string {
	switch {
	case d.Sym == "":
		return strconv.FormatInt(d.Size, 10)
	case d.Mul == 1 && d.Add == 0:
		return d.Sym
	case d.Add == 0:
		return fmt.Sprintf("%d*%s", d.Mul, d.Sym)
	case d.Mul == 1:
		return fmt.Sprintf("%s%+d", d.Sym, d.Add)
	}
	return fmt.Sprintf("%d*%s%+d", d.Mul, d.Sym, d.Add)
}

// TensorSpec is what one input must be.
type TensorSpec struct {
	DType  torch.DType
	Device torch.DeviceType
	Sizes  []Dim
	// Strides are the strides the package was compiled for, -1 where a
	// stride is symbolic; ignored when Contiguous.
	Strides []int64
	// Contiguous: the package wants a contiguous tensor; Run copies a
	// non-contiguous input of the right shape into one.
	Contiguous bool
}

// Input returns a contiguous input of dtype dt on the CPU with the given
// dimensions, for WithInputSpec.
func Input(dt torch.DType, dims ...Dim) TensorSpec {
	return TensorSpec{DType: dt, Device: torch.CPUDevice, Sizes: dims, Contiguous: true}
}

func (s TensorSpec) shape() string {
	parts := make([]string, len(s.Sizes))
	for i, d := range s.Sizes {
		parts[i] = d.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Range is the values a symbol may take, Min to Max inclusive; Max -1
// means unbounded.
type Range struct{ Min, Max int64 }

func (r Range) String() string {
	if r.Max < 0 {
		return fmt.Sprintf(">= %d", r.Min)
	}
	return fmt.Sprintf("%d..%d", r.Min, r.Max)
}

// InputSpec is what a package's inputs must be, in the order Run takes
// them.
type InputSpec struct {
	Inputs  []TensorSpec
	Symbols map[string]Range
}

// The JSON of gotorch_aoti.py.
type specJSON struct {
	Version *int `json:"version"`
	Inputs  []struct {
		DType      string            `json:"dtype"`
		Device     string            `json:"device"`
		Sizes      []json.RawMessage `json:"sizes"`
		Strides    []*int64          `json:"strides"`
		Contiguous bool              `json:"contiguous"`
	} `json:"inputs"`
	Symbols map[string]struct {
		Min *int64 `json:"min"`
		Max *int64 `json:"max"`
	} `json:"symbols"`
}

type dimJSON struct {
	Sym string `json:"sym"`
	Mul *int64 `json:"mul"`
	Add *int64 `json:"add"`
}

func specErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadSpec, fmt.Sprintf(format, args...))
}

// ParseInputSpec parses the JSON that gotorch_aoti.py writes into a
// package's metadata (see its docstring for the format) and validates it.
func ParseInputSpec(s string) (*InputSpec, error) {
	if len(s) > maxSpecBytes {
		return nil, specErr("%d bytes, more than %d", len(s), maxSpecBytes)
	}
	var j specJSON
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&j); err != nil {
		return nil, specErr("%v", err)
	}
	if dec.More() {
		return nil, specErr("trailing data after the JSON object")
	}
	if j.Version == nil {
		return nil, specErr("no version")
	}
	if *j.Version != SpecVersion {
		return nil, specErr("version %d, this GoTorch reads version %d", *j.Version, SpecVersion)
	}
	if len(j.Inputs) > maxInputs {
		return nil, specErr("%d inputs, more than %d", len(j.Inputs), maxInputs)
	}
	if len(j.Symbols) > maxSymbols {
		return nil, specErr("%d symbols, more than %d", len(j.Symbols), maxSymbols)
	}
	spec := &InputSpec{Inputs: make([]TensorSpec, len(j.Inputs)), Symbols: map[string]Range{}}
	for name, r := range j.Symbols {
		if err := checkSymName(name); err != nil {
			return nil, err
		}
		if r.Min == nil {
			return nil, specErr("symbol %s: no min", name)
		}
		rg := Range{Min: *r.Min, Max: -1}
		if r.Max != nil {
			rg.Max = *r.Max
		}
		if rg.Min < 0 || rg.Min > maxSize || r.Max != nil && (rg.Max < rg.Min || rg.Max > maxSize) {
			return nil, specErr("symbol %s: bad range min %d, max %v", name, rg.Min, ptrStr(r.Max))
		}
		spec.Symbols[name] = rg
	}
	for i, in := range j.Inputs {
		dt, err := torch.ParseDType(in.DType)
		if err != nil {
			return nil, specErr("input %d: dtype %q: %v", i, in.DType, err)
		}
		dev, err := torch.TryParseDevice(in.Device)
		if err != nil {
			return nil, specErr("input %d: device %q: %v", i, in.Device, err)
		}
		if len(in.Sizes) > maxRank {
			return nil, specErr("input %d: rank %d, more than %d", i, len(in.Sizes), maxRank)
		}
		if len(in.Strides) != len(in.Sizes) {
			return nil, specErr("input %d: %d sizes but %d strides", i, len(in.Sizes), len(in.Strides))
		}
		ts := TensorSpec{DType: dt, Device: dev.Type, Contiguous: in.Contiguous,
			Sizes: make([]Dim, len(in.Sizes)), Strides: make([]int64, len(in.Strides))}
		for k, raw := range in.Sizes {
			d, err := parseDim(raw, spec.Symbols)
			if err != nil {
				return nil, specErr("input %d: size %d: %v", i, k, err)
			}
			ts.Sizes[k] = d
		}
		for k, st := range in.Strides {
			ts.Strides[k] = -1
			if st != nil {
				if *st < 0 || *st > maxSize {
					return nil, specErr("input %d: stride %d is %d", i, k, *st)
				}
				ts.Strides[k] = *st
			}
		}
		spec.Inputs[i] = ts
	}
	return spec, nil
}

func ptrStr(p *int64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatInt(*p, 10)
}

func checkSymName(name string) error {
	if name == "" || len(name) > maxSymName {
		return specErr("symbol name %q: empty or longer than %d", name, maxSymName)
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return specErr("symbol name %q: not an identifier", name)
		}
	}
	return nil
}

func parseDim(raw json.RawMessage, syms map[string]Range) (Dim, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		var dj dimJSON
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&dj); err != nil {
			return Dim{}, err
		}
		if _, ok := syms[dj.Sym]; !ok {
			return Dim{}, fmt.Errorf("symbol %q is not among the spec's symbols", dj.Sym)
		}
		if dj.Mul == nil || dj.Add == nil {
			return Dim{}, fmt.Errorf("symbol %s without mul and add", dj.Sym)
		}
		if *dj.Mul < 1 || *dj.Mul > maxMul || *dj.Add < -maxAdd || *dj.Add > maxAdd {
			return Dim{}, fmt.Errorf("%d*%s%+d out of range", *dj.Mul, dj.Sym, *dj.Add)
		}
		return Dim{Sym: dj.Sym, Mul: *dj.Mul, Add: *dj.Add}, nil
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		return Dim{}, fmt.Errorf("%s is neither an integer nor {\"sym\", \"mul\", \"add\"}", truncate(string(raw)))
	}
	if n < 0 || n > maxSize {
		return Dim{}, fmt.Errorf("%d", n)
	}
	return Dim{Size: n}, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// validate checks a spec given to WithInputSpec the way ParseInputSpec
// checks a parsed one.
func (s *InputSpec) validate() error {
	if len(s.Inputs) > maxInputs {
		return specErr("%d inputs, more than %d", len(s.Inputs), maxInputs)
	}
	for name, r := range s.Symbols {
		if err := checkSymName(name); err != nil {
			return err
		}
		if r.Min < 0 || r.Max >= 0 && r.Max < r.Min {
			return specErr("symbol %s: bad range %s", name, r)
		}
	}
	for i, in := range s.Inputs {
		if len(in.Sizes) > maxRank {
			return specErr("input %d: rank %d, more than %d", i, len(in.Sizes), maxRank)
		}
		if !in.Contiguous && len(in.Strides) != len(in.Sizes) {
			return specErr("input %d: %d sizes but %d strides (and not Contiguous)", i, len(in.Sizes), len(in.Strides))
		}
		for k, d := range in.Sizes {
			if d.Sym == "" {
				if d.Size < 0 {
					return specErr("input %d: size %d is %d", i, k, d.Size)
				}
				continue
			}
			if _, ok := s.Symbols[d.Sym]; !ok {
				return specErr("input %d: size %d: symbol %q is not in Symbols", i, k, d.Sym)
			}
			if d.Mul < 1 || d.Mul > maxMul || d.Add < -maxAdd || d.Add > maxAdd {
				return specErr("input %d: size %d: %s out of range", i, k, d)
			}
		}
	}
	return nil
}

// binding is a symbol's value and the input and dimension it came from.
type binding struct {
	v      int64
	in, at int
}

// check checks the dtypes, devices and shapes of inputs (defined
// tensors) against the spec.
func (s *InputSpec) check(inputs []torch.Tensor) error {
	if len(inputs) != len(s.Inputs) {
		return fmt.Errorf("the model takes %d input tensor(s), got %d", len(s.Inputs), len(inputs))
	}
	bound := map[string]binding{}
	for i, t := range inputs {
		want := s.Inputs[i]
		if dt := t.DType(); dt != want.DType {
			return fmt.Errorf("input %d has dtype %s, want %s", i, dt, want.DType)
		}
		if dev := t.Device(); dev.Type != want.Device {
			return fmt.Errorf("input %d is on %s, want %s", i, dev, want.Device)
		}
		shape := t.Shape()
		bad := func(why string) error {
			return fmt.Errorf("input %d has shape %v, want %s%s: %s", i, shapeStr(shape), want.shape(), s.ranges(want), why)
		}
		if len(shape) != len(want.Sizes) {
			return bad(fmt.Sprintf("%d dimensions, want %d", len(shape), len(want.Sizes)))
		}
		for k, d := range want.Sizes {
			v := shape[k]
			if d.Sym == "" {
				if v != d.Size {
					return bad(fmt.Sprintf("size %d at dimension %d, want %d", v, k, d.Size))
				}
				continue
			}
			if v-d.Add < 0 || (v-d.Add)%d.Mul != 0 {
				return bad(fmt.Sprintf("size %d at dimension %d is not %s for any %s", v, k, d, d.Sym))
			}
			x := (v - d.Add) / d.Mul
			r := s.Symbols[d.Sym]
			if x < r.Min || r.Max >= 0 && x > r.Max {
				return bad(fmt.Sprintf("size %d at dimension %d makes %s = %d, outside %s", v, k, d.Sym, x, r))
			}
			if b, ok := bound[d.Sym]; ok && b.v != x {
				return bad(fmt.Sprintf("size %d at dimension %d makes %s = %d, but input %d's dimension %d made it %d",
					v, k, d.Sym, x, b.in, b.at, b.v))
			}
			bound[d.Sym] = binding{x, i, k}
		}
	}
	return nil
}

// ranges describes the ranges of the symbols of one input's shape.
func (s *InputSpec) ranges(t TensorSpec) string {
	var parts []string
	seen := map[string]bool{}
	for _, d := range t.Sizes {
		if d.Sym != "" && !seen[d.Sym] {
			seen[d.Sym] = true
			parts = append(parts, d.Sym+" "+s.Symbols[d.Sym].String())
		}
	}
	if len(parts) == 0 {
		return ""
	}
	sort.Strings(parts)
	return " (" + strings.Join(parts, ", ") + ")"
}

func shapeStr(shape []int64) string {
	parts := make([]string, len(shape))
	for i, n := range shape {
		parts[i] = strconv.FormatInt(n, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// String is the spec in the notation of the error messages.
func (s *InputSpec) String() string {
	var b strings.Builder
	for i, in := range s.Inputs {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d: %s %s on %s%s", i, in.DType, in.shape(), in.Device, s.ranges(in))
	}
	return b.String()
}
