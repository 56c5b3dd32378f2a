package torch_test

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// firstOf is the first result of a reduction that returns values and indices.
func firstOf(v, _ torch.Tensor, err error) (torch.Tensor, error) { return v, err }

// takesIt matches the error of an option that the form called does not
// take: "unexpected option dim: SumDimIntList or SumAlong takes it".
var takesIt = regexp.MustCompile(`unexpected option (\w+): (.+) takes it$`)

// TestReductionDimOption is PyTorch's x.sum(dim=1) written
// x.Sum(torch.WithDim(1)), for every reduction that takes options. Each
// either reduces along dim 1, or fails with a *torch.Error (its panicking
// form panics with it, nothing worse) that names the option and the forms
// that take it: methods of Tensor, the first of which is called here with
// dim 1 and must reduce along it.
func TestReductionDimOption(t *testing.T) {
	x := torch.Arange(torch.S(6), torch.WithDtype(torch.Float32)).Reshape([]int64{2, 3}).AddScalar(torch.S(1))
	q := torch.FromSlice([]float32{0.5})
	dim1 := torch.WithDim(1)
	cases := []struct {
		name  string
		try   func(opts ...torch.Option) (torch.Tensor, error) // the form called with WithDim(1)
		named func() (torch.Tensor, error)                     // nil when try takes dim; else the first form the error names, with dim 1
		panic func()                                           // the panicking form, where try does not take dim
	}{
		{"Sum", x.TrySum, func() (torch.Tensor, error) { return x.TrySumDimIntList([]int64{1}) }, func() { x.Sum(dim1) }},
		{"Mean", x.TryMean, func() (torch.Tensor, error) { return x.TryMeanDim([]int64{1}) }, func() { x.Mean(dim1) }},
		{"Prod", x.TryProd, func() (torch.Tensor, error) { return x.TryProdDimInt(1) }, func() { x.Prod(dim1) }},
		{"Std", x.TryStd, func() (torch.Tensor, error) { return x.TryStdDim([]int64{1}) }, func() { x.Std(dim1) }},
		{"Var", x.TryVar, func() (torch.Tensor, error) { return x.TryVarDim([]int64{1}) }, func() { x.Var(dim1) }},
		{"Norm", func(o ...torch.Option) (torch.Tensor, error) { return x.TryNorm(torch.Float32, o...) },
			func() (torch.Tensor, error) { return x.TryNormScalarOptDim([]int64{1}) }, func() { x.Norm(torch.Float32, dim1) }},
		{"Logsumexp", func(o ...torch.Option) (torch.Tensor, error) { return x.TryLogsumexp([]int64{0}, o...) },
			func() (torch.Tensor, error) { return x.TryLogsumexp([]int64{1}) }, func() { x.Logsumexp([]int64{0}, dim1) }},
		{"Amax", x.TryAmax, nil, nil},
		{"Amin", x.TryAmin, nil, nil},
		{"Nansum", x.TryNansum, nil, nil},
		{"Nanmean", x.TryNanmean, nil, nil},
		{"Argmax", x.TryArgmax, nil, nil},
		{"Argmin", x.TryArgmin, nil, nil},
		{"CountNonzero", x.TryCountNonzero, nil, nil},
		{"Mode", func(o ...torch.Option) (torch.Tensor, error) { return firstOf(x.TryMode(o...)) }, nil, nil},
		{"Aminmax", func(o ...torch.Option) (torch.Tensor, error) { return firstOf(x.TryAminmax(o...)) }, nil, nil},
		{"Kthvalue", func(o ...torch.Option) (torch.Tensor, error) { return firstOf(x.TryKthvalue(2, o...)) }, nil, nil},
		{"Quantile", func(o ...torch.Option) (torch.Tensor, error) { return x.TryQuantile(q, o...) }, nil, nil},
		{"Nanquantile", func(o ...torch.Option) (torch.Tensor, error) { return x.TryNanquantile(q, o...) }, nil, nil},
	}
	tensorType := reflect.TypeFor[torch.Tensor]()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.try(dim1)
			if c.named == nil {
				require.NoError(t, err, "%s takes dim", c.name)
				shape := got.Shape()
				if c.name == "Quantile" || c.name == "Nanquantile" {
					shape = shape[1:] // one row per q
				}
				assert.Equal(t, []int64{2}, shape, "reduced along dim 1")
				return
			}
			var te *torch.Error
			require.ErrorAs(t, err, &te, "%s(WithDim(1)) must fail with a *torch.Error", c.name)
			m := takesIt.FindStringSubmatch(te.Msg)
			require.NotNil(t, m, "%s: the error names the option and the forms that take it: %q", c.name, te.Msg)
			assert.Equal(t, "dim", m[1])
			forms := strings.Split(m[2], " or ")
			for _, f := range forms {
				f = strings.TrimSuffix(f, "'s dim argument") // Logsumexp takes dim as an argument
				_, ok := tensorType.MethodByName(f)
				assert.True(t, ok, "%s: the error names %s, which is not a method of Tensor", c.name, f)
			}
			want, err := c.named()
			require.NoError(t, err, "%s: %s takes dim", c.name, forms[0])
			assert.Equal(t, []int64{2}, want.Shape())
			p := catchTorchPanic(c.panic)
			require.NotNil(t, p, "%s(WithDim(1)) must panic with a *torch.Error", c.name)
			assert.Equal(t, te.Msg, p.Msg)
		})
	}
}

// catchTorchPanic returns the *torch.Error that f panics with, or nil if
// it returns; any other panic goes on.
func catchTorchPanic(f func()) (e *torch.Error) {
	defer func() {
		if r := recover(); r != nil {
			var ok bool
			if e, ok = r.(*torch.Error); !ok {
				panic(r)
			}
		}
	}()
	f()
	return nil
}
