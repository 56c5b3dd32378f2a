package torch

/*
#include "cgotorch.h"
*/
import "C"

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"unsafe"

	"github.com/gotorch/gotorch/internal/atomicfile"
	"github.com/gotorch/gotorch/internal/fileio"
	"github.com/gotorch/gotorch/internal/zipcheck"
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
	t.unpin()
	if err := cError(op, e); err != nil {
		return nil, err
	}
	defer C.gt_free_bytes(data)
	// Not C.GoBytes: its length is a C int, which a 2 GiB archive overflows.
	out := make([]byte, int(size))
	copy(out, unsafe.Slice((*byte)(unsafe.Pointer(data)), int(size)))
	return out, nil
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
	if err := checkZipDirectory(bytes.NewReader(data), int64(len(data))); err != nil {
		return Tensor{}, newError(op, nil, "%s", err.Error())
	}
	r := C.gt_tensor_load((*C.char)(unsafe.Pointer(&data[0])), C.int64_t(len(data)))
	return tensorResult(op, r)
}

// checkZipDirectory refuses an archive whose zip directory libtorch's
// reader would read differently from what was written: a record marked as
// a folder, which it skips (a one-byte change that loads uninitialised
// memory as the tensor's values), names equal but for case, and so on
// (internal/zipcheck). It reads only the directory. What is not a zip
// archive is left to libtorch's own error.
func checkZipDirectory(r io.ReaderAt, size int64) error {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil
	}
	if _, err := zipcheck.Entries(z); err != nil {
		return fmt.Errorf("corrupt file: %w", err)
	}
	return nil
}

// Save writes t to path in PyTorch's format, atomically: a crash leaves
// either the old file or the new one, never a partial file, and a write
// that fails (a full disk, say) is an error that leaves the old file as it
// was. The archive is streamed to the file, not built in memory first.
func Save(t Tensor, path string) error {
	const op = "save"
	p, err := t.ptr(op, "self")
	if err != nil {
		return err
	}
	defer t.unpin()
	return atomicfile.WriteFD(path, 0o644, func(f *os.File) error {
		e := C.gt_tensor_save_fd(p, C.int(f.Fd()))
		runtime.KeepAlive(f)
		return cError(op, e)
	})
}

// Load reads a tensor written by Save or by Python's torch.save. The path
// must name a regular file: a FIFO, a device or a directory is an error,
// found before anything is read. The file is read in place, record by
// record, never whole into memory.
func Load(path string) (Tensor, error) {
	f, size, err := fileio.Open(path)
	if err != nil {
		return Tensor{}, err
	}
	defer f.Close()
	if err := checkZipDirectory(f, size); err != nil {
		return Tensor{}, fmt.Errorf("load %s: %w", path, newError("load", nil, "%s", err.Error()))
	}
	r := C.gt_tensor_load_fd(C.int(f.Fd()), C.int64_t(size))
	runtime.KeepAlive(f)
	t, err := tensorResult("load", r)
	if err != nil {
		return Tensor{}, fmt.Errorf("load %s: %w", path, err)
	}
	return t, nil
}
