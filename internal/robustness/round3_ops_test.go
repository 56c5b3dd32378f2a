package robustness

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// Round 3 (issue #36): ops whose 1.13.1 kernels trust a sample, length,
// per-channel or shape-bearing argument. Each call below crashed the
// process (SIGSEGV, SIGFPE, or glibc's abort on a corrupted heap) or read
// out of bounds silently in a probe of every such op in a child process
// (testdata/probe_round3_ops.py, against PyTorch 1.13.1's libtorch); the
// shim now checks them (internal/gen's trustedArgs, cgotorch/checks.h).

func rnd(s ...int64) torch.Tensor { return torch.Rand(s) }

func full32(v float32, s ...int64) torch.Tensor { return torch.Full(s, torch.S(v)) }

func round3OpsCases(t *testing.T) []badCase {
	x4 := func() torch.Tensor { return rnd(2, 3, 8, 8) }
	x5 := func() torch.Tensor { return rnd(2, 3, 6, 6, 6) }
	fmp2 := func(samples torch.Tensor) error {
		return e2(torch.TryFractionalMaxPool2d(x4(), shape(2, 2), shape(4, 4), samples))
	}
	fmp3 := func(samples torch.Tensor) error {
		return e2(torch.TryFractionalMaxPool3d(x5(), shape(2, 2, 2), shape(3, 3, 3), samples))
	}
	samplesShape := "random_samples has size"
	samplesRange := "random_samples must be in [0, 1)"
	padPacked := func(data torch.Tensor, sizes ...int64) error {
		return e2(torch.TryInternalPadPackedSequence(data, i64(sizes...), false, torch.S(0.0), 0))
	}
	bn := func(input, w, b, rm, rv torch.Tensor, training bool) error {
		return e3(torch.TryNativeBatchNorm(input, w, b, rm, rv, training, 0.1, 1e-5))
	}
	none := torch.Tensor{}
	perChannel := "elements for 4 channels; it must have one per channel"
	return []badCase{
		// Fractional max pooling trusts random_samples (the example).
		{"fractional_max_pool2d samples of an empty batch", samplesShape, "fractional_max_pool2d", nil,
			func() error { return fmp2(rnd(0, 3, 2)) }},
		{"fractional_max_pool2d one plane of samples for three", samplesShape, "fractional_max_pool2d", nil,
			func() error { return fmp2(rnd(2, 1, 2)) }},
		{"fractional_max_pool2d one sample per plane", samplesShape, "fractional_max_pool2d", nil,
			func() error { return fmp2(rnd(2, 3, 1)) }},
		{"fractional_max_pool2d flat samples", samplesShape, "fractional_max_pool2d", nil,
			func() error { return fmp2(rnd(12)) }},
		{"fractional_max_pool2d sample 1e9", samplesRange, "fractional_max_pool2d", nil,
			func() error { return fmp2(full32(1e9, 2, 3, 2)) }},
		{"fractional_max_pool2d sample -1e9", samplesRange, "fractional_max_pool2d", nil,
			func() error { return fmp2(full32(-1e9, 2, 3, 2)) }},
		{"fractional_max_pool2d sample NaN", samplesRange, "fractional_max_pool2d", nil,
			func() error { return fmp2(full32(float32(math.NaN()), 2, 3, 2)) }},
		{"fractional_max_pool2d sample exactly 1", samplesRange, "fractional_max_pool2d", nil,
			func() error { return fmp2(full32(1, 2, 3, 2)) }},
		{"fractional_max_pool3d samples of an empty batch", samplesShape, "fractional_max_pool3d", nil,
			func() error { return fmp3(rnd(0, 3, 3)) }},
		{"fractional_max_pool3d one plane of samples for three", samplesShape, "fractional_max_pool3d", nil,
			func() error { return fmp3(rnd(2, 1, 3)) }},
		{"fractional_max_pool3d sample 1e9", samplesRange, "fractional_max_pool3d", nil,
			func() error { return fmp3(full32(1e9, 2, 3, 3)) }},
		{"fractional_max_pool3d sample NaN", samplesRange, "fractional_max_pool3d", nil,
			func() error { return fmp3(full32(float32(math.NaN()), 2, 3, 3)) }},

		// _pad_packed_sequence walks data by batch_sizes.
		{"_pad_packed_sequence negative batch size", "batch_sizes holds -2", "_pad_packed_sequence", nil,
			func() error { return padPacked(rnd(5, 2), 3, -2) }},
		{"_pad_packed_sequence empty batch_sizes", "batch_sizes must be a non-empty 1-D tensor", "_pad_packed_sequence", nil,
			func() error { return padPacked(rnd(5, 2)) }},
		{"_pad_packed_sequence increasing batch_sizes", "batch_sizes must not increase", "_pad_packed_sequence", nil,
			func() error { return padPacked(rnd(5, 2), 2, 3) }},
		{"_pad_packed_sequence batch_sizes beyond data", "batch_sizes sum to 6 but data has 2 rows", "_pad_packed_sequence", nil,
			func() error { return padPacked(rnd(2, 2), 3, 3) }},

		// rrelu_with_noise writes noise at self's positions in training.
		{"rrelu_with_noise short noise", "noise has size [2], self [100]", "rrelu_with_noise", nil,
			func() error { return e1(torch.TryRreluWithNoise(rnd(100), rnd(2), torch.WithTraining(true))) }},
		{"rrelu_with_noise_ short noise", "noise has size [2], self [100]", "rrelu_with_noise_", nil,
			func() error { return e1(torch.TryRreluWithNoise_(rnd(100), rnd(2), torch.WithTraining(true))) }},
		{"rrelu_with_noise_backward short noise", "noise has size [2], self [100]", "rrelu_with_noise_backward", nil,
			func() error {
				return e1(torch.TryRreluWithNoiseBackward(rnd(100), rnd(100), rnd(2), torch.S(0.1), torch.S(0.3), true, false))
			}},

		// Group and head counts that divide by zero (SIGFPE).
		{"native_channel_shuffle 0 groups", "groups must be positive, got 0", "native_channel_shuffle", nil,
			func() error { return e1(torch.TryNativeChannelShuffle(rnd(2, 4, 3), 0)) }},
		{"native_channel_shuffle more groups than channels", "groups 1000 does not divide the 4 channels", "native_channel_shuffle", nil,
			func() error { return e1(torch.TryNativeChannelShuffle(rnd(2, 4, 3), 1000)) }},
		{"channel_shuffle 3 groups of 4 channels", "groups 3 does not divide the 4 channels", "channel_shuffle", nil,
			func() error { return e1(torch.TryChannelShuffle(rnd(2, 4, 3), 3)) }},
		{"_transform_bias_rescale_qkv 0 heads", "num_heads must be positive, got 0", "_transform_bias_rescale_qkv", nil,
			func() error { return e3(torch.TryInternalTransformBiasRescaleQkv(rnd(2, 3, 12), rnd(12), 0)) }},
		{"_transform_bias_rescale_qkv short bias", "qkv_bias has size [1]", "_transform_bias_rescale_qkv", nil,
			func() error { return e3(torch.TryInternalTransformBiasRescaleQkv(rnd(2, 3, 12), rnd(1), 2)) }},
		{"_native_multi_head_attention 0 heads", "the number of heads must be positive, got 0", "_native_multi_head_attention", nil,
			func() error {
				q := rnd(2, 3, 8)
				return e2(torch.TryInternalNativeMultiHeadAttention(q, q, q, 8, 0, rnd(24, 8), rnd(24), rnd(8, 8), rnd(8)))
			}},
		{"_transformer_encoder_layer_fwd 0 heads", "the number of heads must be positive, got 0", "_transformer_encoder_layer_fwd", nil,
			func() error {
				return e1(torch.TryInternalTransformerEncoderLayerFwd(rnd(2, 3, 8), 8, 0, rnd(24, 8), rnd(24), rnd(8, 8), rnd(8),
					false, false, 1e-5, rnd(8), rnd(8), rnd(8), rnd(8), rnd(16, 8), rnd(16), rnd(8, 16), rnd(8)))
			}},

		// Per-channel tensors of the wrong size: read out of bounds.
		{"native_batch_norm short weight", "weight has 1 " + perChannel, "native_batch_norm", nil,
			func() error { return bn(rnd(2, 4, 3), rnd(1), rnd(1), none, none, true) }},
		{"native_batch_norm short running_mean", "running_mean has 1 " + perChannel, "native_batch_norm", nil,
			func() error { return bn(rnd(2, 4, 3), none, none, rnd(1), rnd(1), false) }},
		{"native_batch_norm short running_var in training", "running_var has 2 " + perChannel, "native_batch_norm", nil,
			func() error { return bn(rnd(2, 4, 3), none, none, rnd(4), rnd(2), true) }},
		{"native_batch_norm_backward short save_mean", "save_mean has 1 " + perChannel, "native_batch_norm_backward", nil,
			func() error {
				return e3(torch.TryNativeBatchNormBackward(rnd(2, 4, 3), rnd(2, 4, 3), none, none, none, rnd(1), rnd(1), true, 1e-5, [3]bool{true, true, true}))
			}},
		{"native_batch_norm_backward short running_var", "running_var has 1 " + perChannel, "native_batch_norm_backward", nil,
			func() error {
				return e3(torch.TryNativeBatchNormBackward(rnd(2, 4, 3), rnd(2, 4, 3), rnd(4), rnd(4), rnd(1), none, none, false, 1e-5, [3]bool{true, true, true}))
			}},
		{"batch_norm_update_stats short running_mean", "running_mean has 1 " + perChannel, "batch_norm_update_stats", nil,
			func() error { return e2(torch.TryBatchNormUpdateStats(rnd(2, 4, 3), rnd(1), rnd(1), 0.1)) }},
		{"_weight_norm_interface short g", "g has 1 elements for 4 channels", "_weight_norm_interface", nil,
			func() error { return e2(torch.TryInternalWeightNormInterface(rnd(4, 3), rnd(1))) }},
		{"_weight_norm_interface dim 5", "dim must be 0 or the last dimension of v (1), got 5", "_weight_norm_interface", nil,
			func() error { return e2(torch.TryInternalWeightNormInterface(rnd(4, 3), rnd(4, 1), torch.WithDim(5))) }},
		{"_weight_norm_interface_backward short saved_norms", "saved_norms has 1 elements for 4 channels", "_weight_norm_interface_backward", nil,
			func() error {
				return e2(torch.TryInternalWeightNormInterfaceBackward(rnd(4, 3), rnd(4, 3), rnd(4, 1), rnd(1), 0))
			}},
		{"multi_margin_loss short weight", "weight has 1 elements for 3 channels", "multi_margin_loss", nil,
			func() error { return e1(torch.TryMultiMarginLoss(rnd(2, 3), i64(1, 0), torch.WithWeight(rnd(1)))) }},
		{"multi_margin_loss_backward short weight", "weight has 2 elements for 3 channels", "multi_margin_loss_backward", nil,
			func() error {
				return e1(torch.TryMultiMarginLossBackward(rnd(2, 3), rnd(2, 3), i64(1, 0), torch.S(1), torch.S(1), torch.WithWeight(rnd(2))))
			}},
		{"_fused_moving_avg_obs_fq_helper empty statistics", "running_min has 0 elements for 1 channels", "_fused_moving_avg_obs_fq_helper", nil,
			func() error {
				on := i64(1)
				return e2(torch.TryInternalFusedMovingAvgObsFqHelper(rnd(4, 3), on, on, rnd(0), rnd(0), rnd(0), i32(), 0.1, 0, 255, 0))
			}},
		{"_fused_moving_avg_obs_fq_helper per channel short", "running_min has 1 elements for 4 channels", "_fused_moving_avg_obs_fq_helper", nil,
			func() error {
				on := i64(1)
				return e2(torch.TryInternalFusedMovingAvgObsFqHelper(rnd(4, 3), on, on, rnd(1), rnd(1), rnd(1), i32(0), 0.1, 0, 255, 0,
					torch.WithPerRowFakeQuant(true)))
			}},

		// Outputs and gradients whose shapes the kernels take on trust.
		{"_cummax_helper short outputs", "must have self's size [10]", "_cummax_helper", nil,
			func() error { return torch.TryInternalCummaxHelper(rnd(10), rnd(1), i64(0), 0) }},
		{"_log_softmax_backward_data short output", "grad_output has size [4, 6], output [4, 1]", "_log_softmax_backward_data", nil,
			func() error {
				return e1(torch.TryInternalLogSoftmaxBackwardData(rnd(4, 6), rnd(4, 1), 1, torch.Float32))
			}},
		{"_masked_softmax_backward short output", "grad_output has size [2, 3, 4], output [1]", "_masked_softmax_backward", nil,
			func() error {
				return e1(torch.TryInternalMaskedSoftmaxBackward(rnd(2, 3, 4), rnd(1), torch.Ones(shape(2, 3, 4), torch.WithDtype(torch.Bool))))
			}},
		{"_fft_c2r last_dim_size beyond self", "a last dimension of 100 needs 51 values of self along dimension 1, which has 3", "_fft_c2r", nil,
			func() error {
				return e1(torch.TryInternalFftC2r(torch.Rand(shape(4, 3), torch.WithDtype(torch.Complex64)), shape(1), 0, 100))
			}},
		{"_fft_c2r last_dim_size 0", "last_dim_size must be positive, got 0", "_fft_c2r", nil,
			func() error {
				return e1(torch.TryInternalFftC2r(torch.Rand(shape(4, 3), torch.WithDtype(torch.Complex64)), shape(1), 0, 0))
			}},
		{"grid_sampler_2d_backward small grad", "grad_output has size [1, 1, 1, 1], but input and grid give [1, 1, 3, 3]", "grid_sampler_2d_backward", nil,
			func() error {
				return e2(torch.TryGridSampler2dBackward(rnd(1, 1, 1, 1), rnd(1, 1, 4, 4), rnd(1, 3, 3, 2), 0, 0, false, [2]bool{true, true}))
			}},
		{"grid_sampler_3d_backward small grad", "but input and grid give [1, 1, 3, 3, 3]", "grid_sampler_3d_backward", nil,
			func() error {
				return e2(torch.TryGridSampler3dBackward(rnd(1, 1, 1, 1, 1), rnd(1, 1, 4, 4, 4), rnd(1, 3, 3, 3, 3), 0, 0, false, [2]bool{true, true}))
			}},
		{"replication_pad3d_backward small grad", "but self padded by [1, 1, 1, 1, 1, 1] has size [1, 1, 6, 6, 6]", "replication_pad3d_backward", nil,
			func() error {
				return e1(torch.TryReplicationPad3dBackward(rnd(1, 1, 1, 1, 1), rnd(1, 1, 4, 4, 4), shape(1, 1, 1, 1, 1, 1)))
			}},
	}
}

// TestRound3OpEdges: the round 3 checks refuse nothing that PyTorch's own
// callers pass. Each op gets arguments as its callers make them, at the
// edges the checks draw, and gives a result that the test can verify
// without a golden file (an identity, a hand computation or a bound).
func TestRound3OpEdges(t *testing.T) {
	x := rnd(2, 3, 8, 8)
	samples := torch.FromSlice([]float32{0, 0.999, 0.5, 0, 0.25, 0.75, 0.999, 0.999, 0, 0, 0.1, 0.9}, 2, 3, 2)
	out, _, err := torch.TryFractionalMaxPool2d(x, shape(2, 2), shape(4, 4), samples)
	require.NoError(t, err)
	assert.Equal(t, shape(2, 3, 4, 4), out.Shape())
	assert.LessOrEqual(t, out.Max().Float32s()[0], x.Max().Float32s()[0])
	_, _, err = torch.TryFractionalMaxPool2d(rnd(3, 8, 8), shape(2, 2), shape(4, 4), rnd(1, 3, 2))
	require.NoError(t, err, "an unbatched input takes samples of a batch of one")
	_, _, err = torch.TryFractionalMaxPool3d(rnd(2, 3, 6, 6, 6), shape(2, 2, 2), shape(3, 3, 3), rnd(2, 3, 3))
	require.NoError(t, err)

	// Five rows packed as steps of 3 and 2 sequences: padded to [2, 3, 1].
	data := torch.FromSlice([]float32{1, 2, 3, 4, 5}, 5, 1)
	padded, lengths, err := torch.TryInternalPadPackedSequence(data, i64(3, 2), false, torch.S(0.0), 0)
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 0}, padded.Float32s())
	assert.Equal(t, []int64{2, 2, 1}, lengths.Int64s())

	noise := rnd(4)
	_, err = torch.TryRreluWithNoise(rnd(4).Neg(), noise, torch.WithTraining(true))
	require.NoError(t, err)
	r, err := torch.TryRreluWithNoise(f32(-2, 3), rnd(1), torch.WithTraining(false))
	if strings.HasPrefix(torch.LibtorchVersion(), "1.") {
		require.NoError(t, err, "out of training the noise is not read")
		assert.InDeltaSlice(t, []float32{-2 * (0.125 + 1.0/3) / 2, 3}, r.Float32s(), 1e-6)
	} else if err != nil {
		// libtorch 2.x checks the noise's shape itself, even out of training.
		assert.Contains(t, err.Error(), "noise tensor shape must match")
	}

	cs, err := torch.TryChannelShuffle(torch.Arange(torch.S(4)).Reshape(shape(1, 4, 1)), 2)
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 2, 1, 3}, cs.Int64s())

	// Batch norm: training without and with running statistics, eval,
	// and the backward of each as autograd calls it.
	in := rnd(5, 4, 3)
	y, mean, invstd, err := torch.TryNativeBatchNorm(in, torch.Ones(shape(4)), torch.Zeros(shape(4)), torch.Tensor{}, torch.Tensor{}, true, 0.1, 1e-5)
	require.NoError(t, err)
	assert.InDelta(t, 0, y.Mean().Float32s()[0], 1e-5)
	_, _, _, err = torch.TryNativeBatchNormBackward(rnd(5, 4, 3), in, torch.Ones(shape(4)), torch.Tensor{}, torch.Tensor{}, mean, invstd, true, 1e-5, [3]bool{true, true, true})
	require.NoError(t, err)
	rm, rv := torch.Zeros(shape(4)), torch.Ones(shape(4))
	_, _, _, err = torch.TryNativeBatchNorm(in, torch.Tensor{}, torch.Tensor{}, rm, rv, true, 0.1, 1e-5)
	require.NoError(t, err)
	y, emean, einv, err := torch.TryNativeBatchNorm(in, torch.Tensor{}, torch.Tensor{}, torch.Zeros(shape(4)), torch.Ones(shape(4)), false, 0.1, 0)
	require.NoError(t, err)
	assert.InDeltaSlice(t, in.Float32s(), y.Float32s(), 1e-6, "eval with mean 0 and variance 1 is the identity")
	_, _, _, err = torch.TryNativeBatchNormBackward(rnd(5, 4, 3), in, torch.Tensor{}, torch.Zeros(shape(4)), torch.Ones(shape(4)), emean, einv, false, 1e-5, [3]bool{true, true, true})
	require.NoError(t, err, "eval's backward reads the running statistics; the saved ones (%v) may be empty", emean.Shape())
	_, _, err = torch.TryBatchNormUpdateStats(in, rm, rv, 0.1)
	require.NoError(t, err)

	// Weight norm: w = g × v / ‖v‖ per row.
	v := torch.FromSlice([]float32{3, 4, 0, 5}, 2, 2)
	w, norms, err := torch.TryInternalWeightNormInterface(v, torch.FromSlice([]float32{10, 1}, 2, 1))
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float32{6, 8, 0, 1}, w.Float32s(), 1e-5)
	_, _, err = torch.TryInternalWeightNormInterfaceBackward(torch.OnesLike(v), v, torch.Ones(shape(2, 1)), norms, 0)
	require.NoError(t, err)

	_, err = torch.TryMultiMarginLoss(rnd(2, 3), i64(2, 0), torch.WithWeight(torch.Ones(shape(3))))
	require.NoError(t, err)

	vals, idx, err := torch.TryCummax(f32(3, 1, 2, 5), 0)
	require.NoError(t, err)
	assert.Equal(t, []float32{3, 3, 3, 5}, vals.Float32s())
	assert.Equal(t, []int64{0, 0, 0, 3}, idx.Int64s())

	_, err = torch.TryInternalLogSoftmaxBackwardData(rnd(4, 6), rnd(4, 6), 1, torch.Float32)
	require.NoError(t, err)

	// irfft(rfft(x)) is x; with n beyond the input, fft_irfft pads it first.
	sig := f32(1, 2, 3, 4, 5, 6)
	spec, err := torch.TryFftRfft(sig)
	require.NoError(t, err)
	back, err := torch.TryFftIrfft(spec, torch.WithN(6))
	require.NoError(t, err)
	assert.InDeltaSlice(t, sig.Float32s(), back.Float32s(), 1e-5)
	long, err := torch.TryFftIrfft(spec, torch.WithN(40))
	require.NoError(t, err)
	assert.Equal(t, shape(40), long.Shape())

	_, _, err = torch.TryGridSampler2dBackward(rnd(1, 2, 3, 3), rnd(1, 2, 4, 4), rnd(1, 3, 3, 2), 0, 0, false, [2]bool{true, true})
	require.NoError(t, err)
	g, err := torch.TryReplicationPad3dBackward(torch.Ones(shape(1, 1, 4, 4, 4)), rnd(1, 1, 2, 2, 2), shape(1, 1, 1, 1, 1, 1))
	require.NoError(t, err)
	assert.InDelta(t, 64, g.Sum().Float32s()[0], 1e-4, "every padded cell sends its gradient to one input cell")

	_, _, _, err = torch.TryInternalTransformBiasRescaleQkv(rnd(2, 3, 12), rnd(12), 2)
	require.NoError(t, err)
}
