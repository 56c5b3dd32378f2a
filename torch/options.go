package torch

/*
#include "cgotorch.h"
*/
import "C"

// Option is an optional (keyword) argument of an op, named after PyTorch's
// keyword: torch.Zeros([]int64{2, 3}, torch.WithDtype(torch.Float64)) is
// torch.zeros(2, 3, dtype=torch.float64). An op given an option it does not
// take fails with an error naming the op and the option.
type Option struct {
	key  optKey
	i    int64
	f    float64
	b    bool
	ints []int64
	t    Tensor
	s    Scalar
	str  string
}

type optKey uint16

const (
	optNone optKey = iota
	optDtype
	optDevice
	optRequiresGrad
	numHandOpts
)

var handOptNames = [numHandOpts]string{"", "dtype", "device", "requires_grad"}

// WithDtype sets the dtype of the result (PyTorch's dtype=).
func WithDtype(d DType) Option { return Option{key: optDtype, i: int64(d)} }

// WithDevice sets the device of the result (PyTorch's device=).
func WithDevice(d Device) Option {
	return Option{key: optDevice, i: int64(d.Type), f: float64(d.Index)}
}

// WithRequiresGrad makes the result require gradients (requires_grad=).
func WithRequiresGrad(on bool) Option { return Option{key: optRequiresGrad, b: on} }

func (o Option) name() string { return optName(o.key) }

func (o Option) dtype() DType   { return DType(o.i) }
func (o Option) device() Device { return Device{DeviceType(o.i), int(o.f)} }

// tensorOptions collects the dtype, device and requires_grad options of a
// factory; any other option is an error.
type tensorOptions struct {
	dtype        DType
	dev          Device
	hasDev       bool
	requiresGrad bool
}

func parseTensorOptions(op string, opts []Option) (tensorOptions, error) {
	to := tensorOptions{dtype: dtypeUnset}
	for _, o := range opts {
		switch o.key {
		case optDtype:
			if !o.dtype().valid() {
				return to, newError(op, nil, "invalid dtype %d", o.i)
			}
			to.dtype = o.dtype()
		case optDevice:
			to.dev, to.hasDev = o.device(), true
		case optRequiresGrad:
			to.requiresGrad = o.b
		default:
			return to, badOption(op, o)
		}
	}
	return to, nil
}

func (to tensorOptions) c() (dtype, devType, devIndex, rg C.int32_t) {
	dtype, devType, devIndex = C.int32_t(to.dtype), -1, -1
	if to.hasDev {
		devType, devIndex = C.int32_t(to.dev.Type), C.int32_t(to.dev.Index)
	}
	if to.requiresGrad {
		rg = 1
	}
	return
}

func badOption(op string, o Option) error {
	return newError(op, nil, "unexpected option %s", o.name())
}

func optName(k optKey) string {
	if int(k) < len(handOptNames) {
		return handOptNames[k]
	}
	return "option" + string(rune('0'+k%10))
}
