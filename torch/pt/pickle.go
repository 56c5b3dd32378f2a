package pt

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The pickle virtual machine. It runs Python's pickle opcodes (protocols
// 0 to 5, less the few that need arbitrary Python objects) over a stack
// of the Python values below, and never calls anything but the
// allow-listed functions of globals.go. Every allocation is bounded by the
// input: a length is checked against the bytes left before anything is
// allocated for it, and the stack, the marks and the memo are capped.

// The Python values the machine builds. Containers are pointers, so that
// Python's identity (one object reachable twice, or from itself) is kept.
type (
	pyList  struct{ items []any }
	pyTuple struct {
		items []any
		hash  string // hashKey's, once computed
	}
	pySet struct {
		items  []any
		index  map[string]bool
		frozen bool
	}
	pyDict struct {
		keys, values []any
		index        map[string]int
		ordered      bool    // a collections.OrderedDict
		attrs        *pyDict // attributes set by BUILD (a state dict's _metadata)
	}
	pyBytes struct {
		b         []byte
		bytearray bool
	}
	// pyGlobal is an allow-listed global (see globals.go).
	pyGlobal struct{ module, name string }
)

func (g pyGlobal) String() string { return g.module + "." + g.name }

// limits bounds what a file may make the loader do.
type limits struct {
	maxStack   int   // items on the stack, all marks together
	maxMemo    int   // memo entries
	maxDepth   int   // nesting of containers in the result
	maxTensors int   // tensors in the result
	maxBytes   int64 // storage bytes read, all storages together (0: the file's size)
}

var defaultLimits = limits{
	maxStack:   1 << 20,
	maxMemo:    1 << 20,
	maxDepth:   1000,
	maxTensors: 100_000,
}

// input reads a pickle from a stream of which at most remaining bytes are
// left.
type input struct {
	r         *bufio.Reader
	pos       int64 // bytes read so far, for error messages
	remaining int64 // bytes that may still be read
}

var errShort = fmt.Errorf("%w: the pickle ends early", ErrInvalid)

func (in *input) byte() (byte, error) {
	if in.remaining <= 0 {
		return 0, errShort
	}
	c, err := in.r.ReadByte()
	if err != nil {
		return 0, errShort
	}
	in.pos++
	in.remaining--
	return c, nil
}

// bytes reads n bytes, refusing a length longer than what is left before
// allocating for it.
func (in *input) bytes(n uint64) ([]byte, error) {
	if n > uint64(in.remaining) {
		return nil, fmt.Errorf("%w: a length of %d bytes, but only %d are left", ErrInvalid, n, in.remaining)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(in.r, b); err != nil {
		return nil, errShort
	}
	in.pos += int64(n)
	in.remaining -= int64(n)
	return b, nil
}

// line reads up to a newline (not returned), at most max bytes.
func (in *input) line(max int) (string, error) {
	var sb strings.Builder
	for {
		c, err := in.byte()
		if err != nil {
			return "", err
		}
		if c == '\n' {
			return sb.String(), nil
		}
		if sb.Len() >= max {
			return "", fmt.Errorf("%w: a text argument longer than %d bytes", ErrInvalid, max)
		}
		sb.WriteByte(c)
	}
}

func (in *input) uint(n int) (uint64, error) {
	b, err := in.bytes(uint64(n))
	if err != nil {
		return 0, err
	}
	var buf [8]byte
	copy(buf[:], b)
	return binary.LittleEndian.Uint64(buf[:]), nil
}

// machine is one run of the pickle VM.
type machine struct {
	in      *input
	lim     limits
	stack   []any
	marks   []int
	memo    map[uint64]any
	persist func(pid any) (any, error) // BINPERSID and PERSID; nil refuses them
}

func newInput(r io.Reader, size int64) *input {
	return &input{r: bufio.NewReader(r), remaining: size}
}

// newMachine starts a run over in, which consecutive pickles may share.
func newMachine(in *input, lim limits, persist func(any) (any, error)) *machine {
	return &machine{in: in, lim: lim, memo: map[uint64]any{}, persist: persist}
}

// unpickle runs a single pickle (up to its STOP) and returns its value.
func unpickle(m *machine) (any, error) {
	for {
		at := m.in.pos
		op, err := m.in.byte()
		if err != nil {
			return nil, fmt.Errorf("at byte %d: %w", at, err)
		}
		done, err := m.step(op)
		if err != nil {
			name := opNames[op]
			if name == "" {
				name = "unknown"
			}
			return nil, fmt.Errorf("at byte %d, opcode 0x%02x (%s): %w", at, op, name, err)
		}
		if done {
			if len(m.stack) != 1 || len(m.marks) != 0 {
				return nil, fmt.Errorf("at byte %d: %w: STOP with %d values and %d marks on the stack, want 1 and 0", at, ErrInvalid, len(m.stack), len(m.marks))
			}
			return m.stack[0], nil
		}
	}
}

var opNames = map[byte]string{
	'(': "MARK", '.': "STOP", '0': "POP", '1': "POP_MARK", '2': "DUP", 'F': "FLOAT",
	'I': "INT", 'J': "BININT", 'K': "BININT1", 'L': "LONG", 'M': "BININT2", 'N': "NONE",
	'P': "PERSID", 'Q': "BINPERSID", 'R': "REDUCE", 'S': "STRING", 'T': "BINSTRING",
	'U': "SHORT_BINSTRING", 'V': "UNICODE", 'X': "BINUNICODE", 'a': "APPEND", 'b': "BUILD",
	'c': "GLOBAL", 'd': "DICT", '}': "EMPTY_DICT", 'e': "APPENDS", 'g': "GET", 'h': "BINGET",
	'i': "INST", 'j': "LONG_BINGET", 'l': "LIST", ']': "EMPTY_LIST", 'o': "OBJ", 'p': "PUT",
	'q': "BINPUT", 'r': "LONG_BINPUT", 's': "SETITEM", 't': "TUPLE", ')': "EMPTY_TUPLE",
	'u': "SETITEMS", 'G': "BINFLOAT", 0x80: "PROTO", 0x81: "NEWOBJ", 0x82: "EXT1",
	0x83: "EXT2", 0x84: "EXT4", 0x85: "TUPLE1", 0x86: "TUPLE2", 0x87: "TUPLE3",
	0x88: "NEWTRUE", 0x89: "NEWFALSE", 0x8a: "LONG1", 0x8b: "LONG4", 'B': "BINBYTES",
	'C': "SHORT_BINBYTES", 0x8c: "SHORT_BINUNICODE", 0x8d: "BINUNICODE8", 0x8e: "BINBYTES8",
	0x8f: "EMPTY_SET", 0x90: "ADDITEMS", 0x91: "FROZENSET", 0x92: "NEWOBJ_EX",
	0x93: "STACK_GLOBAL", 0x94: "MEMOIZE", 0x95: "FRAME", 0x96: "BYTEARRAY8",
	0x97: "NEXT_BUFFER", 0x98: "READONLY_BUFFER",
}

func (m *machine) push(v any) error {
	if len(m.stack) >= m.lim.maxStack {
		return fmt.Errorf("%w: more than %d values on the stack", ErrLimit, m.lim.maxStack)
	}
	m.stack = append(m.stack, v)
	return nil
}

func (m *machine) pop() (any, error) {
	base := 0
	if len(m.marks) > 0 {
		base = m.marks[len(m.marks)-1]
	}
	if len(m.stack) <= base {
		return nil, fmt.Errorf("%w: pop from an empty stack", ErrInvalid)
	}
	v := m.stack[len(m.stack)-1]
	m.stack[len(m.stack)-1] = nil
	m.stack = m.stack[:len(m.stack)-1]
	return v, nil
}

func (m *machine) top() (any, error) {
	base := 0
	if len(m.marks) > 0 {
		base = m.marks[len(m.marks)-1]
	}
	if len(m.stack) <= base {
		return nil, fmt.Errorf("%w: the stack is empty", ErrInvalid)
	}
	return m.stack[len(m.stack)-1], nil
}

// popMark pops the values above the last mark, and the mark.
func (m *machine) popMark() ([]any, error) {
	if len(m.marks) == 0 {
		return nil, fmt.Errorf("%w: no mark on the stack", ErrInvalid)
	}
	k := m.marks[len(m.marks)-1]
	m.marks = m.marks[:len(m.marks)-1]
	items := append([]any(nil), m.stack[k:]...)
	clear(m.stack[k:])
	m.stack = m.stack[:k]
	return items, nil
}

func (m *machine) popN(n int) ([]any, error) {
	out := make([]any, n)
	for i := n - 1; i >= 0; i-- {
		v, err := m.pop()
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func (m *machine) put(i uint64, v any) error {
	if _, ok := m.memo[i]; !ok && len(m.memo) >= m.lim.maxMemo {
		return fmt.Errorf("%w: more than %d memo entries", ErrLimit, m.lim.maxMemo)
	}
	// Every pickler (Python's, libtorch's, this package's) numbers its memo
	// entries 0, 1, 2, ... as it stores them. A file that does not was
	// changed: in a legacy file, which has no checksum, a flipped memo
	// index would otherwise make a later GET fetch another object.
	if i != uint64(len(m.memo)) {
		return fmt.Errorf("%w: memo index %d stored out of order (the next is %d; picklers number them in order)", ErrInvalid, i, len(m.memo))
	}
	m.memo[i] = v
	return nil
}

func (m *machine) get(i uint64) error {
	v, ok := m.memo[i]
	if !ok {
		return fmt.Errorf("%w: memo entry %d was never stored", ErrInvalid, i)
	}
	return m.push(v)
}

// step runs one opcode; done is true after STOP.
func (m *machine) step(op byte) (done bool, err error) {
	in := m.in
	switch op {
	case 0x80: // PROTO
		p, err := in.byte()
		if err != nil {
			return false, err
		}
		if p > 5 {
			return false, fmt.Errorf("%w: pickle protocol %d (at most 5 is known)", ErrUnsupported, p)
		}
	case 0x95: // FRAME: only a hint for buffering
		n, err := in.uint(8)
		if err != nil {
			return false, err
		}
		if n > uint64(in.remaining) {
			return false, fmt.Errorf("%w: a frame of %d bytes, but only %d are left", ErrInvalid, n, in.remaining)
		}
	case '.':
		return true, nil
	case '(':
		if len(m.marks) >= m.lim.maxStack {
			return false, fmt.Errorf("%w: more than %d marks", ErrLimit, m.lim.maxStack)
		}
		m.marks = append(m.marks, len(m.stack))
	case '0':
		if len(m.marks) == 0 || m.marks[len(m.marks)-1] < len(m.stack) {
			_, err = m.pop()
		} else {
			_, err = m.popMark() // pickle.py's POP also drops a bare mark
		}
	case '1':
		_, err = m.popMark()
	case '2':
		v, err := m.top()
		if err != nil {
			return false, err
		}
		return false, m.push(v)

	// Scalars.
	case 'N':
		return false, m.push(nil)
	case 0x88:
		return false, m.push(true)
	case 0x89:
		return false, m.push(false)
	case 'J':
		v, err := in.uint(4)
		if err != nil {
			return false, err
		}
		return false, m.push(int64(int32(uint32(v))))
	case 'K':
		v, err := in.uint(1)
		if err != nil {
			return false, err
		}
		return false, m.push(int64(v))
	case 'M':
		v, err := in.uint(2)
		if err != nil {
			return false, err
		}
		return false, m.push(int64(v))
	case 0x8a, 0x8b: // LONG1, LONG4
		size := 1
		if op == 0x8b {
			size = 4
		}
		n, err := in.uint(size)
		if err != nil {
			return false, err
		}
		if n > maxLongBytes {
			return false, fmt.Errorf("%w: an integer of %d bytes (at most %d)", ErrLimit, n, maxLongBytes)
		}
		b, err := in.bytes(n)
		if err != nil {
			return false, err
		}
		return false, m.push(decodeLong(b))
	case 'I', 'L': // INT, LONG: decimal text
		s, err := in.line(maxLongBytes)
		if err != nil {
			return false, err
		}
		v, err := parseTextInt(s, op == 'I')
		if err != nil {
			return false, err
		}
		return false, m.push(v)
	case 'G':
		b, err := in.bytes(8) // big-endian, unlike every other number
		if err != nil {
			return false, err
		}
		return false, m.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
	case 'F':
		s, err := in.line(64)
		if err != nil {
			return false, err
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return false, fmt.Errorf("%w: bad FLOAT %q", ErrInvalid, s)
		}
		return false, m.push(f)

	// Strings and bytes.
	case 'X', 0x8c, 0x8d: // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8
		size := map[byte]int{'X': 4, 0x8c: 1, 0x8d: 8}[op]
		n, err := in.uint(size)
		if err != nil {
			return false, err
		}
		b, err := in.bytes(n)
		if err != nil {
			return false, err
		}
		// Python's unpickler decodes a str as strict UTF-8, and so refuses
		// a changed byte that breaks it.
		if !utf8.Valid(b) {
			return false, fmt.Errorf("%w: a str that is not UTF-8: %q", ErrInvalid, b)
		}
		return false, m.push(string(b))
	case 'T', 'U', 'B', 'C', 0x8e, 0x96: // BINSTRING, SHORT_BINSTRING, BINBYTES, SHORT_BINBYTES, BINBYTES8, BYTEARRAY8
		size := map[byte]int{'T': 4, 'U': 1, 'B': 4, 'C': 1, 0x8e: 8, 0x96: 8}[op]
		n, err := in.uint(size)
		if err != nil {
			return false, err
		}
		if op == 'T' && int32(uint32(n)) < 0 {
			return false, fmt.Errorf("%w: negative BINSTRING length", ErrInvalid)
		}
		b, err := in.bytes(n)
		if err != nil {
			return false, err
		}
		if op == 'T' || op == 'U' { // Python 2 str: decoded as ASCII by default
			return false, m.push(string(b))
		}
		return false, m.push(&pyBytes{b: b, bytearray: op == 0x96})

	// Containers.
	case ')':
		return false, m.push(&pyTuple{})
	case 0x85, 0x86, 0x87:
		items, err := m.popN(int(op - 0x84))
		if err != nil {
			return false, err
		}
		return false, m.push(&pyTuple{items: items})
	case 't':
		items, err := m.popMark()
		if err != nil {
			return false, err
		}
		return false, m.push(&pyTuple{items: items})
	case ']':
		return false, m.push(&pyList{})
	case 'l':
		items, err := m.popMark()
		if err != nil {
			return false, err
		}
		return false, m.push(&pyList{items})
	case 'a', 'e':
		var items []any
		if op == 'a' {
			items, err = m.popN(1)
		} else {
			items, err = m.popMark()
		}
		if err != nil {
			return false, err
		}
		t, err := m.top()
		if err != nil {
			return false, err
		}
		l, ok := t.(*pyList)
		if !ok {
			return false, fmt.Errorf("%w: append to %s, not a list", ErrInvalid, typeName(t))
		}
		l.items = append(l.items, items...)
	case '}':
		return false, m.push(&pyDict{})
	case 'd':
		items, err := m.popMark()
		if err != nil {
			return false, err
		}
		d := &pyDict{}
		if err := d.setItems(items); err != nil {
			return false, err
		}
		return false, m.push(d)
	case 's', 'u':
		var items []any
		if op == 's' {
			items, err = m.popN(2)
		} else {
			items, err = m.popMark()
		}
		if err != nil {
			return false, err
		}
		t, err := m.top()
		if err != nil {
			return false, err
		}
		d, ok := t.(*pyDict)
		if !ok {
			return false, fmt.Errorf("%w: set an item of %s, not a dict", ErrInvalid, typeName(t))
		}
		return false, d.setItems(items)
	case 0x8f:
		return false, m.push(&pySet{})
	case 0x90:
		items, err := m.popMark()
		if err != nil {
			return false, err
		}
		t, err := m.top()
		if err != nil {
			return false, err
		}
		s, ok := t.(*pySet)
		if !ok || s.frozen {
			return false, fmt.Errorf("%w: add items to %s, not a set", ErrInvalid, typeName(t))
		}
		return false, s.add(items)
	case 0x91:
		items, err := m.popMark()
		if err != nil {
			return false, err
		}
		s := &pySet{frozen: true}
		if err := s.add(items); err != nil {
			return false, err
		}
		return false, m.push(s)

	// The memo.
	case 'q', 'r':
		n, err := in.uint(map[byte]int{'q': 1, 'r': 4}[op])
		if err != nil {
			return false, err
		}
		v, err := m.top()
		if err != nil {
			return false, err
		}
		return false, m.put(n, v)
	case 'p':
		s, err := in.line(20)
		if err != nil {
			return false, err
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return false, fmt.Errorf("%w: bad PUT index %q", ErrInvalid, s)
		}
		v, err := m.top()
		if err != nil {
			return false, err
		}
		return false, m.put(n, v)
	case 0x94:
		v, err := m.top()
		if err != nil {
			return false, err
		}
		return false, m.put(uint64(len(m.memo)), v)
	case 'h', 'j':
		n, err := in.uint(map[byte]int{'h': 1, 'j': 4}[op])
		if err != nil {
			return false, err
		}
		return false, m.get(n)
	case 'g':
		s, err := in.line(20)
		if err != nil {
			return false, err
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return false, fmt.Errorf("%w: bad GET index %q", ErrInvalid, s)
		}
		return false, m.get(n)

	// Globals, calls and persistent ids.
	case 'c':
		mod, err := in.line(maxNameBytes)
		if err != nil {
			return false, err
		}
		name, err := in.line(maxNameBytes)
		if err != nil {
			return false, err
		}
		g, err := lookupGlobal(mod, name)
		if err != nil {
			return false, err
		}
		return false, m.push(g)
	case 0x93:
		args, err := m.popN(2)
		if err != nil {
			return false, err
		}
		mod, ok1 := args[0].(string)
		name, ok2 := args[1].(string)
		if !ok1 || !ok2 {
			return false, fmt.Errorf("%w: STACK_GLOBAL of %s and %s, not strings", ErrInvalid, typeName(args[0]), typeName(args[1]))
		}
		g, err := lookupGlobal(mod, name)
		if err != nil {
			return false, err
		}
		return false, m.push(g)
	case 'R':
		args, err := m.popN(2)
		if err != nil {
			return false, err
		}
		t, ok := args[1].(*pyTuple)
		if !ok {
			return false, fmt.Errorf("%w: REDUCE with %s arguments, not a tuple", ErrInvalid, typeName(args[1]))
		}
		v, err := call(args[0], t.items)
		if err != nil {
			return false, err
		}
		return false, m.push(v)
	case 'b':
		args, err := m.popN(1)
		if err != nil {
			return false, err
		}
		t, err := m.top()
		if err != nil {
			return false, err
		}
		return false, build(t, args[0])
	case 'Q', 'P':
		var pid any
		if op == 'Q' {
			if pid, err = m.pop(); err != nil {
				return false, err
			}
		} else {
			if pid, err = in.line(maxNameBytes); err != nil {
				return false, err
			}
		}
		if m.persist == nil {
			return false, fmt.Errorf("%w: a persistent id where none is expected", ErrInvalid)
		}
		v, err := m.persist(pid)
		if err != nil {
			return false, err
		}
		return false, m.push(v)

	case 'S', 'V', 'i', 'o', 0x81, 0x92, 0x82, 0x83, 0x84, 0x97, 0x98:
		return false, fmt.Errorf("%w: opcode %s, which torch.save does not write and this reader does not run", ErrUnsupported, opNames[op])
	default:
		return false, fmt.Errorf("%w: unknown opcode 0x%02x", ErrInvalid, op)
	}
	return false, err
}

const (
	maxLongBytes = 1 << 12 // the longest integer, in bytes (or decimal digits)
	maxNameBytes = 1 << 10 // the longest module or global name
	maxKeyBytes  = 1 << 16 // the longest tuple as a dict key, hashed
)

// decodeLong decodes a little-endian two's-complement integer: an int64
// when it fits, a *big.Int otherwise.
func decodeLong(b []byte) any {
	if len(b) == 0 {
		return int64(0)
	}
	if len(b) <= 8 {
		var v uint64
		for i := len(b) - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		shift := 64 - 8*uint(len(b))
		return int64(v<<shift) >> shift
	}
	be := make([]byte, len(b))
	for i := range b {
		be[len(b)-1-i] = b[i]
	}
	v := new(big.Int).SetBytes(be)
	if b[len(b)-1]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return normInt(v)
}

// normInt returns v as an int64 when it fits.
func normInt(v *big.Int) any {
	if v.IsInt64() {
		return v.Int64()
	}
	return v
}

func parseTextInt(s string, intOp bool) (any, error) {
	if intOp && s == "00" {
		return false, nil
	}
	if intOp && s == "01" {
		return true, nil
	}
	s = strings.TrimSuffix(s, "L")
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, fmt.Errorf("%w: bad integer %q", ErrInvalid, s)
	}
	return normInt(v), nil
}

// hashKey returns a string that is equal for Python values that are equal
// as dict keys (1, 1.0 and True are one key), or an error for unhashable
// values.
func hashKey(v any) (string, error) { return hashKeyDepth(v, 0) }

func hashKeyDepth(v any, depth int) (string, error) {
	if depth > 100 {
		return "", fmt.Errorf("%w: a dict key nested more than 100 deep", ErrLimit)
	}
	switch v := v.(type) {
	case nil:
		return "N", nil
	case bool:
		if v {
			return "i1", nil
		}
		return "i0", nil
	case int64:
		return "i" + strconv.FormatInt(v, 10), nil
	case *big.Int:
		return "i" + v.String(), nil
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<63 {
			return "i" + strconv.FormatInt(int64(v), 10), nil
		}
		return "f" + strconv.FormatFloat(v, 'g', -1, 64), nil
	case string:
		return "s" + v, nil
	case *pyBytes:
		if !v.bytearray {
			return "b" + string(v.b), nil
		}
	case *pyTuple:
		if v.hash != "" {
			return v.hash, nil
		}
		var sb strings.Builder
		sb.WriteString("t(")
		for _, x := range v.items {
			k, err := hashKeyDepth(x, depth+1)
			if err != nil {
				return "", err
			}
			sb.WriteString(strconv.Itoa(len(k)))
			sb.WriteByte(':')
			sb.WriteString(k)
			// A tuple that holds one tuple twice, nested, doubles its
			// key at each level: bound it.
			if sb.Len() > maxKeyBytes {
				return "", fmt.Errorf("%w: a tuple as a dict key or set item longer than %d bytes", ErrLimit, maxKeyBytes)
			}
		}
		sb.WriteByte(')')
		v.hash = sb.String()
		return v.hash, nil
	case pyGlobal:
		return "g" + v.String(), nil
	case complex128:
		return "c" + strconv.FormatComplex(v, 'g', -1, 128), nil
	}
	return "", fmt.Errorf("%w: unhashable %s as a dict key or set item", ErrInvalid, typeName(v))
}

func (d *pyDict) setItems(items []any) error {
	if len(items)%2 != 0 {
		return fmt.Errorf("%w: an odd number (%d) of values for dict items", ErrInvalid, len(items))
	}
	if d.index == nil {
		d.index = map[string]int{}
	}
	for i := 0; i < len(items); i += 2 {
		k, err := hashKey(items[i])
		if err != nil {
			return err
		}
		if j, ok := d.index[k]; ok {
			d.values[j] = items[i+1]
			continue
		}
		d.index[k] = len(d.keys)
		d.keys = append(d.keys, items[i])
		d.values = append(d.values, items[i+1])
	}
	return nil
}

func (s *pySet) add(items []any) error {
	if s.index == nil {
		s.index = map[string]bool{}
	}
	for _, x := range items {
		k, err := hashKey(x)
		if err != nil {
			return err
		}
		if !s.index[k] {
			s.index[k] = true
			s.items = append(s.items, x)
		}
	}
	return nil
}

// typeName names a machine value's Python type, for error messages.
func typeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case complex128:
		return "complex"
	case string:
		return "str"
	case *pyBytes:
		if v.bytearray {
			return "bytearray"
		}
		return "bytes"
	case *pyList:
		return "list"
	case *pyTuple:
		return "tuple"
	case *pyDict:
		if v.ordered {
			return "collections.OrderedDict"
		}
		return "dict"
	case *pySet:
		if v.frozen {
			return "frozenset"
		}
		return "set"
	case pyGlobal:
		return v.String()
	case *storageRef:
		return "torch." + v.typ + " (a storage)"
	case *tensorRef:
		return "torch.Tensor"
	}
	return fmt.Sprintf("%T", v)
}
