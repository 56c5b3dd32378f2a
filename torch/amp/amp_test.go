package amp_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn/optim"
	"github.com/gotorch/gotorch/torch"
	"github.com/gotorch/gotorch/torch/amp"
)

type golden struct {
	Autocast struct {
		A, B, W           []float32
		MMDtype           string    `json:"mm_dtype"`
		MM                []float64 `json:"mm"`
		LinearDtype       string    `json:"linear_dtype"`
		Linear            []float64 `json:"linear"`
		AddDtype          string    `json:"add_dtype"`
		InnerDtype        string    `json:"inner_dtype"`
		EnabledInside     bool      `json:"enabled_inside"`
		EnabledInDisabled bool      `json:"enabled_in_disabled"`
		EnabledAfter      bool      `json:"enabled_after"`
	}
	Scaler struct {
		InitScale      float64 `json:"init_scale"`
		GrowthInterval int     `json:"growth_interval"`
		LR             float64 `json:"lr"`
		P0             []float32
		Coefs          [][]any
		Trace          []struct {
			Stepped bool
			Scale   float64
			P       []float64
		}
	}
}

func load(t *testing.T) golden {
	b, err := os.ReadFile("testdata/golden.json")
	require.NoError(t, err)
	var g golden
	require.NoError(t, json.Unmarshal(b, &g))
	return g
}

var dtypeNames = map[string]torch.DType{"torch.float32": torch.Float32, "torch.bfloat16": torch.BFloat16}

func TestAutocastCPUBFloat16(t *testing.T) {
	g := load(t).Autocast
	a := torch.FromSlice(g.A, 2, 3)
	b := torch.FromSlice(g.B, 3, 4)
	w := torch.FromSlice(g.W, 4, 3)
	var mm, lin, add, inner torch.Tensor
	var onInside, onInner bool
	err := amp.Autocast(torch.CPU, torch.BFloat16, func() {
		mm = a.Mm(b)
		lin = torch.Linear(a, w)
		add = a.Add(a)
		onInside, _, _ = amp.IsAutocastEnabled(torch.CPU)
		require.NoError(t, amp.WithoutAutocast(torch.CPU, func() {
			inner = a.Mm(b)
			onInner, _, _ = amp.IsAutocastEnabled(torch.CPU)
		}))
	})
	require.NoError(t, err)
	assert.Equal(t, dtypeNames[g.MMDtype], mm.DType())
	assert.Equal(t, dtypeNames[g.LinearDtype], lin.DType())
	assert.Equal(t, dtypeNames[g.AddDtype], add.DType())
	assert.Equal(t, dtypeNames[g.InnerDtype], inner.DType())
	assert.Equal(t, g.EnabledInside, onInside)
	assert.Equal(t, g.EnabledInDisabled, onInner)
	on, _, err := amp.IsAutocastEnabled(torch.CPU)
	require.NoError(t, err)
	assert.Equal(t, g.EnabledAfter, on)
	// bfloat16 keeps 8 bits of mantissa: results agree to its rounding.
	assert.InDeltaSlice(t, g.MM, mm.To(torch.Float64).Float64s(), 2e-2)
	assert.InDeltaSlice(t, g.Linear, lin.To(torch.Float64).Float64s(), 2e-2)
	// Outside the region, float32 again.
	assert.Equal(t, torch.Float32, a.Mm(b).DType())
}

func TestAutocastBadInput(t *testing.T) {
	err := amp.Autocast(torch.CPU, torch.Int64, func() { t.Error("must not run") })
	assert.ErrorContains(t, err, "float16 or bfloat16")
	err = amp.Autocast(torch.Device{Type: torch.MetaDevice}, torch.BFloat16, func() { t.Error("must not run") })
	assert.ErrorIs(t, err, torch.ErrUnsupported)
	// A panic inside restores the state.
	assert.Panics(t, func() {
		_ = amp.Autocast(torch.CPU, torch.BFloat16, func() { panic("boom") })
	})
	on, dt, err := amp.IsAutocastEnabled(torch.CPU)
	require.NoError(t, err)
	assert.False(t, on)
	assert.Equal(t, torch.BFloat16, dt) // PyTorch's default CPU autocast dtype
}

func coef(v any) float32 {
	switch x := v.(type) {
	case float64:
		return float32(x)
	case string:
		if x == "inf" {
			return float32(math.Inf(1))
		}
		return float32(math.NaN())
	}
	panic(v)
}

// The GradScaler's trajectory (steps taken or skipped, scales, parameters)
// is PyTorch's on the golden sequence of gradients with infs and NaNs.
func TestGradScalerMatchesPyTorch(t *testing.T) {
	g := load(t).Scaler
	p := torch.FromSlice(g.P0).SetRequiresGrad(true)
	opt := optim.SGD([]torch.Tensor{p}, optim.WithLR(g.LR))
	s, err := amp.NewGradScaler(amp.GradScalerOptions{InitScale: g.InitScale, GrowthInterval: g.GrowthInterval})
	require.NoError(t, err)
	for k, cs := range g.Coefs {
		c := make([]float32, len(cs))
		for i, v := range cs {
			c[i] = coef(v)
		}
		opt.ZeroGrad()
		loss := p.Mul(torch.FromSlice(c)).Sum()
		scaled, err := s.ScaleLoss(loss)
		require.NoError(t, err)
		scaled.Backward()
		stepped, err := s.Step(opt)
		require.NoError(t, err)
		require.NoError(t, s.Update())
		want := g.Trace[k]
		assert.Equal(t, want.Stepped, stepped, "step %d", k)
		assert.Equal(t, want.Scale, s.Scale(), "step %d", k)
		assert.InDeltaSlice(t, want.P, p.Detach().To(torch.Float64).Float64s(), 1e-6, "step %d", k)
	}
}

func TestGradScalerMisuse(t *testing.T) {
	p := torch.Ones([]int64{2}).SetRequiresGrad(true)
	opt := optim.SGD([]torch.Tensor{p}, optim.WithLR(0.1))
	s, err := amp.NewGradScaler(amp.GradScalerOptions{})
	require.NoError(t, err)
	assert.Equal(t, 65536.0, s.Scale())
	assert.ErrorContains(t, s.Update(), "no inf checks")
	l, err := s.ScaleLoss(p.Sum())
	require.NoError(t, err)
	l.Backward()
	require.NoError(t, s.Unscale(opt))
	assert.ErrorContains(t, s.Unscale(opt), "already called")
	_, err = s.Step(opt)
	require.NoError(t, err)
	_, err = s.Step(opt)
	assert.ErrorContains(t, err, "already called")
	require.NoError(t, s.Update())
	assert.Error(t, s.SetScale(-1))
	for _, o := range []amp.GradScalerOptions{{InitScale: -1}, {GrowthFactor: 0.5}, {BackoffFactor: 2}, {GrowthInterval: -3}} {
		_, err := amp.NewGradScaler(o)
		assert.Error(t, err, "%+v", o)
	}
	// Disabled, it passes through.
	d, err := amp.NewGradScaler(amp.GradScalerOptions{Disabled: true})
	require.NoError(t, err)
	assert.Equal(t, 1.0, d.Scale())
	same, err := d.ScaleLoss(p.Sum())
	require.NoError(t, err)
	assert.Equal(t, torch.Float32, same.DType())
}
