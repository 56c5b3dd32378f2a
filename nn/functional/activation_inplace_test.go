package functional_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// The in-place forms change their input and return it, with the values
// of their out-of-place forms (which TestGolden compares with PyTorch's),
// and fail, as PyTorch's do, on a leaf that requires grad.
func TestInplaceActivations(t *testing.T) {
	forms := map[string]struct {
		inplace, outOfPlace func(torch.Tensor) (torch.Tensor, error)
	}{
		"relu_": {F.TryRelu_, F.TryRelu},
		"selu_": {F.TrySelu_, F.TrySelu},
		"elu_": {func(x torch.Tensor) (torch.Tensor, error) { return F.TryElu_(x, F.WithAlpha(0.5)) },
			func(x torch.Tensor) (torch.Tensor, error) { return F.TryElu(x, F.WithAlpha(0.5)) }},
		"celu_": {func(x torch.Tensor) (torch.Tensor, error) { return F.TryCelu_(x) }, func(x torch.Tensor) (torch.Tensor, error) { return F.TryCelu(x) }},
		"leaky_relu_": {func(x torch.Tensor) (torch.Tensor, error) { return F.TryLeakyRelu_(x) },
			func(x torch.Tensor) (torch.Tensor, error) { return F.TryLeakyRelu(x) }},
		"hardtanh_": {func(x torch.Tensor) (torch.Tensor, error) { return F.TryHardtanh_(x, F.WithMaxVal(0.25)) },
			func(x torch.Tensor) (torch.Tensor, error) { return F.TryHardtanh(x, F.WithMaxVal(0.25)) }},
		"threshold_": {func(x torch.Tensor) (torch.Tensor, error) { return F.TryThreshold_(x, 0.1, 7) },
			func(x torch.Tensor) (torch.Tensor, error) { return F.TryThreshold(x, 0.1, 7) }},
		"rrelu_": {func(x torch.Tensor) (torch.Tensor, error) { return F.TryRrelu_(x) }, func(x torch.Tensor) (torch.Tensor, error) { return F.TryRrelu(x) }},
	}
	for name, f := range forms {
		x := f64(-2, -0.5, 0, 0.5, 2)
		want, err := f.outOfPlace(x)
		require.NoError(t, err, name)
		out, err := f.inplace(x)
		require.NoError(t, err, name)
		assert.Equal(t, want.Float64s(), out.Float64s(), "%s: the out-of-place form's values", name)
		assert.Equal(t, want.Float64s(), x.Float64s(), "%s changes its input", name)

		leaf := f64(1, -1).RequiresGrad_()
		_, err = f.inplace(leaf)
		require.Error(t, err, "%s of a leaf that requires grad", name)
		assert.Contains(t, err.Error(), "in-place", name)
	}
}

// F.rrelu_'s options are checked as F.rrelu's are, under its own name.
func TestInplaceActivationErrors(t *testing.T) {
	_, err := F.TryRrelu_(f64(1), F.WithAlpha(1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rrelu_: unexpected option alpha")
	_, err = F.TryElu_(f64(1), F.WithAlpha(1), F.WithAlpha(2))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "option alpha given twice")
}
