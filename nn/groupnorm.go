package nn

import (
	"fmt"

	F "github.com/gotorch/gotorch/nn/functional"
	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/torch"
)

// GroupNormModule normalizes the channels of (N, C, *) input in NumGroups
// groups (torch.nn.GroupNorm).
type GroupNormModule struct {
	Module
	Weight                 torch.Tensor // (num_channels), ones; undefined with WithAffine(false)
	Bias                   torch.Tensor // (num_channels), zeros; undefined with WithAffine(false)
	NumGroups, NumChannels int64
	Eps                    float64
	Affine                 bool
}

// GroupNorm returns a GroupNormModule that splits numChannels channels in
// numGroups groups.
//
// Options: WithEps (1e-5), WithAffine (true), WithDtype, WithDevice.
func GroupNorm(numGroups, numChannels int64, opts ...Option) *GroupNormModule {
	var a layerArgs
	a.parse("GroupNorm", opts, "eps", "affine", "dtype", "device")
	if numGroups <= 0 || numChannels%numGroups != 0 {
		layerPanic("GroupNorm", "num_channels must be divisible by num_groups")
	}
	m := &GroupNormModule{NumGroups: numGroups, NumChannels: numChannels, Eps: a.float("eps", 1e-5), Affine: a.bool("affine", true)}
	if m.Affine {
		m.Weight, m.Bias = a.param(numChannels), a.param(numChannels)
	}
	m.ResetParameters()
	m.Init(m)
	return m
}

// ResetParameters sets the weight to ones and the bias to zeros.
func (m *GroupNormModule) ResetParameters() {
	if m.Affine {
		nninit.Ones_(m.Weight)
		nninit.Zeros_(m.Bias)
	}
}

// Forward normalizes x.
func (m *GroupNormModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *GroupNormModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryGroupNorm(x, m.NumGroups, F.WithWeight(m.Weight), F.WithBias(m.Bias), F.WithEps(m.Eps))
}

// ExtraRepr is "2, 4, eps=1e-05, affine=True".
func (m *GroupNormModule) ExtraRepr() string {
	return fmt.Sprintf("%d, %d, eps=%s, affine=%s", m.NumGroups, m.NumChannels, pyFloat(m.Eps), pyBool(m.Affine))
}
