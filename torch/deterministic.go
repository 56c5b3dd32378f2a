package torch

/*
#include "cgotorch.h"
#include "deterministic.h"
*/
import "C"

import "fmt"

// UseDeterministicAlgorithms makes the ops that have no deterministic
// implementation fail from now on, or, with WithWarnOnly(true), warn on
// stderr and run: torch.use_deterministic_algorithms(mode, warn_only=False).
// The setting is libtorch's global one, for every thread and device. On
// the CPU every op of libtorch 1.13 is deterministic already; the ops it
// checks run on CUDA (index_add_, scatter_add_, histc, ...), and
// cuBLAS then needs CUBLAS_WORKSPACE_CONFIG as PyTorch documents. It panics
// where TryUseDeterministicAlgorithms returns an error.
func UseDeterministicAlgorithms(mode bool, opts ...Option) {
	must(TryUseDeterministicAlgorithms(mode, opts...))
}

// TryUseDeterministicAlgorithms is UseDeterministicAlgorithms returning
// its error: an option other than WithWarnOnly.
func TryUseDeterministicAlgorithms(mode bool, opts ...Option) error {
	const op = "use_deterministic_algorithms"
	warnOnly := false
	for _, o := range opts {
		if o.key != optWarnOnly {
			return badOption(op, o)
		}
		warnOnly = o.b
	}
	return cError(op, C.gt_set_deterministic_algorithms(cBool(mode), cBool(warnOnly)))
}

// AreDeterministicAlgorithmsEnabled reports whether UseDeterministicAlgorithms
// is on: torch.are_deterministic_algorithms_enabled().
func AreDeterministicAlgorithmsEnabled() bool {
	on, _ := deterministicFlags()
	return on
}

// IsDeterministicAlgorithmsWarnOnlyEnabled reports whether
// UseDeterministicAlgorithms was given WithWarnOnly(true):
// torch.is_deterministic_algorithms_warn_only_enabled().
func IsDeterministicAlgorithmsWarnOnlyEnabled() bool {
	_, warnOnly := deterministicFlags()
	return warnOnly
}

func deterministicFlags() (on, warnOnly bool) {
	var o, w C.int
	C.gt_deterministic_algorithms(&o, &w)
	return o != 0, w != 0
}

// The deterministic debug modes of Set/GetDeterministicDebugMode, as
// PyTorch numbers them.
const (
	DeterministicDebugDefault = 0 // "default": nondeterministic ops run
	DeterministicDebugWarn    = 1 // "warn": they warn
	DeterministicDebugError   = 2 // "error": they fail
)

var deterministicDebugNames = map[string]int{"default": 0, "warn": 1, "error": 2}

// SetDeterministicDebugMode sets UseDeterministicAlgorithms by a mode, an
// int (0, 1, 2) or its name ("default", "warn", "error"):
// torch.set_deterministic_debug_mode(debug_mode). "default" turns
// deterministic algorithms off, "warn" on with WithWarnOnly(true), "error"
// on. It panics where TrySetDeterministicDebugMode returns an error.
func SetDeterministicDebugMode(mode any) { must(TrySetDeterministicDebugMode(mode)) }

// TrySetDeterministicDebugMode is SetDeterministicDebugMode returning its
// error: a mode that is not one of the six, or of another type.
func TrySetDeterministicDebugMode(mode any) error {
	const op = "set_deterministic_debug_mode"
	var m int
	switch v := mode.(type) {
	case string:
		n, ok := deterministicDebugNames[v]
		if !ok {
			return newError(op, nil, "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got %q", v)
		}
		m = n
	case int, int64, int32:
		n := fmt.Sprint(v)
		switch n {
		case "0", "1", "2":
			m = int(n[0] - '0')
		default:
			return newError(op, nil, "invalid value of debug_mode, expected 0, 1, or 2, but got %s", n)
		}
	default:
		return newError(op, nil, "debug_mode must be a string or an int, but got %T", mode)
	}
	return TryUseDeterministicAlgorithms(m != DeterministicDebugDefault, WithWarnOnly(m == DeterministicDebugWarn))
}

// GetDeterministicDebugMode is the mode that SetDeterministicDebugMode
// sets, read from the flags: torch.get_deterministic_debug_mode().
func GetDeterministicDebugMode() int {
	on, warnOnly := deterministicFlags()
	switch {
	case !on:
		return DeterministicDebugDefault
	case warnOnly:
		return DeterministicDebugWarn
	}
	return DeterministicDebugError
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
