package functional_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// goldenTensor is a tensor in functional.json.
type goldenTensor struct {
	DType  string            `json:"dtype"`
	Shape  []int64           `json:"shape"`
	Values []json.RawMessage `json:"values"`
}

type goldenCase struct {
	Name   string                  `json:"name"`
	Inputs map[string]goldenTensor `json:"inputs"`
	Grad   []string                `json:"grad"`
	Seed   *uint64                 `json:"seed"`
	Out    []goldenTensor          `json:"out"`
	C      *goldenTensor           `json:"c"`
	Grads  map[string]goldenTensor `json:"grads"`
	After  map[string]goldenTensor `json:"after"`
}

func loadGolden(t *testing.T) []goldenCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "functional.json"))
	require.NoError(t, err, "regenerate with /usr/bin/python3 nn/functional/testdata/functional.py")
	var g struct {
		TorchVersion string       `json:"torch_version"`
		Cases        []goldenCase `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &g))
	return g.Cases
}

func (g goldenTensor) floats(t *testing.T) []float64 {
	out := make([]float64, len(g.Values))
	for i, raw := range g.Values {
		switch string(raw) {
		case "true":
			out[i] = 1
		case "false":
			out[i] = 0
		default:
			require.NoError(t, json.Unmarshal(raw, &out[i]))
		}
	}
	return out
}

// tensor builds the golden tensor in Go.
func (g goldenTensor) tensor(t *testing.T) torch.Tensor {
	v := g.floats(t)
	shape := g.Shape
	if shape == nil {
		shape = []int64{}
	}
	switch g.DType {
	case "float32":
		f := make([]float32, len(v))
		for i := range v {
			f[i] = float32(v[i])
		}
		return torch.FromSlice(f, shape...)
	case "float64":
		return torch.FromSlice(v, shape...)
	case "int64":
		n := make([]int64, len(v))
		for i := range v {
			n[i] = int64(v[i])
		}
		return torch.FromSlice(n, shape...)
	case "bool":
		b := make([]bool, len(v))
		for i := range v {
			b[i] = v[i] != 0
		}
		return torch.FromSlice(b, shape...)
	}
	t.Fatalf("unsupported dtype %s", g.DType)
	return torch.Tensor{}
}

// close checks got against the golden tensor: dtype, shape, and values
// within the tolerance of the dtype (internal/golden).
func close(t *testing.T, what string, want goldenTensor, got torch.Tensor) {
	t.Helper()
	require.True(t, got.Defined(), "%s: undefined tensor", what)
	assert.Equal(t, "torch."+want.DType, got.DType().String(), "%s: dtype", what)
	wantShape := want.Shape
	if wantShape == nil {
		wantShape = []int64{}
	}
	require.Equal(t, wantShape, got.Shape(), "%s: shape", what)
	golden.TensorClose(t, want.floats(t), got, what)
}

type result = []torch.Tensor
type in = map[string]torch.Tensor

func one(t torch.Tensor, err error) (result, error) { return result{t}, err }
func two(a, b torch.Tensor, err error) (result, error) {
	return result{a, b}, err
}

// cases are the Go calls of the golden cases, by name.
var cases = map[string]func(i in) (result, error){
	"linear":        func(i in) (result, error) { return one(F.TryLinear(i["x"], i["w"], F.WithBias(i["b"]))) },
	"linear_nobias": func(i in) (result, error) { return one(F.TryLinear(i["x"], i["w"])) },
	"bilinear": func(i in) (result, error) {
		return one(F.TryBilinear(i["x1"], i["x2"], i["w"], F.WithBias(i["b"])))
	},

	"conv1d": func(i in) (result, error) {
		return one(F.TryConv1d(i["x"], i["w"], F.WithBias(i["b"]), F.WithStride(2), F.WithPadding(1)))
	},
	"conv1d_same": func(i in) (result, error) {
		return one(F.TryConv1d(i["x"], i["w"], F.WithPaddingString("same"), F.WithDilation(2)))
	},
	"conv2d": func(i in) (result, error) {
		return one(F.TryConv2d(i["x"], i["w"], F.WithBias(i["b"]), F.WithPadding(1)))
	},
	"conv2d_groups": func(i in) (result, error) {
		return one(F.TryConv2d(i["x"], i["w"], F.WithStride(2, 1), F.WithDilation(1, 2), F.WithGroups(2)))
	},
	"conv2d_valid": func(i in) (result, error) {
		return one(F.TryConv2d(i["x"], i["w"], F.WithBias(i["b"]), F.WithPaddingString("valid")))
	},
	"conv3d": func(i in) (result, error) {
		return one(F.TryConv3d(i["x"], i["w"], F.WithBias(i["b"]), F.WithStride(2), F.WithPadding(1)))
	},
	"conv_transpose1d": func(i in) (result, error) {
		return one(F.TryConvTranspose1d(i["x"], i["w"], F.WithBias(i["b"]), F.WithStride(2), F.WithPadding(1), F.WithOutputPadding(1)))
	},
	"conv_transpose2d": func(i in) (result, error) {
		return one(F.TryConvTranspose2d(i["x"], i["w"], F.WithBias(i["b"]), F.WithStride(2), F.WithPadding(1), F.WithOutputPadding(1)))
	},
	"conv_transpose2d_groups": func(i in) (result, error) {
		return one(F.TryConvTranspose2d(i["x"], i["w"], F.WithGroups(2), F.WithDilation(2)))
	},
	"conv_transpose3d": func(i in) (result, error) {
		return one(F.TryConvTranspose3d(i["x"], i["w"], F.WithBias(i["b"])))
	},

	"max_pool1d": func(i in) (result, error) { return one(F.TryMaxPool1d(i["x"], 2)) },
	"max_pool1d_opts": func(i in) (result, error) {
		return one(F.TryMaxPool1d(i["x"], 3, F.WithStride(2), F.WithPadding(1), F.WithCeilMode(true)))
	},
	"max_pool2d": func(i in) (result, error) { return one(F.TryMaxPool2d(i["x"], 2)) },
	"max_pool2d_opts": func(i in) (result, error) {
		return one(F.TryMaxPool2d(i["x"], []int64{3, 2}, F.WithStride(2, 1), F.WithPadding(1)))
	},
	"max_pool2d_dilation": func(i in) (result, error) { return one(F.TryMaxPool2d(i["x"], 2, F.WithDilation(2))) },
	"max_pool3d":          func(i in) (result, error) { return one(F.TryMaxPool3d(i["x"], 2)) },
	"max_pool1d_with_indices": func(i in) (result, error) {
		return two(F.TryMaxPool1dWithIndices(i["x"], 2))
	},
	"fractional_max_pool2d": func(i in) (result, error) {
		return one(F.TryFractionalMaxPool2d(i["x"], 2, F.WithOutputSize(4, 3)))
	},
	"fractional_max_pool2d_with_indices": func(i in) (result, error) {
		return two(F.TryFractionalMaxPool2dWithIndices(i["x"], []int64{3, 2}, F.WithOutputRatio(0.5), F.WithRandomSamples(i["s"])))
	},
	"fractional_max_pool3d": func(i in) (result, error) {
		return one(F.TryFractionalMaxPool3d(i["x"], 2, F.WithOutputRatio(0.6, 0.5, 0.5)))
	},
	"fractional_max_pool3d_with_indices": func(i in) (result, error) {
		return two(F.TryFractionalMaxPool3dWithIndices(i["x"], 2, F.WithOutputSize(3), F.WithRandomSamples(i["s"])))
	},
	"max_pool2d_with_indices": func(i in) (result, error) {
		return two(F.TryMaxPool2dWithIndices(i["x"], 3, F.WithStride(2)))
	},
	"max_pool3d_with_indices": func(i in) (result, error) {
		return two(F.TryMaxPool3dWithIndices(i["x"], 2))
	},
	"avg_pool1d": func(i in) (result, error) {
		return one(F.TryAvgPool1d(i["x"], 3, F.WithStride(2), F.WithPadding(1), F.WithCountIncludePad(false)))
	},
	"avg_pool2d": func(i in) (result, error) { return one(F.TryAvgPool2d(i["x"], 2)) },
	"avg_pool2d_opts": func(i in) (result, error) {
		return one(F.TryAvgPool2d(i["x"], 3, F.WithStride(2), F.WithPadding(1), F.WithCeilMode(true), F.WithDivisorOverride(5)))
	},
	"avg_pool3d":          func(i in) (result, error) { return one(F.TryAvgPool3d(i["x"], 2)) },
	"adaptive_avg_pool1d": func(i in) (result, error) { return one(F.TryAdaptiveAvgPool1d(i["x"], 3)) },
	"adaptive_avg_pool2d": func(i in) (result, error) {
		return one(F.TryAdaptiveAvgPool2d(i["x"], []int64{3, 2}))
	},
	"adaptive_avg_pool2d_int": func(i in) (result, error) { return one(F.TryAdaptiveAvgPool2d(i["x"], 1)) },
	"adaptive_avg_pool3d":     func(i in) (result, error) { return one(F.TryAdaptiveAvgPool3d(i["x"], 2)) },
	"adaptive_max_pool1d":     func(i in) (result, error) { return one(F.TryAdaptiveMaxPool1d(i["x"], 3)) },
	"adaptive_max_pool2d": func(i in) (result, error) {
		return one(F.TryAdaptiveMaxPool2d(i["x"], []int64{3, 2}))
	},
	"adaptive_max_pool3d": func(i in) (result, error) { return one(F.TryAdaptiveMaxPool3d(i["x"], 2)) },
	"adaptive_max_pool2d_with_indices": func(i in) (result, error) {
		return two(F.TryAdaptiveMaxPool2dWithIndices(i["x"], 3))
	},

	"batch_norm_train": func(i in) (result, error) {
		return one(F.TryBatchNorm(i["x"], i["rm"], i["rv"], F.WithWeight(i["w"]), F.WithBias(i["b"]),
			F.WithTraining(true), F.WithMomentum(0.2), F.WithEps(1e-3)))
	},
	"batch_norm_eval": func(i in) (result, error) {
		return one(F.TryBatchNorm(i["x"], i["rm"], i["rv"], F.WithWeight(i["w"]), F.WithBias(i["b"])))
	},
	"batch_norm_no_stats": func(i in) (result, error) {
		return one(F.TryBatchNorm(i["x"], torch.Tensor{}, torch.Tensor{}, F.WithTraining(true)))
	},
	"instance_norm": func(i in) (result, error) {
		return one(F.TryInstanceNorm(i["x"], F.WithWeight(i["w"]), F.WithBias(i["b"])))
	},
	"instance_norm_stats": func(i in) (result, error) {
		return one(F.TryInstanceNorm(i["x"], F.WithRunningMean(i["rm"]), F.WithRunningVar(i["rv"]),
			F.WithUseInputStats(false), F.WithEps(1e-3)))
	},
	"layer_norm": func(i in) (result, error) {
		return one(F.TryLayerNorm(i["x"], []int64{4}, F.WithWeight(i["w"]), F.WithBias(i["b"]), F.WithEps(1e-3)))
	},
	"layer_norm_2d": func(i in) (result, error) { return one(F.TryLayerNorm(i["x"], []int64{3, 4})) },
	"group_norm": func(i in) (result, error) {
		return one(F.TryGroupNorm(i["x"], 2, F.WithWeight(i["w"]), F.WithBias(i["b"])))
	},
	"normalize": func(i in) (result, error) { return one(F.TryNormalize(i["x"])) },
	"normalize_p1": func(i in) (result, error) {
		return one(F.TryNormalize(i["x"], F.WithP(1), F.WithDim(0), F.WithEps(1e-3)))
	},

	"dropout": func(i in) (result, error) { return one(F.TryDropout(i["x"], F.WithP(0.4))) },
	"triplet_margin_with_distance_loss": func(i in) (result, error) {
		return one(F.TryTripletMarginWithDistanceLoss(i["a"], i["p"], i["n"]))
	},
	"triplet_margin_with_distance_loss_opts": func(i in) (result, error) {
		cosine := func(x, y torch.Tensor) torch.Tensor {
			c := F.CosineSimilarity(x, y)
			defer c.Free()
			return c.Neg().AddScalar(torch.S(1))
		}
		return one(F.TryTripletMarginWithDistanceLoss(i["a"], i["p"], i["n"], F.WithDistanceFunction(cosine),
			F.WithMargin(0.5), F.WithSwap(true), F.WithReduction("none")))
	},
	"gumbel_softmax": func(i in) (result, error) { return one(F.TryGumbelSoftmax(i["x"])) },
	"gumbel_softmax_opts": func(i in) (result, error) {
		return one(F.TryGumbelSoftmax(i["x"], F.WithTau(0.5), F.WithHard(true), F.WithDim(0)))
	},
	"dropout_eval": func(i in) (result, error) { return one(F.TryDropout(i["x"], F.WithP(0.4), F.WithTraining(false))) },
	"dropout1d":    func(i in) (result, error) { return one(F.TryDropout1d(i["x"], F.WithP(0.5))) },
	"dropout2d":    func(i in) (result, error) { return one(F.TryDropout2d(i["x"], F.WithP(0.3))) },
	"dropout3d":    func(i in) (result, error) { return one(F.TryDropout3d(i["x"])) },
	"alpha_dropout": func(i in) (result, error) {
		return one(F.TryAlphaDropout(i["x"], F.WithP(0.2), F.WithTraining(true)))
	},

	"embedding": func(i in) (result, error) { return one(F.TryEmbedding(i["idx"], i["w"])) },
	"embedding_padding": func(i in) (result, error) {
		return one(F.TryEmbedding(i["idx"], i["w"], F.WithPaddingIdx(2)))
	},
	"embedding_neg_padding": func(i in) (result, error) {
		return one(F.TryEmbedding(i["idx"], i["w"], F.WithPaddingIdx(-1), F.WithScaleGradByFreq(true)))
	},
	"embedding_max_norm": func(i in) (result, error) {
		return one(F.TryEmbedding(i["idx"], i["w"], F.WithMaxNorm(1.5), F.WithNormType(1)))
	},
	"one_hot":         func(i in) (result, error) { return one(F.TryOneHot(i["idx"], F.WithNumClasses(5))) },
	"one_hot_default": func(i in) (result, error) { return one(F.TryOneHot(i["idx"])) },

	"relu": func(i in) (result, error) { return one(F.TryRelu(i["x"])) },
	"relu6": func(i in) (result, error) {
		return one(F.TryRelu6(i["x"].MulScalar(torch.S(4))))
	},
	"leaky_relu":         func(i in) (result, error) { return one(F.TryLeakyRelu(i["x"], F.WithNegativeSlope(0.2))) },
	"leaky_relu_default": func(i in) (result, error) { return one(F.TryLeakyRelu(i["x"])) },
	"elu":                func(i in) (result, error) { return one(F.TryElu(i["x"], F.WithAlpha(0.5))) },
	"selu":               func(i in) (result, error) { return one(F.TrySelu(i["x"])) },
	"celu":               func(i in) (result, error) { return one(F.TryCelu(i["x"], F.WithAlpha(2))) },
	"gelu":               func(i in) (result, error) { return one(F.TryGelu(i["x"])) },
	"gelu_tanh":          func(i in) (result, error) { return one(F.TryGelu(i["x"], F.WithApproximate("tanh"))) },
	"silu":               func(i in) (result, error) { return one(F.TrySilu(i["x"])) },
	"mish":               func(i in) (result, error) { return one(F.TryMish(i["x"])) },
	"hardswish":          func(i in) (result, error) { return one(F.TryHardswish(i["x"])) },
	"hardsigmoid":        func(i in) (result, error) { return one(F.TryHardsigmoid(i["x"])) },
	"hardtanh": func(i in) (result, error) {
		return one(F.TryHardtanh(i["x"], F.WithMinVal(-0.5), F.WithMaxVal(0.7)))
	},
	"tanh":       func(i in) (result, error) { return one(F.TryTanh(i["x"])) },
	"sigmoid":    func(i in) (result, error) { return one(F.TrySigmoid(i["x"])) },
	"logsigmoid": func(i in) (result, error) { return one(F.TryLogsigmoid(i["x"])) },
	"softplus": func(i in) (result, error) {
		return one(F.TrySoftplus(i["x"], F.WithBeta(2), F.WithThreshold(1)))
	},
	"softsign":      func(i in) (result, error) { return one(F.TrySoftsign(i["x"])) },
	"tanhshrink":    func(i in) (result, error) { return one(F.TryTanhshrink(i["x"])) },
	"softshrink":    func(i in) (result, error) { return one(F.TrySoftshrink(i["x"], F.WithLambd(0.3))) },
	"hardshrink":    func(i in) (result, error) { return one(F.TryHardshrink(i["x"], F.WithLambd(0.3))) },
	"threshold":     func(i in) (result, error) { return one(F.TryThreshold(i["x"], 0.1, 20)) },
	"glu":           func(i in) (result, error) { return one(F.TryGlu(i["x"], F.WithDim(1))) },
	"softmax":       func(i in) (result, error) { return one(F.TrySoftmax(i["x"], 1)) },
	"softmax_dtype": func(i in) (result, error) { return one(F.TrySoftmax(i["x"], 0, F.WithDtype(torch.Float64))) },
	"log_softmax":   func(i in) (result, error) { return one(F.TryLogSoftmax(i["x"], 0)) },
	"softmin":       func(i in) (result, error) { return one(F.TrySoftmin(i["x"], -1)) },
	"prelu":         func(i in) (result, error) { return one(F.TryPrelu(i["x"], i["w"])) },

	"relu_":       func(i in) (result, error) { return one(F.TryRelu_(i["x"].Clone())) },
	"elu_":        func(i in) (result, error) { return one(F.TryElu_(i["x"].Clone(), F.WithAlpha(0.5))) },
	"celu_":       func(i in) (result, error) { return one(F.TryCelu_(i["x"].Clone(), F.WithAlpha(2))) },
	"selu_":       func(i in) (result, error) { return one(F.TrySelu_(i["x"].Clone())) },
	"leaky_relu_": func(i in) (result, error) { return one(F.TryLeakyRelu_(i["x"].Clone(), F.WithNegativeSlope(0.2))) },
	"hardtanh_": func(i in) (result, error) {
		return one(F.TryHardtanh_(i["x"].Clone(), F.WithMinVal(-0.5), F.WithMaxVal(0.7)))
	},
	"threshold_": func(i in) (result, error) { return one(F.TryThreshold_(i["x"].Clone(), 0.1, 20)) },
	"rrelu_": func(i in) (result, error) {
		return one(F.TryRrelu_(i["x"].Clone(), F.WithLower(0.1), F.WithUpper(0.3)))
	},
	"rrelu": func(i in) (result, error) { return one(F.TryRrelu(i["x"])) },
	"rrelu_training": func(i in) (result, error) {
		return one(F.TryRrelu(i["x"], F.WithLower(0.1), F.WithUpper(0.3), F.WithTraining(true)))
	},
	"pdist":    func(i in) (result, error) { return one(F.TryPdist(i["x"])) },
	"pdist_p1": func(i in) (result, error) { return one(F.TryPdist(i["x"], F.WithP(1))) },
	"feature_alpha_dropout": func(i in) (result, error) {
		return one(F.TryFeatureAlphaDropout(i["x"], F.WithP(0.4), F.WithTraining(true)))
	},
	"feature_alpha_dropout_eval": func(i in) (result, error) { return one(F.TryFeatureAlphaDropout(i["x"], F.WithP(0.4))) },

	"affine_grid": func(i in) (result, error) { return one(F.TryAffineGrid(i["t"], []int64{2, 1, 3, 4})) },
	"affine_grid_3d": func(i in) (result, error) {
		return one(F.TryAffineGrid(i["t"], []int64{1, 1, 2, 3, 2}, F.WithAlignCorners(true)))
	},
	"grid_sample": func(i in) (result, error) { return one(F.TryGridSample(i["x"], i["g"])) },
	"grid_sample_opts": func(i in) (result, error) {
		return one(F.TryGridSample(i["x"], i["g"], F.WithMode("nearest"), F.WithPaddingMode("border"), F.WithAlignCorners(true)))
	},
	"conv_tbc":               func(i in) (result, error) { return one(F.TryConvTbc(i["x"], i["w"], i["b"], 1)) },
	"native_channel_shuffle": func(i in) (result, error) { return one(F.TryNativeChannelShuffle(i["x"], 3)) },
	"max_unpool1d":           func(i in) (result, error) { return one(F.TryMaxUnpool1d(i["x"], i["i"], 2)) },
	"max_unpool1d_size": func(i in) (result, error) {
		return one(F.TryMaxUnpool1d(i["x"], i["i"], 2, F.WithOutputSize(2, 3, 9)))
	},
	"max_unpool2d": func(i in) (result, error) {
		return one(F.TryMaxUnpool2d(i["x"], i["i"], 2, F.WithStride(2, 3), F.WithPadding(1), F.WithOutputSize(5, 6)))
	},
	"max_unpool3d": func(i in) (result, error) {
		return one(F.TryMaxUnpool3d(i["x"], i["i"], []int64{2, 2, 2}, F.WithOutputSize(5, 4, 4)))
	},
	"lp_pool1d": func(i in) (result, error) { return one(F.TryLpPool1d(i["x"], 2, 3)) },
	"lp_pool1d_opts": func(i in) (result, error) {
		return one(F.TryLpPool1d(i["x"], 3, 2, F.WithStride(1), F.WithCeilMode(true)))
	},
	"lp_pool2d": func(i in) (result, error) { return one(F.TryLpPool2d(i["x"], 2, []int64{2, 3})) },
	"lp_pool2d_opts": func(i in) (result, error) {
		return one(F.TryLpPool2d(i["x"], 1.5, 2, F.WithStride(1, 2), F.WithCeilMode(true)))
	},
	"grid_sample_bicubic": func(i in) (result, error) {
		return one(F.TryGridSample(i["x"], i["g"], F.WithMode("bicubic"), F.WithPaddingMode("reflection")))
	},

	"cross_entropy": func(i in) (result, error) { return one(F.TryCrossEntropy(i["x"], i["t"])) },
	"cross_entropy_opts": func(i in) (result, error) {
		return one(F.TryCrossEntropy(i["x"], i["t"], F.WithWeight(i["w"]), F.WithIgnoreIndex(2),
			F.WithReduction("sum"), F.WithLabelSmoothing(0.1)))
	},
	"cross_entropy_none": func(i in) (result, error) {
		return one(F.TryCrossEntropy(i["x"], i["t"], F.WithReduction("none"), F.WithLabelSmoothing(0.2)))
	},
	"cross_entropy_probs": func(i in) (result, error) { return one(F.TryCrossEntropy(i["x"], i["t"])) },
	"cross_entropy_nd":    func(i in) (result, error) { return one(F.TryCrossEntropy(i["x"], i["t"])) },
	"nll_loss":            func(i in) (result, error) { return one(F.TryNllLoss(i["x"], i["t"])) },
	"nll_loss_opts": func(i in) (result, error) {
		return one(F.TryNllLoss(i["x"], i["t"], F.WithWeight(i["w"]), F.WithIgnoreIndex(0), F.WithReduction("mean")))
	},
	"mse_loss":       func(i in) (result, error) { return one(F.TryMseLoss(i["x"], i["y"])) },
	"mse_loss_sum":   func(i in) (result, error) { return one(F.TryMseLoss(i["x"], i["y"], F.WithReduction("sum"))) },
	"l1_loss":        func(i in) (result, error) { return one(F.TryL1Loss(i["x"], i["y"], F.WithReduction("none"))) },
	"smooth_l1_loss": func(i in) (result, error) { return one(F.TrySmoothL1Loss(i["x"], i["y"])) },
	"smooth_l1_loss_beta": func(i in) (result, error) {
		return one(F.TrySmoothL1Loss(i["x"], i["y"], F.WithBeta(0.5)))
	},
	"huber_loss":           func(i in) (result, error) { return one(F.TryHuberLoss(i["x"], i["y"], F.WithDelta(0.7))) },
	"binary_cross_entropy": func(i in) (result, error) { return one(F.TryBinaryCrossEntropy(i["p"], i["q"])) },
	"binary_cross_entropy_weight": func(i in) (result, error) {
		return one(F.TryBinaryCrossEntropy(i["p"], i["q"], F.WithWeight(i["w"]), F.WithReduction("sum")))
	},
	"binary_cross_entropy_with_logits": func(i in) (result, error) {
		return one(F.TryBinaryCrossEntropyWithLogits(i["x"], i["q"]))
	},
	"binary_cross_entropy_with_logits_opts": func(i in) (result, error) {
		return one(F.TryBinaryCrossEntropyWithLogits(i["x"], i["q"], F.WithWeight(i["w"]), F.WithPosWeight(i["pw"]),
			F.WithReduction("none")))
	},
	"kl_div":      func(i in) (result, error) { return one(F.TryKlDiv(i["x"], i["t"], F.WithReduction("batchmean"))) },
	"kl_div_mean": func(i in) (result, error) { return one(F.TryKlDiv(i["x"], i["t"])) },
	"kl_div_log_target": func(i in) (result, error) {
		return one(F.TryKlDiv(i["x"], i["t"], F.WithReduction("sum"), F.WithLogTarget(true)))
	},
	"cosine_similarity": func(i in) (result, error) { return one(F.TryCosineSimilarity(i["a"], i["b"])) },
	"pairwise_distance": func(i in) (result, error) {
		return one(F.TryPairwiseDistance(i["a"], i["b"], F.WithP(1.5), F.WithKeepdim(true)))
	},

	"pad_constant": func(i in) (result, error) {
		return one(F.TryPad(i["x"], []int64{1, 2}, F.WithValue(0.5)))
	},
	"pad_constant_2d": func(i in) (result, error) { return one(F.TryPad(i["x"], []int64{0, 1, 2, 0})) },
	"pad_reflect": func(i in) (result, error) {
		return one(F.TryPad(i["x"], []int64{1, 1, 2, 0}, F.WithMode("reflect")))
	},
	"pad_replicate": func(i in) (result, error) {
		return one(F.TryPad(i["x"], []int64{2, 1, 1, 2}, F.WithMode("replicate")))
	},
	"pad_circular": func(i in) (result, error) {
		return one(F.TryPad(i["x"], []int64{1, 1, 1, 1}, F.WithMode("circular")))
	},
	"interpolate_nearest": func(i in) (result, error) { return one(F.TryInterpolate(i["x"], F.WithScaleFactor(2))) },
	"interpolate_nearest_size": func(i in) (result, error) {
		return one(F.TryInterpolate(i["x"], F.WithSize(5, 4)))
	},
	"interpolate_nearest1d": func(i in) (result, error) { return one(F.TryInterpolate(i["x"], F.WithSize(7))) },
	"interpolate_nearest_exact": func(i in) (result, error) {
		return one(F.TryInterpolate(i["x"], F.WithSize(5), F.WithMode("nearest-exact")))
	},
	"interpolate_bilinear": func(i in) (result, error) {
		return one(F.TryInterpolate(i["x"], F.WithSize(5, 7), F.WithMode("bilinear")))
	},
	"interpolate_bilinear_ac": func(i in) (result, error) {
		return one(F.TryInterpolate(i["x"], F.WithScaleFactor(1.5), F.WithMode("bilinear"), F.WithAlignCorners(true)))
	},
	"interpolate_bilinear_recompute": func(i in) (result, error) {
		return one(F.TryInterpolate(i["x"], F.WithScaleFactor(1.7), F.WithMode("bilinear"), F.WithRecomputeScaleFactor(true)))
	},
	"interpolate_bilinear_antialias": func(i in) (result, error) {
		return one(F.TryInterpolate(i["x"], F.WithSize(3, 4), F.WithMode("bilinear"), F.WithAntialias(true)))
	},
	"interpolate_linear": func(i in) (result, error) {
		return one(F.TryInterpolate(i["x"], F.WithSize(8), F.WithMode("linear")))
	},
	"interpolate_bicubic": func(i in) (result, error) {
		return one(F.TryInterpolate(i["x"], F.WithScaleFactor(2), F.WithMode("bicubic")))
	},
	"interpolate_trilinear": func(i in) (result, error) {
		return one(F.TryInterpolate(i["x"], F.WithScaleFactor(2, 1.5, 2), F.WithMode("trilinear")))
	},
	"interpolate_area": func(i in) (result, error) {
		return one(F.TryInterpolate(i["x"], F.WithSize(4, 3), F.WithMode("area")))
	},
	"interpolate_area_scale": func(i in) (result, error) {
		return one(F.TryInterpolate(i["x"], F.WithScaleFactor(0.5), F.WithMode("area")))
	},
	"pixel_shuffle":   func(i in) (result, error) { return one(F.TryPixelShuffle(i["x"], 2)) },
	"pixel_unshuffle": func(i in) (result, error) { return one(F.TryPixelUnshuffle(i["x"], 2)) },

	"sdpa": func(i in) (result, error) { return one(F.TryScaledDotProductAttention(i["q"], i["k"], i["v"])) },
	"sdpa_causal": func(i in) (result, error) {
		return one(F.TryScaledDotProductAttention(i["q"], i["k"], i["v"], F.WithIsCausal(true)))
	},
	"sdpa_bool_mask": func(i in) (result, error) {
		return one(F.TryScaledDotProductAttention(i["q"], i["k"], i["v"], F.WithAttnMask(i["m"])))
	},
	"sdpa_float_mask": func(i in) (result, error) {
		return one(F.TryScaledDotProductAttention(i["q"], i["k"], i["v"], F.WithAttnMask(i["m"])))
	},
	"sdpa_scale": func(i in) (result, error) {
		return one(F.TryScaledDotProductAttention(i["q"], i["k"], i["v"], F.WithScale(0.3)))
	},
	"sdpa_dropout": func(i in) (result, error) {
		return one(F.TryScaledDotProductAttention(i["q"], i["k"], i["v"], F.WithDropoutP(0.3)))
	},
}

// TestGolden runs every case of functional.json: forward values, the
// gradients of (out·c).sum(), and inputs changed in place.
func TestGolden(t *testing.T) {
	goldenCases := loadGolden(t)
	seen := map[string]bool{}
	for _, gc := range goldenCases {
		gc := gc
		seen[gc.Name] = true
		t.Run(gc.Name, func(t *testing.T) {
			f, ok := cases[gc.Name]
			require.True(t, ok, "no Go call for golden case %s", gc.Name)
			ins := in{}
			for k, g := range gc.Inputs {
				x := g.tensor(t)
				for _, n := range gc.Grad {
					if n == k {
						x.SetRequiresGrad(true)
					}
				}
				ins[k] = x
			}
			if gc.Seed != nil {
				torch.ManualSeed(*gc.Seed)
			}
			outs, err := f(ins)
			require.NoError(t, err)
			require.Len(t, outs, len(gc.Out))
			for j, o := range gc.Out {
				close(t, fmt.Sprintf("out[%d]", j), o, outs[j])
			}
			if gc.C != nil {
				outs[0].Mul(gc.C.tensor(t)).Sum().Backward()
				for _, k := range gc.Grad {
					g := ins[k].Grad()
					if !g.Defined() {
						g = torch.ZerosLike(ins[k])
					}
					close(t, "grad "+k, gc.Grads[k], g)
				}
			}
			for k, want := range gc.After {
				close(t, "after "+k, want, ins[k].Detach())
			}
		})
	}
	var missing []string
	for name := range cases {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing, "Go cases without golden data (regenerate functional.json)")
}

// TestPanickingForms checks that the plain forms give the Try forms'
// results and panic with their errors.
func TestPanickingForms(t *testing.T) {
	x := torch.FromSlice([]float32{-1, 0.5, 2, -3}, 2, 2)
	assert.Equal(t, []float32{0, 0.5, 2, 0}, F.Relu(x).Float32s())
	y, err := F.TryRelu(x)
	require.NoError(t, err)
	assert.Equal(t, F.Relu(x).Float32s(), y.Float32s())
	out, idx := F.MaxPool1dWithIndices(x.Unsqueeze(0), 2)
	assert.Equal(t, []float32{0.5, 2}, out.Float32s())
	assert.Equal(t, []int64{1, 0}, idx.Int64s())
	assert.Equal(t, []float32{0.5, 2}, F.AdaptiveMaxPool1d(x.Unsqueeze(0), 1).Float32s())

	r := catch(func() { F.Linear(x, torch.Ones([]int64{3, 3})) })
	var te *torch.Error
	require.True(t, errors.As(r, &te), "panic value %v", r)
	assert.Equal(t, "linear", te.Op)
}

func catch(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	f()
	return nil
}

// requireTorchError requires err to be a *torch.Error whose message
// contains want.
func requireTorchError(t *testing.T, err error, op, want string) {
	t.Helper()
	require.Error(t, err)
	var te *torch.Error
	require.True(t, errors.As(err, &te), "%T is not a *torch.Error: %v", err, err)
	if op != "" {
		assert.Equal(t, op, te.Op)
	}
	assert.Contains(t, te.Error(), want)
}

// TestErrors checks that bad input gives a *torch.Error, with PyTorch's
// message where the check is PyTorch's Python code.
func TestErrors(t *testing.T) {
	x := torch.Ones([]int64{2, 3})
	img := torch.Ones([]int64{1, 1, 4, 4})
	cases := []struct {
		name, op, want string
		f              func() (torch.Tensor, error)
	}{
		{"linear shapes", "linear", "cannot be multiplied", func() (torch.Tensor, error) {
			return F.TryLinear(x, torch.Ones([]int64{2, 2}))
		}},
		{"conv2d rank", "conv2d", "Expected 3D (unbatched) or 4D (batched) input", func() (torch.Tensor, error) {
			return F.TryConv2d(x, torch.Ones([]int64{1, 1, 1, 1}))
		}},
		{"conv padding string", "nn.functional.conv2d", "Invalid padding string 'full'", func() (torch.Tensor, error) {
			return F.TryConv2d(img, torch.Ones([]int64{1, 1, 3, 3}), F.WithPaddingString("full"))
		}},
		{"unexpected option", "nn.functional.leaky_relu", "unexpected option reduction (this function takes negative_slope)", func() (torch.Tensor, error) {
			return F.TryLeakyRelu(x, F.WithReduction("sum"))
		}},
		{"dim as an option", "nn.functional.softmax", "unexpected option dim: dim is Softmax's second argument, Softmax(input, dim, ...), not an option", func() (torch.Tensor, error) {
			return F.TrySoftmax(x, 1, F.WithDim(0))
		}},
		{"bad reduction", "nn.functional.mse_loss", "foo is not a valid value for reduction", func() (torch.Tensor, error) {
			return F.TryMseLoss(x, x, F.WithReduction("foo"))
		}},
		{"dropout p", "nn.functional.dropout", "dropout probability has to be between 0 and 1, but got 1.5", func() (torch.Tensor, error) {
			return F.TryDropout(x, F.WithP(1.5))
		}},
		{"batch size one", "nn.functional.batch_norm", "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])",
			func() (torch.Tensor, error) {
				return F.TryBatchNorm(torch.Ones([]int64{1, 3}), torch.Tensor{}, torch.Tensor{}, F.WithTraining(true))
			}},
		{"bce sizes", "nn.functional.binary_cross_entropy", "Using a target size (torch.Size([3])) that is different to the input size (torch.Size([2, 3]))",
			func() (torch.Tensor, error) {
				return F.TryBinaryCrossEntropy(x.MulScalar(torch.S(0.5)), torch.Ones([]int64{3}))
			}},
		{"bce logits sizes", "nn.functional.binary_cross_entropy_with_logits", "Target size (torch.Size([3])) must be the same as input size (torch.Size([2, 3]))",
			func() (torch.Tensor, error) {
				return F.TryBinaryCrossEntropyWithLogits(x, torch.Ones([]int64{3}))
			}},
		{"interpolate neither", "nn.functional.interpolate", "either size or scale_factor should be defined", func() (torch.Tensor, error) {
			return F.TryInterpolate(img)
		}},
		{"interpolate both", "nn.functional.interpolate", "only one of size or scale_factor should be defined", func() (torch.Tensor, error) {
			return F.TryInterpolate(img, F.WithSize(2), F.WithScaleFactor(2))
		}},
		{"interpolate align_corners", "nn.functional.interpolate", "align_corners option can only be set with the interpolating modes",
			func() (torch.Tensor, error) {
				return F.TryInterpolate(img, F.WithSize(2), F.WithAlignCorners(true))
			}},
		{"interpolate mode rank", "nn.functional.interpolate", "Got 4D input, but linear mode needs 3D input", func() (torch.Tensor, error) {
			return F.TryInterpolate(img, F.WithSize(2), F.WithMode("linear"))
		}},
		{"interpolate size rank", "nn.functional.interpolate", "Input and output must have the same number of spatial dimensions",
			func() (torch.Tensor, error) {
				return F.TryInterpolate(img, F.WithSize(2, 2, 2))
			}},
		{"embedding padding", "nn.functional.embedding", "Padding_idx must be within num_embeddings", func() (torch.Tensor, error) {
			return F.TryEmbedding(torch.FromSlice([]int64{0}), x, F.WithPaddingIdx(5))
		}},
		{"embedding index", "embedding", "index out of range", func() (torch.Tensor, error) {
			return F.TryEmbedding(torch.FromSlice([]int64{7}), x)
		}},
		{"glu scalar", "nn.functional.glu", "glu does not support scalars", func() (torch.Tensor, error) {
			return F.TryGlu(torch.Ones([]int64{}))
		}},
		{"sdpa causal and mask", "nn.functional.scaled_dot_product_attention", "Explicit attn_mask should not be set when is_causal=True",
			func() (torch.Tensor, error) {
				q := torch.Ones([]int64{2, 3})
				return F.TryScaledDotProductAttention(q, q, q, F.WithIsCausal(true), F.WithAttnMask(torch.Ones([]int64{2, 2})))
			}},
		{"sdpa shapes", "matmul", "", func() (torch.Tensor, error) {
			return F.TryScaledDotProductAttention(torch.Ones([]int64{2, 3}), torch.Ones([]int64{2, 4}), torch.Ones([]int64{2, 4}))
		}},
		{"undefined input", "shape", "undefined tensor", func() (torch.Tensor, error) {
			return F.TryGroupNorm(torch.Tensor{}, 1)
		}},
		{"group norm groups", "group_norm", "divisible by num_groups", func() (torch.Tensor, error) {
			return F.TryGroupNorm(torch.Ones([]int64{2, 3, 4}), 2)
		}},
		{"one_hot negative", "one_hot", "Class values must be non-negative", func() (torch.Tensor, error) {
			return F.TryOneHot(torch.FromSlice([]int64{-1}))
		}},
		{"pad mode", "pad", "", func() (torch.Tensor, error) {
			return F.TryPad(img, []int64{1, 1}, F.WithMode("mirror"))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := c.f()
			requireTorchError(t, err, c.op, c.want)
		})
	}
	// After errors the library still works.
	assert.Equal(t, []float32{1, 1, 1, 1, 1, 1}, F.Relu(x).Float32s())
}

// TestDropoutStatistics checks dropout's scaling and its rate on a large
// tensor.
func TestDropoutStatistics(t *testing.T) {
	x := torch.Ones([]int64{100000})
	y := F.Dropout(x, F.WithP(0.3))
	vals := y.Float32s()
	zeros := 0
	for _, v := range vals {
		switch {
		case v == 0:
			zeros++
		default:
			require.InDelta(t, 1/0.7, v, 1e-6)
		}
	}
	assert.InDelta(t, 0.3, float64(zeros)/float64(len(vals)), 0.01)
	assert.Equal(t, x.Float32s()[:5], F.Dropout(x, F.WithTraining(false)).Float32s()[:5])
}
