package nn_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

func lstmResults(out, hn, cn torch.Tensor) []torch.Tensor { return []torch.Tensor{out, hn, cn} }

func TestLSTMGolden(t *testing.T) {
	t.Run("2 layers bidirectional batch_first", func(t *testing.T) {
		m := nn.LSTM(4, 5, nn.WithNumLayers(2), nn.WithBidirectional(true), nn.WithBatchFirst(true))
		raRun(t, "lstm_2l_bi_bf", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return lstmResults(m.Forward(in["x"]))
		})
	})
	t.Run("given h0 c0", func(t *testing.T) {
		m := nn.LSTM(3, 4)
		raRun(t, "lstm_h0", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return lstmResults(m.Forward(in["x"], in["h0"], in["c0"]))
		})
	})
	t.Run("no bias, projections, unbatched, eval", func(t *testing.T) {
		m := nn.LSTM(3, 5, nn.WithNumLayers(2), nn.WithBias(false), nn.WithProjSize(2), nn.WithDropout(0.5))
		raRun(t, "lstm_proj_nobias_unbatched", m, func(in map[string]torch.Tensor) []torch.Tensor {
			return lstmResults(m.Forward(in["x"], in["h0"], in["c0"]))
		})
	})
}

func TestGRUGolden(t *testing.T) {
	t.Run("1 layer", func(t *testing.T) {
		m := nn.GRU(4, 6)
		raRun(t, "gru_1l", m, func(in map[string]torch.Tensor) []torch.Tensor {
			out, hn := m.Forward(in["x"])
			return []torch.Tensor{out, hn}
		})
	})
	t.Run("2 layers bidirectional no bias given h0", func(t *testing.T) {
		m := nn.GRU(3, 4, nn.WithNumLayers(2), nn.WithBidirectional(true), nn.WithBias(false), nn.WithBatchFirst(true))
		raRun(t, "gru_2l_bi_h0", m, func(in map[string]torch.Tensor) []torch.Tensor {
			out, hn := m.Forward(in["x"], in["h0"])
			return []torch.Tensor{out, hn}
		})
	})
}

func TestLSTMGRURepr(t *testing.T) {
	assert.Equal(t, raRepr(t, "lstm_full"), nn.LSTM(3, 4,
		nn.WithNumLayers(2), nn.WithBias(false), nn.WithBatchFirst(true), nn.WithDropout(0.25), nn.WithBidirectional(true), nn.WithProjSize(2),
	).String())
	assert.Equal(t, raRepr(t, "lstm_plain"), nn.LSTM(10, 20).String())
	assert.Equal(t, raRepr(t, "gru_dropout1"), nn.GRU(3, 4, nn.WithNumLayers(3), nn.WithDropout(1)).String())
}

func TestLSTMParamsAndInit(t *testing.T) {
	m := nn.LSTM(3, 16, nn.WithNumLayers(2), nn.WithBidirectional(true))
	ps := m.NamedParameters()
	require.Len(t, ps, 16)
	assert.Equal(t, "weight_ih_l0", ps[0].Name)
	assert.Equal(t, "bias_hh_l1_reverse", ps[15].Name)
	assert.Equal(t, []int64{64, 3}, m.Param("weight_ih_l0").Shape())
	assert.Equal(t, []int64{64, 32}, m.Param("weight_ih_l1_reverse").Shape())
	assert.Equal(t, []int64{64, 16}, m.Param("weight_hh_l1").Shape())
	assert.False(t, m.Param("weight_hr_l0").Defined())
	sd := m.StateDict()
	assert.Len(t, sd, 16)
	assert.Contains(t, sd, "bias_ih_l0_reverse")
	// U(-1/√16, 1/√16), and not all equal.
	for _, p := range ps {
		assert.True(t, p.Tensor.RequiresGrad(), p.Name)
		assert.LessOrEqual(t, p.Tensor.Abs().Max().Item(), 0.25, p.Name)
		assert.Greater(t, p.Tensor.Std().Item(), 0.05, p.Name)
	}
	g := nn.GRU(2, 3)
	assert.Equal(t, []int64{9, 2}, g.Param("weight_ih_l0").Shape())
	assert.LessOrEqual(t, g.Param("bias_hh_l0").Abs().Max().Item(), 1/math.Sqrt(3))

	// The module's To keeps the weights it passes to at::lstm.
	require.NoError(t, m.To(torch.Float64))
	out, hn, cn := m.Forward(torch.Randn([]int64{5, 2, 3}, torch.WithDtype(torch.Float64)))
	assert.Equal(t, torch.Float64, out.DType())
	assert.Equal(t, []int64{5, 2, 32}, out.Shape())
	assert.Equal(t, []int64{4, 2, 16}, hn.Shape())
	assert.Equal(t, []int64{4, 2, 16}, cn.Shape())
}

func TestLSTMDropoutOnlyInTraining(t *testing.T) {
	m := nn.LSTM(3, 8, nn.WithNumLayers(2), nn.WithDropout(0.5))
	x := torch.Randn([]int64{6, 2, 3})
	m.Eval()
	e1, _, _ := m.Forward(x)
	e2, _, _ := m.Forward(x)
	assert.True(t, e1.Equal(e2), "eval is deterministic")
	m.Train()
	t1, _, _ := m.Forward(x)
	t2, _, _ := m.Forward(x)
	assert.False(t, t1.Equal(t2), "training applies dropout between layers")
	assert.False(t, t1.Equal(e1))
}

func TestLSTMErrors(t *testing.T) {
	m := nn.LSTM(3, 4, nn.WithNumLayers(2))
	x := torch.Randn([]int64{5, 2, 3})

	_, _, _, err := m.TryForward(torch.Randn([]int64{5, 2, 7}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nn.LSTM: input.size(-1) must be equal to input_size. Expected 3, got 7")

	_, _, _, err = m.TryForward(torch.Randn([]int64{3}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "input must have 2 (unbatched) or 3 (batched) dimensions, got 1")

	_, _, _, err = m.TryForward(x, torch.Zeros([]int64{2, 3, 4}), torch.Zeros([]int64{2, 2, 4}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "expected hx of size [2 2 4], got [2 3 4]")

	_, _, _, err = m.TryForward(x, torch.Zeros([]int64{2, 2, 4}), torch.Zeros([]int64{2, 2}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "for batched 3-D input, cx should also be 3-D but got 2-D")

	_, _, _, err = m.TryForward(x, torch.Zeros([]int64{2, 2, 4}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "optionally (h0, c0), got 1 state tensors")

	_, _, _, err = m.TryForward(torch.Tensor{})
	require.Error(t, err)

	// libtorch's own check: a dtype mismatch is a *torch.Error.
	_, _, _, err = m.TryForward(x.To(torch.Float64))
	var te *torch.Error
	require.True(t, errors.As(err, &te), "%v", err)
	assert.Equal(t, "lstm", te.Op)

	// Forward panics with the same errors.
	raPanicErr(t, "input_size. Expected 3, got 7", func() { m.Forward(torch.Randn([]int64{5, 2, 7})) })

	// Unbatched state must be 2-D.
	_, _, _, err = m.TryForward(torch.Randn([]int64{5, 3}), torch.Zeros([]int64{2, 1, 4}), torch.Zeros([]int64{2, 1, 4}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "for unbatched 2-D input, hx should also be 2-D but got 3-D")

	// An uninitialized module is an error, not a crash.
	var nilLSTM *nn.LSTMModule
	_, _, _, err = nilLSTM.TryForward(x)
	require.ErrorIs(t, err, nn.ErrUninitialized)
}

func TestGRUErrors(t *testing.T) {
	m := nn.GRU(3, 4, nn.WithBatchFirst(true), nn.WithBidirectional(true))
	_, _, err := m.TryForward(torch.Randn([]int64{2, 5, 3}), torch.Zeros([]int64{1, 2, 4}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nn.GRU: expected hx of size [2 2 4], got [1 2 4]")
	_, _, err = m.TryForward(torch.Randn([]int64{2, 5, 3}), torch.Zeros([]int64{2, 2, 4}), torch.Zeros([]int64{2, 2, 4}))
	require.Error(t, err)
	out, hn, err := m.TryForward(torch.Randn([]int64{5, 3}))
	require.NoError(t, err)
	assert.Equal(t, []int64{5, 8}, out.Shape())
	assert.Equal(t, []int64{2, 4}, hn.Shape())
}

func TestLSTMGRUConstructorPanics(t *testing.T) {
	raPanicErr(t, "proj_size argument is only supported for LSTM", func() { nn.GRU(3, 4, nn.WithProjSize(2)) })
	raPanicErr(t, "proj_size has to be smaller than hidden_size", func() { nn.LSTM(3, 4, nn.WithProjSize(4)) })
	raPanicErr(t, "dropout should be a number in range [0, 1]", func() { nn.LSTM(3, 4, nn.WithDropout(1.5)) })
	raPanicErr(t, "hidden_size must be greater than zero", func() { nn.LSTM(3, 0) })
	raPanicErr(t, "unexpected option kdim", func() { nn.LSTM(3, 4, nn.WithKdim(2)) })
}
