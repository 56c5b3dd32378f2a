package nn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// asmCase is an AdaptiveLogSoftmaxWithLoss golden case: call picks what
// the case returns, with PyTorch's first output first.
func asmCase(build func() *nn.AdaptiveLogSoftmaxWithLossModule, call func(m *nn.AdaptiveLogSoftmaxWithLossModule, i layIn) (layOut, error)) layerCase {
	return layerCase{build: func() nn.Moduler { return build() },
		call: func(m nn.Moduler, i layIn) (layOut, error) { return call(m.(*nn.AdaptiveLogSoftmaxWithLossModule), i) }}
}

func asmForward(m *nn.AdaptiveLogSoftmaxWithLossModule, i layIn) (layOut, error) {
	out, loss, err := m.TryForward(i["x"], i["t"])
	return layOut{out, loss}, err
}

func init() {
	asm := func() *nn.AdaptiveLogSoftmaxWithLossModule {
		return nn.AdaptiveLogSoftmaxWithLoss(8, 10, []int64{3, 6}, nn.WithDivValue(2))
	}
	biased := func() *nn.AdaptiveLogSoftmaxWithLossModule {
		return nn.AdaptiveLogSoftmaxWithLoss(8, 10, []int64{3, 6}, nn.WithHeadBias(true))
	}
	predict := func(m *nn.AdaptiveLogSoftmaxWithLossModule, i layIn) (layOut, error) {
		out, err := m.TryPredict(i["x"])
		return layOut{out}, err
	}
	layerCases["adaptive_log_softmax"] = asmCase(asm, asmForward)
	layerCases["adaptive_log_softmax_loss"] = asmCase(asm, func(m *nn.AdaptiveLogSoftmaxWithLossModule, i layIn) (layOut, error) {
		out, loss, err := m.TryForward(i["x"], i["t"])
		return layOut{loss, out}, err
	})
	layerCases["adaptive_log_softmax_head_bias"] = asmCase(func() *nn.AdaptiveLogSoftmaxWithLossModule {
		return nn.AdaptiveLogSoftmaxWithLoss(8, 12, []int64{2, 5, 9}, nn.WithHeadBias(true))
	}, asmForward)
	layerCases["adaptive_log_softmax_unbatched"] = asmCase(func() *nn.AdaptiveLogSoftmaxWithLossModule {
		return nn.AdaptiveLogSoftmaxWithLoss(6, 5, []int64{2})
	}, asmForward)
	layerCases["adaptive_log_softmax_one_part"] = asmCase(asm, asmForward)
	layerCases["adaptive_log_softmax_div"] = asmCase(func() *nn.AdaptiveLogSoftmaxWithLossModule {
		return nn.AdaptiveLogSoftmaxWithLoss(1, 4, []int64{2}, nn.WithDivValue(0.1))
	}, asmForward)
	layerCases["adaptive_log_softmax_log_prob"] = asmCase(asm, func(m *nn.AdaptiveLogSoftmaxWithLossModule, i layIn) (layOut, error) {
		out, err := m.TryLogProb(i["x"])
		return layOut{out}, err
	})
	layerCases["adaptive_log_softmax_predict"] = asmCase(func() *nn.AdaptiveLogSoftmaxWithLossModule {
		return nn.AdaptiveLogSoftmaxWithLoss(8, 10, []int64{3, 6}, nn.WithDivValue(2), nn.WithHeadBias(true))
	}, predict)
	layerCases["adaptive_log_softmax_predict_clusters"] = asmCase(biased, predict)
	layerCases["adaptive_log_softmax_predict_shortlist"] = asmCase(biased, predict)
}

func TestAdaptiveLogSoftmaxWithLossErrors(t *testing.T) {
	var te *torch.Error
	for _, cutoffs := range [][]int64{nil, {3, 2}, {0, 3}, {3, 3}, {3, 10}} {
		require.ErrorAs(t, catchPanic(func() { nn.AdaptiveLogSoftmaxWithLoss(4, 10, cutoffs) }), &te, "cutoffs %v", cutoffs)
		assert.Contains(t, te.Msg, "cutoffs should be a sequence of unique, positive integers")
	}
	require.ErrorAs(t, catchPanic(func() { nn.AdaptiveLogSoftmaxWithLoss(4, 10, []int64{3}, nn.WithDivValue(0)) }), &te)
	assert.Contains(t, te.Msg, "hidden size")

	m := nn.AdaptiveLogSoftmaxWithLoss(4, 10, []int64{3, 6})
	x := torch.Zeros([]int64{3, 4})
	for _, c := range []struct {
		x, target torch.Tensor
		want      string
	}{
		{x, torch.FromSlice([]int64{1, 2, 10}), "Target values should be in [0, 9], but values in range [1, 10] were found."},
		{x, torch.FromSlice([]int64{-1, 2, 3}), "but values in range [-1, 3] were found."},
		{x, torch.FromSlice([]int64{1, 2}), "Input and target should have the same size in the batch dimension"},
		{x, torch.FromSlice([]int64{1, 2, 3}, 3, 1), "0D or 1D target tensor expected, multi-target not supported"},
		{torch.Zeros([]int64{3}), torch.FromSlice([]int64{1, 2, 3}), "1D target tensor expects 2D input tensors, but found inputs with size [3]"},
		{x, torch.FromSlice([]int64{1}, []int64{}...), "0D target tensor expects 1D input tensors, but found inputs with size [3 4]"},
		{torch.Zeros([]int64{3, 5}), torch.FromSlice([]int64{1, 2, 3}), "input [3 5] does not end in in_features=4"},
		{x, torch.FromSlice([]int32{1, 2, 3}), "target must be an int64 tensor of class indices, got torch.int32"},
		{x, torch.Tensor{}, "undefined tensor"},
	} {
		_, _, err := m.TryForward(c.x, c.target)
		assert.ErrorContains(t, err, c.want)
	}
	_, err := m.TryLogProb(torch.Zeros([]int64{4}))
	assert.ErrorContains(t, err, "expected a 2D input (N, in_features), got [4]")
	_, err = m.TryPredict(torch.Zeros([]int64{2, 3}))
	assert.ErrorContains(t, err, "does not end in in_features=4")
	var nilM *nn.AdaptiveLogSoftmaxWithLossModule
	_, _, err = nilM.TryForward(x, torch.FromSlice([]int64{1, 2, 3}))
	assert.ErrorIs(t, err, nn.ErrUninitialized)
	_, err = nilM.TryPredict(x)
	assert.ErrorIs(t, err, nn.ErrUninitialized)
	assert.Panics(t, func() { m.Forward(x, torch.FromSlice([]int64{1, 2, 30})) })
}

// TestAdaptiveLogSoftmaxWithLossConsistent checks the three entry points
// against each other: Forward's output is LogProb's entry of the target,
// and Predict is LogProb's argmax.
func TestAdaptiveLogSoftmaxWithLossConsistent(t *testing.T) {
	torch.ManualSeed(7)
	m := nn.AdaptiveLogSoftmaxWithLoss(6, 9, []int64{2, 4, 7}, nn.WithHeadBias(true))
	x := torch.Randn([]int64{16, 6}).MulScalar(torch.S(3))
	target := torch.FromSlice([]int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2})
	out, loss := m.Forward(x, target)
	lp := m.LogProb(x)
	want := lp.Gather(1, target.Unsqueeze(1)).SqueezeDim(1)
	assert.InDeltaSlice(t, toF64(want.Float32s()), toF64(out.Float32s()), 1e-5)
	assert.InDelta(t, -want.Mean().Item(), loss.Item(), 1e-5)
	assert.Equal(t, lp.Argmax(torch.WithDim(1)).Int64s(), m.Predict(x).Int64s())
}

func toF64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, f := range v {
		out[i] = float64(f)
	}
	return out
}
