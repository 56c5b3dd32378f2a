package torch

/*
#include <stdlib.h>
#include "convcheck.h"
*/
import "C"

import (
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"unsafe"
)

// The convolution guard. Some libtorch builds compute wrong float32
// convolutions through oneDNN (mkldnn) on some CPUs, silently: Debian 13's
// libtorch 2.6 gives a wrong input gradient for a small dilated conv1d on
// AVX-512 machines, in PyTorch too (docs/testing.md, "oneDNN's wrong
// convolution gradients"). Before the first convolution of the process
// (any generated conv op, and jit.Load), GoTorch computes a few tiny
// convolutions, forward and both gradients, in float32 and in float64,
// which never takes oneDNN's path. Where they disagree, it turns oneDNN off
// for the whole process (what torch.backends.mkldnn.enabled = False does),
// says so once on stderr, and ConvCheck reports it.
//
// GOTORCH_CONV_CHECK=off skips the check (oneDNN stays as it is);
// GOTORCH_CONV_CHECK=fail makes the check see a wrong gradient, to try
// the fallback on a machine where oneDNN is right.

// ConvCheckResult is what the convolution self-check found.
type ConvCheckResult struct {
	// Ran is false where GOTORCH_CONV_CHECK=off skipped the check.
	Ran bool
	// Worst is the largest difference between float32 and float64 over
	// the cases, relative to the largest magnitude of its result, and
	// Case names that case and result ("conv1d dilated grad input").
	Worst float64
	Case  string
	// Bypassed is true where the check failed and oneDNN was turned off.
	Bypassed bool
	// Err is the check's own error (its ops failed), which leaves oneDNN
	// as it was.
	Err error
}

// convCheckTolerance bounds the relative difference of a right float32
// result: the cases' values are small integers, exact in float32, so a
// right result differs only in summation order (about 1e-7); the wrong
// gradients of libtorch 2.6 were off by more than 10%.
const convCheckTolerance = 1e-4

func (r ConvCheckResult) String() string {
	switch {
	case !r.Ran:
		return "convolution check: skipped (GOTORCH_CONV_CHECK=off)"
	case r.Err != nil:
		return "convolution check: " + r.Err.Error()
	case r.Bypassed && math.IsInf(r.Worst, 1):
		// the check counts a NaN in the result as an infinite difference
		return fmt.Sprintf("convolution check: oneDNN's float32 %s is wrong (it has NaN where float64 has numbers); oneDNN is off for this process", r.Case)
	case r.Bypassed:
		return fmt.Sprintf("convolution check: oneDNN's float32 %s is wrong (off by %.3g of its largest value); oneDNN is off for this process", r.Case, r.Worst)
	}
	return fmt.Sprintf("convolution check: passed (largest difference %.2g, %s)", r.Worst, r.Case)
}

var (
	convOnce   sync.Once
	convResult ConvCheckResult
	// convStderr is where the one warning goes (tests replace it).
	convStderr io.Writer = os.Stderr
)

// convGuard runs the check once, before the first convolution. The
// generated conv ops call it; after the first time it is one atomic load.
func convGuard() { convOnce.Do(runConvCheck) }

// ConvCheck runs the convolution self-check if it has not run yet and
// returns what it found. Convolutions run it themselves; call it to learn
// the outcome (LibtorchInfo does).
func ConvCheck() ConvCheckResult {
	convGuard()
	return convResult
}

func runConvCheck() {
	mode := os.Getenv("GOTORCH_CONV_CHECK")
	if mode == "off" || mode == "0" {
		convResult = ConvCheckResult{}
		return
	}
	perturb := 0.0
	if mode == "fail" {
		perturb = 1
	}
	convResult = convCheck(perturb)
	if convResult.Bypassed {
		fmt.Fprintf(convStderr, "gotorch: libtorch %s: %s (GOTORCH_CONV_CHECK, docs/testing.md)\n", LibtorchVersion(), convResult)
	}
}

// convCheck runs the cases with perturb added to one float32 gradient and
// turns oneDNN off where the worst difference passes the tolerance.
func convCheck(perturb float64) ConvCheckResult {
	var worst C.double
	buf := (*C.char)(C.malloc(128))
	defer C.free(unsafe.Pointer(buf))
	*buf = 0
	r := ConvCheckResult{Ran: true}
	// The check's ops run without autograd recording them (it calls the
	// backward op directly) and under the caller's thread settings.
	if err := cError("conv_check", C.gt_conv_check(C.double(perturb), &worst, buf, 128)); err != nil {
		r.Err = err
		return r
	}
	r.Worst, r.Case = float64(worst), C.GoString(buf)
	if !(r.Worst <= convCheckTolerance) {
		r.Bypassed = true
		C.gt_set_mkldnn_enabled(0)
	}
	return r
}

// MKLDNNEnabled reports whether libtorch may use oneDNN (mkldnn) for CPU
// ops: torch.backends.mkldnn.enabled, and a libtorch built with it.
func MKLDNNEnabled() bool { return C.gt_mkldnn_available() != 0 && C.gt_mkldnn_enabled() != 0 }

// SetMKLDNNEnabled turns libtorch's use of oneDNN on or off for the
// process (torch.backends.mkldnn.enabled = on). Turning it on after the
// convolution check turned it off brings back the wrong results the check
// found.
func SetMKLDNNEnabled(on bool) {
	v := C.int(0)
	if on {
		v = 1
	}
	C.gt_set_mkldnn_enabled(v)
}

// Info describes the linked libtorch and what GoTorch decided about it.
type Info struct {
	Version   string          // libtorch's version, as LibtorchVersion
	MKLDNN    bool            // built with oneDNN (mkldnn)
	OneDNNOn  bool            // oneDNN in use now (MKLDNNEnabled)
	ConvCheck ConvCheckResult // the convolution self-check (runs it if it has not run)
}

// LibtorchInfo describes the linked libtorch: its version, oneDNN, and
// the outcome of the convolution self-check.
func LibtorchInfo() Info {
	c := ConvCheck()
	return Info{
		Version:   LibtorchVersion(),
		MKLDNN:    C.gt_mkldnn_available() != 0,
		OneDNNOn:  MKLDNNEnabled(),
		ConvCheck: c,
	}
}

func (i Info) String() string {
	dnn := "without oneDNN"
	if i.MKLDNN {
		dnn = "oneDNN off"
		if i.OneDNNOn {
			dnn = "oneDNN on"
		}
	}
	return fmt.Sprintf("libtorch %s, %s; %s", i.Version, dnn, i.ConvCheck)
}
