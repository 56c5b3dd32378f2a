package nn

import (
	"fmt"

	"github.com/gotorch/gotorch/torch"
)

// The lazy normalizations: LazyBatchNorm1d, 2d, 3d and LazyInstanceNorm1d,
// 2d, 3d infer num_features from the channel dimension of their first
// input; see lazy.go. Their weight, bias, running_mean and running_var are
// placeholders until then, num_batches_tracked a scalar 0 from the start,
// as in PyTorch.

func newLazyBatchNorm[D Dim](opts []Option) *BatchNormModule[D] {
	m := &BatchNormModule[D]{lazyInit: newLazy()}
	var t batchNormTensors
	m.BatchNormSettings, t = newBatchNorm("Lazy"+familyName[D]("BatchNorm"), 0, opts)
	m.Weight, m.Bias, m.RunningMean, m.RunningVar, m.NumBatchesTracked = t.weight, t.bias, t.runningMean, t.runningVar, t.numBatchesTracked
	m.Init(m)
	return m
}

// LazyBatchNorm1d returns a BatchNorm1d whose num_features the first
// forward infers from its input, (N, C) or (N, C, L)
// (torch.nn.LazyBatchNorm1d); it takes BatchNorm1d's options.
func LazyBatchNorm1d(opts ...Option) *BatchNorm1dModule { return newLazyBatchNorm[D1](opts) }

// LazyBatchNorm2d returns a BatchNorm2d whose num_features the first
// forward infers; see LazyBatchNorm1d.
func LazyBatchNorm2d(opts ...Option) *BatchNorm2dModule { return newLazyBatchNorm[D2](opts) }

// LazyBatchNorm3d returns a BatchNorm3d whose num_features the first
// forward infers; see LazyBatchNorm1d.
func LazyBatchNorm3d(opts ...Option) *BatchNorm3dModule { return newLazyBatchNorm[D3](opts) }

// infer materializes a lazy BatchNorm for x, whose number of dimensions
// the regular layer checks first.
func (m *BatchNormModule[D]) infer(x torch.Tensor, dimsOK func(int) bool, want string) error {
	shape, err := tensorShape(x)
	if err != nil {
		return err
	}
	if !dimsOK(len(shape)) {
		return layerError(m.reprName(), "expected %s input (got %dD input)", want, len(shape))
	}
	return m.materialize(shape[1], true)
}

func (m *BatchNormModule[D]) materialize(n int64, reset bool) error {
	return materializeNorm(&m.BatchNormSettings, m.tensors(), n, reset)
}

func (m *BatchNormModule[D]) lazyTensors() map[string]torch.Tensor {
	return normLazyTensors(m.tensors())
}

func (m *BatchNormModule[D]) lazySize(shapes map[string][]int64) (int64, bool, error) {
	return normLazySize(shapes)
}

func (m *BatchNormModule[D]) lazyShapes(n int64) map[string][]int64 { return normLazyShapes(n) }

func (m *BatchNormModule[D]) materializeAt(n int64, reset bool) error {
	return m.lazyInit.run(func() error { return m.materialize(n, reset) })
}

func newLazyInstanceNorm[D Dim](opts []Option) *InstanceNormModule[D] {
	m := newInstanceNormAs[D]("Lazy"+familyName[D]("InstanceNorm"), 0, opts, true, true)
	m.lazyInit = newLazy()
	return m
}

// LazyInstanceNorm1d returns an InstanceNorm1d whose num_features the
// first forward infers from its input, (N, C, L) or (C, L)
// (torch.nn.LazyInstanceNorm1d); it takes InstanceNorm1d's options, but
// affine and track_running_stats default to true, as in PyTorch. With both
// false it has nothing to infer, and keeps num_features 0 as PyTorch does.
// Unlike PyTorch, which takes the size of dimension 1 of an unbatched
// input, it infers from the channel dimension of either form.
func LazyInstanceNorm1d(opts ...Option) *InstanceNorm1dModule { return newLazyInstanceNorm[D1](opts) }

// LazyInstanceNorm2d returns an InstanceNorm2d whose num_features the
// first forward infers; see LazyInstanceNorm1d.
func LazyInstanceNorm2d(opts ...Option) *InstanceNorm2dModule { return newLazyInstanceNorm[D2](opts) }

// LazyInstanceNorm3d returns an InstanceNorm3d whose num_features the
// first forward infers; see LazyInstanceNorm1d.
func LazyInstanceNorm3d(opts ...Option) *InstanceNorm3dModule { return newLazyInstanceNorm[D3](opts) }

func (m *InstanceNormModule[D]) tensors() batchNormTensors {
	return batchNormTensors{m.Weight, m.Bias, m.RunningMean, m.RunningVar, m.NumBatchesTracked}
}

// infer materializes a lazy InstanceNorm with c channels, the size of
// the input's channel dimension.
func (m *InstanceNormModule[D]) infer(c int64) error { return m.materialize(c, true) }

func (m *InstanceNormModule[D]) materialize(n int64, reset bool) error {
	if len(m.lazyTensors()) == 0 {
		return nil // nothing to infer: PyTorch keeps num_features 0
	}
	return materializeNorm(&m.BatchNormSettings, m.tensors(), n, reset)
}

func (m *InstanceNormModule[D]) lazyTensors() map[string]torch.Tensor {
	return normLazyTensors(m.tensors())
}

func (m *InstanceNormModule[D]) lazySize(shapes map[string][]int64) (int64, bool, error) {
	return normLazySize(shapes)
}

func (m *InstanceNormModule[D]) lazyShapes(n int64) map[string][]int64 { return normLazyShapes(n) }

func (m *InstanceNormModule[D]) materializeAt(n int64, reset bool) error {
	return m.lazyInit.run(func() error { return m.materialize(n, reset) })
}

// normLazyTensors are the placeholders of a lazy norm layer: its weight
// and bias with affine, its running statistics with track_running_stats.
func normLazyTensors(t batchNormTensors) map[string]torch.Tensor {
	return lazyTensorMap("weight", t.weight, "bias", t.bias, "running_mean", t.runningMean, "running_var", t.runningVar)
}

// normLazySize is num_features, the length of each of the given tensors.
func normLazySize(shapes map[string][]int64) (int64, bool, error) {
	n := int64(-1)
	for _, name := range []string{"weight", "bias", "running_mean", "running_var"} {
		s, ok := shapes[name]
		if !ok {
			continue
		}
		if len(s) != 1 || n >= 0 && s[0] != n {
			return 0, false, fmt.Errorf("%s of shape %v, want (num_features,) like the others", name, s)
		}
		n = s[0]
	}
	return n, n >= 0, nil
}

func normLazyShapes(n int64) map[string][]int64 {
	return map[string][]int64{"weight": {n}, "bias": {n}, "running_mean": {n}, "running_var": {n}}
}

// materializeNorm gives a lazy norm layer's placeholders the size n and,
// with reset, the regular layer's values (ones, zeros, the running
// statistics reset).
func materializeNorm(s *BatchNormSettings, t batchNormTensors, n int64, reset bool) error {
	for _, x := range []torch.Tensor{t.weight, t.bias, t.runningMean, t.runningVar} {
		if x.Defined() {
			if err := materialize(x, n); err != nil {
				return err
			}
		}
	}
	s.NumFeatures = n
	if reset && n != 0 { // PyTorch's lazy reset_parameters skips num_features 0
		t.reset()
	}
	return nil
}
