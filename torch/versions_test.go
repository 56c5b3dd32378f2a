package torch_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// libtorchMajor is the major version of the linked libtorch.
func libtorchMajor(t *testing.T) int {
	v, err := strconv.Atoi(strings.SplitN(torch.LibtorchVersion(), ".", 2)[0])
	require.NoError(t, err, torch.LibtorchVersion())
	return v
}

// TestOpsOfOtherVersions checks the version guards of the bindings: an op
// the linked libtorch lacks returns ErrUnsupported saying which versions
// have it, and an op it has works (internal/gen/versions.go).
func TestOpsOfOtherVersions(t *testing.T) {
	old := libtorchMajor(t) < 2
	x := torch.Rand(i64s(3, 3))

	// rms_norm arrived in 2.4 (the binding knows it from 2.6.0).
	_, err := torch.TryRmsNorm(x, i64s(3))
	if old {
		require.ErrorIs(t, err, torch.ErrUnsupported)
		assert.Contains(t, err.Error(), "needs libtorch >= 2.6.0")
		assert.Contains(t, err.Error(), "rms_norm is not in this libtorch")
		assert.Panics(t, func() { torch.RmsNorm(x, i64s(3)) })
	} else {
		require.NoError(t, err)
	}

	// symeig was removed in 2.0 for linalg_eigh.
	_, _, err = torch.TrySymeig(x)
	if old {
		require.NoError(t, err)
	} else {
		require.ErrorIs(t, err, torch.ErrUnsupported)
		assert.Contains(t, err.Error(), "removed after libtorch 1.13.1")
	}

	// std.correction takes a Scalar from 2.x on and an int in 1.13: an
	// integral correction works everywhere, with the same result.
	got, err := torch.TryStdCorrection(x, torch.WithDim(0), torch.WithCorrection(1))
	require.NoError(t, err)
	assert.InDeltaSlice(t, torch.StdDim(x, i64s(0)).Float64s(), got.Float64s(), 1e-6)
	_, err = torch.TryStdCorrection(x, torch.WithCorrection(0.5))
	if old {
		require.ErrorIs(t, err, torch.ErrUnsupported, "1.13 cannot take a correction of 0.5")
		assert.Contains(t, err.Error(), "must be an integer")
	} else {
		require.NoError(t, err)
	}
}

// TestDTypesOfOtherVersions: float8 and the wide unsigned integers exist
// from libtorch 2.1 and 2.3 on; before, asking for them is ErrUnsupported.
func TestDTypesOfOtherVersions(t *testing.T) {
	old := libtorchMajor(t) < 2
	for _, d := range []torch.DType{torch.Float8E5M2, torch.Float8E4M3FN, torch.Uint16, torch.Uint32, torch.Uint64} {
		x, err := torch.TryZeros(i64s(2), torch.WithDtype(d))
		if old {
			require.ErrorIs(t, err, torch.ErrUnsupported, "%v", d)
			assert.Contains(t, err.Error(), "not in this libtorch")
			continue
		}
		require.NoError(t, err, "%v", d)
		assert.Equal(t, d, x.DType())
		assert.Equal(t, []float32{0, 0}, torch.ToSlice[float32](x))
		assert.Contains(t, x.String(), d.String()[len("torch."):])
	}
	// Go's uint16, uint32 and uint64 are their element types.
	u16, err := torch.TryFromSlice([]uint16{1, 65535})
	u64, err2 := torch.TryFromSlice([]uint64{7, 1 << 63})
	if old {
		require.ErrorIs(t, err, torch.ErrUnsupported)
		require.ErrorIs(t, err2, torch.ErrUnsupported)
	} else {
		require.NoError(t, err)
		require.NoError(t, err2)
		assert.Equal(t, torch.Uint16, u16.DType())
		assert.Equal(t, []uint16{1, 65535}, torch.ToSlice[uint16](u16))
		assert.Equal(t, []int32{1, 65535}, torch.ToSlice[int32](u16))
		assert.Equal(t, []uint64{7, 1 << 63}, torch.ToSlice[uint64](u64))
		assert.Contains(t, u16.String(), "65535")
	}
	assert.Equal(t, torch.Uint32, torch.DTypeOf[uint32]())
	assert.Equal(t, "torch.float8_e4m3fn", torch.Float8E4M3FN.String())
	assert.Equal(t, 1, torch.Float8E4M3FN.Size())
	assert.Equal(t, 8, torch.Uint64.Size())
	assert.True(t, torch.Float8E5M2.IsFloatingPoint())
}
