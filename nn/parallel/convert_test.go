package parallel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/disttest"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/nn/parallel"
	"github.com/gotorch/gotorch/torch"
)

type concreteBN struct {
	nn.Module
	Conv *nn.Conv2dModule
	BN   *nn.BatchNorm2dModule
}

type flexibleBN struct {
	nn.Module
	Head  nn.Moduler
	Inner *nn.SequentialModule
	Heads map[string]nn.Moduler
}

// ConvertSyncBatchNorm replaces BatchNorms held as nn.Moduler (fields,
// Sequential's layers, maps), keeps their tensors (and so an optimizer's
// hold on them) and state-dict keys, and names a field whose type cannot
// hold the replacement.
func TestConvertSyncBatchNorm(t *testing.T) {
	if disttest.Worker() {
		t.Skip()
	}
	bn := nn.BatchNorm2d(3)
	inner := nn.BatchNorm1d(4)
	m := &flexibleBN{Head: bn, Inner: nn.Sequential(nn.Linear(2, 4), inner), Heads: map[string]nn.Moduler{"x": nn.BatchNorm3d(2)}}
	m.Init(m)
	before := m.StateDict()
	got, err := parallel.ConvertSyncBatchNorm(m, nil)
	require.NoError(t, err)
	require.Same(t, m, got)
	require.IsType(t, &parallel.SyncBatchNormModule{}, m.Head)
	require.IsType(t, &parallel.SyncBatchNormModule{}, m.Inner.Layers[1])
	require.IsType(t, &parallel.SyncBatchNormModule{}, m.Heads["x"])
	s := m.Head.(*parallel.SyncBatchNormModule)
	assert.Equal(t, bn.Weight, s.Weight, "the parameters are shared, not copied")
	assert.Equal(t, bn.RunningMean, s.RunningMean)
	after := m.StateDict()
	require.Len(t, after, len(before))
	for k := range before {
		assert.Contains(t, after, k)
	}
	assert.Contains(t, m.String(), "(head): SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)")

	c := &concreteBN{Conv: nn.Conv2d(1, 3, 3), BN: nn.BatchNorm2d(3)}
	c.Init(c)
	_, err = parallel.ConvertSyncBatchNorm(c, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "parallel_test.concreteBN.BN is a *nn.BatchNormModule")
	assert.Contains(t, err.Error(), "declare it nn.Moduler")

	one, err := parallel.ConvertSyncBatchNorm(nn.BatchNorm1d(5), nil)
	require.NoError(t, err)
	assert.IsType(t, &parallel.SyncBatchNormModule{}, one)
	_, err = parallel.ConvertSyncBatchNorm(nil, nil)
	assert.Error(t, err)
}

// Without a process group, SyncBatchNorm evaluates as BatchNorm does, and
// refuses to train (PyTorch: the default group is not initialized); bad
// input is an error, not a crash.
func TestSyncBatchNormAlone(t *testing.T) {
	if disttest.Worker() {
		t.Skip()
	}
	torch.ManualSeed(4)
	x := torch.Randn([]int64{6, 3, 4})
	bn := nn.BatchNorm1d(3)
	bn.Train()
	bn.Forward(x) // some running statistics
	conv, err := parallel.ConvertSyncBatchNorm(bn, nil)
	require.NoError(t, err)
	s := conv.(*parallel.SyncBatchNormModule)
	s.Eval()
	bn.Eval()
	assert.Equal(t, bn.Forward(x).Float32s(), s.Forward(x).Float32s())

	s.Train()
	_, err = s.TryForward(x)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "InitProcessGroup")
	_, err = s.TryForward(torch.Randn([]int64{6}))
	assert.ErrorContains(t, err, "expected at least 2D input (got 1D input)")
	_, err = s.TryForward(torch.Randn([]int64{6, 5}))
	assert.ErrorContains(t, err, "expected 3 channels")
	assert.Panics(t, func() { s.Forward(torch.Randn([]int64{6})) })
}

// A LazyBatchNorm is refused until a forward pass has sized it (a
// SyncBatchNorm sharing its empty tensors would have 0 features), and
// converted as any BatchNorm after.
func TestConvertSyncBatchNormLazy(t *testing.T) {
	if disttest.Worker() {
		t.Skip()
	}
	_, err := parallel.ConvertSyncBatchNorm(nn.LazyBatchNorm2d(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lazy BatchNorm whose parameters are not sized yet")

	lazy := nn.LazyBatchNorm1d()
	m := &flexibleBN{Head: nn.BatchNorm2d(3), Inner: nn.Sequential(nn.Linear(2, 4), lazy), Heads: map[string]nn.Moduler{}}
	m.Init(m)
	_, err = parallel.ConvertSyncBatchNorm(m, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "run a forward pass first")
	assert.IsType(t, &nn.BatchNorm2dModule{}, m.Head, "nothing is replaced when the conversion fails")

	m.Inner.Forward(torch.Randn([]int64{5, 2}))
	_, err = parallel.ConvertSyncBatchNorm(m, nil)
	require.NoError(t, err)
	s, ok := m.Inner.Layers[1].(*parallel.SyncBatchNormModule)
	require.True(t, ok)
	assert.Equal(t, []int64{4}, s.Weight.Shape())
}
