package pt

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/gotorch/gotorch/torch"
)

// The two containers of torch.save.
//
// The zip format (PyTorch 1.6 and later) is a zip archive of stored
// (uncompressed) records under one folder, named after the file:
//
//	NAME/data.pkl      the object, a pickle whose tensors name storages by persistent id
//	NAME/data/KEY      each storage's bytes
//	NAME/version       "3\n"
//	NAME/byteorder     "little" or "big" (PyTorch 2.x; little when absent)
//
// The legacy format (_use_new_zipfile_serialization=False) is five
// pickles in a row, then the storages:
//
//	magic number 0x1950a86a20f9469cfc6c, protocol version 1001,
//	sys_info {"little_endian": ..., "type_sizes": ...},
//	the object, the sorted list of storage keys,
//	then for each key: its element count (int64) and its bytes.
//
// In both, a persistent id is ("storage", torch.XStorage, KEY, LOCATION,
// NUMEL) (the legacy format adds a sixth element, None).

// archive is an opened file: its object, as the pickle VM built it, and
// how to read the storages that the object's tensors use.
type archive struct {
	root      any
	storages  map[string]*storageRef
	read      func(s *storageRef) ([]byte, error) // a storage's bytes, in the file's byte order
	bigEndian bool
	size      int64 // the file's size
}

// open reads r's container and runs its pickles. No storage is read yet.
func open(r io.ReaderAt, size int64, lim limits) (*archive, error) {
	var head [4]byte
	if n, _ := r.ReadAt(head[:], 0); n == 4 && string(head[:]) == "PK\x03\x04" {
		return openZip(r, size, lim)
	}
	if size > 262 {
		var magic [5]byte
		if _, err := r.ReadAt(magic[:], 257); err == nil && string(magic[:]) == "ustar" {
			return nil, fmt.Errorf("%w: a tar archive (the format of PyTorch before 0.1.10)", ErrUnsupported)
		}
	}
	return openLegacy(r, size, lim)
}

// persistentLoader returns the VM's persistent_load for a's storages.
func (a *archive) persistentLoader(legacy bool) func(any) (any, error) {
	return func(pid any) (any, error) {
		t, ok := pid.(*pyTuple)
		if !ok || len(t.items) == 0 {
			return nil, fmt.Errorf("%w: a persistent id of %s, not a tuple", ErrInvalid, typeName(pid))
		}
		kind, _ := t.items[0].(string)
		if kind == "module" {
			return nil, fmt.Errorf("%w: a pickled nn.Module (torch.save(model)); save model.state_dict() instead", ErrUnsupported)
		}
		want := 5
		if legacy {
			want = 6
		}
		if kind != "storage" || len(t.items) != want {
			return nil, fmt.Errorf("%w: persistent id (%s), want (\"storage\", type, key, location, numel%s)",
				ErrInvalid, argTypes(t.items), map[bool]string{true: ", view", false: ""}[legacy])
		}
		typ, ok1 := t.items[1].(storageType)
		key, ok2 := t.items[2].(string)
		loc, ok3 := t.items[3].(string)
		numel, ok4 := t.items[4].(int64)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, fmt.Errorf("%w: persistent id (%s), want (\"storage\", type, key, location, numel)", ErrInvalid, argTypes(t.items))
		}
		if legacy && t.items[5] != nil {
			return nil, fmt.Errorf("%w: a storage view (the format of PyTorch before 0.4)", ErrUnsupported)
		}
		dt := storageTypes[string(typ)]
		if numel < 0 || numel > a.size/int64(dt.Size()) {
			return nil, fmt.Errorf("%w: storage %q of %d elements of %v in a file of %d bytes", ErrInvalid, key, numel, dt, a.size)
		}
		if s, ok := a.storages[key]; ok {
			if s.dtype != dt || s.numel != numel {
				return nil, fmt.Errorf("%w: storage %q is named as %d × %v and as %d × %v", ErrInvalid, key, s.numel, s.dtype, numel, dt)
			}
			return s, nil
		}
		s := &storageRef{key: key, typ: string(typ), dtype: dt, numel: numel, location: loc}
		a.storages[key] = s
		return s, nil
	}
}

func openZip(r io.ReaderAt, size int64, lim limits) (*archive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // names are only looked up, never used as paths
		return nil, fmt.Errorf("%w: zip archive: %v", ErrInvalid, err)
	}
	records := make(map[string]*zip.File, len(zr.File))
	prefix := ""
	for _, f := range zr.File {
		if _, dup := records[f.Name]; dup {
			return nil, fmt.Errorf("%w: zip archive: record %s appears twice", ErrInvalid, quoteName(f.Name))
		}
		records[f.Name] = f
		if dir, ok := strings.CutSuffix(f.Name, "/data.pkl"); ok && !strings.Contains(dir, "/") {
			if prefix != "" {
				return nil, fmt.Errorf("%w: zip archive: two objects, %s and %s", ErrInvalid, quoteName(prefix+"/data.pkl"), quoteName(f.Name))
			}
			prefix = dir
		}
	}
	if prefix == "" {
		return nil, fmt.Errorf("%w: zip archive without a NAME/data.pkl record (not written by torch.save)", ErrInvalid)
	}
	prefix += "/"
	if records[prefix+"constants.pkl"] != nil || records[prefix+"code/"] != nil {
		return nil, ErrTorchScript
	}
	readRecord := func(name string, f *zip.File, limit int64) ([]byte, error) {
		if f.Method != zip.Store {
			return nil, fmt.Errorf("%w: record %s is compressed (method %d); torch.save stores records uncompressed", ErrUnsupported, quoteName(name), f.Method)
		}
		if f.UncompressedSize64 != f.CompressedSize64 || f.UncompressedSize64 > uint64(limit) {
			return nil, fmt.Errorf("%w: record %s claims %d bytes in a file of %d", ErrInvalid, quoteName(name), f.UncompressedSize64, size)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%w: record %s: %v", ErrInvalid, quoteName(name), err)
		}
		defer rc.Close()
		b := make([]byte, f.UncompressedSize64)
		if _, err := io.ReadFull(rc, b); err != nil {
			return nil, fmt.Errorf("%w: record %s: %v", ErrInvalid, quoteName(name), err)
		}
		// Reading on to EOF makes the zip reader check the CRC.
		if n, err := rc.Read(make([]byte, 1)); n != 0 || err != io.EOF {
			return nil, fmt.Errorf("%w: record %s: %v", ErrInvalid, quoteName(name), err)
		}
		return b, nil
	}
	a := &archive{storages: map[string]*storageRef{}, size: size}
	if f := records[prefix+"byteorder"]; f != nil {
		b, err := readRecord("byteorder", f, 16)
		if err != nil {
			return nil, err
		}
		switch string(b) {
		case "little":
		case "big":
			a.bigEndian = true
		default:
			return nil, fmt.Errorf("%w: byteorder %q, want little or big", ErrInvalid, b)
		}
	}
	pkl, err := readRecord("data.pkl", records[prefix+"data.pkl"], size)
	if err != nil {
		return nil, err
	}
	m := newMachine(newInput(bytes.NewReader(pkl), int64(len(pkl))), lim, a.persistentLoader(false))
	if a.root, err = unpickle(m); err != nil {
		return nil, fmt.Errorf("data.pkl: %w", err)
	}
	a.read = func(s *storageRef) ([]byte, error) {
		name := prefix + "data/" + s.key
		f := records[name]
		if f == nil {
			return nil, fmt.Errorf("%w: storage %q has no record %s", ErrInvalid, s.key, quoteName(name))
		}
		want := s.numel * int64(s.dtype.Size())
		if f.UncompressedSize64 != uint64(want) {
			return nil, fmt.Errorf("%w: storage %q: record of %d bytes, want %d (%d × %v)", ErrInvalid, s.key, f.UncompressedSize64, want, s.numel, s.dtype)
		}
		return readRecord("data/"+s.key, f, want)
	}
	return a, nil
}

// legacyMagic is the first pickle of the legacy format.
var legacyMagic, _ = new(big.Int).SetString("1950a86a20f9469cfc6c", 16)

func openLegacy(r io.ReaderAt, size int64, lim limits) (*archive, error) {
	in := newInput(io.NewSectionReader(r, 0, size), size)
	a := &archive{storages: map[string]*storageRef{}, size: size}
	magic, err := unpickle(newMachine(in, lim, nil))
	if mb, ok := magic.(*big.Int); err != nil || !ok || mb.Cmp(legacyMagic) != 0 {
		return nil, fmt.Errorf("%w: neither a zip archive nor PyTorch's legacy format (no magic number)", ErrInvalid)
	}
	version, err := unpickle(newMachine(in, lim, nil))
	if err != nil {
		return nil, fmt.Errorf("protocol version: %w", err)
	}
	if version != int64(1001) {
		return nil, fmt.Errorf("%w: legacy protocol version %v, want 1001", ErrUnsupported, version)
	}
	info, err := unpickle(newMachine(in, lim, nil))
	if err != nil {
		return nil, fmt.Errorf("sys_info: %w", err)
	}
	d, ok := info.(*pyDict)
	if !ok {
		return nil, fmt.Errorf("%w: sys_info is %s, not a dict", ErrInvalid, typeName(info))
	}
	if le, ok := d.get("little_endian"); ok {
		b, isBool := le.(bool)
		if !isBool {
			return nil, fmt.Errorf("%w: sys_info little_endian is %s, not a bool", ErrInvalid, typeName(le))
		}
		a.bigEndian = !b
	}
	if a.root, err = unpickle(newMachine(in, lim, a.persistentLoader(true))); err != nil {
		return nil, fmt.Errorf("object: %w", err)
	}
	keysObj, err := unpickle(newMachine(in, lim, nil))
	if err != nil {
		return nil, fmt.Errorf("storage keys: %w", err)
	}
	keys, ok := keysObj.(*pyList)
	if !ok {
		return nil, fmt.Errorf("%w: storage keys are %s, not a list", ErrInvalid, typeName(keysObj))
	}
	// The storages follow, in the keys' order: an int64 element count,
	// then the bytes. Only their places are found here.
	offsets := make(map[*storageRef]int64, len(keys.items))
	pos := in.pos
	for _, k := range keys.items {
		key, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("%w: a storage key of %s, not a str", ErrInvalid, typeName(k))
		}
		s := a.storages[key]
		if s == nil {
			return nil, fmt.Errorf("%w: storage key %q is not used by the object", ErrInvalid, key)
		}
		if _, dup := offsets[s]; dup {
			return nil, fmt.Errorf("%w: storage key %q is listed twice", ErrInvalid, key)
		}
		var nb [8]byte
		if pos+8 > size {
			return nil, fmt.Errorf("%w: the file ends before storage %q", ErrInvalid, key)
		}
		if _, err := r.ReadAt(nb[:], pos); err != nil {
			return nil, fmt.Errorf("%w: storage %q: %v", ErrInvalid, key, err)
		}
		var n int64
		if a.bigEndian {
			n = int64(binary.BigEndian.Uint64(nb[:]))
		} else {
			n = int64(binary.LittleEndian.Uint64(nb[:]))
		}
		if n != s.numel {
			return nil, fmt.Errorf("%w: storage %q holds %d elements, its tensors say %d", ErrInvalid, key, n, s.numel)
		}
		nbytes := n * int64(s.dtype.Size())
		if nbytes > size-pos-8 {
			return nil, fmt.Errorf("%w: storage %q of %d bytes runs past the end of the file", ErrInvalid, key, nbytes)
		}
		offsets[s] = pos + 8
		pos += 8 + nbytes
	}
	if len(offsets) != len(a.storages) {
		return nil, fmt.Errorf("%w: %d storages are used but %d are listed", ErrInvalid, len(a.storages), len(offsets))
	}
	a.read = func(s *storageRef) ([]byte, error) {
		b := make([]byte, s.numel*int64(s.dtype.Size()))
		if _, err := r.ReadAt(b, offsets[s]); err != nil && !(err == io.EOF && len(b) == 0) {
			return nil, fmt.Errorf("%w: storage %q: %v", ErrInvalid, s.key, err)
		}
		return b, nil
	}
	return a, nil
}

// get looks up a str key.
func (d *pyDict) get(key string) (any, bool) {
	if i, ok := d.index["s"+key]; ok {
		return d.values[i], true
	}
	return nil, false
}

// storageTensor makes the 1-D tensor of a storage's elements from its
// bytes, swapping each element's bytes (elements of swapAs: the storage's
// dtype, or for an untyped storage the dtype of its tensors) when swap.
func storageTensor(s *storageRef, b []byte, swap bool, swapAs torch.DType) (torch.Tensor, error) {
	if swap {
		swapBytes(b, swapAs.Size(), swapAs.IsComplex())
	}
	if s.dtype == torch.Bool {
		for i, c := range b { // only 0 and 1 are bools
			if c > 1 {
				b[i] = 1
			}
		}
	}
	u, err := torch.TryFromSlice(b)
	if err != nil {
		return torch.Tensor{}, err
	}
	if s.dtype == torch.Uint8 {
		return u, nil
	}
	v, err := u.TryViewDtype(s.dtype)
	u.Free()
	return v, err
}

// swapBytes reverses each element's bytes in place (each half's, for
// complex numbers).
func swapBytes(b []byte, size int, complex bool) {
	if complex {
		size /= 2
	}
	if size <= 1 {
		return
	}
	for i := 0; i+size <= len(b); i += size {
		for l, r := i, i+size-1; l < r; l, r = l+1, r-1 {
			b[l], b[r] = b[r], b[l]
		}
	}
}
