package torch

/*
#include "cgotorch.h"
*/
import "C"

import (
	"os"
	"runtime"
	"strconv"
)

// LibtorchVersion is the version of the libtorch GoTorch was built with.
func LibtorchVersion() string { return C.GoString(C.gt_version()) }

// GetNumThreads is the number of threads libtorch uses inside one op.
func GetNumThreads() int { return int(C.gt_get_num_threads()) }

// SetNumThreads sets the number of threads libtorch uses inside one op.
func SetNumThreads(n int) {
	must(checkThreads("set_num_threads", n))
	must(cError("set_num_threads", C.gt_set_num_threads(C.int(n))))
}

// MaxNumThreads bounds the thread counts that SetNumThreads and
// SetThreadNumThreads accept. OpenMP starts that many threads at the next
// parallel op: a million of them never finished starting, and a count past
// 2^31 would wrap in C's int (1<<32+1 became 1).
const MaxNumThreads = 4096

func checkThreads(op string, n int) error {
	if n < 1 {
		return newError(op, nil, "number of threads must be positive, got %d", n)
	}
	if n > MaxNumThreads {
		return newError(op, nil, "number of threads %d is more than MaxNumThreads (%d)", n, MaxNumThreads)
	}
	return nil
}

// SetThreadNumThreads sets the number of threads libtorch uses inside the
// ops that run on the calling OS thread, leaving GetNumThreads' setting and
// other threads as they are; GetNumThreads, called on this thread, then
// reports n. It panics where TrySetThreadNumThreads returns an error.
//
// It is meant for a goroutine locked to its thread (runtime.LockOSThread)
// that runs ops beside a training loop, such as a data-loader worker (the
// data package's workers do it): with 1, as PyTorch's DataLoader workers
// run, its ops start no OpenMP team of their own, and a team the thread
// started before is ended. libgomp keeps a team of
// workers for every thread that starts a parallel op, and once there are
// more of them than CPUs they sleep between ops, so a second team slows
// every parallel op of the training loop (BenchmarkOpenMPTeams,
// docs/memory.md).
//
// The setting stays with the OS thread. Let the goroutine exit locked, so
// that the thread ends with it, or set the thread back (GetNumThreads, read
// before) before unlocking: an unlocked thread returns to Go's pool, and
// other goroutines' ops that land on it would run on its setting.
func SetThreadNumThreads(n int) { must(TrySetThreadNumThreads(n)) }

// TrySetThreadNumThreads is SetThreadNumThreads returning its error: n
// below 1, or a libtorch built without OpenMP.
func TrySetThreadNumThreads(n int) error {
	if err := checkThreads("set_thread_num_threads", n); err != nil {
		return err
	}
	return cError("set_thread_num_threads", C.gt_set_thread_num_threads(C.int(n)))
}

// ManualSeed seeds libtorch's default random generator (torch.manual_seed).
func ManualSeed(seed uint64) { must(cError("manual_seed", C.gt_manual_seed(C.uint64_t(seed)))) }

// defaultThreads is the intra-op thread count set at start: OMP_NUM_THREADS
// or GOTORCH_NUM_THREADS when set, otherwise every available core.
func defaultThreads() int {
	for _, v := range []string{"GOTORCH_NUM_THREADS", "OMP_NUM_THREADS"} {
		if n, err := strconv.Atoi(os.Getenv(v)); err == nil && n > 0 {
			return n
		}
	}
	return runtime.NumCPU()
}

func init() {
	if n := defaultThreads(); n != GetNumThreads() {
		SetNumThreads(n)
	}
}
