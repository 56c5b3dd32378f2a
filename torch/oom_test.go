package torch_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// 256 TiB of float32: beyond x86-64's 128 TiB of user address space, so no
// allocator can map it. (16 TiB was refused by glibc's malloc under
// Linux's overcommit heuristic, but jemalloc reserved it.)
var hugeShape = []int64{1 << 46}

func TestCPUOutOfMemoryIsTyped(t *testing.T) {
	_, err := torch.TryEmpty(hugeShape)
	require.Error(t, err)
	assert.ErrorIs(t, err, torch.ErrOutOfMemory)
	var oom *torch.OutOfMemoryError
	require.True(t, errors.As(err, &oom))
	assert.Equal(t, torch.CPU, oom.Device)
	assert.Equal(t, int64(4)<<46, oom.Requested)
	var te *torch.Error
	require.True(t, errors.As(err, &te))
	assert.Equal(t, "empty", te.Op)
	// Other errors are not out-of-memory ones.
	_, err = torch.Ones([]int64{3}).TryAdd(torch.Ones([]int64{4}))
	assert.NotErrorIs(t, err, torch.ErrOutOfMemory)
}

func TestRetryOnOOM(t *testing.T) {
	calls := 0
	err := torch.RetryOnOOM(func() error {
		calls++
		if calls == 1 {
			_, err := torch.TryEmpty(hugeShape)
			return err
		}
		return nil
	})
	assert.NoError(t, err)
	assert.Equal(t, 2, calls)

	// A panic from an op's panicking form is retried too, once.
	calls = 0
	err = torch.RetryOnOOM(func() error {
		calls++
		torch.Empty(hugeShape)
		return nil
	})
	assert.ErrorIs(t, err, torch.ErrOutOfMemory)
	assert.Equal(t, 2, calls)

	// Other errors are returned at once, other panics go on.
	calls = 0
	other := errors.New("other")
	assert.Equal(t, other, torch.RetryOnOOM(func() error { calls++; return other }))
	assert.Equal(t, 1, calls)
	assert.Panics(t, func() { _ = torch.RetryOnOOM(func() error { panic("boom") }) })
}
