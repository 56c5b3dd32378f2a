// Package fileio opens the files that GoTorch's loaders read. Only regular
// files are read, and that is checked before the first byte: a FIFO with
// no writer would block the open or the read for ever, and /dev/zero or
// /dev/urandom would be read until memory runs out. Whole-file reads are
// bounded by the file's size and by a limit the caller gives, the largest
// file its format can sensibly have.
package fileio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is the cause when a path names a FIFO, a device, a socket
// or a directory instead of a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is the cause when a file is larger than the reader's limit.
var ErrTooLarge = errors.New("file too large")

// Open opens path for reading if it names a regular file (after symbolic
// links), and returns the file and its size. It never blocks: the open is
// non-blocking, so a FIFO is refused rather than waited on. Its errors are
// *fs.PathError, wrapping ErrNotRegular for the wrong kind of file.
func Open(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, &fs.PathError{Op: "open", Path: path,
			Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(st.Mode()))}
	}
	return f, st.Size(), nil
}

// ReadFile reads the whole of the regular file path, which must hold at
// most limit bytes. Its errors are *fs.PathError, wrapping ErrNotRegular or
// ErrTooLarge for those cases.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, size, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > limit {
		return nil, &fs.PathError{Op: "read", Path: path,
			Err: fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, size, limit)}
	}
	// The file may grow while it is read: read one byte more than its size
	// to see that, and never more than the limit.
	b := make([]byte, size)
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	b = b[:n]
	var one [1]byte
	if k, _ := f.Read(one[:]); k > 0 {
		return nil, &fs.PathError{Op: "read", Path: path,
			Err: errors.New("the file grew while it was read")}
	}
	return b, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.Type().String()
}
