package torch

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// The Go runtime's sysmon thread wakes every 20 µs whenever it has just
// retaken a P, and it retakes the P of a cgo call that lasts over 10 ms:
// a BERT-base forward's matrix products do, about 35 times a forward. On a
// machine whose cores libtorch's intra-op threads fill, each wake-up
// preempts one of them while its partners wait at a barrier. A BERT-base
// forward at batch 8 × 128 on 2 cores made 4,500 context switches (C++:
// 70), 47% of them sysmon's sleeps and 38% libtorch's threads preempted by
// its wake-ups, and took 1.06× C++'s time (bench/NOTES.md, session 17).
//
// GoTorch therefore moves sysmon to the SCHED_IDLE policy: a waking
// SCHED_IDLE thread does not preempt a running one, so sysmon waits for a
// free moment on a busy core instead of taking it. Its duties (retaking Ps
// from long cgo calls, preempting long-running goroutines, forced
// collections and network polls while every P is busy) are then late by
// at most a few milliseconds while the cores compute, and on time when one
// is idle. GOTORCH_SYSMON_IDLE=0 leaves it alone.
//
// The runtime does not name its threads. sysmon is the one that sleeps in
// nanosleep (runtime.usleep) where the others wait on futexes, and the
// first thread the runtime creates after the main one; idleSysmon takes
// the thread that both say, or none.

// SysmonIdled reports the thread ID that GoTorch moved to SCHED_IDLE as
// the Go runtime's sysmon, or 0 while it has not (yet) found it.
func SysmonIdled() int { return int(sysmonTID.Load()) }

var sysmonTID atomic.Int64

const schedIdle = 5 // SCHED_IDLE

// schedResetOnFork makes the threads that sysmon creates start under
// SCHED_OTHER: a Linux thread inherits its creator's policy, and sysmon
// starts Ms itself (startm, when it retakes a P and no idle M is left),
// which would otherwise run the program's goroutines at idle priority for
// good. TestSysmonIdled checks that the flag is set.
const schedResetOnFork = 0x40000000 // SCHED_RESET_ON_FORK

func idleSysmon() {
	if os.Getenv("GOTORCH_SYSMON_IDLE") == "0" {
		return
	}
	go func() {
		// sysmon sleeps on a futex while every P is idle (a server waiting
		// for its first request): keep looking, less often, every 10 s at
		// most, until it is found or cannot be.
		wait := time.Millisecond
		for rejected := 0; rejected < 10; {
			tid, found, more := findSysmon()
			if tid != 0 {
				var param struct{ priority int32 }
				_, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedIdle|schedResetOnFork, uintptr(unsafe.Pointer(&param)))
				if e == 0 {
					sysmonTID.Store(int64(tid))
					sysmonIdle.Store(true) // ops stop yielding (yield.go)
				}
				return
			}
			if !more {
				return // /proc cannot be read
			}
			if found {
				rejected++ // a sleeper that is not the runtime's first thread
			}
			time.Sleep(wait)
			wait = min(2*wait, 10*time.Second)
		}
	}()
}

// findSysmon samples the process's threads' system calls and returns the
// thread found in nanosleep in most of 20 samples, if it is also the
// earliest thread after the main one; else 0. found reports that a thread
// slept in most samples (whether or not it was the earliest); more, that
// looking again later makes sense.
func findSysmon() (tid int, found, more bool) {
	nanosleepNr := strconv.Itoa(syscall.SYS_NANOSLEEP)
	pid := os.Getpid()
	counts := map[int]int{}
	for s := 0; s < 20; s++ {
		ids := tasks()
		if len(ids) == 0 {
			return 0, false, false // no /proc/self/task
		}
		for _, tid := range ids {
			b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/syscall")
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
				continue // the thread ended meanwhile
			}
			if err != nil {
				return 0, false, false // not readable here
			}
			if n, _, ok := bytes.Cut(b, []byte{' '}); ok && string(n) == nanosleepNr {
				counts[tid]++
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
	best, most := 0, 0
	for tid, n := range counts {
		if n > most {
			best, most = tid, n
		}
	}
	if most < 10 || best == pid {
		return 0, false, true
	}
	start := startTime(best)
	if start < 0 {
		return 0, true, true
	}
	for _, tid := range tasks() {
		if tid == pid || tid == best {
			continue
		}
		if s := startTime(tid); s >= 0 && (s < start || s == start && tid < best) {
			return 0, true, true
		}
	}
	return best, true, true
}

func tasks() []int {
	d, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil
	}
	var ids []int
	for _, e := range d {
		if id, err := strconv.Atoi(e.Name()); err == nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// startTime is field 22 of the thread's stat, in clock ticks since boot,
// or -1.
func startTime(tid int) int64 {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/stat")
	if err != nil {
		return -1
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return -1
	}
	f := bytes.Fields(b[i+1:]) // field 3 onwards
	if len(f) < 20 {
		return -1
	}
	v, err := strconv.ParseInt(string(f[19]), 10, 64)
	if err != nil {
		return -1
	}
	return v
}
