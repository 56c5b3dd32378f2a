package nn_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// layTensor is a tensor in modules.json.
type layTensor struct {
	DType  string            `json:"dtype"`
	Shape  []int64           `json:"shape"`
	Values []json.RawMessage `json:"values"`
}

type layCase struct {
	Name   string               `json:"name"`
	Seed   uint64               `json:"seed"`
	Train  bool                 `json:"train"`
	Repr   string               `json:"repr"`
	Init   map[string]layTensor `json:"init"`
	State  map[string]layTensor `json:"state"`
	Inputs map[string]layTensor `json:"inputs"`
	Out    []layTensor          `json:"out"`
	C      *layTensor           `json:"c"`
	Grads  map[string]layTensor `json:"grads"`
	After  map[string]layTensor `json:"after"`
}

type layGolden struct {
	Cases []layCase         `json:"cases"`
	Reprs map[string]string `json:"reprs"`
}

func layLoad(t *testing.T) layGolden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "modules.json"))
	require.NoError(t, err, "regenerate with /usr/bin/python3 nn/testdata/modules.py")
	var g layGolden
	require.NoError(t, json.Unmarshal(b, &g))
	return g
}

func (g layTensor) floats(t *testing.T) []float64 {
	out := make([]float64, len(g.Values))
	for i, raw := range g.Values {
		switch string(raw) {
		case "true":
			out[i] = 1
		case "false":
		default:
			require.NoError(t, json.Unmarshal(raw, &out[i]))
		}
	}
	return out
}

func (g layTensor) shape() []int64 {
	if g.Shape == nil {
		return []int64{}
	}
	return g.Shape
}

func (g layTensor) tensor(t *testing.T) torch.Tensor {
	v := g.floats(t)
	switch g.DType {
	case "float32":
		f := make([]float32, len(v))
		for i := range v {
			f[i] = float32(v[i])
		}
		return torch.FromSlice(f, g.shape()...)
	case "int64":
		n := make([]int64, len(v))
		for i := range v {
			n[i] = int64(v[i])
		}
		return torch.FromSlice(n, g.shape()...)
	}
	t.Fatalf("unsupported dtype %s", g.DType)
	return torch.Tensor{}
}

// layClose checks dtype, shape, and values within the tolerance of the
// dtype (internal/golden).
func layClose(t *testing.T, what string, want layTensor, got torch.Tensor) {
	t.Helper()
	require.True(t, got.Defined(), "%s: undefined", what)
	assert.Equal(t, "torch."+want.DType, got.DType().String(), "%s: dtype", what)
	require.Equal(t, want.shape(), got.Shape(), "%s: shape", what)
	golden.TensorClose(t, want.floats(t), got, what)
}

func layStateDict(t *testing.T, what string, want map[string]layTensor, got map[string]torch.Tensor) {
	t.Helper()
	var wk, gk []string
	for k := range want {
		wk = append(wk, k)
	}
	for k := range got {
		gk = append(gk, k)
	}
	sort.Strings(wk)
	sort.Strings(gk)
	require.Equal(t, wk, gk, "%s: state dict keys", what)
	for _, k := range wk {
		layClose(t, what+" "+k, want[k], got[k])
	}
}

type layIn = map[string]torch.Tensor
type layOut = []torch.Tensor

type tryForwarder interface {
	TryForward(x torch.Tensor) (torch.Tensor, error)
}

type layerCase struct {
	build func() nn.Moduler
	call  func(m nn.Moduler, i layIn) (layOut, error) // default: TryForward(x or idx)
}

func l(build func() nn.Moduler) layerCase { return layerCase{build: build} }

func lossCase(build func() nn.Moduler) layerCase {
	return layerCase{build: build, call: func(m nn.Moduler, i layIn) (layOut, error) {
		out, err := m.(interface {
			TryForward(input, target torch.Tensor) (torch.Tensor, error)
		}).TryForward(i["x"], i["t"])
		return layOut{out}, err
	}}
}

// unpoolCase is a MaxUnpool case: its input x unpooled by indices i to
// size, if given.
func unpoolCase(build func() nn.Moduler, size ...int64) layerCase {
	return layerCase{build: build, call: func(m nn.Moduler, i layIn) (layOut, error) {
		out, err := m.(interface {
			TryForward(input, indices torch.Tensor, outputSize ...int64) (torch.Tensor, error)
		}).TryForward(i["x"], i["i"], size...)
		return layOut{out}, err
	}}
}

// layerCases are the Go constructions of the golden cases, by name.
var layerCases = map[string]layerCase{
	"linear":         l(func() nn.Moduler { return nn.Linear(4, 3) }),
	"linear_nobias":  l(func() nn.Moduler { return nn.Linear(4, 2, nn.WithBias(false)) }),
	"linear_batched": l(func() nn.Moduler { return nn.Linear(3, 5) }),
	"bilinear": {build: func() nn.Moduler { return nn.Bilinear(2, 3, 4) },
		call: func(m nn.Moduler, i layIn) (layOut, error) {
			out, err := m.(*nn.BilinearModule).TryForward(i["x1"], i["x2"])
			return layOut{out}, err
		}},
	"identity":     l(func() nn.Moduler { return nn.Identity() }),
	"flatten":      l(func() nn.Moduler { return nn.Flatten() }),
	"flatten_dims": l(func() nn.Moduler { return nn.Flatten(nn.WithStartDim(0), nn.WithEndDim(1)) }),
	"unflatten":    l(func() nn.Moduler { return nn.Unflatten(1, []int64{2, 3}) }),

	"conv1d": l(func() nn.Moduler { return nn.Conv1d(3, 4, 3, nn.WithStride(2), nn.WithPadding(1)) }),
	"conv1d_reflect": l(func() nn.Moduler {
		return nn.Conv1d(2, 3, 3, nn.WithPadding(2), nn.WithPaddingMode("reflect"))
	}),
	"conv2d": l(func() nn.Moduler { return nn.Conv2d(2, 4, 3) }),
	"conv2d_opts": l(func() nn.Moduler {
		return nn.Conv2d(4, 6, []int64{3, 2}, nn.WithStride(2, 1), nn.WithPadding(1), nn.WithDilation(1, 2),
			nn.WithGroups(2), nn.WithBias(false))
	}),
	"conv2d_same_circular": l(func() nn.Moduler {
		return nn.Conv2d(2, 2, 3, nn.WithPaddingString("same"), nn.WithPaddingMode("circular"))
	}),
	"conv2d_same_even": l(func() nn.Moduler { return nn.Conv2d(1, 2, 4, nn.WithPaddingString("same")) }),
	"conv2d_valid":     l(func() nn.Moduler { return nn.Conv2d(1, 2, 2, nn.WithPaddingString("valid")) }),
	"conv2d_replicate": l(func() nn.Moduler {
		return nn.Conv2d(1, 2, 2, nn.WithPadding(1), nn.WithPaddingMode("replicate"))
	}),
	"conv2d_unbatched": l(func() nn.Moduler { return nn.Conv2d(2, 3, 2) }),
	"conv3d":           l(func() nn.Moduler { return nn.Conv3d(2, 3, 2, nn.WithStride(2)) }),
	"conv_transpose1d": l(func() nn.Moduler {
		return nn.ConvTranspose1d(3, 2, 3, nn.WithStride(2), nn.WithPadding(1), nn.WithOutputPadding(1))
	}),
	"conv_transpose2d": l(func() nn.Moduler {
		return nn.ConvTranspose2d(4, 2, 3, nn.WithStride(2), nn.WithPadding(1), nn.WithGroups(2))
	}),
	"conv_transpose2d_output_size": {
		build: func() nn.Moduler {
			return nn.ConvTranspose2d(2, 3, 3, nn.WithStride(2), nn.WithPadding(1), nn.WithBias(false))
		},
		call: func(m nn.Moduler, i layIn) (layOut, error) {
			out, err := m.(*nn.ConvTranspose2dModule).TryForwardWithOutputSize(i["x"], []int64{6, 6})
			return layOut{out}, err
		}},
	"conv_transpose3d": l(func() nn.Moduler { return nn.ConvTranspose3d(2, 2, 2, nn.WithDilation(2)) }),

	"batchnorm1d":               l(func() nn.Moduler { return nn.BatchNorm1d(3) }),
	"batchnorm1d_3d_cumulative": l(func() nn.Moduler { return nn.BatchNorm1d(3, nn.WithMomentumNone()) }),
	"batchnorm2d": l(func() nn.Moduler {
		return nn.BatchNorm2d(3, nn.WithEps(1e-3), nn.WithMomentum(0.2))
	}),
	"batchnorm2d_eval": l(func() nn.Moduler { return nn.BatchNorm2d(3) }),
	"batchnorm2d_no_affine_no_stats": l(func() nn.Moduler {
		return nn.BatchNorm2d(3, nn.WithAffine(false), nn.WithTrackRunningStats(false))
	}),
	"batchnorm2d_no_stats_eval": l(func() nn.Moduler { return nn.BatchNorm2d(2, nn.WithTrackRunningStats(false)) }),
	"batchnorm3d":               l(func() nn.Moduler { return nn.BatchNorm3d(2) }),
	"layernorm":                 l(func() nn.Moduler { return nn.LayerNorm(4) }),
	"layernorm_shape": l(func() nn.Moduler {
		return nn.LayerNorm([]int64{3, 4}, nn.WithEps(1e-3), nn.WithElementwiseAffine(false))
	}),
	"groupnorm": l(func() nn.Moduler { return nn.GroupNorm(2, 4) }),
	"groupnorm_no_affine": l(func() nn.Moduler {
		return nn.GroupNorm(3, 6, nn.WithEps(1e-3), nn.WithAffine(false))
	}),

	"dropout":               l(func() nn.Moduler { return nn.Dropout(nn.WithP(0.3)) }),
	"dropout_default":       l(func() nn.Moduler { return nn.Dropout() }),
	"dropout_eval":          l(func() nn.Moduler { return nn.Dropout(nn.WithP(0.3)) }),
	"dropout1d":             l(func() nn.Moduler { return nn.Dropout1d(nn.WithP(0.5)) }),
	"dropout2d":             l(func() nn.Moduler { return nn.Dropout2d(nn.WithP(0.4)) }),
	"dropout3d":             l(func() nn.Moduler { return nn.Dropout3d(nn.WithP(0.5)) }),
	"alpha_dropout":         l(func() nn.Moduler { return nn.AlphaDropout(nn.WithP(0.2)) }),
	"feature_alpha_dropout": l(func() nn.Moduler { return nn.FeatureAlphaDropout(nn.WithP(0.2)) }),
	"hardshrink":            l(func() nn.Moduler { return nn.Hardshrink() }),
	"softshrink":            l(func() nn.Moduler { return nn.Softshrink(nn.WithLambd(0.3)) }),
	"rrelu":                 l(func() nn.Moduler { return nn.RReLU(nn.WithLower(0.1), nn.WithUpper(0.3)) }),
	"rrelu_eval":            l(func() nn.Moduler { return nn.RReLU() }),
	"softmax2d":             l(func() nn.Moduler { return nn.Softmax2d() }),
	"softmax2d_unbatched":   l(func() nn.Moduler { return nn.Softmax2d() }),
	"lppool1d":              l(func() nn.Moduler { return nn.LPPool1d(2, 3) }),
	"max_unpool1d":          unpoolCase(func() nn.Moduler { return nn.MaxUnpool1d(2) }),
	"max_unpool2d":          unpoolCase(func() nn.Moduler { return nn.MaxUnpool2d(2, nn.WithStride(2, 3), nn.WithPadding(1)) }, 5, 6),
	"max_unpool3d":          unpoolCase(func() nn.Moduler { return nn.MaxUnpool3d(2) }),
	"upsampling_nearest2d":  l(func() nn.Moduler { return nn.UpsamplingNearest2d(nn.WithScaleFactor(2)) }),
	"upsampling_bilinear2d": l(func() nn.Moduler { return nn.UpsamplingBilinear2d(nn.WithSize(3, 5)) }),
	"lppool2d": l(func() nn.Moduler {
		return nn.LPPool2d(2, []int64{2, 3}, nn.WithStride(1, 2), nn.WithCeilMode(true))
	}),

	"embedding":             l(func() nn.Moduler { return nn.Embedding(10, 3) }),
	"embedding_padding":     l(func() nn.Moduler { return nn.Embedding(6, 3, nn.WithPaddingIdx(0)) }),
	"embedding_neg_padding": l(func() nn.Moduler { return nn.Embedding(6, 3, nn.WithPaddingIdx(-2)) }),
	"embedding_max_norm": l(func() nn.Moduler {
		return nn.Embedding(6, 3, nn.WithMaxNorm(1), nn.WithNormType(1.5), nn.WithScaleGradByFreq(true))
	}),

	"relu":               l(func() nn.Moduler { return nn.ReLU() }),
	"relu6":              l(func() nn.Moduler { return nn.ReLU6() }),
	"selu":               l(func() nn.Moduler { return nn.SELU() }),
	"silu":               l(func() nn.Moduler { return nn.SiLU() }),
	"mish":               l(func() nn.Moduler { return nn.Mish() }),
	"hardswish":          l(func() nn.Moduler { return nn.Hardswish() }),
	"hardsigmoid":        l(func() nn.Moduler { return nn.Hardsigmoid() }),
	"tanh":               l(func() nn.Moduler { return nn.Tanh() }),
	"sigmoid":            l(func() nn.Moduler { return nn.Sigmoid() }),
	"logsigmoid":         l(func() nn.Moduler { return nn.LogSigmoid() }),
	"softsign":           l(func() nn.Moduler { return nn.Softsign() }),
	"tanhshrink":         l(func() nn.Moduler { return nn.Tanhshrink() }),
	"leaky_relu":         l(func() nn.Moduler { return nn.LeakyReLU(nn.WithNegativeSlope(0.2)) }),
	"leaky_relu_default": l(func() nn.Moduler { return nn.LeakyReLU() }),
	"gelu":               l(func() nn.Moduler { return nn.GELU() }),
	"gelu_tanh":          l(func() nn.Moduler { return nn.GELU(nn.WithApproximate("tanh")) }),
	"elu":                l(func() nn.Moduler { return nn.ELU(nn.WithAlpha(0.5)) }),
	"elu_default":        l(func() nn.Moduler { return nn.ELU() }),
	"celu":               l(func() nn.Moduler { return nn.CELU(nn.WithAlpha(2)) }),
	"hardtanh":           l(func() nn.Moduler { return nn.Hardtanh(nn.WithMinVal(-0.5), nn.WithMaxVal(0.5)) }),
	"hardtanh_default":   l(func() nn.Moduler { return nn.Hardtanh() }),
	"softplus":           l(func() nn.Moduler { return nn.Softplus(nn.WithBeta(2), nn.WithThreshold(1)) }),
	"softplus_default":   l(func() nn.Moduler { return nn.Softplus() }),
	"threshold":          l(func() nn.Moduler { return nn.Threshold(0.1, 20) }),
	"glu":                l(func() nn.Moduler { return nn.GLU() }),
	"softmax":            l(func() nn.Moduler { return nn.Softmax(1) }),
	"log_softmax":        l(func() nn.Moduler { return nn.LogSoftmax(1) }),
	"softmin":            l(func() nn.Moduler { return nn.Softmin(0) }),
	"prelu":              l(func() nn.Moduler { return nn.PReLU() }),
	"prelu_channels":     l(func() nn.Moduler { return nn.PReLU(nn.WithNumParameters(3), nn.WithInit(0.1)) }),

	"maxpool1d": l(func() nn.Moduler { return nn.MaxPool1d(2) }),
	"maxpool2d": l(func() nn.Moduler { return nn.MaxPool2d(2) }),
	"maxpool2d_opts": l(func() nn.Moduler {
		return nn.MaxPool2d(3, nn.WithStride(2), nn.WithPadding(1), nn.WithCeilMode(true))
	}),
	"maxpool2d_tuple": l(func() nn.Moduler {
		return nn.MaxPool2d([]int64{2, 3}, nn.WithStride(2, 1), nn.WithDilation(1, 2))
	}),
	"maxpool2d_indices": {build: func() nn.Moduler { return nn.MaxPool2d(2) },
		call: func(m nn.Moduler, i layIn) (layOut, error) {
			out, idx, err := m.(*nn.MaxPool2dModule).TryForwardWithIndices(i["x"])
			return layOut{out, idx}, err
		}},
	"maxpool3d": l(func() nn.Moduler { return nn.MaxPool3d(2) }),
	"avgpool1d": l(func() nn.Moduler { return nn.AvgPool1d(3, nn.WithStride(2), nn.WithPadding(1)) }),
	"avgpool2d": l(func() nn.Moduler { return nn.AvgPool2d(2) }),
	"avgpool2d_opts": l(func() nn.Moduler {
		return nn.AvgPool2d([]int64{3, 2}, nn.WithStride(2, 1), nn.WithPadding(1, 0), nn.WithCeilMode(true),
			nn.WithCountIncludePad(false), nn.WithDivisorOverride(4))
	}),
	"avgpool3d":              l(func() nn.Moduler { return nn.AvgPool3d(2) }),
	"adaptive_avgpool1d":     l(func() nn.Moduler { return nn.AdaptiveAvgPool1d(3) }),
	"adaptive_avgpool2d":     l(func() nn.Moduler { return nn.AdaptiveAvgPool2d([]int64{2, 3}) }),
	"adaptive_avgpool2d_int": l(func() nn.Moduler { return nn.AdaptiveAvgPool2d(1) }),
	"adaptive_avgpool3d":     l(func() nn.Moduler { return nn.AdaptiveAvgPool3d(2) }),
	"adaptive_maxpool1d":     l(func() nn.Moduler { return nn.AdaptiveMaxPool1d(3) }),
	"adaptive_maxpool2d":     l(func() nn.Moduler { return nn.AdaptiveMaxPool2d(2) }),
	"fractional_max_pool2d": l(func() nn.Moduler {
		return nn.FractionalMaxPool2d(2, nn.WithOutputSize(3, 4),
			nn.WithRandomSamples(torch.FromNested([][][]float32{{{0.5, 0.3}, {0.9, 0.1}}})))
	}),
	"fractional_max_pool2d_ratio_seeded": l(func() nn.Moduler {
		return nn.FractionalMaxPool2d([]int64{2, 3}, nn.WithOutputRatio(0.5))
	}),
	"fractional_max_pool3d_indices": {build: func() nn.Moduler { return nn.FractionalMaxPool3d(2, nn.WithOutputRatio(0.5, 0.6, 0.5)) },
		call: func(m nn.Moduler, i layIn) (layOut, error) {
			out, idx, err := m.(*nn.FractionalMaxPool3dModule).TryForwardWithIndices(i["x"])
			return layOut{out, idx}, err
		}},
	"adaptive_maxpool2d_indices": {build: func() nn.Moduler { return nn.AdaptiveMaxPool2d([]int64{2, 3}) },
		call: func(m nn.Moduler, i layIn) (layOut, error) {
			out, idx, err := m.(*nn.AdaptiveMaxPool2dModule).TryForwardWithIndices(i["x"])
			return layOut{out, idx}, err
		}},
	"adaptive_maxpool3d": l(func() nn.Moduler { return nn.AdaptiveMaxPool3d([]int64{1, 2, 2}) }),

	"cross_entropy_loss": lossCase(func() nn.Moduler { return nn.CrossEntropyLoss() }),
	"cross_entropy_loss_opts": lossCase(func() nn.Moduler {
		// The weight's values come from the golden state dict.
		return nn.CrossEntropyLoss(nn.WithWeight(torch.Ones([]int64{5})), nn.WithIgnoreIndex(4),
			nn.WithLabelSmoothing(0.1), nn.WithReduction("sum"))
	}),
	"nll_loss":       lossCase(func() nn.Moduler { return nn.NLLLoss() }),
	"mse_loss":       lossCase(func() nn.Moduler { return nn.MSELoss() }),
	"l1_loss":        lossCase(func() nn.Moduler { return nn.L1Loss(nn.WithReduction("sum")) }),
	"smooth_l1_loss": lossCase(func() nn.Moduler { return nn.SmoothL1Loss(nn.WithBeta(0.5)) }),
	"huber_loss": lossCase(func() nn.Moduler {
		return nn.HuberLoss(nn.WithReduction("none"), nn.WithDelta(0.5))
	}),
	"bce_loss": lossCase(func() nn.Moduler { return nn.BCELoss(nn.WithWeight(torch.Ones([]int64{4}))) }),
	"bce_with_logits_loss": lossCase(func() nn.Moduler {
		return nn.BCEWithLogitsLoss(nn.WithPosWeight(torch.Ones([]int64{4})))
	}),
	"kl_div_loss": lossCase(func() nn.Moduler {
		return nn.KLDivLoss(nn.WithReduction("batchmean"), nn.WithLogTarget(true))
	}),

	"zeropad2d":               l(func() nn.Moduler { return nn.ZeroPad2d([]int64{1, 0, 2, 1}) }),
	"constantpad1d":           l(func() nn.Moduler { return nn.ConstantPad1d(2, 3.5) }),
	"constantpad2d_unbatched": l(func() nn.Moduler { return nn.ConstantPad2d([]int64{1, 2, 0, 1}, -1) }),
	"constantpad3d":           l(func() nn.Moduler { return nn.ConstantPad3d(1, 0.5) }),
	"reflectionpad1d":         l(func() nn.Moduler { return nn.ReflectionPad1d([]int64{2, 1}) }),
	"reflectionpad2d":         l(func() nn.Moduler { return nn.ReflectionPad2d(1) }),
	"reflectionpad3d":         l(func() nn.Moduler { return nn.ReflectionPad3d(1) }),
	"replicationpad1d":        l(func() nn.Moduler { return nn.ReplicationPad1d([]int64{1, 3}) }),
	"replicationpad2d":        l(func() nn.Moduler { return nn.ReplicationPad2d([]int64{1, 0, 2, 1}) }),
	"replicationpad3d":        l(func() nn.Moduler { return nn.ReplicationPad3d(1) }),

	"instancenorm1d":        l(func() nn.Moduler { return nn.InstanceNorm1d(3) }),
	"instancenorm2d_affine": l(func() nn.Moduler { return nn.InstanceNorm2d(3, nn.WithAffine(true)) }),
	"instancenorm2d_stats": l(func() nn.Moduler {
		return nn.InstanceNorm2d(2, nn.WithMomentum(0.2), nn.WithTrackRunningStats(true))
	}),
	"instancenorm2d_stats_eval": l(func() nn.Moduler { return nn.InstanceNorm2d(2, nn.WithTrackRunningStats(true)) }),
	"instancenorm3d_unbatched":  l(func() nn.Moduler { return nn.InstanceNorm3d(2, nn.WithEps(1e-3)) }),
	"local_response_norm":       l(func() nn.Moduler { return nn.LocalResponseNorm(3) }),
	"local_response_norm_4d": l(func() nn.Moduler {
		return nn.LocalResponseNorm(2, nn.WithAlpha(0.01), nn.WithBeta(0.5), nn.WithK(2))
	}),

	"upsample_nearest": l(func() nn.Moduler { return nn.Upsample(nn.WithScaleFactor(2)) }),
	"upsample_bilinear": l(func() nn.Moduler {
		return nn.Upsample(nn.WithSize(5, 4), nn.WithMode("bilinear"), nn.WithAlignCorners(true))
	}),
	"upsample_linear": l(func() nn.Moduler { return nn.Upsample(nn.WithScaleFactor(1.5), nn.WithMode("linear")) }),
	"upsample_trilinear": l(func() nn.Moduler {
		return nn.Upsample(nn.WithScaleFactor(2, 1, 2), nn.WithMode("trilinear"))
	}),
	"upsample_bicubic": l(func() nn.Moduler { return nn.Upsample(nn.WithSize(5), nn.WithMode("bicubic")) }),
	"upsample_nearest_exact": l(func() nn.Moduler {
		return nn.Upsample(nn.WithSize(5, 7), nn.WithMode("nearest-exact"))
	}),
	"upsample_nearest_exact_1d": l(func() nn.Moduler {
		return nn.Upsample(nn.WithScaleFactor(1.7), nn.WithMode("nearest-exact"))
	}),
	"upsample_area":    l(func() nn.Moduler { return nn.Upsample(nn.WithSize(2, 3), nn.WithMode("area")) }),
	"upsample_area_3d": l(func() nn.Moduler { return nn.Upsample(nn.WithSize(1, 2, 3), nn.WithMode("area")) }),
	"pixel_shuffle":    l(func() nn.Moduler { return nn.PixelShuffle(2) }),
	"pixel_unshuffle":  l(func() nn.Moduler { return nn.PixelUnshuffle(2) }),
	"fold":             l(func() nn.Moduler { return nn.Fold([]int64{4, 5}, 2) }),
	"fold_opts": l(func() nn.Moduler {
		return nn.Fold(4, []int64{2, 3}, nn.WithPadding(1), nn.WithStride(2))
	}),
	"unfold": l(func() nn.Moduler { return nn.Unfold(2) }),
	"unfold_opts": l(func() nn.Moduler {
		return nn.Unfold([]int64{2, 3}, nn.WithDilation(1, 2), nn.WithPadding(1), nn.WithStride(2))
	}),
	"channel_shuffle": l(func() nn.Moduler { return nn.ChannelShuffle(2) }),

	"embedding_bag": {build: func() nn.Moduler { return nn.EmbeddingBag(10, 3) }, call: bagCall},
	"embedding_bag_offsets": {build: func() nn.Moduler { return nn.EmbeddingBag(10, 3, nn.WithMode("sum")) },
		call: bagCall},
	"embedding_bag_max_padding": {build: func() nn.Moduler {
		return nn.EmbeddingBag(8, 3, nn.WithMode("max"), nn.WithPaddingIdx(1))
	}, call: bagCall},
	"embedding_bag_weighted": {build: func() nn.Moduler {
		return nn.EmbeddingBag(10, 3, nn.WithMode("sum"), nn.WithIncludeLastOffset(true))
	}, call: bagCall},
	"embedding_bag_max_norm": {build: func() nn.Moduler {
		return nn.EmbeddingBag(6, 3, nn.WithMaxNorm(1), nn.WithNormType(1.5))
	}, call: bagCall},
	"cosine_similarity": callN(func() nn.Moduler { return nn.CosineSimilarity() }, "a", "b"),
	"cosine_similarity_opts": callN(func() nn.Moduler {
		return nn.CosineSimilarity(nn.WithDim(0), nn.WithEps(1e-3))
	}, "a", "b"),
	"pairwise_distance": callN(func() nn.Moduler { return nn.PairwiseDistance() }, "a", "b"),
	"pairwise_distance_opts": callN(func() nn.Moduler {
		return nn.PairwiseDistance(nn.WithP(1), nn.WithEps(1e-3), nn.WithKeepdim(true))
	}, "a", "b"),

	"ctc_loss": callN(func() nn.Moduler { return nn.CTCLoss() }, "x", "t", "il", "tl"),
	"ctc_loss_opts": callN(func() nn.Moduler {
		return nn.CTCLoss(nn.WithBlank(3), nn.WithReduction("sum"), nn.WithZeroInfinity(true))
	}, "x", "t", "il", "tl"),
	"triplet_margin_loss":               callN(func() nn.Moduler { return nn.TripletMarginLoss() }, "a", "b", "c"),
	"triplet_margin_with_distance_loss": callN(func() nn.Moduler { return nn.TripletMarginWithDistanceLoss() }, "a", "b", "c"),
	"triplet_margin_with_distance_loss_opts": callN(func() nn.Moduler {
		l1 := func(x, y torch.Tensor) torch.Tensor {
			d := x.Sub(y)
			defer d.Free()
			a := d.Abs()
			defer a.Free()
			return a.SumAlong(-1)
		}
		return nn.TripletMarginWithDistanceLoss(nn.WithDistanceFunction(l1), nn.WithMargin(0.5), nn.WithSwap(true),
			nn.WithReduction("sum"))
	}, "a", "b", "c"),
	"triplet_margin_loss_opts": callN(func() nn.Moduler {
		return nn.TripletMarginLoss(nn.WithMargin(0.5), nn.WithP(1), nn.WithEps(1e-3), nn.WithSwap(true),
			nn.WithReduction("none"))
	}, "a", "b", "c"),
	"margin_ranking_loss": callN(func() nn.Moduler { return nn.MarginRankingLoss(nn.WithMargin(0.2)) }, "a", "b", "y"),
	"hinge_embedding_loss": callN(func() nn.Moduler {
		return nn.HingeEmbeddingLoss(nn.WithMargin(0.5), nn.WithReduction("sum"))
	}, "x", "y"),
	"multilabel_margin_loss": lossCase(func() nn.Moduler { return nn.MultiLabelMarginLoss() }),
	"multilabel_soft_margin_loss": callN(func() nn.Moduler {
		return nn.MultiLabelSoftMarginLoss(nn.WithWeight(torch.Ones([]int64{4})))
	}, "x", "y"),
	"multi_margin_loss": lossCase(func() nn.Moduler { return nn.MultiMarginLoss() }),
	"multi_margin_loss_opts": lossCase(func() nn.Moduler {
		return nn.MultiMarginLoss(nn.WithP(2), nn.WithMargin(0.7), nn.WithWeight(torch.Ones([]int64{5})),
			nn.WithReduction("sum"))
	}),
	"poisson_nll_loss": callN(func() nn.Moduler { return nn.PoissonNLLLoss() }, "x", "y"),
	"poisson_nll_loss_opts": callN(func() nn.Moduler {
		return nn.PoissonNLLLoss(nn.WithLogInput(false), nn.WithFull(true), nn.WithEps(1e-4))
	}, "x", "y"),
	"gaussian_nll_loss": callN(func() nn.Moduler { return nn.GaussianNLLLoss() }, "a", "b", "c"),
	"gaussian_nll_loss_homo": callN(func() nn.Moduler {
		return nn.GaussianNLLLoss(nn.WithFull(true), nn.WithEps(0.5), nn.WithReduction("none"))
	}, "a", "b", "c"),
	"cosine_embedding_loss": callN(func() nn.Moduler { return nn.CosineEmbeddingLoss(nn.WithMargin(0.1)) }, "a", "b", "y"),
	"soft_margin_loss":      callN(func() nn.Moduler { return nn.SoftMarginLoss() }, "x", "y"),
}

// callN is a case whose Forward takes the named inputs, in order, and
// returns one tensor: (x1, x2), a loss's (input, target), CTCLoss's four.
func callN(build func() nn.Moduler, names ...string) layerCase {
	return layerCase{build: build, call: func(m nn.Moduler, i layIn) (layOut, error) {
		v := reflect.ValueOf(m).MethodByName("TryForward")
		if !v.IsValid() || v.Type().NumIn() != len(names) {
			return nil, fmt.Errorf("%T has no TryForward of %d tensors", m, len(names))
		}
		args := make([]reflect.Value, len(names))
		for k, n := range names {
			t, ok := i[n]
			if !ok {
				return nil, fmt.Errorf("no input %q", n)
			}
			args[k] = reflect.ValueOf(t)
		}
		r := v.Call(args)
		err, _ := r[1].Interface().(error)
		return layOut{r[0].Interface().(torch.Tensor)}, err
	}}
}

// bagCall runs EmbeddingBag on idx, with offsets and per-sample weights w
// where the case has them.
func bagCall(m nn.Moduler, i layIn) (layOut, error) {
	out, err := m.(*nn.EmbeddingBagModule).TryForwardWeighted(i["idx"], i["offsets"], i["w"])
	return layOut{out}, err
}

// lossWithGoldenBuffers are the cases whose buffers are given by the test
// rather than drawn, so their init is not compared.
var lossWithGoldenBuffers = map[string]bool{"cross_entropy_loss_opts": true, "bce_loss": true, "bce_with_logits_loss": true,
	"multilabel_soft_margin_loss": true, "multi_margin_loss_opts": true}

type stateDicter interface {
	StateDict() map[string]torch.Tensor
	LoadStateDict(map[string]torch.Tensor, bool) error
	NamedParameters() []nn.Named
	Train(...bool)
	String() string
}

// TestLayersGolden builds every layer of modules.json with the case's seed
// and checks, against PyTorch: the printed form, the initial state dict
// (PyTorch's default initialization, draw for draw), the forward output,
// the gradients of the input and parameters, and the state after the
// forward pass (running statistics).
func TestLayersGolden(t *testing.T) {
	g := layLoad(t)
	seen := map[string]bool{}
	for _, gc := range g.Cases {
		gc := gc
		seen[gc.Name] = true
		t.Run(gc.Name, func(t *testing.T) {
			lc, ok := layerCases[gc.Name]
			require.True(t, ok, "no Go layer for golden case %s", gc.Name)
			torch.ManualSeed(gc.Seed)
			m := lc.build()
			sd := m.(stateDicter)
			assert.Equal(t, gc.Repr, sd.String(), "repr")
			if !lossWithGoldenBuffers[gc.Name] {
				layStateDict(t, "init", gc.Init, sd.StateDict())
			}
			state := map[string]torch.Tensor{}
			for k, v := range gc.State {
				state[k] = v.tensor(t)
			}
			require.NoError(t, sd.LoadStateDict(state, true))
			sd.Train(gc.Train)

			ins := layIn{}
			for k, v := range gc.Inputs {
				x := v.tensor(t)
				if x.DType().IsFloatingPoint() && k != "y" { // targets named y get no gradient
					x.SetRequiresGrad(true)
				}
				ins[k] = x
			}
			var outs layOut
			var err error
			if lc.call != nil {
				outs, err = lc.call(m, ins)
			} else {
				x, ok := ins["x"]
				if !ok {
					x = ins["idx"]
				}
				var out torch.Tensor
				out, err = m.(tryForwarder).TryForward(x)
				outs = layOut{out}
			}
			require.NoError(t, err)
			require.Len(t, outs, len(gc.Out))
			for j, o := range gc.Out {
				layClose(t, fmt.Sprintf("out[%d]", j), o, outs[j])
			}
			if gc.C != nil {
				outs[0].Mul(gc.C.tensor(t)).Sum().Backward()
				grads := map[string]torch.Tensor{}
				for k, x := range ins {
					if x.RequiresGrad() {
						grads["input."+k] = orZeros(x)
					}
				}
				for _, p := range sd.NamedParameters() {
					grads["param."+p.Name] = orZeros(p.Tensor)
				}
				layStateDict(t, "grad", gc.Grads, grads)
			} else {
				assert.False(t, outs[0].RequiresGrad(), "PyTorch's output needs no gradient")
			}
			layStateDict(t, "after", gc.After, sd.StateDict())
		})
	}
	var missing []string
	for name := range layerCases {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "Go cases without golden data (regenerate modules.json)")
}

func orZeros(x torch.Tensor) torch.Tensor {
	if g := x.Grad(); g.Defined() {
		return g
	}
	return torch.ZerosLike(x)
}

// TestLayersRepr checks the printed form of layers with every setting
// that prints, and of a small network.
func TestLayersRepr(t *testing.T) {
	g := layLoad(t)
	reprs := map[string]fmt.Stringer{
		"cnn": nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
			nn.Linear(32*13*13, 10), nn.LogSoftmax(1)),
		"conv2d_all": nn.Conv2d(4, 8, 3, nn.WithStride(2), nn.WithPadding(1), nn.WithDilation(2), nn.WithGroups(4),
			nn.WithBias(false), nn.WithPaddingMode("reflect")),
		"conv_transpose2d_all": nn.ConvTranspose2d(4, 8, []int64{3, 2}, nn.WithStride(2), nn.WithPadding(1),
			nn.WithOutputPadding(1), nn.WithGroups(2), nn.WithDilation(2), nn.WithBias(false)),
		"embedding_all": nn.Embedding(5, 2, nn.WithPaddingIdx(1), nn.WithMaxNorm(2), nn.WithNormType(1),
			nn.WithScaleGradByFreq(true), nn.WithSparse(true)),
		"batchnorm_none": nn.BatchNorm1d(4, nn.WithMomentumNone(), nn.WithAffine(false),
			nn.WithTrackRunningStats(false)),
		"maxpool_tuple":          nn.MaxPool2d([]int64{2, 3}, nn.WithStride(1, 2), nn.WithPadding(1, 0)),
		"avgpool1d":              nn.AvgPool1d(4),
		"avgpool3d":              nn.AvgPool3d([]int64{2, 1, 2}, nn.WithStride(1)),
		"adaptive_maxpool3d":     nn.AdaptiveMaxPool3d([]int64{1, 2, 3}),
		"dropout2d":              nn.Dropout2d(nn.WithP(0.25)),
		"upsample_scale_tuple":   nn.Upsample(nn.WithScaleFactor(2, 3), nn.WithMode("bilinear")),
		"upsample_none":          nn.Upsample(),
		"upsample_nearest_exact": nn.Upsample(nn.WithScaleFactor(2), nn.WithMode("nearest-exact")),
		"upsample_area":          nn.Upsample(nn.WithSize(3, 4), nn.WithMode("area")),
		"fold_all":               nn.Fold([]int64{4, 5}, []int64{2, 3}, nn.WithDilation(2), nn.WithPadding(1, 0), nn.WithStride(1)),
		"embedding_bag_all": nn.EmbeddingBag(5, 2, nn.WithMaxNorm(2), nn.WithNormType(1), nn.WithScaleGradByFreq(true),
			nn.WithMode("sum"), nn.WithSparse(true), nn.WithIncludeLastOffset(true), nn.WithPaddingIdx(-1)),
		"instancenorm3d_all": nn.InstanceNorm3d(4, nn.WithEps(1e-3), nn.WithMomentum(0.5), nn.WithAffine(true),
			nn.WithTrackRunningStats(true)),
		"pads": nn.Sequential(nn.ZeroPad2d(2), nn.ConstantPad3d([]int64{1, 2, 3, 4, 5, 6}, 0.25), nn.ReflectionPad1d(3),
			nn.ReplicationPad3d([]int64{1, 0, 1, 0, 1, 0})),
		"misc": nn.Sequential(nn.LocalResponseNorm(4, nn.WithAlpha(0.5), nn.WithBeta(1), nn.WithK(3)), nn.PixelShuffle(3),
			nn.PixelUnshuffle(2), nn.ChannelShuffle(4), nn.CosineSimilarity(nn.WithDim(2)),
			nn.PairwiseDistance(nn.WithP(3)), nn.Unfold(3, nn.WithStride(2))),
		"losses": nn.Sequential(nn.CTCLoss(nn.WithBlank(2)), nn.TripletMarginLoss(nn.WithMargin(2)), nn.MarginRankingLoss(),
			nn.HingeEmbeddingLoss(), nn.MultiLabelMarginLoss(), nn.MultiLabelSoftMarginLoss(),
			nn.MultiMarginLoss(nn.WithP(2)), nn.PoissonNLLLoss(nn.WithFull(true)), nn.GaussianNLLLoss(),
			nn.CosineEmbeddingLoss(), nn.SoftMarginLoss()),
	}
	require.Len(t, g.Reprs, len(reprs))
	for name, want := range g.Reprs {
		m, ok := reprs[name]
		require.True(t, ok, name)
		assert.Equal(t, want, m.String(), name)
	}
}

// TestDefaultInitStatistics checks PyTorch's default initialization on
// large layers: Linear and Conv weights from kaiming_uniform_(a=√5), that
// is U(-1/√fan_in, 1/√fan_in), biases from the same range, Embedding from
// N(0, 1), norms at ones and zeros.
func TestDefaultInitStatistics(t *testing.T) {
	torch.ManualSeed(1)
	lin := nn.Linear(400, 300)
	bound := 1 / math.Sqrt(400)
	for _, p := range []torch.Tensor{lin.Weight, lin.Bias} {
		assert.LessOrEqual(t, p.Max().Item(), bound)
		assert.GreaterOrEqual(t, p.Min().Item(), -bound)
		assert.Greater(t, p.Max().Item(), 0.95*bound)
		assert.True(t, p.RequiresGrad())
		assert.True(t, p.IsLeaf())
	}
	assert.InDelta(t, bound/math.Sqrt(3), lin.Weight.Std().Item(), 0.01*bound)
	assert.Equal(t, []int64{300, 400}, lin.Weight.Shape())
	assert.Equal(t, torch.Float32, lin.Weight.DType())

	conv := nn.Conv2d(16, 32, 3)
	cb := 1 / math.Sqrt(16*3*3)
	assert.LessOrEqual(t, conv.Weight.Max().Item(), cb)
	assert.GreaterOrEqual(t, conv.Bias.Min().Item(), -cb)
	assert.InDelta(t, cb/math.Sqrt(3), conv.Weight.Std().Item(), 0.05*cb)

	tr := nn.ConvTranspose2d(16, 8, 3) // weight (16, 8, 3, 3): fan_in is 8·9
	tb := 1 / math.Sqrt(8*9)
	assert.LessOrEqual(t, tr.Bias.Max().Item(), tb)
	assert.Greater(t, tr.Weight.Max().Item(), 1/math.Sqrt(16*9))

	emb := nn.Embedding(1000, 64, nn.WithPaddingIdx(3))
	assert.InDelta(t, 1, emb.Weight.Std().Item(), 0.02)
	assert.Equal(t, make([]float32, 64), emb.Weight.Select(0, 3).Float32s())

	bn := nn.BatchNorm2d(3)
	assert.Equal(t, []float32{1, 1, 1}, bn.Weight.Float32s())
	assert.Equal(t, []float32{0, 0, 0}, bn.Bias.Float32s())
	assert.Equal(t, []float32{0, 0, 0}, bn.RunningMean.Float32s())
	assert.Equal(t, []float32{1, 1, 1}, bn.RunningVar.Float32s())
	assert.Equal(t, int64(0), bn.NumBatchesTracked.ItemInt())
	assert.Equal(t, torch.Int64, bn.NumBatchesTracked.DType())
	assert.False(t, bn.RunningMean.RequiresGrad())

	d := nn.Linear(3, 2, nn.WithDtype(torch.Float64))
	assert.Equal(t, torch.Float64, d.Weight.DType())
	assert.Equal(t, torch.Float64, d.Bias.DType())
}

// TestLayerStateDictNames checks the state-dict keys of the layers that
// have parameters and buffers, as PyTorch names them.
func TestLayerStateDictNames(t *testing.T) {
	keys := func(m interface {
		StateDict() map[string]torch.Tensor
	}) []string {
		var ks []string
		for k := range m.StateDict() {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}
	assert.Equal(t, []string{"bias", "num_batches_tracked", "running_mean", "running_var", "weight"}, keys(nn.BatchNorm2d(2)))
	assert.Equal(t, []string{"weight"}, keys(nn.Linear(2, 2, nn.WithBias(false))))
	assert.Empty(t, keys(nn.BatchNorm1d(2, nn.WithAffine(false), nn.WithTrackRunningStats(false))))
	net := nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(8, 2))
	assert.Equal(t, []string{"0.bias", "0.weight", "1.bias", "1.num_batches_tracked", "1.running_mean",
		"1.running_var", "1.weight", "4.bias", "4.weight"}, keys(net))
	assert.Len(t, net.Parameters(), 6)
	assert.Len(t, net.Buffers(), 3)
}

// TestTrainEval checks that dropout and batch norm follow Train and Eval,
// also inside a Sequential.
func TestTrainEval(t *testing.T) {
	x := torch.Ones([]int64{1000})
	d := nn.Dropout(nn.WithP(0.5))
	y := d.Forward(x).Float32s()
	zeros := 0
	for _, v := range y {
		if v == 0 {
			zeros++
		} else {
			require.Equal(t, float32(2), v)
		}
	}
	assert.InDelta(t, 500, zeros, 80)
	d.Eval()
	assert.Equal(t, x.Float32s(), d.Forward(x).Float32s())

	torch.ManualSeed(0)
	bn := nn.BatchNorm1d(2)
	net := nn.Sequential(nn.Linear(2, 2), bn)
	in := torch.Randn([]int64{8, 2}).MulScalar(torch.S(3)).AddScalar(torch.S(1))
	net.Forward(in)
	assert.Equal(t, int64(1), bn.NumBatchesTracked.ItemInt())
	mean := bn.RunningMean.Float32s()
	assert.NotEqual(t, []float32{0, 0}, mean, "training updates the running mean")
	net.Eval()
	assert.False(t, bn.IsTraining())
	out1 := net.Forward(in).Float32s()
	out2 := net.Forward(in).Float32s()
	assert.Equal(t, out1, out2, "evaluation is deterministic")
	assert.Equal(t, mean, bn.RunningMean.Float32s(), "evaluation leaves the running mean")
	assert.Equal(t, int64(1), bn.NumBatchesTracked.ItemInt())
	net.Train()
	net.Forward(in)
	assert.Equal(t, int64(2), bn.NumBatchesTracked.ItemInt())
}

// TestLayersToFloat64 checks that a layer moved with To runs in float64.
func TestLayersToFloat64(t *testing.T) {
	net := nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.GELU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
		nn.Linear(2, 3))
	require.NoError(t, net.To(torch.Float64))
	out := net.Forward(torch.Ones([]int64{2, 1, 5, 5}, torch.WithDtype(torch.Float64)))
	assert.Equal(t, torch.Float64, out.DType())
	assert.Equal(t, []int64{2, 3}, out.Shape())
	assert.Equal(t, torch.Int64, net.Layers[1].(*nn.BatchNorm2dModule).NumBatchesTracked.DType())
}

func layTorchErr(t *testing.T, err error, op, want string) {
	t.Helper()
	require.Error(t, err)
	var te *torch.Error
	require.True(t, errors.As(err, &te), "%T is not a *torch.Error: %v", err, err)
	if op != "" {
		assert.Equal(t, op, te.Op)
	}
	assert.Contains(t, te.Error(), want)
}

// TestLayerBadInput checks that wrong input gives a *torch.Error from
// TryForward and a panic with it from Forward, not a crash.
func TestLayerBadInput(t *testing.T) {
	cases := []struct {
		name     string
		m        tryForwarder
		x        torch.Tensor
		op, want string
	}{
		{"linear features", nn.Linear(4, 2), torch.Ones([]int64{3, 5}), "linear", "cannot be multiplied (3x5 and 4x2)"},
		{"conv2d rank", nn.Conv2d(1, 2, 3), torch.Ones([]int64{5, 5}), "conv2d", "Expected 3D (unbatched) or 4D (batched) input"},
		{"conv2d channels", nn.Conv2d(3, 2, 3), torch.Ones([]int64{1, 1, 5, 5}), "conv2d", "expected input[1, 1, 5, 5] to have 3 channels"},
		{"conv2d too small", nn.Conv2d(1, 2, 3), torch.Ones([]int64{1, 1, 2, 2}), "conv2d", "Kernel size can't be greater than actual input size"},
		{"batchnorm1d rank", nn.BatchNorm1d(3), torch.Ones([]int64{2, 3, 4, 5}), "nn.BatchNorm1d", "expected 2D or 3D input (got 4D input)"},
		{"batchnorm2d rank", nn.BatchNorm2d(3), torch.Ones([]int64{2, 3}), "nn.BatchNorm2d", "expected 4D input (got 2D input)"},
		{"batchnorm channels", nn.BatchNorm2d(3), torch.Ones([]int64{2, 4, 2, 2}), "batch_norm", "running_mean should contain 4 elements not 3"},
		{"batchnorm batch of one", nn.BatchNorm1d(3), torch.Ones([]int64{1, 3}), "nn.functional.batch_norm",
			"Expected more than 1 value per channel when training, got input size torch.Size([1, 3])"},
		{"layernorm shape", nn.LayerNorm(4), torch.Ones([]int64{2, 3}), "layer_norm", "Given normalized_shape=[4]"},
		{"embedding index", nn.Embedding(3, 2), torch.FromSlice([]int64{5}), "embedding", "index out of range"},
		{"embedding float", nn.Embedding(3, 2), torch.Ones([]int64{2}), "embedding", "Expected tensor for argument #1 'indices'"},
		{"maxpool rank", nn.MaxPool2d(2), torch.Ones([]int64{4}), "max_pool2d", ""},
		{"softmax dim", nn.Softmax(2), torch.Ones([]int64{2, 2}), "softmax", "Dimension out of range"},
		{"undefined input", nn.ReLU(), torch.Tensor{}, "relu", "undefined tensor"},
		{"undefined batchnorm input", nn.BatchNorm1d(2), torch.Tensor{}, "shape", "undefined tensor"},
		{"glu odd", nn.GLU(), torch.Ones([]int64{2, 3}), "glu", "Halving dimension must be even"},
		{"softmax2d rank", nn.Softmax2d(), torch.Ones([]int64{2, 3}), "nn.Softmax2d", "expected input to be 3D or 4D, got 2D instead"},
		{"undefined softmax2d input", nn.Softmax2d(), torch.Tensor{}, "shape", "undefined tensor"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.m.TryForward(c.x)
			layTorchErr(t, err, c.op, c.want)
			r := func() (r any) {
				defer func() { r = recover() }()
				c.m.(interface {
					Forward(torch.Tensor) torch.Tensor
				}).Forward(c.x)
				return nil
			}()
			e, ok := r.(error)
			require.True(t, ok, "Forward panics with an error, got %v", r)
			layTorchErr(t, e, c.op, c.want)
		})
	}
	ct := nn.ConvTranspose2d(2, 3, 3, nn.WithStride(2))
	_, err := ct.TryForwardWithOutputSize(torch.Ones([]int64{1, 2, 3, 3}), []int64{10, 10})
	layTorchErr(t, err, "nn.ConvTranspose2d", "requested an output size of [10 10], but valid sizes range from [7 7] to [8 8]")
	_, err = nn.MSELoss().TryForward(torch.Ones([]int64{2, 3}), torch.Ones([]int64{4}))
	layTorchErr(t, err, "", "must match the size")
	_, err = nn.CrossEntropyLoss(nn.WithReduction("avg")).TryForward(torch.Ones([]int64{2, 3}), torch.FromSlice([]int64{0, 1}))
	layTorchErr(t, err, "nn.functional.cross_entropy", "avg is not a valid value for reduction")
	// The library still works.
	assert.Equal(t, []int64{2, 2}, nn.Linear(4, 2).Forward(torch.Ones([]int64{2, 4})).Shape())
}

// TestLayerConstructorErrors checks that bad constructor arguments panic
// with a *torch.Error, as PyTorch raises.
func TestLayerConstructorErrors(t *testing.T) {
	cases := []struct {
		name, want string
		f          func()
	}{
		{"unexpected option", "torch.nn.Linear: unexpected option stride (this layer takes bias, dtype, device)",
			func() { nn.Linear(2, 2, nn.WithStride(2)) }},
		{"zero option", "unexpected option (zero Option)", func() { nn.ReLU6(); nn.Flatten(nn.Option{}) }},
		{"groups", "torch.nn.Conv2d: in_channels must be divisible by groups", func() { nn.Conv2d(3, 4, 3, nn.WithGroups(2)) }},
		{"out groups", "torch.nn.Conv1d: out_channels must be divisible by groups", func() { nn.Conv1d(4, 3, 3, nn.WithGroups(2)) }},
		{"zero groups", "groups must be a positive integer", func() { nn.Conv2d(3, 4, 3, nn.WithGroups(0)) }},
		{"padding string", "Invalid padding string 'full'", func() { nn.Conv2d(1, 1, 3, nn.WithPaddingString("full")) }},
		{"same strided", "padding='same' is not supported for strided convolutions",
			func() { nn.Conv2d(1, 1, 3, nn.WithPaddingString("same"), nn.WithStride(2)) }},
		{"padding mode", "padding_mode must be one of", func() { nn.Conv2d(1, 1, 3, nn.WithPaddingMode("wrap")) }},
		{"transpose padding mode", `Only "zeros" padding mode is supported for ConvTranspose2d`,
			func() { nn.ConvTranspose2d(1, 1, 3, nn.WithPaddingMode("reflect")) }},
		{"dropout p", "torch.nn.Dropout: dropout probability has to be between 0 and 1, but got -0.1",
			func() { nn.Dropout(nn.WithP(-0.1)) }},
		{"embedding padding", "Padding_idx must be within num_embeddings", func() { nn.Embedding(3, 2, nn.WithPaddingIdx(3)) }},
		{"group norm", "num_channels must be divisible by num_groups", func() { nn.GroupNorm(3, 4) }},
		{"negative size", "torch.nn.BatchNorm2d: num_features must be non-negative, got -1", func() { nn.BatchNorm2d(-1) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := func() (r any) {
				defer func() { r = recover() }()
				c.f()
				return nil
			}()
			e, ok := r.(error)
			require.True(t, ok, "expected a panic with an error, got %v", r)
			var te *torch.Error
			require.True(t, errors.As(e, &te), "%T", e)
			assert.True(t, strings.Contains(te.Error(), c.want), "%q does not contain %q", te.Error(), c.want)
		})
	}
}

// TestLayersSurviveScoped checks that a network built inside torch.Scoped
// keeps its parameters and buffers (they are reachable from the result),
// while the temporaries of its initialization are freed.
func TestLayersSurviveScoped(t *testing.T) {
	net := torch.Scoped(func() *nn.SequentialModule {
		return nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
			nn.Linear(2, 3), nn.Dropout())
	})
	x := torch.Ones([]int64{2, 1, 4, 4})
	y := net.Forward(x)
	y.Sum().Backward()
	for _, p := range net.NamedParameters() {
		assert.True(t, p.Tensor.Grad().Defined(), p.Name)
	}
	assert.Equal(t, int64(1), net.Layers[1].(*nn.BatchNorm2dModule).NumBatchesTracked.ItemInt())
}
