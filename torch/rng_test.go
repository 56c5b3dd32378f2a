package torch_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/golden"
	"github.com/gotorch/gotorch/torch"
)

// rngGolden is testdata/rng_state.json, which testdata/rng_state.py writes
// with the reference PyTorch.
type rngGolden struct {
	Size              int64     `json:"size"`
	DType             string    `json:"dtype"`
	Seed42State       string    `json:"seed42_state"`
	Seed42Rand5       []float64 `json:"seed42_rand5"`
	Seed42Randint4    []int64   `json:"seed42_randint4"`
	Seed42AfterDraws  string    `json:"seed42_after_draws_state"`
	Seed7MidState     string    `json:"seed7_mid_state"`
	Seed7NextRand4    []float64 `json:"seed7_next_rand4"`
	Seed7NextRandperm []int64   `json:"seed7_next_randperm6"`
}

func loadRNGGolden(t *testing.T) rngGolden {
	t.Helper()
	b, err := os.ReadFile("testdata/rng_state.json")
	require.NoError(t, err)
	var g rngGolden
	require.NoError(t, json.Unmarshal(b, &g))
	return g
}

func decodeState(t *testing.T, s string) []uint8 {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	require.NoError(t, err)
	return b
}

func widen32(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// The state put back makes the generator draw the same numbers again,
// uniform and normal (whose cached second value is part of the state).
func TestRNGStateRoundTrip(t *testing.T) {
	torch.ManualSeed(3)
	torch.Randn(i64s(1)) // leaves a normal value cached
	state, err := torch.GetRngState()
	require.NoError(t, err)
	assert.Equal(t, torch.Uint8, state.DType())
	assert.Equal(t, []int64{loadRNGGolden(t).Size}, state.Shape())
	saved := torch.ToSlice[uint8](state)
	draw := func() ([]float32, []float32, []int64) {
		return torch.Rand(i64s(7)).Float32s(), torch.Randn(i64s(5)).Float32s(), torch.Randperm(9).Int64s()
	}
	u1, n1, p1 := draw()
	require.NoError(t, torch.SetRngState(state))
	u2, n2, p2 := draw()
	assert.Equal(t, u1, u2)
	assert.Equal(t, n1, n2)
	assert.Equal(t, p1, p2)
	assert.Equal(t, saved, torch.ToSlice[uint8](state), "SetRngState copies the state; it does not draw from it")
	u3, _, _ := draw()
	assert.NotEqual(t, u1, u3, "the stream goes on after the restored draws")
}

// The state is PyTorch's byte for byte: after the same seed and draws,
// GoTorch's equals PyTorch's, and a state of PyTorch's, set here, draws
// what PyTorch drew next.
func TestRNGStateMatchesPyTorch(t *testing.T) {
	g := loadRNGGolden(t)
	require.Equal(t, "uint8", g.DType)
	torch.ManualSeed(42)
	s, err := torch.GetRngState()
	require.NoError(t, err)
	assert.Equal(t, decodeState(t, g.Seed42State), torch.ToSlice[uint8](s), "the state after manual_seed(42)")
	golden.AllClose(t, g.Seed42Rand5, widen32(torch.Rand(i64s(5)).Float32s()), torch.Float32, "rand(5) after manual_seed(42)")
	assert.Equal(t, g.Seed42Randint4, torch.RandintLow(0, 1000, i64s(4)).Int64s(), "randint(0, 1000, (4,))")
	s, err = torch.GetRngState()
	require.NoError(t, err)
	assert.Equal(t, decodeState(t, g.Seed42AfterDraws), torch.ToSlice[uint8](s), "the state after those draws")

	torch.ManualSeed(1) // elsewhere in the stream
	require.NoError(t, torch.SetRngState(torch.FromSlice(decodeState(t, g.Seed7MidState), g.Size)))
	golden.AllClose(t, g.Seed7NextRand4, widen32(torch.Rand(i64s(4)).Float32s()), torch.Float32, "rand(4) from PyTorch's state")
	assert.Equal(t, g.Seed7NextRandperm, torch.Randperm(6).Int64s(), "randperm(6) from PyTorch's state")
}

// A Generator's state works the same way and is the default generator's
// format: a state of one sets the other.
func TestGeneratorState(t *testing.T) {
	gen := torch.NewGenerator(42)
	s, err := gen.GetState()
	require.NoError(t, err)
	assert.Equal(t, decodeState(t, loadRNGGolden(t).Seed42State), torch.ToSlice[uint8](s), "NewGenerator(42)'s state is manual_seed(42)'s")
	p1 := torch.RandpermGenerator(20, gen).Int64s()
	require.NoError(t, gen.SetState(s))
	assert.Equal(t, p1, torch.RandpermGenerator(20, gen).Int64s(), "the generator's draws after SetState")

	// Its state moved to the default generator.
	require.NoError(t, gen.SetState(s))
	mid, err := gen.GetState()
	require.NoError(t, err)
	require.NoError(t, torch.SetRngState(mid))
	assert.Equal(t, p1, torch.Randperm(20).Int64s(), "the default generator from the generator's state")

	var zero torch.Generator
	_, err = zero.GetState()
	assert.ErrorContains(t, err, "generator")
	assert.Error(t, zero.SetState(s))
}

// A bad state is an error that says what is wrong, never a crash, and the
// generator stays as it was.
func TestSetRNGStateRefusesBadStates(t *testing.T) {
	g := loadRNGGolden(t)
	n := g.Size
	freed := torch.Zeros(i64s(n), torch.WithDtype(torch.Uint8))
	freed.Free()
	meta, err := torch.TryParseDevice("meta")
	require.NoError(t, err)
	bad := []struct {
		name  string
		state func() torch.Tensor
		want  string
		is    error
	}{
		{"undefined", func() torch.Tensor { return torch.Tensor{} }, "state", torch.ErrUndefined},
		{"freed", func() torch.Tensor { return freed }, "state", torch.ErrFreed},
		{"float32", func() torch.Tensor { return torch.Zeros(i64s(n)) }, "must be a uint8 tensor, not Float", nil},
		{"short", func() torch.Tensor { return torch.Zeros(i64s(100), torch.WithDtype(torch.Uint8)) }, "has 100 bytes", nil},
		{"long", func() torch.Tensor { return torch.Zeros(i64s(n+8), torch.WithDtype(torch.Uint8)) }, "state has 5056", nil},
		{"empty", func() torch.Tensor { return torch.Zeros(i64s(0), torch.WithDtype(torch.Uint8)) }, "has 0 bytes", nil},
		// Every other byte of a twice longer state: the right length, but
		// not laid out as one.
		{"strided", func() torch.Tensor {
			return torch.Zeros(i64s(n, 2), torch.WithDtype(torch.Uint8)).Select(1, 0)
		}, "must be contiguous", nil},
		// One byte seen n times: reading n bytes from it would overrun it.
		{"expanded", func() torch.Tensor {
			return torch.Zeros(i64s(1), torch.WithDtype(torch.Uint8)).Expand(i64s(n))
		}, "must be contiguous", nil},
		{"meta", func() torch.Tensor {
			return torch.Zeros(i64s(n), torch.WithDtype(torch.Uint8), torch.WithDevice(meta))
		}, "must be on the CPU, not meta", nil},
		// The right size, but not a generator's state: never seeded, and
		// a position in the state vector out of range.
		{"zeros", func() torch.Tensor { return torch.Zeros(i64s(n), torch.WithDtype(torch.Uint8)) }, "mt19937", nil},
		{"ones", func() torch.Tensor { return torch.Full(i64s(n), torch.S(255), torch.WithDtype(torch.Uint8)) }, "mt19937", nil},
	}
	torch.ManualSeed(11)
	before, err := torch.GetRngState()
	require.NoError(t, err)
	want := torch.Rand(i64s(6)).Float32s()
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, torch.SetRngState(before))
			err := torch.SetRngState(c.state())
			require.Error(t, err)
			assert.ErrorContains(t, err, "set_rng_state")
			assert.ErrorContains(t, err, c.want)
			if c.is != nil {
				assert.True(t, errors.Is(err, c.is), "%v is %v", err, c.is)
			}
			assert.Equal(t, want, torch.Rand(i64s(6)).Float32s(), "the generator after the refused state")

			gen := torch.NewGenerator(11)
			assert.ErrorContains(t, gen.SetState(c.state()), c.want, "Generator.SetState")
			assert.Equal(t, want, torch.RandGenerator(i64s(6), gen).Float32s(), "the generator after the refused state")
		})
	}
}

// Saving and restoring the state while other goroutines draw is safe: both
// take the generator's lock (run under -race, and in C++ the lock is what
// keeps a torn state out).
func TestRNGStateConcurrent(t *testing.T) {
	torch.ManualSeed(5)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				if i%2 == 0 {
					torch.Rand(i64s(64))
					continue
				}
				s, err := torch.GetRngState()
				if !assert.NoError(t, err) {
					return
				}
				assert.NoError(t, torch.SetRngState(s))
			}
		}(i)
	}
	wg.Wait()
}
