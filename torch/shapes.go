package torch

// Python's shape and device helpers that are functions of torch, or
// methods of Tensor, under their PyTorch names (issue 37):
//
//   - BroadcastShapes(shapes...) is torch.broadcast_shapes: the shape that
//     tensors of these shapes broadcast to, computed without tensors;
//   - Numel(x) is torch.numel(x), x.Numel() as a function;
//   - GetDevice(x) is torch.get_device(x): -1 for a CPU tensor, the device
//     index otherwise. (The generated method x.GetDevice() calls
//     aten::get_device, which libtorch 1.13 lacks; this one reads Device.)

// BroadcastShapes is torch.broadcast_shapes(*shapes): the shape that
// tensors of the given shapes broadcast to. It panics with *Error when
// the shapes do not broadcast; TryBroadcastShapes returns the error.
func BroadcastShapes(shapes ...[]int64) []int64 { return must1(TryBroadcastShapes(shapes...)) }

// TryBroadcastShapes is BroadcastShapes, returning an error for a negative
// size or for sizes that differ, neither being 1, at one dimension.
func TryBroadcastShapes(shapes ...[]int64) ([]int64, error) {
	n := 0
	for i, s := range shapes {
		for d, v := range s {
			if v < 0 {
				return nil, newError("broadcast_shapes", nil, "shape %d %v: negative size %d at dimension %d", i, s, v, d)
			}
		}
		n = max(n, len(s))
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = 1
	}
	from := make([]int, n) // which shape set out[d], for the error
	for i, s := range shapes {
		off := n - len(s)
		for d, v := range s {
			o := &out[off+d]
			switch {
			case v == *o || v == 1:
			case *o == 1:
				*o, from[off+d] = v, i
			default:
				return nil, newError("broadcast_shapes", nil,
					"shape %d %v does not broadcast with shape %d %v: size %d against %d at dimension %d of the result (non-singleton sizes must match)",
					i, s, from[off+d], shapes[from[off+d]], v, *o, off+d)
			}
		}
	}
	return out, nil
}

// Numel is torch.numel(x): the number of elements of x, x.Numel().
func Numel(x Tensor) int64 { return x.Numel() }

// GetDevice is torch.get_device(x): -1 for a tensor on the CPU, the index
// of its device otherwise (x.Device() gives the type and the index).
func GetDevice(x Tensor) int64 {
	d := x.Device()
	if d.Type == CPUDevice {
		return -1
	}
	return int64(d.Index)
}
