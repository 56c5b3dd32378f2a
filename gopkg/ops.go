package gopkg

import (
	"github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// Reductions, Python's torch.sum(x), torch.sum(x, dim) and
// torch.sum(x, dim, keepdim).

// Sum__0 is torch.sum(x): the sum of all elements.
func Sum__0(x torch.Tensor) torch.Tensor { return x.Sum() }

// Sum__1 is torch.sum(x, dim).
func Sum__1(x torch.Tensor, dim int64) torch.Tensor { return x.SumAlong(dim) }

// Sum__2 is torch.sum(x, dim, keepdim).
func Sum__2(x torch.Tensor, dim int64, keepdim bool) torch.Tensor { return x.SumAlong(dim, keepdim) }

// Mean__0 is torch.mean(x).
func Mean__0(x torch.Tensor) torch.Tensor { return x.Mean() }

// Mean__1 is torch.mean(x, dim).
func Mean__1(x torch.Tensor, dim int64) torch.Tensor { return x.MeanAlong(dim) }

// Mean__2 is torch.mean(x, dim, keepdim).
func Mean__2(x torch.Tensor, dim int64, keepdim bool) torch.Tensor { return x.MeanAlong(dim, keepdim) }

// Amax__0 is torch.amax(x): the largest element (torch.max(x)).
func Amax__0(x torch.Tensor) torch.Tensor { return x.Max() }

// Amax__1 is torch.amax(x, dim): the largest elements along dim (the
// values of torch.max(x, dim)).
func Amax__1(x torch.Tensor, dim int64) torch.Tensor { return x.AmaxAlong(dim) }

// Amax__2 is torch.amax(x, dim, keepdim).
func Amax__2(x torch.Tensor, dim int64, keepdim bool) torch.Tensor { return x.AmaxAlong(dim, keepdim) }

// Amin__0 is torch.amin(x): the smallest element (torch.min(x)).
func Amin__0(x torch.Tensor) torch.Tensor { return x.Min() }

// Amin__1 is torch.amin(x, dim).
func Amin__1(x torch.Tensor, dim int64) torch.Tensor { return x.AminAlong(dim) }

// Amin__2 is torch.amin(x, dim, keepdim).
func Amin__2(x torch.Tensor, dim int64, keepdim bool) torch.Tensor { return x.AminAlong(dim, keepdim) }

// Argmax__0 is torch.argmax(x): the index of the largest element of the
// flattened tensor.
func Argmax__0(x torch.Tensor) torch.Tensor { return x.Argmax() }

// Argmax__1 is torch.argmax(x, dim): predicted classes are
// argmax(logits, 1).
func Argmax__1(x torch.Tensor, dim int64) torch.Tensor { return x.ArgmaxAlong(dim) }

// Argmax__2 is torch.argmax(x, dim, keepdim).
func Argmax__2(x torch.Tensor, dim int64, keepdim bool) torch.Tensor {
	return x.ArgmaxAlong(dim, keepdim)
}

// Argmin__0 is torch.argmin(x).
func Argmin__0(x torch.Tensor) torch.Tensor { return x.Argmin() }

// Argmin__1 is torch.argmin(x, dim).
func Argmin__1(x torch.Tensor, dim int64) torch.Tensor { return x.ArgminAlong(dim) }

// Argmin__2 is torch.argmin(x, dim, keepdim).
func Argmin__2(x torch.Tensor, dim int64, keepdim bool) torch.Tensor {
	return x.ArgminAlong(dim, keepdim)
}

// Shapes.

// View__0 is x.view(*shape): view(x, -1, 784).
func View__0(x torch.Tensor, shape ...int64) torch.Tensor { return x.ViewDims(shape...) }

// View__1 is x.view(shape) for a shape: view(x, y.shape).
func View__1(x torch.Tensor, shape []int64) torch.Tensor { return x.View(shape) }

// View__2 is View__0 for sizes held in Go+ ints.
func View__2(x torch.Tensor, shape ...int) torch.Tensor { return x.ViewDims(ints64(shape)...) }

// Reshape__0 is torch.reshape(x, shape): reshape(x, 2, -1).
func Reshape__0(x torch.Tensor, shape ...int64) torch.Tensor { return x.ReshapeDims(shape...) }

// Reshape__1 is torch.reshape(x, shape) for a shape.
func Reshape__1(x torch.Tensor, shape []int64) torch.Tensor { return x.Reshape(shape) }

// Reshape__2 is Reshape__0 for sizes held in Go+ ints.
func Reshape__2(x torch.Tensor, shape ...int) torch.Tensor { return x.ReshapeDims(ints64(shape)...) }

// Flatten__0 is torch.flatten(x): all dimensions into one.
func Flatten__0(x torch.Tensor) torch.Tensor { return x.Flatten() }

// Flatten__1 is torch.flatten(x, startDim): flatten(x, 1) keeps the batch
// dimension.
func Flatten__1(x torch.Tensor, startDim int64) torch.Tensor { return x.FlattenFrom(startDim) }

// Flatten__2 is torch.flatten(x, startDim, endDim).
func Flatten__2(x torch.Tensor, startDim, endDim int64) torch.Tensor {
	return x.FlattenFrom(startDim, endDim)
}

// Cat__0 is torch.cat(tensors): cat([a, b]).
func Cat__0(tensors []torch.Tensor) torch.Tensor { return torch.Cat(tensors) }

// Cat__1 is torch.cat(tensors, dim).
func Cat__1(tensors []torch.Tensor, dim int64) torch.Tensor {
	return torch.Cat(tensors, torch.WithDim(int64(dim)))
}

// Stack__0 is torch.stack(tensors).
func Stack__0(tensors []torch.Tensor) torch.Tensor { return torch.Stack(tensors) }

// Stack__1 is torch.stack(tensors, dim).
func Stack__1(tensors []torch.Tensor, dim int64) torch.Tensor {
	return torch.Stack(tensors, torch.WithDim(int64(dim)))
}

// Matmul is torch.matmul(a, b) (a @ b).
func Matmul(a, b torch.Tensor) torch.Tensor { return a.Matmul(b) }

// Activations and losses, torch.nn.functional's (F.relu, F.cross_entropy).

// Relu is F.relu(x).
func Relu(x torch.Tensor) torch.Tensor { return x.Relu() }

// Sigmoid is torch.sigmoid(x).
func Sigmoid(x torch.Tensor) torch.Tensor { return x.Sigmoid() }

// Tanh is torch.tanh(x).
func Tanh(x torch.Tensor) torch.Tensor { return x.Tanh() }

// Softmax is F.softmax(x, dim).
func Softmax(x torch.Tensor, dim int64) torch.Tensor { return x.Softmax(int64(dim)) }

// LogSoftmax is F.log_softmax(x, dim).
func LogSoftmax(x torch.Tensor, dim int64) torch.Tensor { return x.LogSoftmax(int64(dim)) }

// Dropout is F.dropout(x, p, training).
func Dropout(x torch.Tensor, p float64, training bool) torch.Tensor {
	return functional.Dropout(x, functional.WithP(p), functional.WithTraining(training))
}

// MaxPool2d__0 is F.max_pool2d(x, kernelSize): the stride is the kernel
// size.
func MaxPool2d__0(x torch.Tensor, kernelSize int) torch.Tensor {
	return functional.MaxPool2d(x, int64(kernelSize))
}

// MaxPool2d__1 is F.max_pool2d(x, kernelSize, stride).
func MaxPool2d__1(x torch.Tensor, kernelSize, stride int) torch.Tensor {
	return functional.MaxPool2d(x, int64(kernelSize), functional.WithStride(int64(stride)))
}

// AvgPool2d__0 is F.avg_pool2d(x, kernelSize).
func AvgPool2d__0(x torch.Tensor, kernelSize int) torch.Tensor {
	return functional.AvgPool2d(x, int64(kernelSize))
}

// AvgPool2d__1 is F.avg_pool2d(x, kernelSize, stride).
func AvgPool2d__1(x torch.Tensor, kernelSize, stride int) torch.Tensor {
	return functional.AvgPool2d(x, int64(kernelSize), functional.WithStride(int64(stride)))
}

// CrossEntropy is F.cross_entropy(logits, target) with class-index
// targets, averaged over the batch.
func CrossEntropy(logits, target torch.Tensor) torch.Tensor {
	return functional.CrossEntropy(logits, target)
}

// NllLoss is F.nll_loss(logProbs, target).
func NllLoss(logProbs, target torch.Tensor) torch.Tensor { return functional.NllLoss(logProbs, target) }

// MseLoss is F.mse_loss(input, target).
func MseLoss(input, target torch.Tensor) torch.Tensor { return functional.MseLoss(input, target) }

// L1Loss is F.l1_loss(input, target).
func L1Loss(input, target torch.Tensor) torch.Tensor { return functional.L1Loss(input, target) }

// BinaryCrossEntropyWithLogits is F.binary_cross_entropy_with_logits.
func BinaryCrossEntropyWithLogits(logits, target torch.Tensor) torch.Tensor {
	return functional.BinaryCrossEntropyWithLogits(logits, target)
}
