package safetensors

import (
	"github.com/gotorch/gotorch/internal/fileio"

	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/gotorch/gotorch/internal/atomicfile"
	"github.com/gotorch/gotorch/torch"
)

// ErrUnsupportedDType is the cause of errors about dtypes that have no
// counterpart on the other side: U16, U32, U64 and the 8-bit floats have
// none in libtorch 1.13, and Complex32, Complex128 and the quantized types
// have none in safetensors.
var ErrUnsupportedDType = errors.New("unsupported dtype")

var toTorch = map[DType]torch.DType{
	BOOL: torch.Bool, U8: torch.Uint8, I8: torch.Int8, I16: torch.Int16,
	I32: torch.Int32, I64: torch.Int64, F16: torch.Float16,
	BF16: torch.BFloat16, F32: torch.Float32, F64: torch.Float64,
	C64: torch.Complex64,
}

// Torch returns the libtorch dtype of d.
func (d DType) Torch() (torch.DType, error) {
	if td, ok := toTorch[d]; ok {
		return td, nil
	}
	if d.Valid() {
		return 0, fmt.Errorf("%w: %s has no libtorch dtype", ErrUnsupportedDType, d)
	}
	return 0, fmt.Errorf("%w: unknown safetensors dtype %q", ErrUnsupportedDType, string(d))
}

// DTypeFromTorch returns the safetensors dtype of a libtorch dtype.
func DTypeFromTorch(td torch.DType) (DType, error) {
	for d, t := range toTorch {
		if t == td {
			return d, nil
		}
	}
	return unknown, fmt.Errorf("%w: %v has no safetensors dtype", ErrUnsupportedDType, td)
}

// littleEndian is whether the host stores numbers as the format does.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// swapBytes reverses every size-byte element of b in place.
func swapBytes(b []byte, size int) {
	if size <= 1 || littleEndian {
		return
	}
	if size == 8 && len(b) > 0 { // C64: two float32s
		size = 4
	}
	for i := 0; i+size <= len(b); i += size {
		for l, r := i, i+size-1; l < r; l, r = l+1, r-1 {
			b[l], b[r] = b[r], b[l]
		}
	}
}

// Tensor makes a new CPU tensor from r. The bytes are copied.
func (r Raw) Tensor() (torch.Tensor, error) {
	return newTensor(r.DType, r.Shape, r.Data)
}

func newTensor(dtype DType, shape []int64, data []byte) (torch.Tensor, error) {
	td, err := dtype.Torch()
	if err != nil {
		return torch.Tensor{}, err
	}
	if err := checkSize(TensorInfo{DType: dtype, Shape: shape, DataOffsets: [2]int64{0, int64(len(data))}}); err != nil {
		return torch.Tensor{}, err
	}
	if !littleEndian {
		data = bytes.Clone(data)
		swapBytes(data, dtype.Size())
	}
	// The bytes go in as a flat uint8 tensor, which is then viewed as the
	// dtype (no conversion: F16 and BF16 keep their exact bits) and shaped.
	u, err := torch.TryFromSlice(data)
	if err != nil {
		return torch.Tensor{}, err
	}
	v, err := u.TryViewDtype(td)
	u.Free()
	if err != nil {
		return torch.Tensor{}, err
	}
	r, err := v.TryReshape(shape)
	v.Free()
	return r, err
}

// RawFromTensor copies a tensor (on any device, contiguous or not) to Go:
// its safetensors dtype, shape, and bytes, row-major and little-endian.
func RawFromTensor(t torch.Tensor) (Raw, error) {
	if !t.Defined() {
		return Raw{}, errors.New("undefined or freed tensor")
	}
	dt, err := DTypeFromTorch(t.DType())
	if err != nil {
		return Raw{}, err
	}
	shape := t.Shape()
	b, err := tensorBytes(t)
	if err != nil {
		return Raw{}, err
	}
	return Raw{DType: dt, Shape: shape, Data: b}, nil
}

// tensorBytes copies t's elements, as raw bytes, to Go.
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
	swapBytes(b, t.DType().Size())
	return b, nil
}

// torchEntries prepares tensors for writing, checking them all first.
func torchEntries(tensors map[string]torch.Tensor) ([]entry, error) {
	entries := make([]entry, 0, len(tensors))
	for name, t := range tensors {
		if !t.Defined() {
			return nil, fmt.Errorf("safetensors: tensor %q is undefined or freed", name)
		}
		dt, err := DTypeFromTorch(t.DType())
		if err != nil {
			return nil, fmt.Errorf("safetensors: tensor %q: %w", name, err)
		}
		shape := t.Shape()
		t := t
		entries = append(entries, entry{
			name: name, dtype: dt, shape: shape,
			nbytes: t.Numel() * int64(dt.Size()),
			data:   func() ([]byte, error) { return tensorBytes(t) },
		})
	}
	return entries, nil
}

// Write writes tensors and optional metadata to w in safetensors format.
// The tensors may live on any device and need not be contiguous; they are
// copied to the host one at a time.
func Write(w io.Writer, tensors map[string]torch.Tensor, metadata map[string]string) error {
	entries, err := torchEntries(tensors)
	if err != nil {
		return err
	}
	return write(w, entries, metadata)
}

// Marshal returns tensors and optional metadata as a safetensors file.
func Marshal(tensors map[string]torch.Tensor, metadata map[string]string) ([]byte, error) {
	var b bytes.Buffer
	if err := Write(&b, tensors, metadata); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Save writes tensors and optional metadata to path, atomically: the file
// is written under a temporary name in the same directory, synced, and
// renamed over path, so that path always holds either the old file or the
// complete new one, even if the process is killed.
func Save(path string, tensors map[string]torch.Tensor, metadata map[string]string) error {
	entries, err := torchEntries(tensors)
	if err != nil {
		return fmt.Errorf("%w (saving %s)", err, path)
	}
	// Check names and metadata before creating the temporary file.
	if _, err := header(append([]entry(nil), entries...), metadata); err != nil {
		return fmt.Errorf("%w (saving %s)", err, path)
	}
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if err := write(bw, entries, metadata); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// TorchTensor returns the tensor named name as a new CPU tensor.
func (f *File) TorchTensor(name string) (torch.Tensor, error) {
	ti, ok := f.Lookup(name)
	if !ok {
		return torch.Tensor{}, fmt.Errorf("safetensors: no tensor %q", name)
	}
	t, err := newTensor(ti.DType, ti.Shape, f.Data[ti.DataOffsets[0]:ti.DataOffsets[1]])
	if err != nil {
		return torch.Tensor{}, fmt.Errorf("safetensors: tensor %q: %w", name, err)
	}
	return t, nil
}

// TorchTensors returns all tensors as new CPU tensors, by name.
func (f *File) TorchTensors() (map[string]torch.Tensor, error) {
	out := make(map[string]torch.Tensor, len(f.Header.Tensors))
	for _, ti := range f.Header.Tensors {
		t, err := f.TorchTensor(ti.Name)
		if err != nil {
			return nil, err
		}
		out[ti.Name] = t
	}
	return out, nil
}

// Unmarshal parses a safetensors file held in memory and returns its
// tensors, as new CPU tensors, and its metadata (nil when it has none).
func Unmarshal(data []byte) (map[string]torch.Tensor, map[string]string, error) {
	f, err := Parse(data)
	if err != nil {
		return nil, nil, err
	}
	ts, err := f.TorchTensors()
	if err != nil {
		return nil, nil, err
	}
	return ts, f.Metadata, nil
}

// Load reads a safetensors file and returns its tensors, as new CPU
// tensors, and its metadata (nil when it has none). The whole file is
// validated before any tensor is made; errors name the file and the
// problem, and a malformed file gives a *FormatError.
func Load(path string) (map[string]torch.Tensor, map[string]string, error) {
	f, size, err := fileio.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("safetensors: %w", err)
	}
	defer f.Close()
	h, err := ReadHeader(f, size)
	if err != nil {
		return nil, nil, withFile(err, path)
	}
	for _, ti := range h.Tensors {
		if _, err := ti.DType.Torch(); err != nil {
			return nil, nil, withFile(fmt.Errorf("tensor %q: %w", ti.Name, err), path)
		}
	}
	out := make(map[string]torch.Tensor, len(h.Tensors))
	var buf []byte
	for _, ti := range h.Tensors {
		n := ti.NumBytes()
		if int64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		b := buf[:n]
		if k, err := f.ReadAt(b, h.DataStart+ti.DataOffsets[0]); err != nil && !(err == io.EOF && int64(k) == n) {
			if err == io.EOF {
				err = formatErr("tensor %q: file truncated while reading its data", ti.Name)
			}
			return nil, nil, withFile(err, path)
		}
		if err := checkData(ti, b); err != nil {
			return nil, nil, withFile(err, path)
		}
		t, err := newTensor(ti.DType, ti.Shape, b)
		if err != nil {
			return nil, nil, withFile(fmt.Errorf("tensor %q: %w", ti.Name, err), path)
		}
		out[ti.Name] = t
	}
	return out, h.Metadata, nil
}
