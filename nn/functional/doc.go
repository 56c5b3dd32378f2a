// Package functional mirrors PyTorch's torch.nn.functional: stateless
// functions (convolutions, pooling, normalization, activations, losses,
// padding, interpolation, attention) built on the generated ops of package
// torch. Import it under PyTorch's customary short name:
//
//	import F "github.com/gotorch/gotorch/nn/functional"
//
//	y := F.Conv2d(x, w, F.WithBias(b), F.WithStride(2), F.WithPadding(1))
//	loss := F.CrossEntropy(logits, target, F.WithLabelSmoothing(0.1))
//
// # Arguments and options
//
// The rules are those of package torch:
//
//   - An argument that PyTorch requires is a Go parameter, in PyTorch's
//     order: F.Linear(input, weight), F.LayerNorm(x, []int64{4}),
//     F.Softmax(x, 1).
//   - An argument that has a default in PyTorch is an option, named With
//     plus PyTorch's keyword in CamelCase: F.WithBias(b), F.WithStride(2),
//     F.WithReduction("sum"), F.WithAlignCorners(true). Leaving it out gives
//     PyTorch's default. Each function's documentation lists the options it
//     takes and their defaults; any other option is an error.
//   - A size that PyTorch accepts as an int or a tuple is an int or a
//     []int64 where it is a parameter (F.MaxPool2d(x, 2),
//     F.MaxPool2d(x, []int64{2, 3})) and a variadic list in an option
//     (F.WithStride(2), F.WithStride(2, 1)); one number stands for all
//     dimensions, as in PyTorch.
//   - A keyword that takes either a tuple or a string in PyTorch has a
//     second option for the string form: F.WithPaddingString("same").
//   - The zero torch.Tensor{} stands for None.
//
// # Errors
//
// Every function has two forms, as the ops of package torch do: the plain
// one (F.Conv2d) panics on error, and the Try form (F.TryConv2d) returns the
// error. Either way the error is a *torch.Error. Errors from libtorch keep
// the name of the ATen op that failed ("torch.conv2d: ..."); errors found
// here, such as PyTorch's Python-side checks and bad options, are named
// after the function ("torch.nn.functional.interpolate: ...").
//
// Differences from PyTorch: inplace=True is not supported (use the
// in-place ops of package torch, such as torch.Relu_); the deprecated
// size_average and reduce arguments of the losses are left out; Softmax,
// LogSoftmax and Softmin require dim (PyTorch's implicit dim is
// deprecated); return_indices is a separate function
// (F.MaxPool2dWithIndices), since a Go function has one result type.
package functional
