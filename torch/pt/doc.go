// Package pt reads and writes PyTorch's torch.save files (.pt, .pth) in
// pure Go: state dicts, and checkpoints of several state dicts with ints,
// floats, strings and lists beside them.
//
//	sd, err := pt.LoadStateDict("model.pt")            // torch.save(model.state_dict(), "model.pt")
//	err = pt.LoadModule(net, "model.pt", true)           // into a GoTorch module, by PyTorch names
//	err = pt.LoadModule(net, "ckpt.pt", true, pt.WithKey("model"))
//	v, err := pt.Load("ckpt.pt")                         // any checkpoint, as Go values (*pt.Dict, ...)
//	err = pt.Save("out.pt", net.StateDict())             // torch.load reads it
//
// Both of torch.save's formats are read: the zip archive (PyTorch 1.6
// and later) and the legacy format (_use_new_zipfile_serialization=False),
// in either byte order. Every dtype that torch.save writes becomes a
// torch.Tensor with the same bits: float16/32/64, bfloat16, int8/16/32/64,
// uint8, bool, complex64/128, and PyTorch 2.x's uint16/32/64, float8 and
// complex32 (saved with _rebuild_tensor_v3 over an untyped storage; they
// need a libtorch that has the dtype, else torch.ErrUnsupported). The
// golden files come from PyTorch 1.13.1 (testdata) and 2.6
// (testdata/torch2.6). Tensors are made on the CPU whatever device
// they were saved from. Each storage becomes one tensor and every tensor
// saved from it a view of it (as_strided at its offset and strides), so
// tensors that shared memory in Python share it here.
//
// # Safety
//
// A .pt file is a Python pickle, which Python's pickle runs as a program:
// it may import and call anything. This package has a pickle machine of
// its own that calls nothing. It knows a fixed allow-list of globals,
// which it implements itself:
//
//	torch._utils._rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3,
//	_rebuild_parameter, _rebuild_parameter_with_state; torch.*Storage,
//	torch.storage.UntypedStorage; torch dtypes
//	(torch.float32, ...); torch.Size; torch.device; collections.OrderedDict;
//	builtins set, frozenset, bytearray, complex; _codecs.encode (bytes)
//
// Any other global is an error that names it and wraps ErrNotAllowed
// (torch.load(weights_only=True) draws a similar line). Hostile input is
// bounded (Limits): no allocation is made from a claimed length longer
// than the data left, storage bytes are bounded by the file's size, and
// the stack, the memo, the nesting depth and the number of tensors are
// capped. A damaged file gives an error wrapping ErrInvalid; the reader
// never panics on any input (it is fuzzed: FuzzPickle, FuzzDecode).
//
// A zip file's records carry CRCs; a legacy file carries none, so the
// reader checks what the format allows: its structure (storage counts,
// sizes and keys against the object's), strict UTF-8 in every str (as
// Python's unpickler) and memo entries stored in order (as every pickler
// writes them). A changed byte that still parses (a letter of a key, a
// size that still fits, a storage's data) loads silently;
// TestLegacySingleByteFlips counts those.
//
// # Writing
//
// Save and Encode write the zip format of torch.save (protocol 2 pickle,
// records aligned to 64 bytes), which torch.load of PyTorch 1.6 and later
// reads. Tensors that share a storage are written as torch.save writes
// them: the storage once, whole, and each tensor as a view at its offset
// and strides, so that they share memory again when loaded (storage.go
// asks libtorch for a tensor's storage through cgotorch/ptstorage). One
// torch.Tensor reached twice (tied weights) is written once and loads as
// one tensor. Save is atomic (internal/atomicfile).
package pt
