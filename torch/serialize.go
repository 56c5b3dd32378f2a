package torch

/*
#include "cgotorch.h"
*/
import "C"

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/gotorch/gotorch/internal/atomicfile"
)

// TryEncode is Encode that returns its error.
func (t Tensor) TryEncode() ([]byte, error) {
	const op = "save"
	p, err := t.ptr(op, "self")
	if err != nil {
		return nil, err
	}
	var data *C.char
	var size C.int64_t
	e := C.gt_tensor_save(p, &data, &size)
	t.keep()
	if err := cError(op, e); err != nil {
		return nil, err
	}
	defer C.gt_free_bytes(data)
	return C.GoBytes(unsafe.Pointer(data), C.int(size)), nil
}

// Encode serializes t in PyTorch's format: the bytes torch.save writes for
// a single tensor, which torch.load reads.
func (t Tensor) Encode() []byte { return must1(t.TryEncode()) }

// Decode reads a single tensor in PyTorch's format (from Encode, Save or
// Python's torch.save).
func Decode(data []byte) (Tensor, error) {
	const op = "load"
	if len(data) == 0 {
		return Tensor{}, newError(op, nil, "no data")
	}
	r := C.gt_tensor_load((*C.char)(unsafe.Pointer(&data[0])), C.int64_t(len(data)))
	return tensorResult(op, r)
}

// Save writes t to path in PyTorch's format, atomically: a crash leaves
// either the old file or the new one, never a partial file.
func Save(t Tensor, path string) error {
	data, err := t.TryEncode()
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, data, 0o644)
}

// Load reads a tensor written by Save or by Python's torch.save.
func Load(path string) (Tensor, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Tensor{}, err
	}
	t, err := Decode(data)
	if err != nil {
		return Tensor{}, fmt.Errorf("load %s: %w", path, err)
	}
	return t, nil
}
