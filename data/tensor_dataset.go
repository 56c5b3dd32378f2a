package data

import (
	"fmt"

	"github.com/gotorch/gotorch/torch"
)

// TensorDataset is a dataset of tensors in memory (PyTorch's
// TensorDataset): example i is row i of the input tensor and row i of the
// target tensor. Its examples are tensors (views of the rows); a loader
// without transforms takes whole batches at once with index_select.
type TensorDataset struct {
	input, target torch.Tensor
	n             int
}

// NewTensorDataset returns the dataset of the rows of input and target,
// which must have the same size in their first dimension. target may be
// the undefined torch.Tensor{} for a dataset without targets.
func NewTensorDataset(input, target torch.Tensor) (*TensorDataset, error) {
	if !input.Defined() {
		return nil, fmt.Errorf("data: NewTensorDataset: undefined or freed input tensor")
	}
	if input.Dim() == 0 {
		return nil, fmt.Errorf("data: NewTensorDataset: the input is a 0-dimensional tensor; want one row per example")
	}
	n := input.Size(0)
	if target.Defined() {
		if target.Dim() == 0 {
			return nil, fmt.Errorf("data: NewTensorDataset: the target is a 0-dimensional tensor; want one row per example")
		}
		if m := target.Size(0); m != n {
			return nil, fmt.Errorf("data: NewTensorDataset: %d input rows but %d target rows", n, m)
		}
	}
	return &TensorDataset{input: input, target: target, n: int(n)}, nil
}

// Len returns the number of rows.
func (d *TensorDataset) Len() int { return d.n }

// Get returns row i of the input and of the target (nil without target).
func (d *TensorDataset) Get(i int) (Example, error) {
	if err := checkIndex(i, d.n); err != nil {
		return Example{}, err
	}
	x, err := d.input.TrySelect(0, int64(i))
	if err != nil {
		return Example{}, err
	}
	ex := Example{Input: x}
	if d.target.Defined() {
		if ex.Target, err = d.target.TrySelect(0, int64(i)); err != nil {
			return Example{}, err
		}
	}
	return ex, nil
}

// GetBatch returns the rows of indices, stacked.
func (d *TensorDataset) GetBatch(indices []int) (input, target torch.Tensor, err error) {
	idx := make([]int64, len(indices))
	for j, i := range indices {
		if err := checkIndex(i, d.n); err != nil {
			return torch.Tensor{}, torch.Tensor{}, err
		}
		idx[j] = int64(i)
	}
	it, err := torch.TryFromSlice(idx)
	if err != nil {
		return torch.Tensor{}, torch.Tensor{}, err
	}
	if it, err = it.TryTo(d.input.Device()); err != nil {
		return torch.Tensor{}, torch.Tensor{}, err
	}
	if input, err = d.input.TryIndexSelect(0, it); err != nil {
		return torch.Tensor{}, torch.Tensor{}, err
	}
	if d.target.Defined() {
		if target, err = d.target.TryIndexSelect(0, it); err != nil {
			return torch.Tensor{}, torch.Tensor{}, err
		}
	}
	return input, target, nil
}

// Tensors returns the dataset's input and target tensors.
func (d *TensorDataset) Tensors() (input, target torch.Tensor) { return d.input, d.target }
