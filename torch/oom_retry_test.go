package torch_test

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/internal/childtest"
	"github.com/gotorch/gotorch/torch"
)

// An op that runs out of memory while unreachable tensors hold it gets that
// memory back: GoTorch collects and runs the op once more. The test runs
// in a child process whose address space is capped (RLIMIT_AS) a little
// above what it uses, so that a real allocation fails and a real
// collection makes room.
func TestOpRetriesAfterOOM(t *testing.T) {
	if os.Getenv("GOTORCH_OOM_CHILD") == "1" {
		oomChild(t)
		return
	}
	if torch.Allocator == "jemalloc" {
		t.Skip("jemalloc keeps the address space of freed memory: the cap would stay reached")
	}
	out := childtest.Rerun(t, "GOTORCH_OOM_CHILD", "1", 5*time.Minute)
	assert.Contains(t, out, "retried after OOM: 1", "child:\n%s", out)
}

const oomMiB = 1 << 20

func oomChild(t *testing.T) {
	torch.SetMemoryBudget(1 << 60) // no budget to speak of: only the cap decides
	// Warm up what the op's path allocates once, then cap the address
	// space at what is mapped now plus room for one big tensor, not two.
	torch.Ones([]int64{4}).Free()
	runtime.GC()
	const big = 256 * oomMiB
	limit := vmSize(t) + big + big/2
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: ^uint64(0)}))

	func() {
		garbage := torch.Empty([]int64{big / 4}) // float32: big bytes
		_ = garbage                              // unreachable once this returns
	}()
	before := torch.OOMRetries()
	x, err := torch.TryEmpty([]int64{big / 4})
	require.NoError(t, err, "the op failed although collecting made room")
	defer x.Free()
	assert.Equal(t, int64(big), x.NBytes())
	t.Logf("retried after OOM: %d", torch.OOMRetries()-before)

	// Without garbage to collect, the second failure is the op's error.
	_, err = torch.TryEmpty([]int64{big / 4})
	require.ErrorIs(t, err, torch.ErrOutOfMemory)
}

// vmSize is the process's mapped address space (VmSize), in bytes.
func vmSize(t *testing.T) uint64 {
	f, err := os.Open("/proc/self/status")
	require.NoError(t, err)
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmSize:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmSize in /proc/self/status")
	return 0
}
