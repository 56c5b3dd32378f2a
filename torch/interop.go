package torch

/*
#include "cgotorch.h"
#include "interop.h"
*/
import "C"

// GetNumInteropThreads is the number of threads of libtorch's inter-op
// pool, which runs independent ops side by side (TorchScript's fork):
// torch.get_num_interop_threads(). Before the pool starts it is the size
// the pool will have: SetNumInteropThreads', or the number of cores.
func GetNumInteropThreads() int { return int(C.gt_get_num_interop_threads()) }

// SetNumInteropThreads sizes libtorch's inter-op pool:
// torch.set_num_interop_threads(n). As in PyTorch it can be set once, and
// only before the pool has started; a second call, or one after inter-op
// work began, is an error that changes nothing (PyTorch 1.13's Python
// binding aborts the process there). Intra-op threads, those of one op,
// are SetNumThreads'. It panics where TrySetNumInteropThreads returns an
// error.
func SetNumInteropThreads(n int) { must(TrySetNumInteropThreads(n)) }

// TrySetNumInteropThreads is SetNumInteropThreads returning its error: n
// below 1 or above MaxNumThreads, or a pool already sized or started.
func TrySetNumInteropThreads(n int) error {
	const op = "set_num_interop_threads"
	if err := checkThreads(op, n); err != nil {
		return err
	}
	return cError(op, C.gt_set_num_interop_threads(C.int(n)))
}

// InitNumThreads applies the intra-op thread count, SetNumThreads', to the
// calling OS thread: torch.init_num_threads(). A thread that
// SetThreadNumThreads gave its own count gets the process's back.
func InitNumThreads() { must(cError("init_num_threads", C.gt_init_num_threads())) }
