package functional

import (
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// lossArgs parses a loss's options; reduction defaults to "mean".
func lossArgs(op string, opts []Option, a args, allowed ...string) (args, int64, error) {
	a.reduction = "mean"
	if err := a.parse(op, opts, append(allowed, "reduction")...); err != nil {
		return a, 0, err
	}
	r, err := a.reductionEnum()
	return a, r, err
}

// broadcast is torch.broadcast_tensors of two tensors.
func broadcast(x, y torch.Tensor) (torch.Tensor, torch.Tensor, error) {
	ts, err := torch.TryBroadcastTensors([]torch.Tensor{x, y})
	if err != nil {
		return torch.Tensor{}, torch.Tensor{}, err
	}
	return ts[0], ts[1], nil
}

// freeBroadcast frees x and y, the views of input and target that
// broadcast made, once out, the loss computed from them, is made.
func freeBroadcast(x, y, input, target, out torch.Tensor) {
	temps.Free(x, input, target, out)
	temps.Free(y, input, target, out)
}

// CrossEntropy is F.cross_entropy between logits input (N, C, ...) or (C)
// and target: class indices (N, ...) or class probabilities shaped like
// input.
//
// Options: WithWeight (None; a weight per class), WithIgnoreIndex (-100),
// WithReduction ("mean"), WithLabelSmoothing (0).
func CrossEntropy(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryCrossEntropy(input, target, opts...))
}

// TryCrossEntropy is CrossEntropy that returns its error.
func TryCrossEntropy(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a, r, err := lossArgs("cross_entropy", opts, args{ignoreIndex: -100}, "weight", "ignore_index", "label_smoothing")
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryCrossEntropyLoss(input, target, torch.WithWeight(a.weight), torch.WithReduction(r),
		torch.WithIgnoreIndex(a.ignoreIndex), torch.WithLabelSmoothing(a.labelSmoothing))
}

// NllLoss is F.nll_loss, the negative log likelihood of log-probabilities
// input (N, C, ...) or (C) at class indices target.
//
// Options: WithWeight (None; a weight per class), WithIgnoreIndex (-100),
// WithReduction ("mean").
func NllLoss(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryNllLoss(input, target, opts...))
}

// TryNllLoss is NllLoss that returns its error.
func TryNllLoss(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a, r, err := lossArgs("nll_loss", opts, args{ignoreIndex: -100}, "weight", "ignore_index")
	if err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryNllLossNd(input, target, torch.WithWeight(a.weight), torch.WithReduction(r),
		torch.WithIgnoreIndex(a.ignoreIndex))
}

// MseLoss is F.mse_loss, the squared error. Input and target are
// broadcast together.
//
// Options: WithReduction ("mean").
func MseLoss(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryMseLoss(input, target, opts...))
}

// TryMseLoss is MseLoss that returns its error.
func TryMseLoss(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	_, r, err := lossArgs("mse_loss", opts, args{})
	if err != nil {
		return torch.Tensor{}, err
	}
	x, y, err := broadcast(input, target)
	if err != nil {
		return torch.Tensor{}, err
	}
	out, err := torch.TryMseLoss(x, y, torch.WithReduction(r))
	freeBroadcast(x, y, input, target, out)
	return out, err
}

// L1Loss is F.l1_loss, the absolute error. Input and target are broadcast
// together.
//
// Options: WithReduction ("mean").
func L1Loss(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryL1Loss(input, target, opts...))
}

// TryL1Loss is L1Loss that returns its error.
func TryL1Loss(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	_, r, err := lossArgs("l1_loss", opts, args{})
	if err != nil {
		return torch.Tensor{}, err
	}
	x, y, err := broadcast(input, target)
	if err != nil {
		return torch.Tensor{}, err
	}
	out, err := torch.TryL1Loss(x, y, torch.WithReduction(r))
	freeBroadcast(x, y, input, target, out)
	return out, err
}

// SmoothL1Loss is F.smooth_l1_loss: squared below beta, absolute above.
// Input and target are broadcast together.
//
// Options: WithReduction ("mean"), WithBeta (1.0).
func SmoothL1Loss(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TrySmoothL1Loss(input, target, opts...))
}

// TrySmoothL1Loss is SmoothL1Loss that returns its error.
func TrySmoothL1Loss(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a, r, err := lossArgs("smooth_l1_loss", opts, args{beta: 1}, "beta")
	if err != nil {
		return torch.Tensor{}, err
	}
	x, y, err := broadcast(input, target)
	if err != nil {
		return torch.Tensor{}, err
	}
	out, err := torch.TrySmoothL1Loss(x, y, torch.WithReduction(r), torch.WithBeta(a.beta))
	freeBroadcast(x, y, input, target, out)
	return out, err
}

// HuberLoss is F.huber_loss: squared below delta, delta-scaled absolute
// above. Input and target are broadcast together.
//
// Options: WithReduction ("mean"), WithDelta (1.0).
func HuberLoss(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryHuberLoss(input, target, opts...))
}

// TryHuberLoss is HuberLoss that returns its error.
func TryHuberLoss(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a, r, err := lossArgs("huber_loss", opts, args{delta: 1}, "delta")
	if err != nil {
		return torch.Tensor{}, err
	}
	x, y, err := broadcast(input, target)
	if err != nil {
		return torch.Tensor{}, err
	}
	out, err := torch.TryHuberLoss(x, y, torch.WithReduction(r), torch.WithDelta(a.delta))
	freeBroadcast(x, y, input, target, out)
	return out, err
}

func sameSize(input, target torch.Tensor) ([]int64, []int64, bool, error) {
	si, err := shape(input)
	if err != nil {
		return nil, nil, false, err
	}
	st, err := shape(target)
	if err != nil {
		return nil, nil, false, err
	}
	if len(si) != len(st) {
		return si, st, false, nil
	}
	for i := range si {
		if si[i] != st[i] {
			return si, st, false, nil
		}
	}
	return si, st, true, nil
}

// BinaryCrossEntropy is F.binary_cross_entropy between probabilities input
// and target of the same shape.
//
// Options: WithWeight (None; broadcast to the target's shape),
// WithReduction ("mean").
func BinaryCrossEntropy(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryBinaryCrossEntropy(input, target, opts...))
}

// TryBinaryCrossEntropy is BinaryCrossEntropy that returns its error.
func TryBinaryCrossEntropy(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "binary_cross_entropy"
	a, r, err := lossArgs(op, opts, args{}, "weight")
	if err != nil {
		return torch.Tensor{}, err
	}
	si, st, same, err := sameSize(input, target)
	if err != nil {
		return torch.Tensor{}, err
	}
	if !same {
		return torch.Tensor{}, errorf(op, "Using a target size (%s) that is different to the input size (%s) is deprecated. "+
			"Please ensure they have the same size.", torchSize(st), torchSize(si))
	}
	weight := a.weight
	if weight.Defined() {
		var t torch.Tensor
		if t, weight, err = broadcast(target, weight); err != nil {
			return torch.Tensor{}, err
		}
		temps.Free(t, target)
		defer temps.Free(weight, a.weight)
	}
	return torch.TryBinaryCrossEntropy(input, target, torch.WithWeight(weight), torch.WithReduction(r))
}

// BinaryCrossEntropyWithLogits is F.binary_cross_entropy_with_logits:
// binary cross entropy of sigmoid(input), computed stably.
//
// Options: WithWeight (None), WithReduction ("mean"), WithPosWeight (None;
// a weight of the positive examples per class).
func BinaryCrossEntropyWithLogits(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryBinaryCrossEntropyWithLogits(input, target, opts...))
}

// TryBinaryCrossEntropyWithLogits is BinaryCrossEntropyWithLogits that
// returns its error.
func TryBinaryCrossEntropyWithLogits(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "binary_cross_entropy_with_logits"
	a, r, err := lossArgs(op, opts, args{}, "weight", "pos_weight")
	if err != nil {
		return torch.Tensor{}, err
	}
	si, st, same, err := sameSize(input, target)
	if err != nil {
		return torch.Tensor{}, err
	}
	if !same {
		return torch.Tensor{}, errorf(op, "Target size (%s) must be the same as input size (%s)", torchSize(st), torchSize(si))
	}
	return torch.TryBinaryCrossEntropyWithLogits(input, target, torch.WithWeight(a.weight),
		torch.WithPosWeight(a.posWeight), torch.WithReduction(r))
}

// KlDiv is F.kl_div, the Kullback-Leibler divergence of target from
// log-probabilities input.
//
// Options: WithReduction ("mean"; "batchmean" divides the sum by the
// batch size, which is the mathematical definition), WithLogTarget
// (false).
func KlDiv(input, target torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryKlDiv(input, target, opts...))
}

// TryKlDiv is KlDiv that returns its error.
func TryKlDiv(input, target torch.Tensor, opts ...Option) (torch.Tensor, error) {
	const op = "kl_div"
	a := args{reduction: "mean"}
	if err := a.parse(op, opts, "reduction", "log_target"); err != nil {
		return torch.Tensor{}, err
	}
	batchmean := a.reduction == "batchmean"
	if batchmean {
		a.reduction = "sum"
	}
	r, err := a.reductionEnum()
	if err != nil {
		return torch.Tensor{}, err
	}
	reduced, err := torch.TryKlDiv(input, target, torch.WithReduction(r), torch.WithLogTarget(a.logTarget))
	if err != nil || !batchmean {
		return reduced, err
	}
	s := input.Shape()
	if len(s) == 0 {
		return reduced, nil
	}
	out, err := reduced.TryDivScalar(torch.S(s[0]))
	temps.Free(reduced, input, target, out)
	return out, err
}

// CosineSimilarity is F.cosine_similarity of x1 and x2 along dim.
//
// Options: WithDim (1), WithEps (1e-8).
func CosineSimilarity(x1, x2 torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryCosineSimilarity(x1, x2, opts...))
}

// TryCosineSimilarity is CosineSimilarity that returns its error.
func TryCosineSimilarity(x1, x2 torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{dim: 1, eps: 1e-8}
	if err := a.parse("cosine_similarity", opts, "dim", "eps"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryCosineSimilarity(x1, x2, torch.WithDim(a.dim), torch.WithEps(a.eps))
}

// PairwiseDistance is F.pairwise_distance: the p-norm of x1 - x2 + eps
// along the last dimension.
//
// Options: WithP (2), WithEps (1e-6), WithKeepdim (false).
func PairwiseDistance(x1, x2 torch.Tensor, opts ...Option) torch.Tensor {
	return must(TryPairwiseDistance(x1, x2, opts...))
}

// TryPairwiseDistance is PairwiseDistance that returns its error.
func TryPairwiseDistance(x1, x2 torch.Tensor, opts ...Option) (torch.Tensor, error) {
	a := args{p: 2, eps: 1e-6}
	if err := a.parse("pairwise_distance", opts, "p", "eps", "keepdim"); err != nil {
		return torch.Tensor{}, err
	}
	return torch.TryPairwiseDistance(x1, x2, torch.WithP(a.p), torch.WithEps(a.eps), torch.WithKeepdim(a.keepdim))
}
