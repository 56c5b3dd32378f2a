package nn_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
)

// lazyCase is one of modules.json's "lazy" cases (modules.py's
// lazy_cases).
type lazyCase struct {
	Name     string               `json:"name"`
	Seed     uint64               `json:"seed"`
	ReprLazy string               `json:"repr_lazy"`
	LazyKeys []string             `json:"lazy_keys"`
	X        layTensor            `json:"x"`
	Repr     string               `json:"repr"`
	Init     map[string]layTensor `json:"init"`
	Out      layTensor            `json:"out"`
	C        layTensor            `json:"c"`
	Grads    map[string]layTensor `json:"grads"`
	After    map[string]layTensor `json:"after"`
}

// lazyLayer is what the lazy layers share: a module with one input and
// HasUninitializedParams.
type lazyLayer interface {
	stateDicter
	tryForwarder
	Parameters() []torch.Tensor
	HasUninitializedParams() bool
}

// lazyCases are the Go constructions of modules.py's LAZY_CASES.
var lazyCases = map[string]func() lazyLayer{
	"lazy_linear": func() lazyLayer { return nn.LazyLinear(3) },
	"lazy_conv2d": func() lazyLayer {
		return nn.LazyConv2d(4, 3, nn.WithStride(2), nn.WithPadding(1), nn.WithGroups(2))
	},
	"lazy_batchnorm2d":      func() lazyLayer { return nn.LazyBatchNorm2d(nn.WithMomentum(0.2)) },
	"lazy_conv_transpose1d": func() lazyLayer { return nn.LazyConvTranspose1d(2, 3, nn.WithStride(2)) },
	"lazy_instancenorm1d":   func() lazyLayer { return nn.LazyInstanceNorm1d() },
}

func lazyLoadGolden(t *testing.T) []lazyCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "modules.json"))
	require.NoError(t, err, "regenerate with /usr/bin/python3 nn/testdata/modules.py")
	var g struct {
		Lazy []lazyCase `json:"lazy"`
	}
	require.NoError(t, json.Unmarshal(b, &g))
	require.NotEmpty(t, g.Lazy, "modules.json has no lazy cases")
	return g.Lazy
}

// TestLazyGolden checks each lazy layer against PyTorch: printed and listed
// as uninitialized until the first forward; that forward infers the size,
// initializes with PyTorch's draws and gives PyTorch's output; backward
// gives its gradients; and one step of an SGD optimizer made before the
// forward updates the layer's parameters as PyTorch's does.
func TestLazyGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, gc := range lazyLoadGolden(t) {
		gc := gc
		seen[gc.Name] = true
		t.Run(gc.Name, func(t *testing.T) {
			build, ok := lazyCases[gc.Name]
			require.True(t, ok, "no Go layer for golden case %s", gc.Name)
			torch.ManualSeed(gc.Seed)
			m := build()
			assert.Equal(t, gc.ReprLazy, m.String(), "repr before the first forward")
			require.True(t, m.HasUninitializedParams())
			var lazyKeys []string
			for k, v := range m.StateDict() {
				if v.Numel() == 0 && v.Dim() == 1 {
					lazyKeys = append(lazyKeys, k)
				}
			}
			sort.Strings(lazyKeys)
			assert.Equal(t, gc.LazyKeys, lazyKeys, "placeholders, empty (0,) tensors")
			for _, p := range m.Parameters() {
				assert.True(t, p.RequiresGrad(), "a placeholder parameter requires grad")
			}
			before := m.Parameters()
			opt := optim.SGD(before, optim.WithLR(0.1), optim.WithMomentum(0.9))

			x := gc.X.tensor(t)
			x.SetRequiresGrad(true)
			out, err := m.TryForward(x)
			require.NoError(t, err)
			assert.Equal(t, gc.Repr, m.String(), "repr after the first forward")
			assert.False(t, m.HasUninitializedParams())
			require.Equal(t, before, m.Parameters(), "the parameters are the tensors the optimizer holds")
			params := map[string]torch.Tensor{}
			for _, p := range m.NamedParameters() {
				params[p.Name] = p.Tensor
			}
			layStateDict(t, "init", gc.Init, params)
			layClose(t, "out", gc.Out, out)

			out.Mul(gc.C.tensor(t)).Sum().Backward()
			grads := map[string]torch.Tensor{"input.x": x.Grad()}
			for _, p := range m.NamedParameters() {
				grads["param."+p.Name] = p.Tensor.Grad()
			}
			layStateDict(t, "grad", gc.Grads, grads)
			opt.Step()
			layStateDict(t, "after", gc.After, m.StateDict())
		})
	}
	for name := range lazyCases {
		assert.True(t, seen[name], "Go lazy case %s has no golden data (regenerate modules.json)", name)
	}
}

// TestLazyInfersEachFamily checks the size each lazy layer infers, and the
// shapes of its parameters, for batched and unbatched input.
func TestLazyInfersEachFamily(t *testing.T) {
	for _, tc := range []struct {
		name   string
		m      lazyLayer
		x      []int64
		repr   string
		weight []int64
	}{
		{"linear3d", nn.LazyLinear(2, nn.WithBias(false)), []int64{2, 3, 5}, "Linear(in_features=5, out_features=2, bias=False)", []int64{2, 5}},
		{"conv1d_unbatched", nn.LazyConv1d(4, 2), []int64{3, 6}, "Conv1d(3, 4, kernel_size=(2,), stride=(1,))", []int64{4, 3, 2}},
		{"conv3d", nn.LazyConv3d(2, 1), []int64{1, 3, 2, 2, 2}, "Conv3d(3, 2, kernel_size=(1, 1, 1), stride=(1, 1, 1))", []int64{2, 3, 1, 1, 1}},
		{"conv_transpose2d", nn.LazyConvTranspose2d(4, 2, nn.WithGroups(2)), []int64{1, 6, 3, 3},
			"ConvTranspose2d(6, 4, kernel_size=(2, 2), stride=(1, 1), groups=2)", []int64{6, 2, 2, 2}},
		{"conv_transpose3d", nn.LazyConvTranspose3d(1, 1), []int64{2, 1, 1, 1}, "ConvTranspose3d(2, 1, kernel_size=(1, 1, 1), stride=(1, 1, 1))", []int64{2, 1, 1, 1, 1}},
		{"batchnorm1d", nn.LazyBatchNorm1d(), []int64{4, 3}, "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)", []int64{3}},
		{"batchnorm3d", nn.LazyBatchNorm3d(nn.WithAffine(false)), []int64{2, 2, 1, 1, 1}, "BatchNorm3d(2, eps=1e-05, momentum=0.1, affine=False, track_running_stats=True)", nil},
		{"instancenorm2d_unbatched", nn.LazyInstanceNorm2d(), []int64{3, 2, 2}, "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)", []int64{3}},
		{"instancenorm3d_nothing_to_infer", nn.LazyInstanceNorm3d(nn.WithAffine(false), nn.WithTrackRunningStats(false)), []int64{1, 2, 2, 2, 2},
			"InstanceNorm3d(0, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False)", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.m.TryForward(torch.Rand(tc.x))
			require.NoError(t, err)
			assert.Equal(t, tc.repr, tc.m.String())
			assert.False(t, tc.m.HasUninitializedParams())
			if tc.weight != nil {
				assert.Equal(t, tc.weight, tc.m.StateDict()["weight"].Shape())
			}
		})
	}
}

// TestLazyBadInput checks that input a lazy layer cannot infer from is
// the regular layer's error, leaves the layer lazy, and that a second
// input of another size is the regular layer's error too.
func TestLazyBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    lazyLayer
		x    torch.Tensor
		msg  string
	}{
		{"linear_0d", nn.LazyLinear(3), torch.ScalarTensor(torch.S(1.0)), "nn.LazyLinear: expected input of shape (*, in_features), got a 0-D tensor"},
		{"conv2d_2d", nn.LazyConv2d(4, 3), torch.Rand([]int64{2, 3}),
			"Expected 3D (unbatched) or 4D (batched) input to LazyConv2d, but got input of size: [2 3]"},
		{"conv2d_groups", nn.LazyConv2d(4, 1, nn.WithGroups(2)), torch.Rand([]int64{1, 3, 2, 2}), "in_channels must be divisible by groups"},
		{"conv_transpose1d_4d", nn.LazyConvTranspose1d(2, 1), torch.Rand([]int64{1, 1, 1, 1}), "Expected 2D (unbatched) or 3D (batched) input to LazyConvTranspose1d"},
		{"batchnorm2d_2d", nn.LazyBatchNorm2d(), torch.Rand([]int64{2, 3}), "nn.LazyBatchNorm2d: expected 4D input (got 2D input)"},
		{"instancenorm1d_4d", nn.LazyInstanceNorm1d(), torch.Rand([]int64{1, 2, 3, 4}), "nn.LazyInstanceNorm1d: expected 2D or 3D input (got 4D input)"},
		{"undefined", nn.LazyLinear(3), torch.Tensor{}, "undefined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.m.TryForward(tc.x)
			require.Error(t, err)
			var te *torch.Error
			assert.True(t, errors.As(err, &te), "a *torch.Error: %v", err)
			assert.Contains(t, err.Error(), tc.msg)
			assert.True(t, tc.m.HasUninitializedParams(), "bad input leaves the layer lazy")
			assert.Panics(t, func() {
				tc.m.(interface {
					Forward(torch.Tensor) torch.Tensor
				}).Forward(tc.x)
			})
		})
	}

	fc := nn.LazyLinear(3)
	_, err := fc.TryForward(torch.Rand([]int64{2, 4}))
	require.NoError(t, err)
	_, err = fc.TryForward(torch.Rand([]int64{2, 5}))
	require.Error(t, err, "in_features is 4 from the first input")
	assert.Contains(t, err.Error(), "cannot be multiplied")
	assert.Equal(t, int64(4), fc.InFeatures)
}

// TestLazyLoadStateDict checks that loading a state dict materializes a
// lazy layer with the loaded shapes, and that shapes that disagree with
// the layer's settings are errors that load nothing.
func TestLazyLoadStateDict(t *testing.T) {
	src := nn.Sequential(nn.Conv2d(2, 4, 3, nn.WithGroups(2)), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4, 2))
	dst := nn.Sequential(nn.LazyConv2d(4, 3, nn.WithGroups(2)), nn.LazyBatchNorm2d(), nn.Flatten(), nn.LazyLinear(2))
	require.NoError(t, dst.LoadStateDict(src.StateDict(), true))
	assert.Equal(t, src.String(), dst.String())
	want, got := src.StateDict(), dst.StateDict()
	for k, v := range want {
		require.Equal(t, v.Shape(), got[k].Shape(), k)
		assert.True(t, torch.Equal(v, got[k]), k)
	}
	x := torch.Rand([]int64{2, 2, 3, 3})
	src.Eval()
	dst.Eval()
	assert.True(t, torch.Equal(src.Forward(x), dst.Forward(x)), "the loaded layers compute as the source")

	// A weight whose out_features is not the layer's.
	fc := nn.LazyLinear(2)
	err := fc.LoadStateDict(map[string]torch.Tensor{"weight": torch.Rand([]int64{3, 5}), "bias": torch.Rand([]int64{2})}, true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "weight of shape [3 5], want (2, in_features)")
	assert.True(t, fc.HasUninitializedParams(), "nothing was loaded")

	// A bias of another size than the weight's out_features.
	err = fc.LoadStateDict(map[string]torch.Tensor{"weight": torch.Rand([]int64{2, 5}), "bias": torch.Rand([]int64{3})}, true)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bias: shape [3] in state dict, [2] in module")
	assert.True(t, fc.HasUninitializedParams())

	// Only the bias: in_features is unknown.
	err = fc.LoadStateDict(map[string]torch.Tensor{"bias": torch.Rand([]int64{2})}, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "do not give the input size")

	// Norm tensors of different lengths.
	bn := nn.LazyBatchNorm1d()
	err = bn.LoadStateDict(map[string]torch.Tensor{"weight": torch.Rand([]int64{3}), "bias": torch.Rand([]int64{4})}, false)
	require.Error(t, err)
	assert.True(t, bn.HasUninitializedParams())

	// A non-strict load of the weight alone initializes the bias as Linear
	// does, and keeps the weight.
	w := torch.Rand([]int64{2, 5})
	require.NoError(t, fc.LoadStateDict(map[string]torch.Tensor{"weight": w}, false))
	assert.False(t, fc.HasUninitializedParams())
	assert.Equal(t, int64(5), fc.InFeatures)
	assert.True(t, torch.Equal(w, fc.Weight))
	assert.Equal(t, []int64{2}, fc.Bias.Shape())
	bound := 1 / 2.23606797749979 // 1/√in_features
	assert.LessOrEqual(t, fc.Bias.Abs().Max().Item(), bound)
}

// TestLazyFirstForwardConcurrent runs the first forward of one lazy layer
// on several goroutines: one infers, and all get the output.
func TestLazyFirstForwardConcurrent(t *testing.T) {
	fc := nn.LazyLinear(3)
	x := torch.Rand([]int64{2, 4})
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = fc.TryForward(x)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		assert.NoError(t, err)
	}
	assert.Equal(t, []int64{3, 4}, fc.Weight.Shape())
}

// TestLazyNil checks that a nil lazy-capable layer names itself.
func TestLazyNil(t *testing.T) {
	var c *nn.Conv2dModule
	_, err := c.TryForward(torch.Rand([]int64{1, 1, 2, 2}))
	require.ErrorIs(t, err, nn.ErrUninitialized)
	assert.Contains(t, err.Error(), "nn.Conv2d")
	var l *nn.LinearModule
	_, err = l.TryForward(torch.Rand([]int64{1}))
	require.ErrorIs(t, err, nn.ErrUninitialized)
	assert.Contains(t, err.Error(), "nn.Linear")
}

// TestLazyFirstForwardInScoped runs the first forward of a lazy network
// inside torch.Scoped, as a training step does: the materialized
// parameters are the network's, not temporaries of the scope, and survive
// it.
func TestLazyFirstForwardInScoped(t *testing.T) {
	net := nn.Sequential(nn.LazyConv2d(2, 3), nn.LazyBatchNorm2d(), nn.Flatten(), nn.LazyLinear(3))
	x := torch.Ones([]int64{2, 1, 4, 4})
	torch.Scoped(func() torch.Tensor {
		y := net.Forward(x)
		y.Sum().Backward()
		return torch.Tensor{}
	})
	torch.GC()
	for _, p := range net.NamedParameters() {
		require.True(t, p.Tensor.Defined(), p.Name)
		assert.NotZero(t, p.Tensor.Numel(), p.Name)
		assert.True(t, p.Tensor.Grad().Defined(), p.Name)
	}
	assert.Equal(t, "Linear(in_features=8, out_features=3, bias=True)", net.Layers[3].(*nn.LinearModule).String())
}
