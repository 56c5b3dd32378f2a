package data

import (
	"fmt"
	"image"
	"slices"

	"github.com/gotorch/gotorch/torch"
)

// CollateFunc turns the examples of a batch into the batch's input and
// target tensors. The loader calls it in its workers.
type CollateFunc func(examples []Example) (input, target torch.Tensor, err error)

// DefaultCollate is the default CollateFunc (PyTorch's default_collate).
// It collates the inputs and the targets separately; in each, all the
// examples must hold the same kind of value:
//
//   - torch.Tensor: stacked along a new first dimension (torch.Stack);
//   - Array[T]: copied into one tensor of shape [batch, Shape...], all
//     the arrays having the same shape;
//   - []T of numbers or bools: like a one-dimensional Array[T];
//   - int, int64, ... uint8: an Int64 tensor of shape [batch];
//     float32: Float32; float64: Float64; bool: Bool;
//   - nil: the undefined torch.Tensor{} (a dataset without targets).
func DefaultCollate(examples []Example) (input, target torch.Tensor, err error) {
	col := make([]any, len(examples))
	for i, e := range examples {
		col[i] = e.Input
	}
	if input, err = CollateValues(col); err != nil {
		return torch.Tensor{}, torch.Tensor{}, fmt.Errorf("data: collate inputs: %w", err)
	}
	for i, e := range examples {
		col[i] = e.Target
	}
	if target, err = CollateValues(col); err != nil {
		return torch.Tensor{}, torch.Tensor{}, fmt.Errorf("data: collate targets: %w", err)
	}
	return input, target, nil
}

// CollateValues collates one column of a batch (the inputs or the targets)
// by DefaultCollate's rules.
func CollateValues(values []any) (torch.Tensor, error) {
	if len(values) == 0 {
		return torch.Tensor{}, fmt.Errorf("empty batch")
	}
	switch v := values[0].(type) {
	case nil:
		for i, x := range values {
			if x != nil {
				return torch.Tensor{}, fmt.Errorf("example 0 of the batch has none, example %d has a %T", i, x)
			}
		}
		return torch.Tensor{}, nil
	case torch.Tensor:
		ts := make([]torch.Tensor, len(values))
		for i, x := range values {
			t, ok := x.(torch.Tensor)
			if !ok {
				return torch.Tensor{}, mixed(values, i)
			}
			if !t.Defined() {
				return torch.Tensor{}, fmt.Errorf("example %d of the batch has an undefined or freed tensor", i)
			}
			ts[i] = t
		}
		shape := ts[0].Shape()
		for i, t := range ts[1:] {
			if s := t.Shape(); !slices.Equal(s, shape) {
				return torch.Tensor{}, fmt.Errorf("example %d of the batch has shape %v, example 0 has %v", i+1, s, shape)
			}
		}
		return torch.TryStack(ts)
	case Array[float32]:
		return stackArrays[float32](values)
	case Array[float64]:
		return stackArrays[float64](values)
	case Array[uint8]:
		return stackArrays[uint8](values)
	case Array[int8]:
		return stackArrays[int8](values)
	case Array[int16]:
		return stackArrays[int16](values)
	case Array[int32]:
		return stackArrays[int32](values)
	case Array[int64]:
		return stackArrays[int64](values)
	case Array[int]:
		return stackArrays[int](values)
	case Array[bool]:
		return stackArrays[bool](values)
	case []float32:
		return stackSlices[float32](values)
	case []float64:
		return stackSlices[float64](values)
	case []uint8:
		return stackSlices[uint8](values)
	case []int32:
		return stackSlices[int32](values)
	case []int64:
		return stackSlices[int64](values)
	case []int:
		return stackSlices[int](values)
	case []bool:
		return stackSlices[bool](values)
	case int, int64, int32, int16, int8, uint8, uint16, uint32:
		out := make([]int64, len(values))
		for i, x := range values {
			n, ok := toInt64(x)
			if !ok {
				return torch.Tensor{}, mixed(values, i)
			}
			out[i] = n
		}
		return torch.TryFromSlice(out)
	case float32:
		return stackScalars[float32](values)
	case float64:
		return stackScalars[float64](values)
	case bool:
		return stackScalars[bool](values)
	case image.Image:
		return torch.Tensor{}, fmt.Errorf("example 0 of the batch is an image (%T): add data.ToTensor() to the loader's transform", v)
	default:
		return torch.Tensor{}, fmt.Errorf("example 0 of the batch is a %T, which the default collation does not handle (use Options.Collate)", v)
	}
}

func mixed(values []any, i int) error {
	return fmt.Errorf("example 0 of the batch is a %T, example %d a %T", values[0], i, values[i])
}

func toInt64(x any) (int64, bool) {
	switch n := x.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case int32:
		return int64(n), true
	case int16:
		return int64(n), true
	case int8:
		return int64(n), true
	case uint8:
		return int64(n), true
	case uint16:
		return int64(n), true
	case uint32:
		return int64(n), true
	}
	return 0, false
}

func stackArrays[T torch.Element](values []any) (torch.Tensor, error) {
	first := values[0].(Array[T])
	if err := first.check(); err != nil {
		return torch.Tensor{}, fmt.Errorf("example 0 of the batch: %w", err)
	}
	per := len(first.Data)
	data := make([]T, 0, per*len(values))
	for i, x := range values {
		a, ok := x.(Array[T])
		if !ok {
			return torch.Tensor{}, mixed(values, i)
		}
		if !slices.Equal(a.Shape, first.Shape) {
			return torch.Tensor{}, fmt.Errorf("example %d of the batch has shape %v, example 0 has %v", i, a.Shape, first.Shape)
		}
		if len(a.Data) != per {
			return torch.Tensor{}, fmt.Errorf("example %d of the batch: %w", i, a.check())
		}
		data = append(data, a.Data...)
	}
	return torch.TryFromSlice(data, append([]int64{int64(len(values))}, first.Shape...)...)
}

func stackSlices[T torch.Element](values []any) (torch.Tensor, error) {
	per := len(values[0].([]T))
	data := make([]T, 0, per*len(values))
	for i, x := range values {
		s, ok := x.([]T)
		if !ok {
			return torch.Tensor{}, mixed(values, i)
		}
		if len(s) != per {
			return torch.Tensor{}, fmt.Errorf("example %d of the batch has length %d, example 0 has %d", i, len(s), per)
		}
		data = append(data, s...)
	}
	return torch.TryFromSlice(data, int64(len(values)), int64(per))
}

func stackScalars[T torch.Element](values []any) (torch.Tensor, error) {
	out := make([]T, len(values))
	for i, x := range values {
		v, ok := x.(T)
		if !ok {
			return torch.Tensor{}, mixed(values, i)
		}
		out[i] = v
	}
	return torch.TryFromSlice(out)
}
