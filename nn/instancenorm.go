package nn

import (
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// InstanceNormModule normalizes each channel of each sample over its D
// spatial dimensions (torch.nn.InstanceNorm1d, 2d and 3d). Unlike
// BatchNorm, it has no weight and bias unless WithAffine(true), and keeps
// no running statistics unless WithTrackRunningStats(true).
type InstanceNormModule[D Dim] struct {
	Module
	Weight            torch.Tensor // (num_features), ones; undefined unless WithAffine(true)
	Bias              torch.Tensor // (num_features), zeros; undefined unless WithAffine(true)
	RunningMean       torch.Tensor `gotorch:"buffer"` // (num_features), zeros; with WithTrackRunningStats(true)
	RunningVar        torch.Tensor `gotorch:"buffer"` // (num_features), ones
	NumBatchesTracked torch.Tensor `gotorch:"buffer"` // int64 scalar, which PyTorch keeps but does not count
	BatchNormSettings
	*lazyInit // LazyInstanceNorm's state; nil from InstanceNorm
}

type (
	InstanceNorm1dModule = InstanceNormModule[D1] // (N, C, L) or (C, L)
	InstanceNorm2dModule = InstanceNormModule[D2] // (N, C, H, W) or (C, H, W)
	InstanceNorm3dModule = InstanceNormModule[D3] // (N, C, D, H, W) or (C, D, H, W)
)

func newInstanceNorm[D Dim](numFeatures int64, opts []Option) *InstanceNormModule[D] {
	return newInstanceNormAs[D](familyName[D]("InstanceNorm"), numFeatures, opts, false, false)
}

// newInstanceNormAs is newInstanceNorm for layer (InstanceNorm2d,
// LazyInstanceNorm2d) with the defaults of affine and track_running_stats.
func newInstanceNormAs[D Dim](layer string, numFeatures int64, opts []Option, affine, trackRunningStats bool) *InstanceNormModule[D] {
	s, t := newNorm(layer, numFeatures, opts, affine, trackRunningStats)
	if s.MomentumNone {
		layerPanic(layer, "momentum must be a number")
	}
	m := &InstanceNormModule[D]{Weight: t.weight, Bias: t.bias, RunningMean: t.runningMean, RunningVar: t.runningVar,
		NumBatchesTracked: t.numBatchesTracked, BatchNormSettings: s}
	m.Init(m)
	return m
}

// InstanceNorm1d returns an InstanceNorm1dModule over numFeatures
// channels.
//
// Options: WithEps (1e-5), WithMomentum (0.1), WithAffine (false),
// WithTrackRunningStats (false), WithDtype, WithDevice.
func InstanceNorm1d(numFeatures int64, opts ...Option) *InstanceNorm1dModule {
	return newInstanceNorm[D1](numFeatures, opts)
}

// InstanceNorm2d returns an InstanceNorm2dModule; see InstanceNorm1d.
func InstanceNorm2d(numFeatures int64, opts ...Option) *InstanceNorm2dModule {
	return newInstanceNorm[D2](numFeatures, opts)
}

// InstanceNorm3d returns an InstanceNorm3dModule; see InstanceNorm1d.
func InstanceNorm3d(numFeatures int64, opts ...Option) *InstanceNorm3dModule {
	return newInstanceNorm[D3](numFeatures, opts)
}

func (m *InstanceNormModule[D]) reprName() string {
	if m == nil {
		return familyName[D]("InstanceNorm")
	}
	return lazyName(m.lazyInit, familyName[D]("InstanceNorm"))
}

// ResetParameters resets the running statistics, the weight to ones and the
// bias to zeros.
func (m *InstanceNormModule[D]) ResetParameters() {
	batchNormTensors{m.Weight, m.Bias, m.RunningMean, m.RunningVar, m.NumBatchesTracked}.reset()
}

// Forward normalizes x.
func (m *InstanceNormModule[D]) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *InstanceNormModule[D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	layer := m.reprName()
	shape, err := tensorShape(x)
	if err != nil {
		return torch.Tensor{}, err
	}
	noBatch := rankOf[D]() + 1
	if len(shape) != noBatch && len(shape) != noBatch+1 {
		return torch.Tensor{}, layerError(layer, "expected %dD or %dD input (got %dD input)", noBatch, noBatch+1, len(shape))
	}
	featureDim := len(shape) - noBatch
	if err := m.lazyInit.run(func() error { return m.infer(shape[featureDim]) }); err != nil {
		return torch.Tensor{}, err
	}
	if m.Affine && shape[featureDim] != m.NumFeatures {
		return torch.Tensor{}, layerError(layer, "expected input's size at dim=%d to match num_features (%d), but got: %d.",
			featureDim, m.NumFeatures, shape[featureDim])
	}
	return catch([]torch.Tensor{x}, func(tmp *temps.List) torch.Tensor {
		in := x
		if len(shape) == noBatch {
			in = tmp.Add(x.Unsqueeze(0))
		}
		out := F.InstanceNorm(in, F.WithRunningMean(m.RunningMean), F.WithRunningVar(m.RunningVar),
			F.WithWeight(m.Weight), F.WithBias(m.Bias), F.WithUseInputStats(m.IsTraining() || !m.TrackRunningStats),
			F.WithMomentum(m.Momentum), F.WithEps(m.Eps))
		if len(shape) == noBatch {
			out = tmp.Add(out).SqueezeDim(0)
		}
		return out
	})
}

// LocalResponseNormModule normalizes each element by the energy of Size
// neighbouring channels (torch.nn.LocalResponseNorm):
// x / (K + Alpha/Size · Σ x²)^Beta.
type LocalResponseNormModule struct {
	Module
	Size           int64
	Alpha, Beta, K float64
}

// LocalResponseNorm returns a LocalResponseNormModule over size channels.
//
// Options: WithAlpha (1e-4), WithBeta (0.75), WithK (1).
func LocalResponseNorm(size int64, opts ...Option) *LocalResponseNormModule {
	var a layerArgs
	a.parse("LocalResponseNorm", opts, "alpha", "beta", "k")
	if size < 1 {
		layerPanic("LocalResponseNorm", "size must be positive, got %d", size)
	}
	m := &LocalResponseNormModule{Size: size, Alpha: a.float("alpha", 1e-4), Beta: a.float("beta", 0.75), K: a.float("k", 1)}
	m.Init(m)
	return m
}

// Forward normalizes x, (N, C, ...) with at least one dimension after C.
func (m *LocalResponseNormModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *LocalResponseNormModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryLocalResponseNorm(x, m.Size, F.WithAlpha(m.Alpha), F.WithBeta(m.Beta), F.WithK(m.K))
}

// ExtraRepr is "2, alpha=0.0001, beta=0.75, k=1.0".
func (m *LocalResponseNormModule) ExtraRepr() string {
	return itoa(m.Size) + ", alpha=" + pyFloat(m.Alpha) + ", beta=" + pyFloat(m.Beta) + ", k=" + pyFloat(m.K)
}
