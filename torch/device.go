package torch

/*
#include "cgotorch.h"
*/
import "C"

import (
	"fmt"
	"strconv"
	"strings"
)

// DeviceType is a kind of device. The values are libtorch's c10::DeviceType.
type DeviceType int8

// The device types GoTorch names. libtorch knows more; they print as numbers.
const (
	CPUDevice  DeviceType = 0
	CUDADevice DeviceType = 1
	MPSDevice  DeviceType = 13
	MetaDevice DeviceType = 14
)

var deviceTypeNames = map[DeviceType]string{
	CPUDevice: "cpu", CUDADevice: "cuda", MPSDevice: "mps", MetaDevice: "meta",
}

func (d DeviceType) String() string {
	if n, ok := deviceTypeNames[d]; ok {
		return n
	}
	return "device" + strconv.Itoa(int(d))
}

// Device is where a tensor lives. Index -1 means the current device of that
// type.
type Device struct {
	Type  DeviceType
	Index int
}

// CPU is the host.
var CPU = Device{CPUDevice, -1}

// CUDA returns the n-th CUDA device. It exists whatever libtorch was built
// with; using it without CUDA support is an error from the op that tries.
func CUDA(n int) Device { return Device{CUDADevice, n} }

// String returns PyTorch's spelling: "cpu", "cuda:0".
func (d Device) String() string {
	if d.Index < 0 {
		return d.Type.String()
	}
	return d.Type.String() + ":" + strconv.Itoa(d.Index)
}

// TryParseDevice parses "cpu", "cuda", "cuda:1", "mps" or "meta".
func TryParseDevice(s string) (Device, error) {
	name, idx, hasIdx := strings.Cut(strings.TrimSpace(s), ":")
	var dev Device
	found := false
	for t, n := range deviceTypeNames {
		if n == name {
			dev, found = Device{t, -1}, true
		}
	}
	if !found {
		return Device{}, fmt.Errorf("torch: unknown device %q (want cpu, cuda, cuda:N, mps or meta)", s)
	}
	if hasIdx {
		n, err := strconv.Atoi(idx)
		if err != nil || n < 0 {
			return Device{}, fmt.Errorf("torch: bad device index in %q", s)
		}
		if dev.Type == CPUDevice && n != 0 {
			return Device{}, fmt.Errorf("torch: CPU device index must be 0, got %q", s)
		}
		dev.Index = n
	}
	return dev, nil
}

// ParseDevice is Python's torch.device("cuda:1"): it parses "cpu",
// "cuda", "cuda:1", "mps" or "meta", and panics on anything else, as ops
// do; TryParseDevice returns the error.
func ParseDevice(s string) Device { return must1(TryParseDevice(s)) }

// CUDAIsAvailable reports whether libtorch was built with CUDA and sees a GPU.
func CUDAIsAvailable() bool { return C.gt_cuda_is_available() != 0 }

// CUDADeviceCount is the number of visible CUDA devices (0 without CUDA).
func CUDADeviceCount() int { return int(C.gt_cuda_device_count()) }
