package data

import (
	"fmt"
	"strings"

	"github.com/gotorch/gotorch/torch"
)

// Example is one example of a dataset: an input and its target, like the
// (input, target) pair that a PyTorch dataset returns.
//
// The default collation (DefaultCollate) accepts as an input or a target a
// torch.Tensor, an Array, a slice of numbers ([]float32, []int64, ...), a
// number (int, float32, ...), a bool, or nil for none. Image datasets give
// image.Image inputs, which a transform must turn into an Array first
// (ToTensor).
type Example struct {
	Input  any
	Target any
}

// Dataset is a map-style dataset (PyTorch's torch.utils.data.Dataset):
// Len examples, numbered from 0, that Get decodes.
//
// The loader calls Get from several goroutines at once: Get must be safe
// for concurrent use, and must not modify values that it returned before
// (the examples of a prefetched batch may still be in use).
type Dataset interface {
	Len() int
	Get(i int) (Example, error)
}

// BatchGetter is implemented by datasets that load a whole batch faster
// than example by example (PyTorch's __getitems__), such as TensorDataset.
// The loader uses it when its options have no Transform, TargetTransform
// or Collate.
type BatchGetter interface {
	GetBatch(indices []int) (input, target torch.Tensor, err error)
}

// Array is a dense, row-major n-dimensional array in Go memory: a tensor's
// layout without a tensor. ToTensor and Normalize produce them and
// CharDataset's examples are made of them; collation copies the arrays of
// a batch into one tensor of shape [batch, Shape...].
type Array[T torch.Element] struct {
	Shape []int64
	Data  []T
}

// NewArray returns a zeroed array of the given shape.
func NewArray[T torch.Element](shape ...int64) Array[T] {
	return Array[T]{Shape: shape, Data: make([]T, numel(shape))}
}

// Tensor copies a into a new tensor.
func (a Array[T]) Tensor() (torch.Tensor, error) {
	if err := a.check(); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryFromSlice(a.Data, a.Shape...)
}

// check reports an array whose data does not fill its shape.
func (a Array[T]) check() error {
	n := int64(1)
	for _, s := range a.Shape {
		if s < 0 {
			return fmt.Errorf("data: Array shape %v has a negative size", a.Shape)
		}
		n *= s
	}
	if n != int64(len(a.Data)) {
		return fmt.Errorf("data: Array of shape %v needs %d elements, it has %d", a.Shape, n, len(a.Data))
	}
	return nil
}

func (a Array[T]) String() string { return fmt.Sprintf("data.Array[%T]%v", *new(T), a.Shape) }

func numel(shape []int64) int {
	n := 1
	for _, s := range shape {
		n *= int(s)
	}
	return n
}

// Split picks the part of a dataset to load.
type Split int

const (
	Train Split = iota // the training set
	Test               // the test set
)

func (s Split) String() string {
	switch s {
	case Train:
		return "train"
	case Test:
		return "test"
	}
	return fmt.Sprintf("data.Split(%d)", int(s))
}

// FileError reports a dataset file that cannot be read or is not what it
// should be: corrupt, truncated, of the wrong format, or inconsistent with
// another file.
type FileError struct {
	Path string // the file (or folder)
	Err  error  // what is wrong
}

func (e *FileError) Error() string { return "data: " + e.Path + ": " + e.Err.Error() }

func (e *FileError) Unwrap() error { return e.Err }

func fileErrorf(path, format string, args ...any) *FileError {
	return &FileError{Path: path, Err: fmt.Errorf(format, args...)}
}

// ExampleError is the error of the loader when loading an example fails.
type ExampleError struct {
	Index int   // the example's index in the dataset, or -1 for a whole batch
	Err   error // the dataset's, transform's or collation's error
}

func (e *ExampleError) Error() string {
	msg := strings.TrimPrefix(e.Err.Error(), "data: ")
	if e.Index < 0 {
		return "data: batch: " + msg
	}
	return fmt.Sprintf("data: example %d: %s", e.Index, msg)
}

func (e *ExampleError) Unwrap() error { return e.Err }

// checkIndex returns an error if i is not in [0, n).
func checkIndex(i, n int) error {
	if i < 0 || i >= n {
		return fmt.Errorf("data: index %d out of range [0, %d)", i, n)
	}
	return nil
}
