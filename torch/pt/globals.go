package pt

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/gotorch/gotorch/torch"
)

// The allow-list. A pickle names Python globals (GLOBAL, STACK_GLOBAL) and
// calls them (REDUCE); Python's pickle imports and runs whatever it is
// told to. This reader knows a fixed set of globals, the ones torch.save
// writes for tensors, state dicts and the plain values of a checkpoint,
// and implements each itself: any other name is an error that names it
// (wrapping ErrNotAllowed) and nothing is ever executed.

// storageTypes maps torch's storage classes to their element types.
var storageTypes = map[string]torch.DType{
	"FloatStorage": torch.Float32, "DoubleStorage": torch.Float64,
	"HalfStorage": torch.Float16, "BFloat16Storage": torch.BFloat16,
	"ByteStorage": torch.Uint8, "CharStorage": torch.Int8,
	"ShortStorage": torch.Int16, "IntStorage": torch.Int32,
	"LongStorage": torch.Int64, "BoolStorage": torch.Bool,
	"ComplexFloatStorage": torch.Complex64, "ComplexDoubleStorage": torch.Complex128,
	"UntypedStorage": torch.Uint8,
	// Written by PyTorch 2.x; libtorch 1.13 lacks these types, which then
	// fail when the tensor is made (torch.ErrUnsupported).
	"Float8_e5m2Storage": torch.Float8E5M2, "Float8_e4m3fnStorage": torch.Float8E4M3FN,
	"Float8_e5m2fnuzStorage": torch.Float8E5M2FNUZ, "Float8_e4m3fnuzStorage": torch.Float8E4M3FNUZ,
	"UInt16Storage": torch.Uint16, "UInt32Storage": torch.Uint32, "UInt64Storage": torch.Uint64,
}

// storageTypeName is the inverse of storageTypes, for the writer.
func storageTypeName(dt torch.DType) (string, bool) {
	for name, d := range storageTypes {
		if d == dt && name != "UntypedStorage" {
			return name, true
		}
	}
	return "", false
}

// dtypeGlobals maps the names of torch's dtype objects to dtypes.
var dtypeGlobals = func() map[string]torch.DType {
	m := map[string]torch.DType{
		"float": torch.Float32, "double": torch.Float64, "half": torch.Float16,
		"short": torch.Int16, "int": torch.Int32, "long": torch.Int64,
		"cfloat": torch.Complex64, "cdouble": torch.Complex128, "chalf": torch.Complex32,
	}
	for d := torch.DType(0); d < 64; d++ {
		s := d.String()
		if strings.HasPrefix(s, "torch.") && !strings.Contains(s, "(") {
			m[strings.TrimPrefix(s, "torch.")] = d
		}
	}
	return m
}()

// callables are the allow-listed functions and classes.
var callables = map[string]bool{
	"torch._utils._rebuild_tensor":               true,
	"torch._utils._rebuild_tensor_v2":            true,
	"torch._utils._rebuild_tensor_v3":            true,
	"torch._utils._rebuild_parameter":            true,
	"torch._utils._rebuild_parameter_with_state": true,
	"collections.OrderedDict":                    true,
	"torch.Size":                                 true,
	"torch.device":                               true,
	"builtins.set":                               true,
	"builtins.frozenset":                         true,
	"builtins.bytearray":                         true,
	"builtins.complex":                           true,
	"_codecs.encode":                             true,
}

// lookupGlobal resolves an allow-listed global: a callable (pyGlobal), a
// storage type or a dtype.
func lookupGlobal(module, name string) (any, error) {
	if module == "__builtin__" { // protocol 2 spells builtins so
		module = "builtins"
	}
	if module == "torch.tensor" { // renamed in PyTorch 1.8; torch.load maps it
		module = "torch._tensor"
	}
	if module == "torch.storage" && name == "UntypedStorage" { // PyTorch 2.x, with _rebuild_tensor_v3
		return storageType(name), nil
	}
	if module == "torch" {
		if _, ok := storageTypes[name]; ok {
			return storageType(name), nil
		}
		if dt, ok := dtypeGlobals[name]; ok {
			return dt, nil
		}
	}
	g := pyGlobal{module, name}
	if callables[g.String()] {
		return g, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrNotAllowed, quoteName(g.String()))
}

// quoteName quotes a name from the file for an error message, shortened.
func quoteName(s string) string {
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// storageType is a torch storage class, which only appears in persistent
// ids.
type storageType string

// storageRef is a storage that a persistent id names: its bytes are read
// only when a tensor that uses it is made.
type storageRef struct {
	key      string
	typ      string
	dtype    torch.DType
	numel    int64 // elements of dtype
	location string
}

// tensorRef is a tensor described by _rebuild_tensor_v2 or v3: a view of
// a storage. No libtorch tensor exists until the result is converted.
// Its dtype is the storage's, except for v3 (PyTorch 2.x's dtypes that
// have no storage class of their own), whose storage is untyped (bytes)
// and whose dtype is an argument: offset, size and stride then count
// elements of that dtype.
type tensorRef struct {
	storage      *storageRef
	dtype        torch.DType
	offset       int64
	size, stride []int64
	requiresGrad bool
}

// call runs an allow-listed callable on args.
func call(f any, args []any) (any, error) {
	g, ok := f.(pyGlobal)
	if !ok {
		return nil, fmt.Errorf("%w: call of %s, which is not callable", ErrInvalid, typeName(f))
	}
	bad := func(want string) error {
		return fmt.Errorf("%w: %s called with %d arguments (%s), want %s", ErrInvalid, g, len(args), argTypes(args), want)
	}
	switch g.String() {
	case "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor", "torch._utils._rebuild_tensor_v3":
		// (storage, storage_offset, size, stride[, requires_grad, backward_hooks[, metadata]])
		// v3: (storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype[, metadata])
		switch {
		case g.name == "_rebuild_tensor" && len(args) != 4:
			return nil, bad("(storage, storage_offset, size, stride)")
		case g.name == "_rebuild_tensor_v2" && (len(args) < 6 || len(args) > 7):
			return nil, bad("(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata])")
		case g.name == "_rebuild_tensor_v3" && (len(args) < 7 || len(args) > 8):
			return nil, bad("(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype[, metadata])")
		}
		s, ok := args[0].(*storageRef)
		if !ok {
			return nil, fmt.Errorf("%w: %s: storage is %s, not a storage", ErrInvalid, g, typeName(args[0]))
		}
		off, ok := args[1].(int64)
		if !ok {
			return nil, fmt.Errorf("%w: %s: storage_offset is %s, not an int", ErrInvalid, g, typeName(args[1]))
		}
		size, err := intTuple(args[2])
		if err != nil {
			return nil, fmt.Errorf("%s: size: %w", g, err)
		}
		stride, err := intTuple(args[3])
		if err != nil {
			return nil, fmt.Errorf("%s: stride: %w", g, err)
		}
		t := &tensorRef{storage: s, dtype: s.dtype, offset: off, size: size, stride: stride}
		if g.name == "_rebuild_tensor_v3" {
			dt, ok := args[6].(torch.DType)
			if !ok {
				return nil, fmt.Errorf("%w: %s: dtype is %s, not a torch.dtype", ErrInvalid, g, typeName(args[6]))
			}
			if err := t.setDType(dt); err != nil {
				return nil, fmt.Errorf("%s: %w", g, err)
			}
		}
		if len(args) > 4 {
			rg, ok := args[4].(bool)
			if !ok {
				return nil, fmt.Errorf("%w: %s: requires_grad is %s, not a bool", ErrInvalid, g, typeName(args[4]))
			}
			t.requiresGrad = rg
			if err := noHooks(g, args[5]); err != nil {
				return nil, err
			}
		}
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("%s: %w", g, err)
		}
		return t, nil
	case "torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state":
		// (data, requires_grad, backward_hooks[, state])
		if g.name == "_rebuild_parameter" && len(args) != 3 || g.name != "_rebuild_parameter" && len(args) != 4 {
			return nil, bad("(data, requires_grad, backward_hooks[, state])")
		}
		t, ok := args[0].(*tensorRef)
		rg, ok2 := args[1].(bool)
		if !ok || !ok2 {
			return nil, fmt.Errorf("%w: %s of %s", ErrInvalid, g, argTypes(args))
		}
		if err := noHooks(g, args[2]); err != nil {
			return nil, err
		}
		p := *t
		p.requiresGrad = rg
		return &p, nil
	case "collections.OrderedDict":
		if len(args) != 0 {
			return nil, bad("()")
		}
		return &pyDict{ordered: true}, nil
	case "torch.Size":
		if len(args) != 1 {
			return nil, bad("(tuple)")
		}
		if _, err := intTuple(args[0]); err != nil {
			return nil, fmt.Errorf("%s: %w", g, err)
		}
		return args[0], nil
	case "torch.device":
		var spec string
		switch {
		case len(args) == 1:
			s, ok := args[0].(string)
			if !ok {
				return nil, bad("(str) or (str, int)")
			}
			spec = s
		case len(args) == 2:
			s, ok := args[0].(string)
			i, ok2 := args[1].(int64)
			if !ok || !ok2 || i < 0 || i > 1<<16 {
				return nil, bad("(str) or (str, int)")
			}
			spec = fmt.Sprintf("%s:%d", s, i)
		default:
			return nil, bad("(str) or (str, int)")
		}
		d, err := torch.TryParseDevice(spec)
		if err != nil {
			return nil, fmt.Errorf("%w: torch.device(%q): %v", ErrInvalid, spec, err)
		}
		return d, nil
	case "builtins.set", "builtins.frozenset":
		s := &pySet{frozen: g.name == "frozenset"}
		if len(args) == 0 {
			return s, nil
		}
		l, ok := args[0].(*pyList)
		if len(args) != 1 || !ok {
			return nil, bad("(list)")
		}
		return s, s.add(l.items)
	case "builtins.bytearray":
		if len(args) == 0 {
			return &pyBytes{bytearray: true}, nil
		}
		b, ok := args[0].(*pyBytes)
		if len(args) != 1 || !ok {
			return nil, bad("(bytes)")
		}
		return &pyBytes{b: b.b, bytearray: true}, nil
	case "builtins.complex":
		if len(args) != 2 {
			return nil, bad("(float, float)")
		}
		re, ok := toFloat(args[0])
		im, ok2 := toFloat(args[1])
		if !ok || !ok2 {
			return nil, bad("(float, float)")
		}
		return complex(re, im), nil
	case "_codecs.encode":
		// Protocol 2 writes bytes as _codecs.encode(str, "latin1").
		if len(args) != 2 {
			return nil, bad("(str, 'latin1')")
		}
		s, ok := args[0].(string)
		enc, ok2 := args[1].(string)
		if !ok || !ok2 || (enc != "latin1" && enc != "latin-1") {
			return nil, bad("(str, 'latin1')")
		}
		b := make([]byte, 0, len(s))
		for _, r := range s {
			if r > 0xff {
				return nil, fmt.Errorf("%w: _codecs.encode: %q is not latin1", ErrInvalid, r)
			}
			b = append(b, byte(r))
		}
		return &pyBytes{b: b}, nil
	}
	return nil, fmt.Errorf("%w: call of %s", ErrNotAllowed, quoteName(g.String()))
}

// build runs BUILD: state set on obj. Only a dict's attributes (the
// _metadata of a state dict) are known.
func build(obj, state any) error {
	d, ok := obj.(*pyDict)
	s, ok2 := state.(*pyDict)
	if !ok || !ok2 {
		return fmt.Errorf("%w: BUILD of %s with %s state (only a dict's attributes are known)", ErrUnsupported, typeName(obj), typeName(state))
	}
	if d.attrs == nil {
		d.attrs = &pyDict{}
	}
	items := make([]any, 0, 2*len(s.keys))
	for i := range s.keys {
		if _, ok := s.keys[i].(string); !ok {
			return fmt.Errorf("%w: BUILD with an attribute named by %s", ErrInvalid, typeName(s.keys[i]))
		}
		items = append(items, s.keys[i], s.values[i])
	}
	return d.attrs.setItems(items)
}

func noHooks(g pyGlobal, h any) error {
	if h == nil {
		return nil
	}
	if d, ok := h.(*pyDict); ok && len(d.keys) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s with backward hooks (%s), which cannot be restored", ErrUnsupported, g, typeName(h))
}

func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int64:
		return float64(v), true
	}
	return 0, false
}

func intTuple(v any) ([]int64, error) {
	t, ok := v.(*pyTuple)
	if !ok {
		return nil, fmt.Errorf("%w: %s, not a tuple of ints", ErrInvalid, typeName(v))
	}
	out := make([]int64, len(t.items))
	for i, x := range t.items {
		n, ok := x.(int64)
		if !ok {
			return nil, fmt.Errorf("%w: element %d is %s, not an int", ErrInvalid, i, typeName(x))
		}
		out[i] = n
	}
	return out, nil
}

func argTypes(args []any) string {
	var names []string
	for i, a := range args {
		if i == 8 {
			names = append(names, "...")
			break
		}
		names = append(names, typeName(a))
	}
	return strings.Join(names, ", ")
}

// maxDims is the most dimensions a tensor may have.
const maxDims = 64

// setDType gives a view of an untyped storage (v3) its dtype.
func (t *tensorRef) setDType(dt torch.DType) error {
	if dt == t.storage.dtype {
		return nil
	}
	if t.storage.typ != "UntypedStorage" {
		return fmt.Errorf("%w: a %v tensor in a %s", ErrInvalid, dt, t.storage.typ)
	}
	switch {
	case dt == torch.Bool:
		// Bytes other than 0 and 1 are no bools; v3 is only written for
		// PyTorch 2.x's new dtypes, bool has a storage class of its own.
		return fmt.Errorf("%w: a bool tensor in an untyped storage", ErrUnsupported)
	case dt.Size() == 0:
		return fmt.Errorf("%w: dtype %v has no element size", ErrUnsupported, dt)
	case t.storage.numel%int64(dt.Size()) != 0:
		return fmt.Errorf("%w: an untyped storage of %d bytes holds no whole number of %v elements", ErrInvalid, t.storage.numel, dt)
	}
	t.dtype = dt
	return nil
}

// elements is the number of elements of t's dtype in its storage.
func (t *tensorRef) elements() int64 {
	n := t.storage.numel
	if t.dtype != t.storage.dtype {
		n = n * int64(t.storage.dtype.Size()) / int64(t.dtype.Size())
	}
	return n
}

// check validates a view against its storage: every element it reaches
// lies inside the storage, with no overflow on the way.
func (t *tensorRef) check() error {
	if len(t.size) != len(t.stride) {
		return fmt.Errorf("%w: size %v and stride %v differ in length", ErrInvalid, t.size, t.stride)
	}
	if len(t.size) > maxDims {
		return fmt.Errorf("%w: %d dimensions (at most %d)", ErrLimit, len(t.size), maxDims)
	}
	if t.offset < 0 {
		return fmt.Errorf("%w: negative storage offset %d", ErrInvalid, t.offset)
	}
	empty := false
	for i := range t.size {
		if t.size[i] < 0 || t.stride[i] < 0 {
			return fmt.Errorf("%w: size %v, stride %v: negative", ErrInvalid, t.size, t.stride)
		}
		if t.size[i] == 0 {
			empty = true
		}
	}
	if empty {
		return nil
	}
	// The last element reached is offset + Σ (size-1)·stride; it must be
	// below the storage's element count. big.Int keeps it exact.
	last := big.NewInt(t.offset)
	var term big.Int
	numel := big.NewInt(1)
	for i := range t.size {
		term.Mul(big.NewInt(t.size[i]-1), big.NewInt(t.stride[i]))
		last.Add(last, &term)
		numel.Mul(numel, big.NewInt(t.size[i]))
	}
	if !numel.IsInt64() {
		return fmt.Errorf("%w: size %v has too many elements", ErrInvalid, t.size)
	}
	if last.Cmp(big.NewInt(t.elements())) >= 0 {
		return fmt.Errorf("%w: a view (offset %d, size %v, stride %v) reaches element %s of a storage of %d",
			ErrInvalid, t.offset, t.size, t.stride, last, t.elements())
	}
	return nil
}
