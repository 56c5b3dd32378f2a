package nn

import (
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// lossArgs parses a loss's options with PyTorch's defaults.
func lossArgs(layer string, opts []Option, allowed ...string) layerArgs {
	var a layerArgs
	a.parse(layer, opts, append(allowed, "reduction")...)
	return a
}

// CrossEntropyLossModule is the cross entropy between logits and class indices or probabilities (torch.nn.CrossEntropyLoss).
type CrossEntropyLossModule struct {
	Module
	Weight         torch.Tensor `gotorch:"buffer"` // a weight per class (or element); undefined for none
	IgnoreIndex    int64
	LabelSmoothing float64
	Reduction      string // "mean", "sum" or "none"
}

// CrossEntropyLoss returns a CrossEntropyLossModule.
//
// Options: WithWeight (None), WithIgnoreIndex (-100), WithLabelSmoothing (0), WithReduction ("mean").
func CrossEntropyLoss(opts ...Option) *CrossEntropyLossModule {
	a := lossArgs("CrossEntropyLoss", opts, "weight", "ignore_index", "label_smoothing")
	m := &CrossEntropyLossModule{Reduction: a.str("reduction", "mean"), Weight: a.tensor("weight"), IgnoreIndex: a.int("ignore_index", -100), LabelSmoothing: a.float("label_smoothing", 0)}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target.
func (m *CrossEntropyLossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *CrossEntropyLossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryCrossEntropy(input, target, F.WithWeight(m.Weight), F.WithIgnoreIndex(m.IgnoreIndex), F.WithReduction(m.Reduction), F.WithLabelSmoothing(m.LabelSmoothing))
}

// NLLLossModule is the negative log likelihood of log-probabilities at class indices (torch.nn.NLLLoss).
type NLLLossModule struct {
	Module
	Weight      torch.Tensor `gotorch:"buffer"` // a weight per class (or element); undefined for none
	IgnoreIndex int64
	Reduction   string // "mean", "sum" or "none"
}

// NLLLoss returns a NLLLossModule.
//
// Options: WithWeight (None), WithIgnoreIndex (-100), WithReduction ("mean").
func NLLLoss(opts ...Option) *NLLLossModule {
	a := lossArgs("NLLLoss", opts, "weight", "ignore_index")
	m := &NLLLossModule{Reduction: a.str("reduction", "mean"), Weight: a.tensor("weight"), IgnoreIndex: a.int("ignore_index", -100)}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target.
func (m *NLLLossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *NLLLossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryNllLoss(input, target, F.WithWeight(m.Weight), F.WithIgnoreIndex(m.IgnoreIndex), F.WithReduction(m.Reduction))
}

// MSELossModule is the squared error (torch.nn.MSELoss).
type MSELossModule struct {
	Module

	Reduction string // "mean", "sum" or "none"
}

// MSELoss returns a MSELossModule.
//
// Options: WithReduction ("mean").
func MSELoss(opts ...Option) *MSELossModule {
	a := lossArgs("MSELoss", opts)
	m := &MSELossModule{Reduction: a.str("reduction", "mean")}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target.
func (m *MSELossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *MSELossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryMseLoss(input, target, F.WithReduction(m.Reduction))
}

// L1LossModule is the absolute error (torch.nn.L1Loss).
type L1LossModule struct {
	Module

	Reduction string // "mean", "sum" or "none"
}

// L1Loss returns a L1LossModule.
//
// Options: WithReduction ("mean").
func L1Loss(opts ...Option) *L1LossModule {
	a := lossArgs("L1Loss", opts)
	m := &L1LossModule{Reduction: a.str("reduction", "mean")}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target.
func (m *L1LossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *L1LossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryL1Loss(input, target, F.WithReduction(m.Reduction))
}

// SmoothL1LossModule is the squared error below Beta and absolute error above (torch.nn.SmoothL1Loss).
type SmoothL1LossModule struct {
	Module
	Beta      float64
	Reduction string // "mean", "sum" or "none"
}

// SmoothL1Loss returns a SmoothL1LossModule.
//
// Options: WithBeta (1.0), WithReduction ("mean").
func SmoothL1Loss(opts ...Option) *SmoothL1LossModule {
	a := lossArgs("SmoothL1Loss", opts, "beta")
	m := &SmoothL1LossModule{Reduction: a.str("reduction", "mean"), Beta: a.float("beta", 1)}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target.
func (m *SmoothL1LossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *SmoothL1LossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TrySmoothL1Loss(input, target, F.WithReduction(m.Reduction), F.WithBeta(m.Beta))
}

// HuberLossModule is the squared error below Delta and Delta-scaled absolute error above (torch.nn.HuberLoss).
type HuberLossModule struct {
	Module
	Delta     float64
	Reduction string // "mean", "sum" or "none"
}

// HuberLoss returns a HuberLossModule.
//
// Options: WithDelta (1.0), WithReduction ("mean").
func HuberLoss(opts ...Option) *HuberLossModule {
	a := lossArgs("HuberLoss", opts, "delta")
	m := &HuberLossModule{Reduction: a.str("reduction", "mean"), Delta: a.float("delta", 1)}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target.
func (m *HuberLossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *HuberLossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryHuberLoss(input, target, F.WithReduction(m.Reduction), F.WithDelta(m.Delta))
}

// BCELossModule is the binary cross entropy between probabilities (torch.nn.BCELoss).
type BCELossModule struct {
	Module
	Weight    torch.Tensor `gotorch:"buffer"` // a weight per class (or element); undefined for none
	Reduction string       // "mean", "sum" or "none"
}

// BCELoss returns a BCELossModule.
//
// Options: WithWeight (None), WithReduction ("mean").
func BCELoss(opts ...Option) *BCELossModule {
	a := lossArgs("BCELoss", opts, "weight")
	m := &BCELossModule{Reduction: a.str("reduction", "mean"), Weight: a.tensor("weight")}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target.
func (m *BCELossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *BCELossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryBinaryCrossEntropy(input, target, F.WithWeight(m.Weight), F.WithReduction(m.Reduction))
}

// BCEWithLogitsLossModule is the binary cross entropy of sigmoid(input), computed stably (torch.nn.BCEWithLogitsLoss).
type BCEWithLogitsLossModule struct {
	Module
	Weight    torch.Tensor `gotorch:"buffer"` // a weight per class (or element); undefined for none
	PosWeight torch.Tensor `gotorch:"buffer"` // a weight of the positive examples per class; undefined for none
	Reduction string       // "mean", "sum" or "none"
}

// BCEWithLogitsLoss returns a BCEWithLogitsLossModule.
//
// Options: WithWeight (None), WithPosWeight (None), WithReduction ("mean").
func BCEWithLogitsLoss(opts ...Option) *BCEWithLogitsLossModule {
	a := lossArgs("BCEWithLogitsLoss", opts, "weight", "pos_weight")
	m := &BCEWithLogitsLossModule{Reduction: a.str("reduction", "mean"), Weight: a.tensor("weight"), PosWeight: a.tensor("pos_weight")}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target.
func (m *BCEWithLogitsLossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *BCEWithLogitsLossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryBinaryCrossEntropyWithLogits(input, target, F.WithWeight(m.Weight), F.WithPosWeight(m.PosWeight), F.WithReduction(m.Reduction))
}

// KLDivLossModule is the Kullback-Leibler divergence of target from log-probabilities input (torch.nn.KLDivLoss).
type KLDivLossModule struct {
	Module
	LogTarget bool
	Reduction string // "mean", "sum" or "none"
}

// KLDivLoss returns a KLDivLossModule.
//
// Options: WithLogTarget (false), WithReduction ("mean"; "batchmean" is the mathematical definition).
func KLDivLoss(opts ...Option) *KLDivLossModule {
	a := lossArgs("KLDivLoss", opts, "log_target")
	m := &KLDivLossModule{Reduction: a.str("reduction", "mean"), LogTarget: a.bool("log_target", false)}
	m.Init(m)
	return m
}

// Forward returns the loss of input against target.
func (m *KLDivLossModule) Forward(input, target torch.Tensor) torch.Tensor {
	return must(m.TryForward(input, target))
}

// TryForward is Forward that returns its error.
func (m *KLDivLossModule) TryForward(input, target torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryKlDiv(input, target, F.WithReduction(m.Reduction), F.WithLogTarget(m.LogTarget))
}
