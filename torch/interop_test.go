package torch_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// TestSetNumInteropThreadsOnce checks libtorch's rule that PyTorch 1.13's
// Python binding turns into an abort: the inter-op pool is sized once. The
// first call of the process sets it (unless another test of this process
// ran inter-op work first); a second is an error that changes nothing.
func TestSetNumInteropThreadsOnce(t *testing.T) {
	for _, n := range []int{0, -2, torch.MaxNumThreads + 1} {
		err := torch.TrySetNumInteropThreads(n)
		require.Error(t, err, "n=%d", n)
		assert.Contains(t, err.Error(), "torch.set_num_interop_threads: number of threads")
	}
	first := torch.TrySetNumInteropThreads(3)
	if first == nil {
		assert.Equal(t, 3, torch.GetNumInteropThreads())
	} else {
		t.Logf("the pool was sized before this test: %v", first)
	}
	before := torch.GetNumInteropThreads()
	assert.GreaterOrEqual(t, before, 1)
	err := torch.TrySetNumInteropThreads(2)
	require.Error(t, err, "a second set_num_interop_threads")
	assert.True(t, strings.HasPrefix(err.Error(), "torch.set_num_interop_threads: "), err.Error())
	assert.Contains(t, err.Error(), "cannot set number of interop threads")
	assert.Equal(t, before, torch.GetNumInteropThreads(), "the failed call changed the pool's size")
	assert.Panics(t, func() { torch.SetNumInteropThreads(4) })
}

// TestInitNumThreads checks that init_num_threads gives a thread whose
// intra-op count SetThreadNumThreads changed the process's count back.
func TestInitNumThreads(t *testing.T) {
	runtime.LockOSThread()
	// The thread's count changes: let it end with the test's goroutine
	// only if the count is not back (a failed assertion below).
	want := torch.GetNumThreads()
	other := 1
	if want == 1 {
		other = 2
	}
	torch.SetThreadNumThreads(other)
	require.Equal(t, other, torch.GetNumThreads(), "set_thread_num_threads on this thread")
	torch.InitNumThreads()
	if assert.Equal(t, want, torch.GetNumThreads(), "init_num_threads restores the process's count") {
		runtime.UnlockOSThread()
	}
}
