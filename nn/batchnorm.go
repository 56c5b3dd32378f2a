package nn

import (
	"fmt"

	F "github.com/gotorch/gotorch/nn/functional"
	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/torch"
)

// BatchNormSettings are the settings of BatchNorm1d, 2d and 3d, which
// embed them.
type BatchNormSettings struct {
	NumFeatures       int64
	Eps               float64
	Momentum          float64 // the weight of the newest batch in the running statistics
	MomentumNone      bool    // PyTorch's momentum=None: a cumulative average instead
	Affine            bool    // Weight and Bias are learned
	TrackRunningStats bool    // RunningMean and RunningVar are kept and used in evaluation
}

// batchNormTensors are a batch norm layer's parameters and buffers.
type batchNormTensors struct {
	weight, bias, runningMean, runningVar, numBatchesTracked torch.Tensor
}

func newBatchNorm(layer string, numFeatures int64, opts []Option) (BatchNormSettings, batchNormTensors) {
	return newNorm(layer, numFeatures, opts, true, true)
}

// newNorm makes the settings, parameters and buffers of BatchNorm and
// InstanceNorm (PyTorch's _NormBase), whose defaults a has.
func newNorm(layer string, numFeatures int64, opts []Option, affine, trackRunningStats bool) (BatchNormSettings, batchNormTensors) {
	a := &layerArgs{}
	a.parse(layer, opts, "eps", "momentum", "affine", "track_running_stats", "dtype", "device")
	if numFeatures < 0 {
		layerPanic(layer, "num_features must be non-negative, got %d", numFeatures)
	}
	s := BatchNormSettings{NumFeatures: numFeatures, Eps: a.float("eps", 1e-5), Momentum: a.float("momentum", 0.1),
		MomentumNone: a.bool("momentum", false), Affine: a.bool("affine", affine),
		TrackRunningStats: a.bool("track_running_stats", trackRunningStats)}
	var t batchNormTensors
	if s.Affine {
		t.weight, t.bias = a.param(numFeatures), a.param(numFeatures)
	}
	if s.TrackRunningStats {
		t.runningMean = torch.Zeros([]int64{numFeatures}, a.factory()...)
		t.runningVar = torch.Ones([]int64{numFeatures}, a.factory()...)
		long := []torch.Option{torch.WithDtype(torch.Int64)}
		if a.has("device") {
			long = append(long, torch.WithDevice(a.opts["device"].device))
		}
		t.numBatchesTracked = torch.Zeros([]int64{}, long...)
	}
	t.reset()
	return s, t
}

func (t batchNormTensors) reset() {
	if t.runningMean.Defined() {
		nninit.Zeros_(t.runningMean)
		nninit.Ones_(t.runningVar)
		nninit.Zeros_(t.numBatchesTracked)
	}
	if t.weight.Defined() {
		nninit.Ones_(t.weight)
		nninit.Zeros_(t.bias)
	}
}

// forward is PyTorch's _BatchNorm.forward; wantDims checks the input's
// number of dimensions.
func (s *BatchNormSettings) forward(layer string, training bool, x torch.Tensor, t batchNormTensors, dimsOK func(int) bool, want string) (torch.Tensor, error) {
	shape, err := tensorShape(x)
	if err != nil {
		return torch.Tensor{}, err
	}
	if !dimsOK(len(shape)) {
		return torch.Tensor{}, layerError(layer, "expected %s input (got %dD input)", want, len(shape))
	}
	factor := s.Momentum
	if training && s.TrackRunningStats && t.numBatchesTracked.Defined() {
		var n int64
		torch.NoGrad(func() {
			if _, err = t.numBatchesTracked.TryAddScalar_(torch.S(1)); err == nil {
				n, err = t.numBatchesTracked.TryItemInt()
			}
		})
		if err != nil {
			return torch.Tensor{}, err
		}
		if s.MomentumNone {
			factor = 1 / float64(n)
		}
	} else if s.MomentumNone {
		factor = 0
	}
	bnTraining := training || (!t.runningMean.Defined() && !t.runningVar.Defined())
	rm, rv := t.runningMean, t.runningVar
	if training && !s.TrackRunningStats {
		rm, rv = torch.Tensor{}, torch.Tensor{}
	}
	return F.TryBatchNorm(x, rm, rv, F.WithWeight(t.weight), F.WithBias(t.bias), F.WithTraining(bnTraining),
		F.WithMomentum(factor), F.WithEps(s.Eps))
}

// ExtraRepr is "3, eps=1e-05, momentum=0.1, affine=True,
// track_running_stats=True".
func (s *BatchNormSettings) ExtraRepr() string {
	momentum := pyFloat(s.Momentum)
	if s.MomentumNone {
		momentum = "None"
	}
	return fmt.Sprintf("%d, eps=%s, momentum=%s, affine=%s, track_running_stats=%s",
		s.NumFeatures, pyFloat(s.Eps), momentum, pyBool(s.Affine), pyBool(s.TrackRunningStats))
}

// tensorShape returns t's shape, or the *torch.Error of an undefined or
// freed tensor.
func tensorShape(t torch.Tensor) (s []int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	return t.Shape(), nil
}

// BatchNormModule normalizes its input over the batch and the D spatial
// dimensions (torch.nn.BatchNorm1d, 2d and 3d; BatchNorm1d also takes
// (N, C) input). In training it uses the batch's statistics and updates the
// running ones; in evaluation it uses the running ones.
type BatchNormModule[D Dim] struct {
	Module
	Weight            torch.Tensor // (num_features), ones; undefined with WithAffine(false)
	Bias              torch.Tensor // (num_features), zeros; undefined with WithAffine(false)
	RunningMean       torch.Tensor `gotorch:"buffer"` // (num_features), zeros
	RunningVar        torch.Tensor `gotorch:"buffer"` // (num_features), ones
	NumBatchesTracked torch.Tensor `gotorch:"buffer"` // int64 scalar
	BatchNormSettings
	*lazyInit // LazyBatchNorm's state; nil from BatchNorm
}

type (
	BatchNorm1dModule = BatchNormModule[D1] // (N, C) or (N, C, L)
	BatchNorm2dModule = BatchNormModule[D2] // (N, C, H, W)
	BatchNorm3dModule = BatchNormModule[D3] // (N, C, D, H, W)
)

func newBatchNormModule[D Dim](numFeatures int64, opts []Option) *BatchNormModule[D] {
	m := &BatchNormModule[D]{}
	var t batchNormTensors
	m.BatchNormSettings, t = newBatchNorm(familyName[D]("BatchNorm"), numFeatures, opts)
	m.Weight, m.Bias, m.RunningMean, m.RunningVar, m.NumBatchesTracked = t.weight, t.bias, t.runningMean, t.runningVar, t.numBatchesTracked
	m.Init(m)
	return m
}

// BatchNorm1d returns a BatchNorm1dModule over numFeatures channels.
//
// Options: WithEps (1e-5), WithMomentum (0.1) or WithMomentumNone,
// WithAffine (true), WithTrackRunningStats (true), WithDtype, WithDevice.
func BatchNorm1d(numFeatures int64, opts ...Option) *BatchNorm1dModule {
	return newBatchNormModule[D1](numFeatures, opts)
}

// BatchNorm2d returns a BatchNorm2dModule; see BatchNorm1d.
func BatchNorm2d(numFeatures int64, opts ...Option) *BatchNorm2dModule {
	return newBatchNormModule[D2](numFeatures, opts)
}

// BatchNorm3d returns a BatchNorm3dModule; see BatchNorm1d.
func BatchNorm3d(numFeatures int64, opts ...Option) *BatchNorm3dModule {
	return newBatchNormModule[D3](numFeatures, opts)
}

func (m *BatchNormModule[D]) reprName() string {
	if m == nil {
		return familyName[D]("BatchNorm")
	}
	return lazyName(m.lazyInit, familyName[D]("BatchNorm"))
}

func (m *BatchNormModule[D]) tensors() batchNormTensors {
	return batchNormTensors{m.Weight, m.Bias, m.RunningMean, m.RunningVar, m.NumBatchesTracked}
}

// ResetParameters resets the running statistics, the weight to ones and the
// bias to zeros.
func (m *BatchNormModule[D]) ResetParameters() { m.tensors().reset() }

// Forward normalizes x.
func (m *BatchNormModule[D]) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *BatchNormModule[D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	n := rankOf[D]() + 2
	want := fmt.Sprintf("%dD", n)
	if n == 3 {
		want = "2D or 3D"
	}
	dimsOK := func(d int) bool { return d == n || n == 3 && d == 2 }
	if err := m.lazyInit.run(func() error { return m.infer(x, dimsOK, want) }); err != nil {
		return torch.Tensor{}, err
	}
	return m.forward(m.reprName(), m.IsTraining(), x, m.tensors(), dimsOK, want)
}
