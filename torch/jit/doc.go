// Package jit runs TorchScript modules: the files that PyTorch's
// torch.jit.save writes from torch.jit.script or torch.jit.trace.
//
//	m, err := jit.Load("model.pt", jit.WithDevice(torch.CPU))
//	defer m.Close()
//	m.Eval()
//	y, err := m.ForwardTensor(x)                // one tensor in, one out
//	out, err := m.Method("decode", x, int64(3)) // any exported method, any IValues
//
// Values cross as Go values (see Module.Forward for the table): tensors,
// int64, float64, bool, string, nil, devices, []any for tuples and mixed
// lists, typed slices for typed lists and maps for dicts. A value with no
// Go counterpart (an Object, a Future) is an error that names its type.
//
// A Module is for inference: its calls run without autograd and are safe
// from many goroutines at once. Trainable is the form to fine-tune with
// nn/optim. NamedParameters and NamedBuffers give the module's tensors by
// PyTorch's dotted names; To, Train and Eval change it; Save and SaveTo
// write it back.
//
// Errors are *torch.Error values (Op "jit.load", "jit.forward", ...);
// a Module used after Close gives one wrapping ErrClosed. Values nested
// more than MaxDepth deep, or that contain themselves, are errors both
// ways. A file is checked before libtorch parses it: its zip directory and
// every member's CRC, its source's nesting (codecheck.go), every pickle
// (the walk that guards torch.Load) and every tensor against its record,
// so that a truncated, corrupted or hostile file is an error, not a crash
// or garbage weights (docs/serving.md, "What is safe to load"). A
// TorchScript file is code, though: its methods run as written, so load
// only files whose code you trust.
package jit
