package nn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/livetest"
	"github.com/gotorch/gotorch/nn"
	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

func ones(s ...int64) torch.Tensor { return torch.Ones(s) }

// TestNewLayersBadInput checks that the layers of issue 25 answer wrong
// input with a *torch.Error from TryForward (and a panic with it from
// Forward), not a crash.
func TestNewLayersBadInput(t *testing.T) {
	cases := []struct {
		name     string
		m        tryForwarder
		x        torch.Tensor
		op, want string
	}{
		{"reflection pad too wide", nn.ReflectionPad1d(5), ones(1, 2, 3), "", "Padding size should be less than the corresponding input dimension"},
		{"replication pad rank", nn.ReplicationPad2d(1), ones(3), "", ""},
		{"constant pad undefined", nn.ConstantPad2d(1, 0), torch.Tensor{}, "", "undefined tensor"},
		{"instancenorm rank", nn.InstanceNorm2d(3), ones(2, 3), "nn.InstanceNorm2d", "expected 3D or 4D input (got 2D input)"},
		{"instancenorm channels", nn.InstanceNorm1d(3, nn.WithAffine(true)), ones(2, 4, 5), "nn.InstanceNorm1d",
			"expected input's size at dim=1 to match num_features (3), but got: 4."},
		{"instancenorm one element", nn.InstanceNorm1d(2), ones(2, 2, 1), "", "Expected more than 1 spatial element when training"},
		{"lrn rank", nn.LocalResponseNorm(2), ones(2, 3), "nn.functional.local_response_norm", "Expected 3D or higher dimensionality input (got 2 dimensions)"},
		{"upsample no size", nn.Upsample(), ones(1, 1, 2, 2), "nn.functional.interpolate", "either size or scale_factor should be defined"},
		{"upsample mode rank", nn.Upsample(nn.WithScaleFactor(2), nn.WithMode("bilinear")), ones(1, 1, 2), "", ""},
		{"pixel shuffle channels", nn.PixelShuffle(2), ones(1, 3, 2, 2), "", "to be divisible by the square of upscale_factor"},
		{"pixel unshuffle size", nn.PixelUnshuffle(2), ones(1, 1, 3, 4), "", "divisible by downscale_factor"},
		{"unfold rank", nn.Unfold(2), ones(2, 2), "", ""},
		{"fold blocks", nn.Fold(4, 2), ones(1, 4, 5), "", ""},
		{"channel shuffle groups", nn.ChannelShuffle(3), ones(1, 4, 2, 2), "", "groups 3 does not divide the 4 channels"},
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

	bag := nn.EmbeddingBag(5, 2)
	_, err := bag.TryForward(torch.FromSlice([]int64{1, 2, 3, 4}, 1, 2, 2), torch.Tensor{})
	layTorchErr(t, err, "nn.functional.embedding_bag", "input has to be 1D or 2D Tensor, but got Tensor of dimension 3")
	_, err = bag.TryForward(torch.FromSlice([]int64{1, 2}), torch.Tensor{})
	layTorchErr(t, err, "nn.functional.embedding_bag", "offsets has to be a 1D Tensor but got None")
	_, err = bag.TryForward(torch.FromSlice([]int64{1, 2}, 1, 2), torch.FromSlice([]int64{0}))
	layTorchErr(t, err, "nn.functional.embedding_bag", "if input is 2D, then offsets has to be None")
	_, err = bag.TryForwardWeighted(torch.FromSlice([]int64{1, 2}), torch.FromSlice([]int64{0}), ones(2))
	layTorchErr(t, err, "nn.functional.embedding_bag", "per_sample_weights is only supported for mode='sum'")
	_, err = bag.TryForward(torch.FromSlice([]int64{1, 7}), torch.FromSlice([]int64{0}))
	layTorchErr(t, err, "", "")

	_, err = nn.GaussianNLLLoss().TryForward(ones(2, 3), ones(2, 3), ones(3))
	layTorchErr(t, err, "nn.functional.gaussian_nll_loss", "var is of incorrect size")
	_, err = nn.GaussianNLLLoss().TryForward(ones(2, 3), ones(2, 3), ones(2, 3).Neg())
	layTorchErr(t, err, "nn.functional.gaussian_nll_loss", "var has negative entry/entries")
	_, err = nn.MarginRankingLoss().TryForward(ones(3), ones(3), ones(1, 3))
	layTorchErr(t, err, "nn.functional.margin_ranking_loss", "All input tensors should have same dimension")
	_, err = nn.SoftMarginLoss(nn.WithReduction("avg")).TryForward(ones(3), ones(3))
	layTorchErr(t, err, "nn.functional.soft_margin_loss", "avg is not a valid value for reduction")
	_, err = nn.MultiLabelSoftMarginLoss().TryForward(ones(), ones())
	layTorchErr(t, err, "nn.functional.multilabel_soft_margin_loss", "class dimension")
	_, err = nn.CTCLoss().TryForward(ones(5, 2, 3), torch.FromSlice([]int64{1, 2}, 2, 1), torch.FromSlice([]int64{5}),
		torch.FromSlice([]int64{1, 1}))
	layTorchErr(t, err, "", "")
	_, err = nn.CosineSimilarity().TryForward(ones(2, 3), ones(4, 3))
	layTorchErr(t, err, "", "")
	_, err = nn.TripletMarginLoss().TryForward(ones(2, 3), ones(2, 3), torch.Tensor{})
	layTorchErr(t, err, "", "undefined tensor")
}

// TestNilFamilyLayers checks that a nil member of a generic layer family
// names itself by PyTorch's name, not by its Go type's.
func TestNilFamilyLayers(t *testing.T) {
	var mp *nn.MaxPool2dModule
	_, err := mp.TryForward(ones(1, 1, 2, 2))
	layTorchErr(t, err, "nn.MaxPool2d", "called on a nil *nn.MaxPool2dModule (a layer that was never constructed?)")
	assert.ErrorIs(t, err, nn.ErrUninitialized)
	var pad *nn.ReflectionPad3dModule
	_, err = pad.TryForward(ones(1, 1, 2, 2, 2))
	layTorchErr(t, err, "nn.ReflectionPad3d", "called on a nil *nn.ReflectionPad3dModule")
	var rep *nn.ReplicationPad1dModule
	_, err = rep.TryForward(ones(1, 1, 2))
	layTorchErr(t, err, "nn.ReplicationPad1d", "called on a nil *nn.ReplicationPad1dModule")
	var sm *nn.LogSoftmaxModule
	_, err = sm.TryForward(ones(2))
	layTorchErr(t, err, "nn.LogSoftmax", "called on a nil *nn.LogSoftmaxModule")
	var celu *nn.CELUModule
	_, err = celu.TryForward(ones(2))
	layTorchErr(t, err, "nn.CELU", "called on a nil *nn.CELUModule")
	var ps *nn.PixelUnshuffleModule
	_, err = ps.TryForward(ones(1, 1, 2, 2))
	layTorchErr(t, err, "nn.PixelUnshuffle", "called on a nil *nn.PixelUnshuffleModule")
	var in *nn.InstanceNorm1dModule
	assert.PanicsWithError(t, "torch.nn.InstanceNorm1d: called on a nil *nn.InstanceNorm1dModule (a layer that was never constructed?)",
		func() { in.Forward(ones(2, 3)) })
	var am *nn.AdaptiveMaxPool3dModule
	_, _, err = am.TryForwardWithIndices(ones(1, 1, 2, 2, 2))
	layTorchErr(t, err, "nn.AdaptiveMaxPool3d", "called on a nil *nn.AdaptiveMaxPool3dModule")
	var bag *nn.EmbeddingBagModule
	_, err = bag.TryForward(ones(2), ones(1))
	layTorchErr(t, err, "nn.EmbeddingBag", "called on a nil *nn.EmbeddingBagModule")
	var ctc *nn.CTCLossModule
	_, err = ctc.TryForward(ones(1), ones(1), ones(1), ones(1))
	layTorchErr(t, err, "nn.CTCLoss", "called on a nil *nn.CTCLossModule")
	// A member of a family is its alias: the same type, the same methods.
	var m nn.Moduler = nn.AvgPool1d(2)
	_, ok := m.(*nn.AvgPoolModule[nn.D1])
	assert.True(t, ok)
	// ReflectionPad and ReplicationPad are one family with a mode, and
	// stay two types.
	m = nn.ReplicationPad2d(1)
	_, ok = m.(*nn.PadModule[nn.Replicate, nn.D2])
	assert.True(t, ok)
	_, ok = m.(*nn.ReflectionPad2dModule)
	assert.False(t, ok)
	_, ok = m.(*nn.ReplicationPadModule[nn.D2])
	assert.True(t, ok)
	assert.Equal(t, "ReplicationPad2d((1, 1, 1, 1))", nn.ReplicationPad2d(1).String())
	assert.Equal(t, "AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))", nn.AvgPool1d(2).String())
}

// TestNewLayerConstructorErrors checks the constructor checks of the
// layers of issue 25, which panic with a *torch.Error as PyTorch raises.
func TestNewLayerConstructorErrors(t *testing.T) {
	cases := []struct {
		name, want string
		f          func()
	}{
		{"instancenorm option", "torch.nn.InstanceNorm2d: unexpected option p", func() { nn.InstanceNorm2d(2, nn.WithP(0.1)) }},
		{"instancenorm momentum none", "momentum must be a number", func() { nn.InstanceNorm1d(2, nn.WithMomentumNone()) }},
		{"lrn size", "size must be positive, got 0", func() { nn.LocalResponseNorm(0) }},
		{"upsample mode", `unsupported mode "box"`, func() { nn.Upsample(nn.WithMode("box")) }},
		{"upsample align nearest", "align_corners option can only be set with the interpolating modes",
			func() { nn.Upsample(nn.WithAlignCorners(false)) }},
		{"upsample align nearest-exact", "align_corners option can only be set with the interpolating modes",
			func() { nn.Upsample(nn.WithMode("nearest-exact"), nn.WithAlignCorners(true)) }},
		{"upsample align area", "align_corners option can only be set with the interpolating modes",
			func() { nn.Upsample(nn.WithMode("area"), nn.WithAlignCorners(false)) }},
		{"unfold padding string", "padding must be a number or a tuple", func() { nn.Unfold(2, nn.WithPaddingString("same")) }},
		{"bag mode", "mode has to be one of sum, mean or max", func() { nn.EmbeddingBag(3, 2, nn.WithMode("min")) }},
		{"bag max sparse", "max mode does not support sparse weights",
			func() { nn.EmbeddingBag(3, 2, nn.WithMode("max"), nn.WithSparse(true)) }},
		{"bag padding", "padding_idx must be within num_embeddings", func() { nn.EmbeddingBag(3, 2, nn.WithPaddingIdx(3)) }},
		{"avgpool divisor", "divisor must be not zero", func() { nn.AvgPool2d(2, nn.WithDivisorOverride(0)) }},
		{"multi margin p", "only p == 1 and p == 2 supported", func() { nn.MultiMarginLoss(nn.WithP(3)) }},
		{"multi margin weight", "weight must be one-dimensional",
			func() { nn.MultiMarginLoss(nn.WithWeight(ones(2, 2))) }},
		{"loss option", "torch.nn.CTCLoss: unexpected option margin", func() { nn.CTCLoss(nn.WithMargin(1)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := func() (r any) {
				defer func() { r = recover() }()
				c.f()
				return nil
			}()
			e, ok := r.(*torch.Error)
			require.True(t, ok, "expected a panic with a *torch.Error, got %v", r)
			assert.Contains(t, e.Error(), c.want)
		})
	}
}

// PyTorch's None options are nil fields, distinct from a zero value:
// max_norm=0.0 is a norm (it zeroes the rows looked up), padding_idx=-1
// is the last row, and the reprs print what PyTorch's do.
func TestNoneOptionsDifferFromZero(t *testing.T) {
	e := nn.Embedding(3, 2)
	assert.Nil(t, e.PaddingIdx)
	assert.Nil(t, e.MaxNorm)
	assert.Equal(t, "Embedding(3, 2)", e.String())

	zero := nn.Embedding(3, 2, nn.WithMaxNorm(0))
	require.NotNil(t, zero.MaxNorm)
	assert.Equal(t, 0.0, *zero.MaxNorm)
	assert.Equal(t, "Embedding(3, 2, max_norm=0.0)", zero.String())
	assert.Equal(t, []float64{0, 0, 0, 0}, zero.Forward(torch.FromSlice([]int64{0, 2})).Float64s())
	assert.NotEqual(t, []float64{0, 0, 0, 0}, e.Forward(torch.FromSlice([]int64{0, 2})).Float64s())

	last := nn.Embedding(3, 2, nn.WithPaddingIdx(-1))
	require.NotNil(t, last.PaddingIdx)
	assert.Equal(t, int64(2), *last.PaddingIdx)
	assert.Equal(t, "Embedding(3, 2, padding_idx=2)", last.String())
	assert.Equal(t, []float64{0, 0}, last.Weight.Select(0, 2).Float64s())
	first := nn.Embedding(3, 2, nn.WithPaddingIdx(0))
	assert.Equal(t, int64(0), *first.PaddingIdx)
	assert.Equal(t, "Embedding(3, 2, padding_idx=0)", first.String())

	bag := nn.EmbeddingBag(3, 2, nn.WithMaxNorm(0), nn.WithPaddingIdx(-3))
	assert.Equal(t, "EmbeddingBag(3, 2, max_norm=0.0, mode=mean, padding_idx=0)", bag.String())
	assert.Equal(t, []float64{0, 0}, bag.Forward(torch.FromSlice([]int64{1, 2}, 1, 2), torch.Tensor{}).Float64s())
	assert.Nil(t, nn.EmbeddingBag(3, 2).MaxNorm)

	assert.Nil(t, nn.AvgPool2d(2).DivisorOverride)
	p := nn.AvgPool2d(2, nn.WithDivisorOverride(2))
	require.NotNil(t, p.DivisorOverride)
	assert.Equal(t, []float64{2}, p.Forward(torch.Ones([]int64{1, 1, 2, 2})).Float64s())
	assert.Equal(t, []float64{1}, nn.AvgPool2d(2).Forward(torch.Ones([]int64{1, 1, 2, 2})).Float64s())
}

// TestNewModulesFreeTheirTemporaries checks that the layers of issue 25
// that are made of several ops leave only their result alive, and their
// arguments usable.
func TestNewModulesFreeTheirTemporaries(t *testing.T) {
	rn := func(s ...int64) torch.Tensor { return torch.Randn(s) }
	idx := func(v ...int64) torch.Tensor { return torch.FromSlice(v) }
	lrn3, lrn2, in2 := nn.LocalResponseNorm(3), nn.LocalResponseNorm(2), nn.InstanceNorm2d(2)
	bagNorm, bagSum := nn.EmbeddingBag(4, 3, nn.WithMaxNorm(1)), nn.EmbeddingBag(4, 3, nn.WithMode("sum"))
	mlsm := nn.MultiLabelSoftMarginLoss(nn.WithWeight(torch.Ones([]int64{4})))
	gnll := nn.GaussianNLLLoss(nn.WithFull(true), nn.WithReduction("none"))
	cases := []struct {
		name string
		args []torch.Tensor
		f    func(a []torch.Tensor) torch.Tensor
	}{
		{"LocalResponseNorm 3D", []torch.Tensor{rn(2, 5, 4)}, func(a []torch.Tensor) torch.Tensor { return lrn3.Forward(a[0]) }},
		{"LocalResponseNorm 4D", []torch.Tensor{rn(2, 4, 3, 3)}, func(a []torch.Tensor) torch.Tensor { return lrn2.Forward(a[0]) }},
		{"InstanceNorm unbatched", []torch.Tensor{rn(2, 3, 3)}, func(a []torch.Tensor) torch.Tensor { return in2.Forward(a[0]) }},
		{"EmbeddingBag 2D max_norm", []torch.Tensor{torch.FromSlice([]int64{0, 1, 2, 3}, 2, 2)}, func(a []torch.Tensor) torch.Tensor {
			return bagNorm.Forward(a[0], torch.Tensor{})
		}},
		{"EmbeddingBag weighted", []torch.Tensor{idx(0, 1, 2), idx(0, 1), rn(3)}, func(a []torch.Tensor) torch.Tensor {
			return bagSum.ForwardWeighted(a[0], a[1], a[2])
		}},
		{"MultiLabelSoftMarginLoss", []torch.Tensor{rn(3, 4), torch.Rand([]int64{3, 4})}, func(a []torch.Tensor) torch.Tensor {
			return mlsm.Forward(a[0], a[1])
		}},
		{"GaussianNLLLoss", []torch.Tensor{rn(3, 4), rn(3, 4), torch.Rand([]int64{3})}, func(a []torch.Tensor) torch.Tensor {
			return gnll.Forward(a[0], a[1], a[2])
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out torch.Tensor
			n := livetest.New(func() { out = c.f(c.args) })
			require.True(t, out.Defined())
			assert.Equal(t, int64(1), n, "tensors left alive besides the result")
			for i, a := range c.args {
				assert.True(t, a.Defined(), "argument %d was freed", i)
				a.Sum()
			}
		})
	}
}

// The functional forms of Fold, Unfold and ChannelShuffle give what the
// modules give (LocalResponseNorm and the losses call theirs).
func TestFunctionalFormsMatchModules(t *testing.T) {
	x := torch.Randn([]int64{2, 3, 5, 4})
	u := nn.Unfold([]int64{2, 3}, nn.WithStride(1, 2), nn.WithPadding(1), nn.WithDilation(1))
	cols := u.Forward(x)
	assert.Equal(t, cols.Float64s(), F.Unfold(x, []int64{2, 3}, F.WithStride(1, 2), F.WithPadding(1), F.WithDilation(1)).Float64s())
	f := nn.Fold([]int64{5, 4}, []int64{2, 3}, nn.WithStride(1, 2), nn.WithPadding(1))
	assert.Equal(t, f.Forward(cols).Float64s(), F.Fold(cols, []int64{5, 4}, []int64{2, 3}, F.WithStride(1, 2), F.WithPadding(1)).Float64s())
	c := torch.Randn([]int64{2, 6, 3})
	assert.Equal(t, nn.ChannelShuffle(3).Forward(c).Float64s(), F.ChannelShuffle(c, 3).Float64s())
	assert.Equal(t, nn.LocalResponseNorm(3, nn.WithK(2)).Forward(x).Float64s(),
		F.LocalResponseNorm(x, 3, F.WithK(2)).Float64s())
}

// F.EmbeddingBag gives what the module gives, with each option.
func TestFunctionalEmbeddingBag(t *testing.T) {
	idx, off := torch.FromSlice([]int64{0, 2, 4, 1, 3, 4}), torch.FromSlice([]int64{0, 2})
	w := torch.FromSlice([]float32{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}, 5, 2)
	psw := torch.FromSlice([]float32{1, 2, 3, 4, 5, 6})
	for name, c := range map[string]struct {
		m    []nn.Option
		f    []F.Option
		psw  bool
		want []float64 // bag 0 = rows 0, 2; bag 1 = rows 4, 1, 3, 4
	}{
		"mean":     {nil, nil, false, []float64{0.3, 0.4, (0.9 + 0.3 + 0.7 + 0.9) / 4, (1.0 + 0.4 + 0.8 + 1.0) / 4}},
		"sum":      {[]nn.Option{nn.WithMode("sum")}, []F.Option{F.WithMode("sum")}, false, []float64{0.6, 0.8, 2.8, 3.2}},
		"max":      {[]nn.Option{nn.WithMode("max")}, []F.Option{F.WithMode("max")}, false, []float64{0.5, 0.6, 0.9, 1.0}},
		"weighted": {[]nn.Option{nn.WithMode("sum")}, []F.Option{F.WithMode("sum")}, true, []float64{0.1 + 2*0.5, 0.2 + 2*0.6, 3*0.9 + 4*0.3 + 5*0.7 + 6*0.9, 3*1.0 + 4*0.4 + 5*0.8 + 6*1.0}},
		"padding":  {[]nn.Option{nn.WithPaddingIdx(-1)}, []F.Option{F.WithPaddingIdx(-1)}, false, []float64{0.3, 0.4, 0.5, 0.6}},
	} {
		t.Run(name, func(t *testing.T) {
			bag := nn.EmbeddingBag(5, 2, c.m...)
			torch.NoGrad(func() { bag.Weight.Copy_(w) })
			var p torch.Tensor
			if c.psw {
				p = psw
			}
			got := F.EmbeddingBag(idx, w, off, append(c.f, F.WithPerSampleWeights(p))...).Float64s()
			assert.InDeltaSlice(t, c.want, got, 1e-5)
			assert.Equal(t, bag.ForwardWeighted(idx, off, p).Float64s(), got)
		})
	}
	_, err := F.TryEmbeddingBag(idx, w, off, F.WithMode("min"))
	layTorchErr(t, err, "nn.functional.embedding_bag", "mode has to be one of sum, mean or max")
	_, err = F.TryEmbeddingBag(idx, w, off, F.WithPaddingIdx(5))
	layTorchErr(t, err, "nn.functional.embedding_bag", "padding_idx must be within num_embeddings")
	_, err = F.TryEmbeddingBag(idx, torch.Ones([]int64{5}), off)
	layTorchErr(t, err, "nn.functional.embedding_bag", "weight has to be a 2D Tensor")
	_, err = F.TryEmbeddingBag(idx, w, off, F.WithMode("max"), F.WithSparse(true))
	layTorchErr(t, err, "nn.functional.embedding_bag", "max mode does not support sparse weights")
	// max_norm renormalizes the rows looked up, in place, as PyTorch does.
	w2 := w.Clone()
	F.EmbeddingBag(idx, w2, off, F.WithMaxNorm(0.5))
	assert.LessOrEqual(t, w2.Select(0, 4).NormAll().Item(), 0.5+1e-6)
}
