package pt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"strings"

	"github.com/gotorch/gotorch/internal/fileio"
	"github.com/gotorch/gotorch/torch"
)

// The errors of this package wrap one of these, so that errors.Is tells
// a damaged file from a valid one that this reader refuses.
var (
	// ErrInvalid: the file is not a valid torch.save file (damaged,
	// truncated, or not one at all).
	ErrInvalid = errors.New("invalid .pt file")
	// ErrNotAllowed: the pickle names a Python global that is not on the
	// allow-list (see the package comment); nothing was run.
	ErrNotAllowed = errors.New("Python global not on the allow-list")
	// ErrUnsupported: a valid file that uses something this reader does
	// not read (a TorchScript archive, a pickled module, compression).
	ErrUnsupported = errors.New("unsupported")
	// ErrLimit: the file exceeds a limit (see Limits).
	ErrLimit = errors.New("limit exceeded")
	// ErrTorchScript: the file is a TorchScript archive (torch.jit.save),
	// which package torch/jit loads. It wraps ErrUnsupported.
	ErrTorchScript = fmt.Errorf("%w: a TorchScript archive (torch.jit.save); load it with package torch/jit", ErrUnsupported)
)

// The Go values of Python's. Decode returns
//
//	None → nil, bool → bool, int → int64 (or *big.Int beyond 64 bits),
//	float → float64, complex → complex128, str → string,
//	bytes and bytearray → []byte, list → []any, tuple and torch.Size → Tuple,
//	dict and OrderedDict → *Dict, set and frozenset → Set,
//	torch.Tensor and nn.Parameter → torch.Tensor, torch.dtype → torch.DType,
//	torch.device → torch.Device.
//
// An object reachable twice in the file (two keys holding one tensor, as
// tied weights do) is one Go value: the same torch.Tensor, the same *Dict.
type (
	// Tuple is a Python tuple.
	Tuple []any
	// Set is a Python set or frozenset, in the file's order.
	Set []any
)

// Dict is a Python dict or collections.OrderedDict, in insertion order.
type Dict struct {
	Keys    []any
	Values  []any
	Ordered bool  // a collections.OrderedDict (what state_dict returns)
	Attrs   *Dict // attributes pickled with it: a state dict's "_metadata"
}

// Len is the number of items.
func (d *Dict) Len() int { return len(d.Keys) }

// Get returns the value under key, compared as Go values (a string key
// finds a Python str key).
func (d *Dict) Get(key any) (any, bool) {
	for i, k := range d.Keys {
		if equalKey(k, key) {
			return d.Values[i], true
		}
	}
	return nil, false
}

// equalKey compares keys as Go values; slices ([]byte, Tuple) are equal
// when their elements are.
func equalKey(a, b any) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta != tb {
		return false
	}
	if ta == nil || ta.Comparable() {
		return a == b
	}
	return reflect.DeepEqual(a, b)
}

// Set sets key to value: in place when key is there, at the end
// otherwise.
func (d *Dict) Set(key, value any) {
	for i, k := range d.Keys {
		if equalKey(k, key) {
			d.Values[i] = value
			return
		}
	}
	d.Keys = append(d.Keys, key)
	d.Values = append(d.Values, value)
}

// Limits bound what a file can make the reader do. A zero field means its
// default.
type Limits struct {
	// MaxStorageBytes bounds the bytes of all storages read (default: the
	// file's size, which a valid file never exceeds).
	MaxStorageBytes int64
	// MaxTensors bounds the tensors made (default 100,000).
	MaxTensors int
	// MaxDepth bounds the nesting of lists, tuples and dicts (default 1000).
	MaxDepth int
	// MaxStack and MaxMemo bound the pickle machine's stack and memo
	// (default 1<<20 entries each).
	MaxStack, MaxMemo int
}

// Option is an optional argument of Decode, Load, LoadStateDict and
// LoadModule, named With plus what it sets, as the options of packages
// torch and nn are:
//
//	pt.LoadStateDict("ckpt.pt", pt.WithKey("model"), pt.WithStripPrefix("module."))
//
// When an option is repeated, the last one wins. The zero Option is an
// error.
type Option struct {
	name string
	lim  Limits
	key  []string
	s    string
}

type config struct {
	lim         limits
	key         []string
	stripPrefix string
}

// WithLimits sets the reader's limits; a zero field keeps its default.
func WithLimits(l Limits) Option { return Option{name: "limits", lim: l} }

// WithKey makes LoadStateDict and LoadModule take the state dict under
// these keys of a checkpoint: WithKey("model") for
// torch.save({"model": model.state_dict(), "optimizer": ...}), and
// WithKey("models", "ema") for a dict within it. Only that part of the
// file becomes tensors; Decode and Load take the part too.
func WithKey(path ...string) Option {
	return Option{name: "key", key: append([]string(nil), path...)}
}

// WithStripPrefix makes LoadStateDict and LoadModule drop a prefix from
// every key that has it: "module." for a model saved from
// nn.DataParallel or DistributedDataParallel, "_orig_mod." for one saved
// after torch.compile.
func WithStripPrefix(prefix string) Option { return Option{name: "strip_prefix", s: prefix} }

// newConfig applies opts to the defaults.
func newConfig(opts []Option) (config, error) {
	c := config{lim: defaultLimits}
	for i, o := range opts {
		switch o.name {
		case "limits":
			l := o.lim
			if l.MaxStorageBytes > 0 {
				c.lim.maxBytes = l.MaxStorageBytes
			}
			if l.MaxTensors > 0 {
				c.lim.maxTensors = l.MaxTensors
			}
			if l.MaxDepth > 0 {
				c.lim.maxDepth = l.MaxDepth
			}
			if l.MaxStack > 0 {
				c.lim.maxStack = l.MaxStack
			}
			if l.MaxMemo > 0 {
				c.lim.maxMemo = l.MaxMemo
			}
		case "key":
			c.key = o.key
		case "strip_prefix":
			c.stripPrefix = o.s
		default:
			return config{}, fmt.Errorf("pt: option %d is the zero Option (use the With functions)", i+1)
		}
	}
	return c, nil
}

// Decode reads what torch.save wrote, from r of the given size, and
// returns it as Go values (see the type Dict for the mapping). Tensors
// come back on the CPU, whatever device they were saved from, and views of
// one storage share their memory as in PyTorch.
func Decode(r io.ReaderAt, size int64, opts ...Option) (any, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	a, err := open(r, size, c.lim)
	if err != nil {
		return nil, err
	}
	root, err := selectKey(a.root, c.key)
	if err != nil {
		return nil, err
	}
	conv := newConverter(a, c.lim)
	v, err := conv.value(root, 0)
	conv.finish(err != nil)
	return v, err
}

// Load reads the file at path as Decode does. Errors name the file.
func Load(path string, opts ...Option) (any, error) {
	var v any
	err := withFile(path, func(r io.ReaderAt, size int64) (err error) {
		v, err = Decode(r, size, opts...)
		return err
	})
	return v, err
}

// LoadStateDict reads a state dict (what torch.save(model.state_dict())
// writes, or the part of a checkpoint that WithKey names) as tensors by
// their PyTorch names.
func LoadStateDict(path string, opts ...Option) (map[string]torch.Tensor, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	var sd map[string]torch.Tensor
	err = withFile(path, func(r io.ReaderAt, size int64) (err error) {
		a, err := open(r, size, c.lim)
		if err != nil {
			return err
		}
		root, err := selectKey(a.root, c.key)
		if err != nil {
			return err
		}
		d, ok := root.(*pyDict)
		if !ok {
			return fmt.Errorf("%w: the %s is %s, not a state dict", ErrInvalid, keyName(c.key), typeName(root))
		}
		conv := newConverter(a, c.lim)
		defer func() { conv.finish(err != nil) }()
		sd = make(map[string]torch.Tensor, len(d.keys))
		for i, k := range d.keys {
			name, ok := k.(string)
			if !ok {
				return fmt.Errorf("%w: a state dict key of %s, not a str", ErrInvalid, typeName(k))
			}
			full := strings.Join(append(append([]string(nil), c.key...), name), ".")
			t, ok := d.values[i].(*tensorRef)
			if !ok {
				return fmt.Errorf("%w: state dict entry %q is %s, not a tensor", ErrInvalid, full, typeName(d.values[i]))
			}
			tt, err := conv.tensor(t)
			if err != nil {
				return fmt.Errorf("state dict entry %q: %w", full, err)
			}
			if c.stripPrefix != "" {
				name = strings.TrimPrefix(name, c.stripPrefix)
			}
			if _, dup := sd[name]; dup {
				return fmt.Errorf("%w: two entries are %q once the prefix %q is stripped", ErrInvalid, name, c.stripPrefix)
			}
			sd[name] = tt
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return sd, nil
}

// StateDictLoader is what LoadModule loads into: every GoTorch module
// (anything that embeds nn.Module) is one.
type StateDictLoader interface {
	LoadStateDict(sd map[string]torch.Tensor, strict bool) error
}

// LoadModule reads a state dict from path (see LoadStateDict) into m's
// parameters and buffers by their PyTorch names, as m.LoadStateDict does:
// dtypes are converted to the module's, shape mismatches are errors, and
// with strict so are missing and unexpected keys. Nothing is copied unless
// every check passes.
func LoadModule(m StateDictLoader, path string, strict bool, opts ...Option) error {
	sd, err := LoadStateDict(path, opts...)
	if err != nil {
		return err
	}
	defer func() {
		for _, t := range sd {
			t.Free()
		}
	}()
	if err := m.LoadStateDict(sd, strict); err != nil {
		return fmt.Errorf("pt: %s: %w", path, err)
	}
	return nil
}

// withFile opens path and runs f on it, naming the file in f's error.
func withFile(path string, f func(io.ReaderAt, int64) error) error {
	file, size, err := fileio.Open(path)
	if err != nil {
		return fmt.Errorf("pt: %w", err)
	}
	defer file.Close()
	if err := f(file, size); err != nil {
		return fmt.Errorf("pt: %s: %w", path, err)
	}
	return nil
}

func keyName(key []string) string {
	if len(key) == 0 {
		return "file's object"
	}
	return fmt.Sprintf("entry %q", strings.Join(key, "."))
}

// selectKey follows WithKey's path through dicts.
func selectKey(v any, key []string) (any, error) {
	for i, k := range key {
		d, ok := v.(*pyDict)
		if !ok {
			return nil, fmt.Errorf("%w: the %s is %s, not a dict", ErrInvalid, keyName(key[:i]), typeName(v))
		}
		if v, ok = d.get(k); !ok {
			return nil, fmt.Errorf("%w: the %s has no key %q (it has %s)", ErrInvalid, keyName(key[:i]), k, someKeys(d))
		}
	}
	return v, nil
}

func someKeys(d *pyDict) string {
	var names []string
	for i, k := range d.keys {
		if i == 10 {
			names = append(names, "...")
			break
		}
		if s, ok := k.(string); ok {
			names = append(names, fmt.Sprintf("%q", s))
		} else {
			names = append(names, typeName(k))
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// converter turns the machine's values into Go values, making each
// storage's tensor once and each tensor as a view of it.
type converter struct {
	a     *archive
	lim   limits
	done  map[any]any  // converted containers and tensors, by identity
	busy  map[any]bool // containers being converted: reaching one again is a cycle
	bases map[*storageRef]torch.Tensor
	typed map[typedBase]torch.Tensor // an untyped storage's bytes viewed as a dtype (v3)
	// swap: the file's byte order is not the host's; an untyped storage's
	// bytes are swapped as elements of the first dtype that reads them.
	swap      bool
	swappedAs map[*storageRef]torch.DType
	made      []torch.Tensor // every tensor returned, freed on error
	read      int64          // storage bytes read
	tensors   int
}

func newConverter(a *archive, lim limits) *converter {
	if lim.maxBytes <= 0 {
		lim.maxBytes = a.size
	}
	return &converter{a: a, lim: lim, done: map[any]any{}, busy: map[any]bool{}, bases: map[*storageRef]torch.Tensor{},
		typed: map[typedBase]torch.Tensor{}, swap: a.bigEndian != hostBigEndian, swappedAs: map[*storageRef]torch.DType{}}
}

type typedBase struct {
	s  *storageRef
	dt torch.DType
}

// finish frees the storages' own handles (the views keep the memory), and
// every tensor made when the conversion failed.
func (c *converter) finish(failed bool) {
	for _, t := range c.bases {
		t.Free()
	}
	for _, t := range c.typed {
		t.Free()
	}
	if failed {
		for _, t := range c.made {
			t.Free()
		}
	}
}

var hostBigEndian = binary.NativeEndian.Uint16([]byte{0, 1}) == 1

func (c *converter) tensor(t *tensorRef) (torch.Tensor, error) {
	if v, ok := c.done[t]; ok {
		return v.(torch.Tensor), nil
	}
	if c.tensors >= c.lim.maxTensors {
		return torch.Tensor{}, fmt.Errorf("%w: more than %d tensors", ErrLimit, c.lim.maxTensors)
	}
	s := t.storage
	base, ok := c.bases[s]
	if !ok {
		n := s.numel * int64(s.dtype.Size())
		if n > c.lim.maxBytes-c.read {
			return torch.Tensor{}, fmt.Errorf("%w: storages of more than %d bytes", ErrLimit, c.lim.maxBytes)
		}
		c.read += n
		b, err := c.a.read(s)
		if err != nil {
			return torch.Tensor{}, err
		}
		if c.swap {
			c.swappedAs[s] = t.dtype
		}
		if base, err = storageTensor(s, b, c.swap, t.dtype); err != nil {
			return torch.Tensor{}, fmt.Errorf("storage %q (%s): %w", s.key, s.typ, err)
		}
		c.bases[s] = base
	}
	if t.dtype != s.dtype {
		// The bytes were swapped for the first dtype they were read as.
		if first := c.swappedAs[s]; c.swap && first.Size() != t.dtype.Size() {
			return torch.Tensor{}, fmt.Errorf("%w: storage %q of a file of the other byte order read as %v and as %v",
				ErrUnsupported, s.key, first, t.dtype)
		}
		k := typedBase{s, t.dtype}
		typed, ok := c.typed[k]
		if !ok {
			var err error
			if typed, err = base.TryViewDtype(t.dtype); err != nil {
				return torch.Tensor{}, fmt.Errorf("storage %q (%s) as %v: %w", s.key, s.typ, t.dtype, err)
			}
			c.typed[k] = typed
		}
		base = typed
	}
	v, err := base.TryAsStrided(t.size, t.stride, torch.WithStorageOffset(t.offset))
	if err != nil {
		return torch.Tensor{}, err
	}
	if t.requiresGrad {
		if _, err := v.TrySetRequiresGrad(true); err != nil {
			v.Free()
			return torch.Tensor{}, err
		}
	}
	c.tensors++
	c.made = append(c.made, v)
	c.done[t] = v
	return v, nil
}

func (c *converter) value(v any, depth int) (any, error) {
	if depth > c.lim.maxDepth {
		return nil, fmt.Errorf("%w: nested more than %d deep", ErrLimit, c.lim.maxDepth)
	}
	switch v := v.(type) {
	case nil, bool, int64, float64, complex128, string, torch.DType, torch.Device:
		return v, nil
	case *big.Int:
		return new(big.Int).Set(v), nil
	case *tensorRef:
		return c.tensor(v)
	case *pyBytes:
		return v.b, nil
	}
	if out, ok := c.done[v]; ok {
		return out, nil
	}
	if c.busy[v] {
		return nil, fmt.Errorf("%w: a %s that contains itself", ErrUnsupported, typeName(v))
	}
	c.busy[v] = true
	defer delete(c.busy, v)
	var out any
	var err error
	switch v := v.(type) {
	case *pyList:
		out, err = c.values(v.items, depth)
	case *pyTuple:
		var items []any
		items, err = c.values(v.items, depth)
		out = Tuple(items)
	case *pySet:
		var items []any
		items, err = c.values(v.items, depth)
		out = Set(items)
	case *pyDict:
		out, err = c.dict(v, depth)
	case *storageRef:
		err = fmt.Errorf("%w: a bare storage (save tensors, not storages)", ErrUnsupported)
	default:
		err = fmt.Errorf("%w: %s as a value", ErrUnsupported, typeName(v))
	}
	if err != nil {
		return nil, err
	}
	c.done[v] = out
	return out, nil
}

func (c *converter) values(items []any, depth int) ([]any, error) {
	out := make([]any, len(items))
	for i, x := range items {
		y, err := c.value(x, depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = y
	}
	return out, nil
}

func (c *converter) dict(d *pyDict, depth int) (*Dict, error) {
	keys, err := c.values(d.keys, depth)
	if err != nil {
		return nil, err
	}
	vals, err := c.values(d.values, depth)
	if err != nil {
		return nil, err
	}
	out := &Dict{Keys: keys, Values: vals, Ordered: d.ordered}
	if d.attrs != nil {
		if out.Attrs, err = c.dict(d.attrs, depth+1); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Free frees every tensor in a value that Decode or Load returned (each
// once, however often it is reached), for callers that do not wait for
// Go's collector.
func Free(v any) {
	seen := map[[2]uintptr]bool{}
	var walk func(v any, depth int)
	visit := func(s []any, depth int) {
		if len(s) == 0 || depth > maxFreeDepth {
			return
		}
		id := [2]uintptr{reflect.ValueOf(s).Pointer(), uintptr(len(s))}
		if seen[id] {
			return
		}
		seen[id] = true
		for _, x := range s {
			walk(x, depth+1)
		}
	}
	walk = func(v any, depth int) {
		switch v := v.(type) {
		case torch.Tensor:
			v.Free()
		case []any:
			visit(v, depth)
		case Tuple:
			visit(v, depth)
		case Set:
			visit(v, depth)
		case *Dict:
			if v != nil {
				visit(v.Keys, depth)
				visit(v.Values, depth)
				walk(v.Attrs, depth+1)
			}
		}
	}
	walk(v, 0)
}

const maxFreeDepth = 1 << 16
