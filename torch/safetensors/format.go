// Package safetensors reads and writes Hugging Face's safetensors format in
// pure Go, and converts between its tensors and GoTorch's.
//
// A safetensors file is
//
//	N         8 bytes, little-endian unsigned: the size of the header
//	header    N bytes of UTF-8 JSON, maybe padded at the end with spaces:
//	          {"NAME": {"dtype": "F32", "shape": [2, 3], "data_offsets": [BEGIN, END]},
//	           ..., "__metadata__": {"key": "value", ...}}
//	data      the tensors' bytes, each tensor row-major and little-endian at
//	          [BEGIN, END) of this buffer
//
// The reader is strict: the tensors must tile the data buffer exactly (no
// gaps, no overlaps, nothing after the last one), each tensor's byte length
// must be its shape's element count times its dtype's size, keys must not
// repeat, and so on. Every problem is reported as a *FormatError that names
// the file and what is wrong; bad input never panics.
//
// The writer emits the header with sorted keys, "__metadata__" first,
// padded with spaces to a multiple of 8 bytes, and lays the data out by
// decreasing element size, then name, so that every tensor is aligned to
// its element size within the file (as the Rust and Python writers do).
package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DType is a safetensors element type, as it is spelled in the header.
type DType string

// The element types of the format. Only some have a libtorch 1.13
// counterpart (see DType.Torch); the others can still be parsed and
// re-encoded as raw bytes.
const (
	BOOL    DType = "BOOL"
	U8      DType = "U8"
	I8      DType = "I8"
	F8E5M2  DType = "F8_E5M2"
	F8E4M3  DType = "F8_E4M3"
	I16     DType = "I16"
	U16     DType = "U16"
	F16     DType = "F16"
	BF16    DType = "BF16"
	I32     DType = "I32"
	U32     DType = "U32"
	F32     DType = "F32"
	F64     DType = "F64"
	I64     DType = "I64"
	U64     DType = "U64"
	C64     DType = "C64"
	unknown DType = ""
)

var dtypeSizes = map[DType]int{
	BOOL: 1, U8: 1, I8: 1, F8E5M2: 1, F8E4M3: 1,
	I16: 2, U16: 2, F16: 2, BF16: 2,
	I32: 4, U32: 4, F32: 4,
	F64: 8, I64: 8, U64: 8, C64: 8,
}

// Size is the size of one element in bytes, 0 for an unknown dtype.
func (d DType) Size() int { return dtypeSizes[d] }

// Valid reports whether d is a dtype of the format.
func (d DType) Valid() bool { return d.Size() > 0 }

// MaxHeaderSize bounds the JSON header, as the reference implementation
// does, so that a corrupt length cannot make the reader allocate wildly.
const MaxHeaderSize = 100_000_000

// metadataKey is the reserved header key of the string-to-string metadata.
const metadataKey = "__metadata__"

// ErrInvalid is the cause of every *FormatError: errors.Is(err,
// safetensors.ErrInvalid) tells a corrupt file from an I/O error.
var ErrInvalid = errors.New("invalid safetensors data")

// FormatError reports a malformed file.
type FormatError struct {
	File    string // the file's path; empty for in-memory data
	Problem string
}

func (e *FormatError) Error() string {
	if e.File == "" {
		return "safetensors: " + e.Problem
	}
	return "safetensors: " + e.File + ": " + e.Problem
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *FormatError) Is(target error) bool { return target == ErrInvalid }

func formatErr(format string, args ...any) error {
	return &FormatError{Problem: fmt.Sprintf(format, args...)}
}

// withFile sets the file name of a *FormatError; other errors get it as a
// prefix.
func withFile(err error, file string) error {
	if err == nil {
		return nil
	}
	var fe *FormatError
	if errors.As(err, &fe) {
		if fe.File == "" {
			return &FormatError{File: file, Problem: fe.Problem}
		}
		return err
	}
	return fmt.Errorf("safetensors: %s: %w", file, err)
}

// TensorInfo describes one tensor of a file.
type TensorInfo struct {
	Name        string
	DType       DType
	Shape       []int64
	DataOffsets [2]int64 // [begin, end) in the data buffer
}

// NumBytes is the length of the tensor's data.
func (ti TensorInfo) NumBytes() int64 { return ti.DataOffsets[1] - ti.DataOffsets[0] }

// NumElements is the number of elements (1 for a scalar).
func (ti TensorInfo) NumElements() int64 {
	n := int64(1)
	for _, s := range ti.Shape {
		n *= s
	}
	return n
}

// Header is a file's parsed and validated header.
type Header struct {
	Tensors  []TensorInfo      // in data-buffer order (by offset, then name)
	Metadata map[string]string // nil when the file has no __metadata__
	// DataStart is the file offset of the data buffer: 8 + the header's
	// length.
	DataStart int64
	// DataSize is the length of the data buffer.
	DataSize int64
}

// Lookup returns the tensor named name.
func (h *Header) Lookup(name string) (TensorInfo, bool) {
	for _, ti := range h.Tensors {
		if ti.Name == name {
			return ti, true
		}
	}
	return TensorInfo{}, false
}

// Names returns the tensor names, sorted.
func (h *Header) Names() []string {
	out := make([]string, len(h.Tensors))
	for i, ti := range h.Tensors {
		out[i] = ti.Name
	}
	sort.Strings(out)
	return out
}

// File is an in-memory safetensors file.
type File struct {
	Header
	Data []byte // the data buffer
}

// Bytes returns the data of the tensor named name (a sub-slice of f.Data).
func (f *File) Bytes(name string) ([]byte, bool) {
	ti, ok := f.Lookup(name)
	if !ok {
		return nil, false
	}
	return f.Data[ti.DataOffsets[0]:ti.DataOffsets[1]], true
}

// Parse parses and validates a whole file held in memory. f.Data aliases
// data.
func Parse(data []byte) (*File, error) {
	n, err := headerLength(data[:min(len(data), 8)], int64(len(data)))
	if err != nil {
		return nil, err
	}
	h, err := parseHeader(data[8:8+n], int64(len(data))-8-n)
	if err != nil {
		return nil, err
	}
	f := &File{Header: *h, Data: data[8+n:]}
	for _, ti := range f.Tensors {
		if err := checkData(ti, f.Data[ti.DataOffsets[0]:ti.DataOffsets[1]]); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// ReadHeader reads and validates the header of a file of size bytes
// through r.
func ReadHeader(r io.ReaderAt, size int64) (*Header, error) {
	var prefix [8]byte
	k, err := r.ReadAt(prefix[:max(0, min(size, 8))], 0)
	if err != nil && !(err == io.EOF && int64(k) == min(size, 8)) {
		if err == io.EOF {
			return nil, formatErr("file truncated while reading the header length")
		}
		return nil, err
	}
	n, err := headerLength(prefix[:k], size)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	if k, err := r.ReadAt(buf, 8); err != nil && !(err == io.EOF && int64(k) == n) {
		if err == io.EOF {
			return nil, formatErr("file truncated while reading the %d-byte header", n)
		}
		return nil, err
	}
	return parseHeader(buf, size-8-n)
}

// headerLength decodes and checks the length prefix of a file of size
// bytes, of which prefix holds the first (up to) 8.
func headerLength(prefix []byte, size int64) (int64, error) {
	switch {
	case size == 0:
		return 0, formatErr("empty file")
	case size < 8:
		return 0, formatErr("file is %d bytes, too short to hold the 8-byte header length", size)
	}
	u := binary.LittleEndian.Uint64(prefix)
	switch {
	case u == 0:
		return 0, formatErr("header length is 0")
	case u > uint64(size-8):
		return 0, formatErr("header length %d exceeds the %d bytes that follow it (truncated or not a safetensors file)", u, size-8)
	case u > MaxHeaderSize:
		return 0, formatErr("header length %d exceeds the limit of %d bytes", u, MaxHeaderSize)
	}
	return int64(u), nil
}

// parseHeader parses the JSON header and checks it against a data buffer
// of dataSize bytes.
func parseHeader(b []byte, dataSize int64) (*Header, error) {
	if !utf8.Valid(b) {
		return nil, formatErr("header is not valid UTF-8")
	}
	if len(b) == 0 || b[0] != '{' {
		return nil, formatErr("header does not start with '{': %s", snippet(b))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	h := &Header{DataStart: 8 + int64(len(b)), DataSize: dataSize}
	if err := expectDelim(dec, '{', "header"); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for dec.More() {
		key, err := stringToken(dec, "header key")
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, formatErr("duplicate key %q in header", key)
		}
		seen[key] = true
		if key == metadataKey {
			if h.Metadata, err = parseMetadata(dec); err != nil {
				return nil, err
			}
			continue
		}
		ti, err := parseTensorInfo(dec, key)
		if err != nil {
			return nil, err
		}
		h.Tensors = append(h.Tensors, ti)
	}
	if err := expectDelim(dec, '}', "header"); err != nil {
		return nil, err
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, formatErr("invalid JSON after the header object: %v", err)
		}
		return nil, formatErr("unexpected %s after the header object", describe(tok))
	}
	if err := validateLayout(h); err != nil {
		return nil, err
	}
	return h, nil
}

func snippet(b []byte) string {
	if len(b) > 32 {
		return strconv.Quote(string(b[:32])) + "…"
	}
	return strconv.Quote(string(b))
}

// jsonErr turns a decoder error into a FormatError.
func jsonErr(err error, what string) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return formatErr("invalid JSON header: unexpected end while reading %s", what)
	}
	return formatErr("invalid JSON header while reading %s: %v", what, err)
}

func expectDelim(dec *json.Decoder, d json.Delim, what string) error {
	tok, err := dec.Token()
	if err != nil {
		return jsonErr(err, what)
	}
	if tok != d {
		return formatErr("invalid header: %s: expected %q, found %s", what, string(d), describe(tok))
	}
	return nil
}

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		return strconv.Quote(string(v))
	case string:
		return "string " + strconv.Quote(v)
	case json.Number:
		return "number " + string(v)
	case bool:
		return fmt.Sprintf("boolean %v", v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", tok)
}

func stringToken(dec *json.Decoder, what string) (string, error) {
	tok, err := dec.Token()
	if err != nil {
		return "", jsonErr(err, what)
	}
	s, ok := tok.(string)
	if !ok {
		return "", formatErr("invalid header: %s: expected a string, found %s", what, describe(tok))
	}
	return s, nil
}

func parseMetadata(dec *json.Decoder) (map[string]string, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonErr(err, metadataKey)
	}
	if tok == nil { // "__metadata__": null, as Python writes for no metadata
		return nil, nil
	}
	if tok != json.Delim('{') {
		return nil, formatErr("invalid header: %s must be an object of strings, found %s", metadataKey, describe(tok))
	}
	md := map[string]string{}
	for dec.More() {
		k, err := stringToken(dec, metadataKey+" key")
		if err != nil {
			return nil, err
		}
		if _, dup := md[k]; dup {
			return nil, formatErr("duplicate key %q in %s", k, metadataKey)
		}
		v, err := stringToken(dec, fmt.Sprintf("%s[%q]", metadataKey, k))
		if err != nil {
			return nil, err
		}
		md[k] = v
	}
	if err := expectDelim(dec, '}', metadataKey); err != nil {
		return nil, err
	}
	return md, nil
}

func parseTensorInfo(dec *json.Decoder, name string) (TensorInfo, error) {
	ti := TensorInfo{Name: name}
	what := fmt.Sprintf("tensor %q", name)
	if err := expectDelim(dec, '{', what); err != nil {
		return ti, err
	}
	seen := map[string]bool{}
	for dec.More() {
		field, err := stringToken(dec, what+" field name")
		if err != nil {
			return ti, err
		}
		if seen[field] {
			return ti, formatErr("tensor %q: duplicate field %q", name, field)
		}
		seen[field] = true
		switch field {
		case "dtype":
			s, err := stringToken(dec, what+" dtype")
			if err != nil {
				return ti, err
			}
			ti.DType = DType(s)
			if !ti.DType.Valid() {
				return ti, formatErr("tensor %q: unknown dtype %q", name, s)
			}
		case "shape":
			ti.Shape, err = intArray(dec, name, "shape", -1)
			if err != nil {
				return ti, err
			}
			if ti.Shape == nil {
				ti.Shape = []int64{}
			}
		case "data_offsets":
			offs, err := intArray(dec, name, "data_offsets", 2)
			if err != nil {
				return ti, err
			}
			ti.DataOffsets = [2]int64{offs[0], offs[1]}
		default:
			return ti, formatErr("tensor %q: unknown field %q", name, field)
		}
	}
	if err := expectDelim(dec, '}', what); err != nil {
		return ti, err
	}
	for _, f := range []string{"dtype", "shape", "data_offsets"} {
		if !seen[f] {
			return ti, formatErr("tensor %q: missing field %q", name, f)
		}
	}
	return ti, nil
}

// intArray reads an array of non-negative integers; want >= 0 fixes its
// length.
func intArray(dec *json.Decoder, name, field string, want int) ([]int64, error) {
	what := fmt.Sprintf("tensor %q %s", name, field)
	if err := expectDelim(dec, '[', what); err != nil {
		return nil, err
	}
	var out []int64
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonErr(err, what)
		}
		num, ok := tok.(json.Number)
		if !ok {
			return nil, formatErr("tensor %q: %s: expected an integer, found %s", name, field, describe(tok))
		}
		v, err := strconv.ParseInt(string(num), 10, 64)
		if err != nil {
			if strings.HasPrefix(string(num), "-") && strings.IndexAny(string(num), ".eE") < 0 {
				return nil, formatErr("tensor %q: %s: negative value %s", name, field, num)
			}
			return nil, formatErr("tensor %q: %s: %s is not a 64-bit integer", name, field, num)
		}
		if v < 0 {
			if field == "shape" {
				return nil, formatErr("tensor %q: negative size %d in shape", name, v)
			}
			return nil, formatErr("tensor %q: negative value %d in %s", name, v, field)
		}
		out = append(out, v)
	}
	if err := expectDelim(dec, ']', what); err != nil {
		return nil, err
	}
	if want >= 0 && len(out) != want {
		return nil, formatErr("tensor %q: %s has %d values, want %d", name, field, len(out), want)
	}
	return out, nil
}

// validateLayout checks each tensor's byte length against its shape and
// dtype, and that the tensors tile the data buffer exactly. It sorts
// h.Tensors into buffer order.
func validateLayout(h *Header) error {
	for _, ti := range h.Tensors {
		if err := checkSize(ti); err != nil {
			return err
		}
	}
	sort.Slice(h.Tensors, func(i, j int) bool {
		a, b := h.Tensors[i], h.Tensors[j]
		if a.DataOffsets[0] != b.DataOffsets[0] {
			return a.DataOffsets[0] < b.DataOffsets[0]
		}
		if a.DataOffsets[1] != b.DataOffsets[1] {
			return a.DataOffsets[1] < b.DataOffsets[1]
		}
		return a.Name < b.Name
	})
	pos := int64(0)
	prev := ""
	for _, ti := range h.Tensors {
		begin, end := ti.DataOffsets[0], ti.DataOffsets[1]
		switch {
		case end > h.DataSize:
			return formatErr("tensor %q: data_offsets [%d %d] out of range: the data buffer has %d bytes (truncated file?)", ti.Name, begin, end, h.DataSize)
		case begin < pos:
			return formatErr("tensor %q: data_offsets [%d %d] overlap those of tensor %q, which end at %d", ti.Name, begin, end, prev, pos)
		case begin > pos:
			return formatErr("bytes [%d %d) of the data buffer belong to no tensor (gap before tensor %q)", pos, begin, ti.Name)
		}
		pos, prev = end, ti.Name
	}
	if pos != h.DataSize {
		return formatErr("bytes [%d %d) at the end of the data buffer belong to no tensor", pos, h.DataSize)
	}
	return nil
}

// checkSize checks that a tensor's data_offsets hold exactly its shape.
func checkSize(ti TensorInfo) error {
	begin, end := ti.DataOffsets[0], ti.DataOffsets[1]
	if end < begin {
		return formatErr("tensor %q: data_offsets [%d %d] end before they begin", ti.Name, begin, end)
	}
	// The product of the non-zero sizes must fit, whatever the order of the
	// dimensions, and so must the byte count.
	n, zero := uint64(1), false
	for _, s := range ti.Shape {
		if s == 0 {
			zero = true
			continue
		}
		hi, lo := bits.Mul64(n, uint64(s))
		if hi != 0 || lo > math.MaxInt64 {
			return formatErr("tensor %q: shape %v has too many elements", ti.Name, ti.Shape)
		}
		n = lo
	}
	if zero {
		n = 0
	}
	hi, nbytes := bits.Mul64(n, uint64(ti.DType.Size()))
	if hi != 0 || nbytes > math.MaxInt64 {
		return formatErr("tensor %q: shape %v of %s is too large", ti.Name, ti.Shape, ti.DType)
	}
	if int64(nbytes) != end-begin {
		return formatErr("tensor %q: shape %v of %s needs %d bytes, data_offsets [%d %d] hold %d", ti.Name, ti.Shape, ti.DType, nbytes, begin, end, end-begin)
	}
	return nil
}

// checkData checks a tensor's bytes: booleans must be 0 or 1.
func checkData(ti TensorInfo, b []byte) error {
	if ti.DType != BOOL {
		return nil
	}
	for i, c := range b {
		if c > 1 {
			return formatErr("tensor %q: BOOL element %d is 0x%02x, not 0 or 1", ti.Name, i, c)
		}
	}
	return nil
}

// Raw is a tensor as bytes: Data holds its elements row-major and
// little-endian.
type Raw struct {
	DType DType
	Shape []int64
	Data  []byte
}

// entry is a tensor to write; data produces its bytes when they are due,
// so that a writer holds one tensor's bytes at a time.
type entry struct {
	name   string
	dtype  DType
	shape  []int64
	nbytes int64
	data   func() ([]byte, error)
}

// Encode writes raw tensors and optional metadata as a safetensors file.
func Encode(w io.Writer, tensors map[string]Raw, metadata map[string]string) error {
	entries := make([]entry, 0, len(tensors))
	for name, r := range tensors {
		r := r
		entries = append(entries, entry{name, r.DType, r.Shape, int64(len(r.Data)), func() ([]byte, error) { return r.Data, nil }})
	}
	return write(w, entries, metadata)
}

// header builds the padded header for entries, which it sorts into buffer
// order, after checking them.
func header(entries []entry, metadata map[string]string) ([]byte, error) {
	for _, e := range entries {
		if e.name == metadataKey {
			return nil, fmt.Errorf("safetensors: tensor name %q is reserved", metadataKey)
		}
		if !utf8.ValidString(e.name) {
			return nil, fmt.Errorf("safetensors: tensor name %q is not valid UTF-8", e.name)
		}
		if !e.dtype.Valid() {
			return nil, fmt.Errorf("safetensors: tensor %q: unknown dtype %q", e.name, e.dtype)
		}
		for _, s := range e.shape {
			if s < 0 {
				return nil, fmt.Errorf("safetensors: tensor %q: negative size in shape %v", e.name, e.shape)
			}
		}
		ti := TensorInfo{Name: e.name, DType: e.dtype, Shape: e.shape, DataOffsets: [2]int64{0, e.nbytes}}
		if err := checkSize(ti); err != nil {
			return nil, fmt.Errorf("safetensors: %s", err.(*FormatError).Problem)
		}
	}
	for k, v := range metadata {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return nil, fmt.Errorf("safetensors: metadata %q: not valid UTF-8", k)
		}
	}
	// Buffer order: larger elements first, so that every tensor stays
	// aligned to its element size; then by name.
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.dtype.Size() != b.dtype.Size() {
			return a.dtype.Size() > b.dtype.Size()
		}
		return a.name < b.name
	})
	offsets := make(map[string][2]int64, len(entries))
	pos := int64(0)
	for _, e := range entries {
		offsets[e.name] = [2]int64{pos, pos + e.nbytes}
		pos += e.nbytes
	}
	names := make([]string, 0, len(entries))
	byName := make(map[string]entry, len(entries))
	for _, e := range entries {
		names = append(names, e.name)
		byName[e.name] = e
	}
	sort.Strings(names)

	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	sep := func() {
		if !first {
			b.WriteByte(',')
		}
		first = false
	}
	if metadata != nil {
		sep()
		writeString(&b, metadataKey)
		b.WriteString(":{")
		keys := make([]string, 0, len(metadata))
		for k := range metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(&b, k)
			b.WriteByte(':')
			writeString(&b, metadata[k])
		}
		b.WriteByte('}')
	}
	for _, name := range names {
		e := byName[name]
		sep()
		writeString(&b, name)
		b.WriteString(`:{"dtype":`)
		writeString(&b, string(e.dtype))
		b.WriteString(`,"shape":[`)
		for i, s := range e.shape {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(s, 10))
		}
		off := offsets[name]
		fmt.Fprintf(&b, `],"data_offsets":[%d,%d]}`, off[0], off[1])
	}
	b.WriteByte('}')
	for b.Len()%8 != 0 {
		b.WriteByte(' ')
	}
	if b.Len() > MaxHeaderSize {
		return nil, fmt.Errorf("safetensors: header of %d bytes exceeds the limit of %d", b.Len(), MaxHeaderSize)
	}
	return b.Bytes(), nil
}

func writeString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // a valid UTF-8 string always encodes
	b.Write(enc)
}

// write writes a whole file.
func write(w io.Writer, entries []entry, metadata map[string]string) error {
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		if seen[e.name] {
			return fmt.Errorf("safetensors: duplicate tensor name %q", e.name)
		}
		seen[e.name] = true
	}
	hdr, err := header(entries, metadata)
	if err != nil {
		return err
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(hdr)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	for _, e := range entries {
		data, err := e.data()
		if err != nil {
			return fmt.Errorf("safetensors: tensor %q: %w", e.name, err)
		}
		if int64(len(data)) != e.nbytes {
			return fmt.Errorf("safetensors: tensor %q: %d bytes of data, expected %d", e.name, len(data), e.nbytes)
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	return nil
}
