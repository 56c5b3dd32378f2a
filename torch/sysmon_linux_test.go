package torch_test

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// GoTorch moves the Go runtime's sysmon thread to SCHED_IDLE
// (sysmon_linux.go): while ops run, it finds the thread, and that thread
// sleeps in nanosleep as sysmon does.
func TestSysmonIdled(t *testing.T) {
	if os.Getenv("GOTORCH_SYSMON_IDLE") == "0" {
		t.Skip("GOTORCH_SYSMON_IDLE=0")
	}
	if _, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(os.Getpid()) + "/syscall"); err != nil {
		t.Skipf("threads' system calls are not readable here: %v", err)
	}
	a := torch.Randn([]int64{64, 64})
	deadline := time.Now().Add(20 * time.Second)
	for torch.SysmonIdled() == 0 && time.Now().Before(deadline) {
		torch.Mm(a, a).Free() // keep a P busy, so that sysmon polls
	}
	tid := torch.SysmonIdled()
	require.NotZero(t, tid, "sysmon's thread not found in 20 s")
	assert.NotEqual(t, os.Getpid(), tid, "the main thread is not sysmon")

	policy, _, e := syscall.RawSyscall(syscall.SYS_SCHED_GETSCHEDULER, uintptr(tid), 0, 0)
	require.Zero(t, e)
	assert.Equal(t, uintptr(5), policy&^0x40000000, "thread %d's policy is not SCHED_IDLE", tid)
	assert.NotZero(t, policy&0x40000000, "the threads sysmon creates would inherit SCHED_IDLE (no SCHED_RESET_ON_FORK)")

	// It is one of the process's threads (a SCHED_IDLE thread waiting for
	// a busy core reads as running, so its system call is not checked).
	_, err := os.Stat("/proc/self/task/" + strconv.Itoa(tid))
	assert.NoError(t, err)
}
