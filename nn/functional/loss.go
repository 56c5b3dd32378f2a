package functional

import (
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// The losses are defined once each, as a lossSpec: PyTorch's name, the
// defaults of its options and their keywords besides reduction. One path
// parses the options and calls the torch op (lossSpec.apply for a loss of
// input and target, lossSpec.call for the others); the losses that check
// their arguments or are composed of several ops (binary_cross_entropy,
// kl_div, multilabel_soft_margin_loss, gaussian_nll_loss, …) parse their
// options with the same spec before doing so. The distances
// (cosine_similarity, pairwise_distance) have no reduction and are at the
// end of this file.

// lossSpec is one loss of nn/functional.
type lossSpec struct {
	op        string   // PyTorch's name, which errors name
	defaults  args     // the options' defaults; reduction is "mean"
	keywords  []string // the options besides reduction, as PyTorch orders them
	broadcast bool     // input and target are broadcast together first
}

var (
	crossEntropySpec = lossSpec{op: "cross_entropy", defaults: args{ignoreIndex: -100},
		keywords: []string{"weight", "ignore_index", "label_smoothing"}}
	nllLossSpec          = lossSpec{op: "nll_loss", defaults: args{ignoreIndex: -100}, keywords: []string{"weight", "ignore_index"}}
	mseLossSpec          = lossSpec{op: "mse_loss", broadcast: true}
	l1LossSpec           = lossSpec{op: "l1_loss", broadcast: true}
	smoothL1LossSpec     = lossSpec{op: "smooth_l1_loss", defaults: args{beta: 1}, keywords: []string{"beta"}, broadcast: true}
	huberLossSpec        = lossSpec{op: "huber_loss", defaults: args{delta: 1}, keywords: []string{"delta"}, broadcast: true}
	bceSpec              = lossSpec{op: "binary_cross_entropy", keywords: []string{"weight"}}
	bceWithLogitsSpec    = lossSpec{op: "binary_cross_entropy_with_logits", keywords: []string{"weight", "pos_weight"}}
	marginRankingSpec    = lossSpec{op: "margin_ranking_loss", keywords: []string{"margin"}}
	hingeEmbeddingSpec   = lossSpec{op: "hinge_embedding_loss", defaults: args{margin: 1}, keywords: []string{"margin"}}
	cosineEmbeddingSpec  = lossSpec{op: "cosine_embedding_loss", keywords: []string{"margin"}}
	softMarginSpec       = lossSpec{op: "soft_margin_loss"}
	multilabelMarginSpec = lossSpec{op: "multilabel_margin_loss"}
	multilabelSoftSpec   = lossSpec{op: "multilabel_soft_margin_loss", keywords: []string{"weight"}}
	multiMarginSpec      = lossSpec{op: "multi_margin_loss", defaults: args{p: 1, margin: 1},
		keywords: []string{"p", "margin", "weight"}}
	tripletMarginSpec = lossSpec{op: "triplet_margin_loss", defaults: args{margin: 1, p: 2, eps: 1e-6},
		keywords: []string{"margin", "p", "eps", "swap"}}
	poissonNllSpec = lossSpec{op: "poisson_nll_loss", defaults: args{logInput: true, eps: 1e-8},
		keywords: []string{"log_input", "full", "eps"}}
	gaussianNllSpec = lossSpec{op: "gaussian_nll_loss", defaults: args{eps: 1e-6}, keywords: []string{"full", "eps"}}
	ctcLossSpec     = lossSpec{op: "ctc_loss", keywords: []string{"blank", "zero_infinity"}}
)

// parse parses opts: the options' values and the reduction's enum.
func (s lossSpec) parse(opts []Option) (args, int64, error) {
	a := s.defaults
	a.reduction = "mean"
	if err := a.parse(s.op, opts, append(s.keywords[:len(s.keywords):len(s.keywords)], "reduction")...); err != nil {
		return a, 0, err
	}
	r, err := a.reductionEnum()
	return a, r, err
}

// torchOptions parses opts and returns them as the torch op's options.
func (s lossSpec) torchOptions(opts []Option) ([]torch.Option, error) {
	a, r, err := s.parse(opts)
	if err != nil {
		return nil, err
	}
	out := []torch.Option{torch.WithReduction(r)}
	for _, k := range s.keywords {
		out = append(out, a.torchOption(k))
	}
	return out, nil
}

// call computes the loss with f, which calls the torch op with the options
// opts give.
func (s lossSpec) call(opts []Option, f func(o []torch.Option) (torch.Tensor, error)) (torch.Tensor, error) {
	o, err := s.torchOptions(opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	return f(o)
}

// torchOp2 is a torch op of input and target.
type torchOp2 = func(input, target torch.Tensor, opts ...torch.Option) (torch.Tensor, error)

// apply computes the loss of input and target with the torch op f.
func (s lossSpec) apply(f torchOp2, input, target torch.Tensor, opts []Option) (torch.Tensor, error) {
	o, err := s.torchOptions(opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	if !s.broadcast {
		return f(input, target, o...)
	}
	x, y, err := broadcast(input, target)
	if err != nil {
		return torch.Tensor{}, err
	}
	out, err := f(x, y, o...)
	// x and y are views that broadcast made: free them once out is made.
	temps.Free(x, input, target, out)
	temps.Free(y, input, target, out)
	return out, err
}

// broadcast is torch.broadcast_tensors of two tensors.
func broadcast(x, y torch.Tensor) (torch.Tensor, torch.Tensor, error) {
	ts, err := torch.TryBroadcastTensors([]torch.Tensor{x, y})
	if err != nil {
		return torch.Tensor{}, torch.Tensor{}, err
	}
	return ts[0], ts[1], nil
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
	return crossEntropySpec.apply(torch.TryCrossEntropyLoss, input, target, opts)
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
	return nllLossSpec.apply(torch.TryNllLossNd, input, target, opts)
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
	return mseLossSpec.apply(torch.TryMseLoss, input, target, opts)
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
	return l1LossSpec.apply(torch.TryL1Loss, input, target, opts)
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
	return smoothL1LossSpec.apply(torch.TrySmoothL1Loss, input, target, opts)
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
	return huberLossSpec.apply(torch.TryHuberLoss, input, target, opts)
}

// sameSize reports whether input and target have the same shape, and
// returns their shapes.
func sameSize(input, target torch.Tensor) ([]int64, []int64, bool, error) {
	si, err := shape(input)
	if err != nil {
		return nil, nil, false, err
	}
	st, err := shape(target)
	if err != nil {
		return nil, nil, false, err
	}
	return si, st, sameShape(si, st), nil
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
	a, r, err := bceSpec.parse(opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	si, st, same, err := sameSize(input, target)
	if err != nil {
		return torch.Tensor{}, err
	}
	if !same {
		return torch.Tensor{}, errorf(bceSpec.op, "Using a target size (%s) that is different to the input size (%s) is deprecated. "+
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
	o, err := bceWithLogitsSpec.torchOptions(opts)
	if err != nil {
		return torch.Tensor{}, err
	}
	si, st, same, err := sameSize(input, target)
	if err != nil {
		return torch.Tensor{}, err
	}
	if !same {
		return torch.Tensor{}, errorf(bceWithLogitsSpec.op, "Target size (%s) must be the same as input size (%s)", torchSize(st), torchSize(si))
	}
	return torch.TryBinaryCrossEntropyWithLogits(input, target, o...)
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

var pdistSpec = opSpec{op: "pdist", defaults: args{p: 2}, keywords: []string{"p"}}

// Pdist is F.pdist: the p-norm distances between each pair of the rows of
// input (N, M), the upper triangle of the N×N distance matrix by rows.
//
// Options: WithP (2).
func Pdist(input torch.Tensor, opts ...Option) torch.Tensor { return must(TryPdist(input, opts...)) }

// TryPdist is Pdist that returns its error.
func TryPdist(input torch.Tensor, opts ...Option) (torch.Tensor, error) {
	return pdistSpec.apply(torch.TryPdist, input, opts)
}
