package nn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/livetest"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// Built-in modules free the tensors they make for their own use: each
// leaves exactly its results alive, and its arguments usable.
func TestModulesFreeTheirTemporaries(t *testing.T) {
	var args []torch.Tensor // of the current case
	arg := func(t torch.Tensor) torch.Tensor {
		args = append(args, t)
		return t
	}
	rn := func(s ...int64) torch.Tensor { return arg(torch.Randn(s)) }
	ts := func(ts ...torch.Tensor) []torch.Tensor { return ts }
	type call = func() []torch.Tensor
	lstm := nn.LSTM(3, 4)
	lstm2 := nn.LSTM(3, 4, nn.WithNumLayers(2), nn.WithBatchFirst(true), nn.WithBidirectional(true), nn.WithDropout(0.5))
	gru := nn.GRU(3, 4)
	mha := nn.MultiheadAttention(8, 2)
	mhaBF := nn.MultiheadAttention(8, 2, nn.WithBatchFirst(true), nn.WithAddBiasKV(true), nn.WithAddZeroAttn(true))
	mhaKV := nn.MultiheadAttention(8, 2, nn.WithKdim(6), nn.WithVdim(5), nn.WithDropout(0.5))
	enc := nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16))
	encPre := nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0), nn.WithNormFirst(true), nn.WithActivation("gelu"), nn.WithBatchFirst(true))
	cases := []struct {
		name  string
		train bool
		// setup makes the module's arguments, outside the count, and
		// returns the call of Forward, which returns its results.
		setup func() call
	}{
		{"LSTM unbatched", false, func() call {
			x := rn(5, 3)
			return func() []torch.Tensor { return ts(lstm.Forward(x)) }
		}},
		{"LSTM unbatched with state", false, func() call {
			x, h, c := rn(5, 3), rn(1, 4), rn(1, 4)
			return func() []torch.Tensor { return ts(lstm.Forward(x, h, c)) }
		}},
		{"LSTM batched", false, func() call {
			x := rn(5, 2, 3)
			return func() []torch.Tensor { return ts(lstm.Forward(x)) }
		}},
		{"LSTM batched with state", false, func() call {
			x, h, c := rn(5, 2, 3), rn(1, 2, 4), rn(1, 2, 4)
			return func() []torch.Tensor { return ts(lstm.Forward(x, h, c)) }
		}},
		{"LSTM stacked training", true, func() call {
			x := rn(2, 5, 3)
			return func() []torch.Tensor { return ts(lstm2.Forward(x)) }
		}},
		{"GRU unbatched", false, func() call {
			x := rn(5, 3)
			return func() []torch.Tensor { return ts(gru.Forward(x)) }
		}},
		{"GRU batched with state", false, func() call {
			x, h := rn(5, 2, 3), rn(1, 2, 4)
			return func() []torch.Tensor { return ts(gru.Forward(x, h)) }
		}},
		{"attention", false, func() call {
			q := rn(5, 2, 8)
			return func() []torch.Tensor { return ts(mha.Forward(q, q, q)) }
		}},
		{"attention key is value", false, func() call {
			q, kv := rn(5, 2, 8), rn(7, 2, 8)
			return func() []torch.Tensor { return ts(mha.Forward(q, kv, kv)) }
		}},
		{"attention unbatched", false, func() call {
			q, k, v := rn(5, 8), rn(7, 8), rn(7, 8)
			return func() []torch.Tensor { return ts(mha.Forward(q, k, v)) }
		}},
		{"attention masks", false, func() call {
			q, kv := rn(5, 2, 8), rn(7, 2, 8)
			o := []nn.Option{
				nn.WithKeyPaddingMask(arg(torch.Zeros([]int64{2, 7}, torch.WithDtype(torch.Bool)))),
				nn.WithAttnMask(arg(torch.Zeros([]int64{5, 7}, torch.WithDtype(torch.Uint8)))),
			}
			return func() []torch.Tensor { return ts(mha.Forward(q, kv, kv, o...)) }
		}},
		{"attention no weights", false, func() call {
			q, k, v := rn(5, 2, 8), rn(7, 2, 8), rn(7, 2, 8)
			o := []nn.Option{nn.WithNeedWeights(false), nn.WithAttnMask(rn(5, 7))}
			return func() []torch.Tensor {
				out, w := mha.Forward(q, k, v, o...)
				assert.False(t, w.Defined())
				return ts(out)
			}
		}},
		{"attention batch first", false, func() call {
			q, kv := rn(2, 5, 8), rn(2, 7, 8)
			o := []nn.Option{nn.WithKeyPaddingMask(rn(2, 7)), nn.WithAverageAttnWeights(false)}
			return func() []torch.Tensor { return ts(mhaBF.Forward(q, kv, kv, o...)) }
		}},
		{"attention kdim vdim training", true, func() call {
			q, k, v := rn(5, 2, 8), rn(7, 2, 6), rn(7, 2, 5)
			return func() []torch.Tensor { return ts(mhaKV.Forward(q, k, v)) }
		}},
		{"transformer", false, func() call {
			x := rn(5, 2, 8)
			return func() []torch.Tensor { return ts(enc.Forward(x)) }
		}},
		{"transformer training", true, func() call {
			x := rn(5, 2, 8)
			o := nn.WithSrcKeyPaddingMask(arg(torch.Zeros([]int64{2, 5}, torch.WithDtype(torch.Bool))))
			return func() []torch.Tensor { return ts(enc.Forward(x, o)) }
		}},
		{"transformer pre-norm", true, func() call {
			x := rn(2, 5, 8)
			return func() []torch.Tensor { return ts(encPre.Forward(x)) }
		}},
		{"conv reflect padding", false, func() call {
			m, x := nn.Conv2d(1, 2, 3, nn.WithPadding(1), nn.WithPaddingMode("reflect")), rn(1, 1, 5, 5)
			return func() []torch.Tensor { return ts(m.Forward(x)) }
		}},
		{"softsign", false, func() call {
			m, x := nn.Softsign(), rn(3)
			return func() []torch.Tensor { return ts(m.Forward(x)) }
		}},
		{"tanhshrink", false, func() call {
			m, x := nn.Tanhshrink(), rn(3)
			return func() []torch.Tensor { return ts(m.Forward(x)) }
		}},
		{"softmin", false, func() call {
			m, x := nn.Softmin(0), rn(3)
			return func() []torch.Tensor { return ts(m.Forward(x)) }
		}},
		{"dropout1d unbatched", true, func() call {
			m, x := nn.Dropout1d(), rn(3, 4)
			return func() []torch.Tensor { return ts(m.Forward(x)) }
		}},
		{"dropout3d unbatched eval", false, func() call {
			m, x := nn.Dropout3d(), rn(2, 2, 2, 2)
			m.Eval()
			return func() []torch.Tensor { return ts(m.Forward(x)) }
		}},
		{"adaptive max pool", false, func() call {
			m, x := nn.AdaptiveMaxPool2d(2), rn(1, 4, 4)
			return func() []torch.Tensor { return ts(m.Forward(x)) }
		}},
		{"MSE loss broadcast", false, func() call {
			m, x, y := nn.MSELoss(), rn(3, 1), rn(3, 4)
			return func() []torch.Tensor { return ts(m.Forward(x, y)) }
		}},
		{"Huber loss", false, func() call {
			m, x, y := nn.HuberLoss(), rn(3, 4), rn(3, 4)
			return func() []torch.Tensor { return ts(m.Forward(x, y)) }
		}},
		{"BCE loss with weight", false, func() call {
			m, x, y := nn.BCELoss(nn.WithWeight(arg(torch.Ones([]int64{4})))), arg(torch.Rand([]int64{3, 4})), arg(torch.Rand([]int64{3, 4}))
			return func() []torch.Tensor { return ts(m.Forward(x, y)) }
		}},
		{"KL div batchmean", false, func() call {
			m, x, y := nn.KLDivLoss(nn.WithReduction("batchmean")), rn(3, 4), arg(torch.Rand([]int64{3, 4}))
			return func() []torch.Tensor { return ts(m.Forward(x, y)) }
		}},
		{"embedding max norm", false, func() call {
			m, x := nn.Embedding(5, 3, nn.WithMaxNorm(1)), arg(torch.FromSlice([]int64{0, 2, 2}))
			return func() []torch.Tensor { return ts(m.Forward(x)) }
		}},
	}
	for _, c := range cases {
		for _, grad := range []bool{false, true} {
			name := c.name + "/nograd"
			if grad {
				name = c.name + "/grad"
			}
			t.Run(name, func(t *testing.T) {
				for _, m := range []interface{ Train(...bool) }{lstm, lstm2, gru, mha, mhaBF, mhaKV, enc, encPre} {
					m.Train(c.train)
				}
				var res []torch.Tensor
				var n int64
				run := func() {
					args = nil
					f := c.setup()
					n = livetest.New(func() { res = f() })
				}
				if grad {
					run()
				} else {
					torch.NoGrad(run)
				}
				for i, r := range res {
					assert.True(t, r.Defined(), "result %d", i)
				}
				assert.Equal(t, int64(len(res)), n, "tensors left alive besides the results")
				require.NotEmpty(t, args)
				for i, a := range args {
					assert.True(t, a.Defined(), "argument %d was freed", i)
				}
			})
		}
	}
}

// A user's activation may keep the tensors it sees and returns:
// TransformerEncoderLayer frees neither.
func TestTransformerKeepsActivationFnTensors(t *testing.T) {
	var in, out []torch.Tensor
	act := func(x torch.Tensor) torch.Tensor {
		y := x.Relu()
		in, out = append(in, x), append(out, y)
		return y
	}
	for _, normFirst := range []bool{false, true} {
		in, out = nil, nil
		l := nn.TransformerEncoderLayer(8, 2, nn.WithDimFeedforward(16), nn.WithDropout(0), nn.WithActivationFn(act), nn.WithNormFirst(normFirst))
		x := torch.Randn([]int64{5, 2, 8})
		y := l.Forward(x)
		require.Len(t, in, 1)
		require.True(t, in[0].Defined(), "the activation's input was freed")
		require.True(t, out[0].Defined(), "the activation's result was freed")
		assert.True(t, out[0].Equal(in[0].Relu()))
		assert.True(t, x.Defined())
		assert.Equal(t, []int64{5, 2, 8}, y.Shape())
	}
}
