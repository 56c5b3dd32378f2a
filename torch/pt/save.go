package pt

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/big"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/gotorch/gotorch/internal/atomicfile"
	"github.com/gotorch/gotorch/torch"
)

// Save writes obj to path in torch.save's zip format, atomically: path
// holds the old file or the whole new one, never a part. obj is made of
// the Go values that Decode returns (a state dict is a
// map[string]torch.Tensor, or a *Dict to keep an order), and also
// map[string]any, []torch.Tensor, int, int32, float32.
//
// Tensors that share a storage (views, tied weights) are written as
// torch.save writes them: the storage once, whole, and each tensor as a
// view of it (its offset and strides), so that they share memory again
// when loaded, in Python or by Load.
func Save(path string, obj any) error {
	p, err := pickleObject(obj)
	if err != nil {
		return fmt.Errorf("pt: save %s: %w", path, err)
	}
	defer p.close()
	err = atomicfile.Write(path, 0o644, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if err := p.writeZip(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("pt: save %s: %w", path, err)
	}
	return nil
}

// Encode writes obj to w as Save does.
func Encode(w io.Writer, obj any) error {
	p, err := pickleObject(obj)
	if err != nil {
		return fmt.Errorf("pt: encode: %w", err)
	}
	defer p.close()
	return p.writeZip(w)
}

// pickler writes a protocol 2 pickle, and collects the storages that go
// beside it.
type pickler struct {
	buf      bytes.Buffer
	memo     map[any]uint32     // written objects, by identity
	storages []torch.Tensor     // each storage whole, 1-D, in key order; owned
	keys     map[storageKey]int // storage keys by libtorch storage and dtype
	nextMemo uint32
}

// storageKey identifies a storage read as elements of a dtype.
type storageKey struct {
	id    uintptr
	dtype torch.DType
}

// close frees the storages' views.
func (p *pickler) close() {
	for _, s := range p.storages {
		s.Free()
	}
	p.storages = nil
}

const maxSaveDepth = 1000

func pickleObject(obj any) (*pickler, error) {
	p := &pickler{memo: map[any]uint32{}, keys: map[storageKey]int{}}
	p.buf.Write([]byte{0x80, 2})
	if err := p.value(obj, 0); err != nil {
		p.close()
		return nil, err
	}
	p.buf.WriteByte('.')
	return p, nil
}

func (p *pickler) op(b ...byte) { p.buf.Write(b) }

func (p *pickler) put(key any) {
	p.memo[key] = p.nextMemo
	p.binput(p.nextMemo)
	p.nextMemo++
}

func (p *pickler) binput(i uint32) {
	if i < 256 {
		p.op('q', byte(i))
		return
	}
	p.op('r')
	p.buf.Write(binary.LittleEndian.AppendUint32(nil, i))
}

// fetched writes a memo fetch when key was written before.
func (p *pickler) fetched(key any) bool {
	i, ok := p.memo[key]
	if !ok {
		return false
	}
	if i < 256 {
		p.op('h', byte(i))
	} else {
		p.op('j')
		p.buf.Write(binary.LittleEndian.AppendUint32(nil, i))
	}
	return true
}

func (p *pickler) global(module, name string) {
	p.op('c')
	p.buf.WriteString(module + "\n" + name + "\n")
}

func (p *pickler) str(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("string %q is not valid UTF-8", s)
	}
	p.op('X')
	p.buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(s))))
	p.buf.WriteString(s)
	return nil
}

func (p *pickler) int(v int64) {
	switch {
	case v >= 0 && v < 256:
		p.op('K', byte(v))
	case v >= 0 && v < 65536:
		p.op('M', byte(v), byte(v>>8))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		p.op('J')
		p.buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(int32(v))))
	default:
		p.bigInt(big.NewInt(v))
	}
}

// bigInt writes LONG1 or LONG4: little-endian two's complement.
func (p *pickler) bigInt(v *big.Int) {
	n := v.BitLen()/8 + 1
	mod := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
	x := new(big.Int).Set(v)
	if x.Sign() < 0 {
		x.Add(x, mod)
	}
	be := x.FillBytes(make([]byte, n))
	le := make([]byte, n)
	for i := range be {
		le[n-1-i] = be[i]
	}
	if n < 256 {
		p.op(0x8a, byte(n))
	} else {
		p.op(0x8b)
		p.buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(n)))
	}
	p.buf.Write(le)
}

func (p *pickler) float(f float64) {
	p.op('G')
	p.buf.Write(binary.BigEndian.AppendUint64(nil, math.Float64bits(f)))
}

func (p *pickler) values(items []any, depth int) error {
	for _, x := range items {
		if err := p.value(x, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (p *pickler) value(v any, depth int) error {
	if depth > maxSaveDepth {
		return fmt.Errorf("nested more than %d deep (a cycle?)", maxSaveDepth)
	}
	switch v := v.(type) {
	case nil:
		p.op('N')
	case bool:
		if v {
			p.op(0x88)
		} else {
			p.op(0x89)
		}
	case int:
		p.int(int64(v))
	case int32:
		p.int(int64(v))
	case int64:
		p.int(v)
	case *big.Int:
		p.bigInt(v)
	case float32:
		p.float(float64(v))
	case float64:
		p.float(v)
	case complex128:
		p.global("__builtin__", "complex")
		p.float(real(v))
		p.float(imag(v))
		p.op(0x86, 'R')
	case string:
		return p.str(v)
	case []byte:
		// Protocol 2 has no bytes: Python writes _codecs.encode(latin1 text, "latin1").
		r := make([]rune, len(v))
		for i, c := range v {
			r[i] = rune(c)
		}
		p.global("_codecs", "encode")
		_ = p.str(string(r))
		_ = p.str("latin1")
		p.op(0x86, 'R')
	case []any:
		p.op(']', '(')
		if err := p.values(v, depth); err != nil {
			return err
		}
		p.op('e')
	case []torch.Tensor:
		p.op(']', '(')
		for _, t := range v {
			if err := p.tensor(t); err != nil {
				return err
			}
		}
		p.op('e')
	case Tuple:
		p.op('(')
		if err := p.values(v, depth); err != nil {
			return err
		}
		p.op('t')
	case Set:
		p.global("__builtin__", "set")
		p.op(']', '(')
		if err := p.values(v, depth); err != nil {
			return err
		}
		p.op('e', 0x85, 'R')
	case *Dict:
		if v == nil {
			p.op('N')
			return nil
		}
		if p.fetched(v) {
			return nil
		}
		if err := p.dict(v.Keys, v.Values, v.Ordered, depth); err != nil {
			return err
		}
		p.put(v)
		if v.Attrs != nil {
			if err := p.dict(v.Attrs.Keys, v.Attrs.Values, false, depth+1); err != nil {
				return err
			}
			p.op('b')
		}
	case map[string]torch.Tensor:
		keys := sortedKeys(v)
		vals := make([]any, len(keys))
		ks := make([]any, len(keys))
		for i, k := range keys {
			ks[i], vals[i] = k, v[k]
		}
		return p.dict(ks, vals, true, depth)
	case map[string]any:
		keys := sortedKeys(v)
		vals := make([]any, len(keys))
		ks := make([]any, len(keys))
		for i, k := range keys {
			ks[i], vals[i] = k, v[k]
		}
		return p.dict(ks, vals, false, depth)
	case torch.Tensor:
		return p.tensor(v)
	case torch.DType:
		name := v.String()
		if len(name) < 7 || name[:6] != "torch." {
			return fmt.Errorf("dtype %v has no PyTorch name", v)
		}
		p.global("torch", name[6:])
	case torch.Device:
		p.global("torch", "device")
		if err := p.str(v.String()); err != nil {
			return err
		}
		p.op(0x85, 'R')
	default:
		return fmt.Errorf("cannot save a %T (save tensors, *Dict, maps, slices, tuples and scalars)", v)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (p *pickler) dict(keys, vals []any, ordered bool, depth int) error {
	if ordered {
		p.global("collections", "OrderedDict")
		p.op(')', 'R')
	} else {
		p.op('}')
	}
	if len(keys) == 0 {
		return nil
	}
	p.op('(')
	for i := range keys {
		if err := p.value(keys[i], depth+1); err != nil {
			return err
		}
		if err := p.value(vals[i], depth+1); err != nil {
			return fmt.Errorf("key %v: %w", keys[i], err)
		}
	}
	p.op('u')
	return nil
}

// storageOf finds t's storage among those collected, or adds it: it
// returns the storage's key, its number of elements, and t's offset and
// strides in it. A storage is saved whole, as torch.save saves it, even
// where its tensors reach only part of it.
func (p *pickler) storageOf(t torch.Tensor) (key int, numel, offset int64, stride []int64, err error) {
	shape := t.Shape()
	stride = make([]int64, len(shape))
	for i := range shape {
		if stride[i], err = torch.TryStride(t, int64(i)); err != nil {
			return 0, 0, 0, nil, err
		}
	}
	info, err := storageInfoOf(t)
	if err != nil {
		return 0, 0, 0, nil, err
	}
	dt := t.DType()
	size := int64(dt.Size())
	if size == 0 || info.nbytes%size != 0 {
		return 0, 0, 0, nil, fmt.Errorf("a %v tensor in a storage of %d bytes, no whole number of elements", dt, info.nbytes)
	}
	numel = info.nbytes / size
	k := storageKey{info.id, dt}
	if i, ok := p.keys[k]; ok {
		return i, numel, info.offset, stride, nil
	}
	d, err := t.TryDetach()
	if err != nil {
		return 0, 0, 0, nil, err
	}
	whole, err := d.TryAsStrided([]int64{numel}, []int64{1}, torch.WithStorageOffset(0))
	d.Free()
	if err != nil {
		return 0, 0, 0, nil, fmt.Errorf("its storage: %w", err)
	}
	p.storages = append(p.storages, whole)
	key = len(p.storages) - 1
	p.keys[k] = key
	return key, numel, info.offset, stride, nil
}

// tensor writes _rebuild_tensor_v2(storage, offset, size, stride,
// requires_grad, OrderedDict()), with the storage as a persistent id.
func (p *pickler) tensor(t torch.Tensor) error {
	if !t.Defined() {
		return errors.New("an undefined or freed tensor")
	}
	if p.fetched(t) {
		return nil
	}
	typ, ok := storageTypeName(t.DType())
	if !ok {
		return fmt.Errorf("a tensor of %v, which torch.save has no storage type for", t.DType())
	}
	shape := t.Shape()
	key, numel, offset, stride, err := p.storageOf(t)
	if err != nil {
		return fmt.Errorf("a %v tensor of shape %v: %w", t.DType(), shape, err)
	}
	p.global("torch._utils", "_rebuild_tensor_v2")
	p.op('(', '(')
	_ = p.str("storage")
	p.global("torch", typ)
	_ = p.str(strconv.Itoa(key))
	_ = p.str("cpu")
	p.int(numel)
	p.op('t', 'Q')
	p.int(offset)
	p.op('(')
	for _, s := range shape {
		p.int(s)
	}
	p.op('t', '(')
	for _, s := range stride {
		p.int(s)
	}
	p.op('t')
	if t.RequiresGrad() {
		p.op(0x88)
	} else {
		p.op(0x89)
	}
	p.global("collections", "OrderedDict")
	p.op(')', 'R', 't', 'R')
	p.put(t)
	return nil
}

// tensorBytes copies t's elements to Go: contiguous, little-endian.
func tensorBytes(t torch.Tensor) ([]byte, error) {
	var tmp []torch.Tensor
	defer func() {
		for _, x := range tmp {
			x.Free()
		}
	}()
	x, err := t.TryDetach()
	if err != nil {
		return nil, err
	}
	tmp = append(tmp, x)
	steps := []func(torch.Tensor) (torch.Tensor, error){
		func(x torch.Tensor) (torch.Tensor, error) { return x.TryTo(torch.CPU) },
		func(x torch.Tensor) (torch.Tensor, error) { return x.TryContiguous() },
		func(x torch.Tensor) (torch.Tensor, error) { return x.TryReshape([]int64{-1}) },
		func(x torch.Tensor) (torch.Tensor, error) { return x.TryViewDtype(torch.Uint8) },
	}
	for _, step := range steps {
		if x, err = step(x); err != nil {
			return nil, err
		}
		tmp = append(tmp, x)
	}
	b, err := torch.TryToSlice[uint8](x)
	if err != nil {
		return nil, err
	}
	if hostBigEndian {
		swapBytes(b, t.DType().Size(), t.DType().IsComplex())
	}
	return b, nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// writeZip writes the archive: data.pkl, byteorder, data/KEY for each
// storage and version, each record stored and its data aligned to 64
// bytes as PyTorch aligns them.
func (p *pickler) writeZip(w io.Writer) error {
	cw := &countWriter{w: w}
	zw := zip.NewWriter(cw)
	record := func(name string, data []byte) error {
		if err := zw.Flush(); err != nil {
			return err
		}
		name = "archive/" + name
		const align = 64
		start := cw.n + 30 + int64(len(name)) + 4 // local header, name, padding field's header
		pad := (align - start%align) % align
		extra := make([]byte, 4+pad)
		binary.LittleEndian.PutUint16(extra, 0x4246) // "FB", PyTorch's padding field
		binary.LittleEndian.PutUint16(extra[2:], uint16(pad))
		for i := 4; i < len(extra); i++ {
			extra[i] = 'Z'
		}
		fw, err := zw.CreateRaw(&zip.FileHeader{
			Name: name, Method: zip.Store, Extra: extra,
			CRC32: crc32.ChecksumIEEE(data), CompressedSize64: uint64(len(data)), UncompressedSize64: uint64(len(data)),
		})
		if err != nil {
			return err
		}
		_, err = fw.Write(data)
		return err
	}
	if err := record("data.pkl", p.buf.Bytes()); err != nil {
		return err
	}
	if err := record("byteorder", []byte("little")); err != nil {
		return err
	}
	for i, t := range p.storages {
		b, err := tensorBytes(t)
		if err != nil {
			return fmt.Errorf("storage %d: %w", i, err)
		}
		if err := record(fmt.Sprintf("data/%d", i), b); err != nil {
			return err
		}
	}
	if err := record("version", []byte("3\n")); err != nil {
		return err
	}
	return zw.Close()
}
