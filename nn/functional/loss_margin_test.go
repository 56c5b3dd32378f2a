package functional_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

func f64(v ...float64) torch.Tensor { return torch.FromSlice(v) }

// The margin and likelihood losses against their formulas on small
// inputs, with PyTorch's defaults and with options (nn's goldens compare
// them with PyTorch through the modules, which call these).
func TestMarginLossFormulas(t *testing.T) {
	x, y := f64(0.5, 2), f64(1, -1)
	// hinge_embedding_loss: x where y = 1, max(0, margin - x) where -1.
	assert.InDelta(t, (0.5+0)/2, F.HingeEmbeddingLoss(x, y).Item(), 1e-12, "margin 1 by default")
	assert.InDelta(t, 0.5+1, F.HingeEmbeddingLoss(x, y, F.WithMargin(3), F.WithReduction("sum")).Item(), 1e-12)
	// margin_ranking_loss: max(0, -y·(x1 - x2) + margin).
	x2 := f64(1, 1)
	assert.Equal(t, []float64{0.5, 1}, F.MarginRankingLoss(x, x2, y, F.WithReduction("none")).Float64s())
	assert.Equal(t, []float64{1, 1.5}, F.MarginRankingLoss(x, x2, y, F.WithMargin(0.5), F.WithReduction("none")).Float64s())
	// soft_margin_loss: log(1 + exp(-y·x)).
	assert.InDelta(t, (math.Log1p(math.Exp(-0.5))+math.Log1p(math.Exp(2)))/2, F.SoftMarginLoss(x, y).Item(), 1e-12)
	// multi_margin_loss: Σ_{i≠y} max(0, margin - x[y] + x[i])^p / C.
	in, cls := torch.FromSlice([]float64{0.1, 0.2, 0.4, 0.8}, 1, 4), torch.FromSlice([]int64{3})
	want := (math.Max(0, 1-0.8+0.1) + math.Max(0, 1-0.8+0.2) + math.Max(0, 1-0.8+0.4)) / 4
	assert.InDelta(t, want, F.MultiMarginLoss(in, cls).Item(), 1e-12)
	want2 := (math.Pow(1-0.8+0.1, 2) + math.Pow(1-0.8+0.2, 2) + math.Pow(1-0.8+0.4, 2)) / 4
	assert.InDelta(t, want2, F.MultiMarginLoss(in, cls, F.WithP(2)).Item(), 1e-12)
	// poisson_nll_loss, log_input: exp(x) - y·x.
	assert.InDelta(t, ((math.Exp(0.5)-0.5)+(math.Exp(2)+2))/2, F.PoissonNllLoss(x, y).Item(), 1e-12)
	assert.InDelta(t, ((0.5-math.Log(0.5+1e-8))+(2+math.Log(2+1e-8)))/2, F.PoissonNllLoss(x, y, F.WithLogInput(false)).Item(), 1e-12)
	// gaussian_nll_loss: (log v + (x - y)²/v)/2.
	v := f64(0.25, 4)
	wantG := (math.Log(0.25) + 0.25/0.25 + math.Log(4) + 9.0/4) / 4
	assert.InDelta(t, wantG, F.GaussianNllLoss(x, y, v).Item(), 1e-12)
	assert.InDelta(t, wantG+0.5*math.Log(2*math.Pi), F.GaussianNllLoss(x, y, v, F.WithFull(true)).Item(), 1e-12)
	// triplet_margin_loss: max(d(a, p) - d(a, n) + margin, 0), eps in the distance.
	a, p, n := torch.FromSlice([]float64{0, 0}, 1, 2), torch.FromSlice([]float64{3, 4}, 1, 2), torch.FromSlice([]float64{1, 0}, 1, 2)
	dap := math.Hypot(-3+1e-6, -4+1e-6)
	dan := math.Hypot(-1+1e-6, 1e-6)
	assert.InDelta(t, dap-dan+1, F.TripletMarginLoss(a, p, n).Item(), 1e-9)
	// cosine_embedding_loss: 1 - cos where y = 1.
	assert.InDelta(t, 1-4/5.0, F.CosineEmbeddingLoss(p, torch.FromSlice([]float64{0, 1}, 1, 2), f64(1)).Item(), 1e-6)
	// multilabel_soft_margin_loss with a weight per class.
	ls := F.MultilabelSoftMarginLoss(torch.FromSlice([]float64{0, 0}, 1, 2), torch.FromSlice([]float64{1, 0}, 1, 2),
		F.WithWeight(f64(1, 3)))
	assert.InDelta(t, (math.Log(2)*1+math.Log(2)*3)/2, ls.Item(), 1e-12)
	// ctc_loss of one frame with one label: -log p(label).
	lp := torch.FromSlice([]float64{math.Log(0.25), math.Log(0.75)}, 1, 1, 2)
	ctc := F.CtcLoss(lp, torch.FromSlice([]int64{1}, 1, 1), torch.FromSlice([]int64{1}), torch.FromSlice([]int64{1}),
		F.WithReduction("sum"))
	assert.InDelta(t, -math.Log(0.75), ctc.Item(), 1e-12)
	// multilabel_margin_loss: Σ_{j in y, i not in y} max(0, 1 - (x[j] - x[i])) / C.
	mlm := F.MultilabelMarginLoss(torch.FromSlice([]float64{0.1, 0.2, 0.4, 0.8}, 1, 4), torch.FromSlice([]int64{3, 0, -1, 1}, 1, 4))
	wantM := (math.Max(0, 1-(0.8-0.2)) + math.Max(0, 1-(0.8-0.4)) + math.Max(0, 1-(0.1-0.2)) + math.Max(0, 1-(0.1-0.4))) / 4
	assert.InDelta(t, wantM, mlm.Item(), 1e-12)
}

func TestMarginLossErrors(t *testing.T) {
	x, y := f64(0.5, 2), f64(1, -1)
	for name, f := range map[string]func() (torch.Tensor, error){
		"option":    func() (torch.Tensor, error) { return F.TryHingeEmbeddingLoss(x, y, F.WithSwap(true)) },
		"reduction": func() (torch.Tensor, error) { return F.TrySoftMarginLoss(x, y, F.WithReduction("avg")) },
		"p":         func() (torch.Tensor, error) { return F.TryMultiMarginLoss(x, y, F.WithP(3)) },
		"weight": func() (torch.Tensor, error) {
			return F.TryMultiMarginLoss(x, y, F.WithWeight(torch.Ones([]int64{2, 2})))
		},
		"dims":        func() (torch.Tensor, error) { return F.TryMarginRankingLoss(x, x, torch.Ones([]int64{1, 2})) },
		"var size":    func() (torch.Tensor, error) { return F.TryGaussianNllLoss(x, y, f64(1, 1, 1)) },
		"var sign":    func() (torch.Tensor, error) { return F.TryGaussianNllLoss(x, y, f64(1, -1)) },
		"scalar":      func() (torch.Tensor, error) { return F.TryMultilabelSoftMarginLoss(torch.Ones(nil), torch.Ones(nil)) },
		"undefined":   func() (torch.Tensor, error) { return F.TryTripletMarginLoss(x, torch.Tensor{}, x) },
		"ctc lengths": func() (torch.Tensor, error) { return F.TryCtcLoss(x, x, x, x) },
	} {
		_, err := f()
		require.Error(t, err, name)
		var te *torch.Error
		assert.ErrorAs(t, err, &te, name)
	}
	assert.Panics(t, func() { F.SoftMarginLoss(x, y, F.WithReduction("avg")) })
}

// fold, unfold, channel_shuffle and local_response_norm: unfold then fold
// counts each pixel's blocks; shuffling is a permutation; LRN matches its
// formula.
func TestVisionFunctions(t *testing.T) {
	x := torch.Arange(torch.S(16), torch.WithDtype(torch.Float64)).View([]int64{1, 1, 4, 4})
	cols := F.Unfold(x, 2)
	assert.Equal(t, []int64{1, 4, 9}, cols.Shape())
	back := F.Fold(cols, 4, 2)
	counts := F.Fold(F.Unfold(torch.OnesLike(x), 2), []int64{4, 4}, []int64{2, 2})
	assert.Equal(t, x.Float64s(), back.Div(counts).Float64s())
	s2 := F.Unfold(x, []int64{2, 2}, F.WithStride(2))
	assert.Equal(t, []int64{1, 4, 4}, s2.Shape())
	assert.Equal(t, x.Float64s(), F.Fold(s2, 4, 2, F.WithStride(2)).Float64s(), "non-overlapping blocks fold back exactly")
	_, err := F.TryUnfold(x, 2, F.WithPaddingString("same"))
	assert.Error(t, err)
	_, err = F.TryFold(x, 4, 2, F.WithEps(1))
	assert.Error(t, err)

	c := torch.Arange(torch.S(6), torch.WithDtype(torch.Float64)).View([]int64{1, 6, 1, 1})
	assert.Equal(t, []float64{0, 3, 1, 4, 2, 5}, F.ChannelShuffle(c, 2).Float64s())
	_, err = F.TryChannelShuffle(c, 4)
	assert.Error(t, err)

	// size 1: x / (k + alpha·x²)^beta.
	v := torch.FromSlice([]float64{1, 2, 3}, 1, 3, 1)
	got := F.LocalResponseNorm(v, 1, F.WithAlpha(0.5), F.WithBeta(1), F.WithK(2)).Float64s()
	assert.InDeltaSlice(t, []float64{1 / 2.5, 2 / 4.0, 3 / 6.5}, got, 1e-12)
	// size 2 on 4-D input: channel c averages x² of channels c-1 and c.
	w := torch.FromSlice([]float64{1, 2, 3}, 1, 3, 1, 1)
	got = F.LocalResponseNorm(w, 2, F.WithAlpha(1), F.WithBeta(1), F.WithK(0)).Float64s()
	assert.InDeltaSlice(t, []float64{1 / 0.5, 2 / 2.5, 3 / 6.5}, got, 1e-12)
	_, err = F.TryLocalResponseNorm(torch.Ones([]int64{2, 3}), 2)
	assert.Error(t, err)
	_, err = F.TryLocalResponseNorm(v, 0)
	assert.Error(t, err)
}
