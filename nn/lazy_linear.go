package nn

import (
	"fmt"

	"github.com/gotorch/gotorch/torch"
)

// LazyLinear returns a Linear layer whose in_features the first forward
// infers from its input's last dimension (torch.nn.LazyLinear); see the
// package's notes on lazy layers in lazy.go. Until then it prints as
// LazyLinear(in_features=0, out_features=…, bias=True) and its weight and
// bias are placeholders.
//
// Options: WithBias (true), WithDtype, WithDevice.
func LazyLinear(outFeatures int64, opts ...Option) *LinearModule {
	var a layerArgs
	a.parse("LazyLinear", opts, "bias", "dtype", "device")
	if outFeatures < 0 {
		layerPanic("LazyLinear", "out_features must be non-negative, got %d", outFeatures)
	}
	l := &LinearModule{OutFeatures: outFeatures, Weight: a.placeholder(true), lazyInit: newLazy()}
	if a.bool("bias", true) {
		l.Bias = a.placeholder(true)
	}
	l.Init(l)
	return l
}

func (l *LinearModule) reprName() string {
	if l == nil {
		return "Linear"
	}
	return lazyName(l.lazyInit, "Linear")
}

// infer materializes a lazy Linear for x (*, in_features).
func (l *LinearModule) infer(x torch.Tensor) error {
	shape, err := tensorShape(x)
	if err != nil {
		return err
	}
	if len(shape) == 0 {
		return layerError("LazyLinear", "expected input of shape (*, in_features), got a 0-D tensor")
	}
	return l.materialize(shape[len(shape)-1], true)
}

func (l *LinearModule) materialize(in int64, reset bool) error {
	if err := materializeWeightBias(l.Weight, l.Bias, l.lazyShapes(in)); err != nil {
		return err
	}
	l.InFeatures = in
	if reset && in != 0 { // PyTorch's lazy reset_parameters skips in_features 0
		l.ResetParameters()
	}
	return nil
}

func (l *LinearModule) lazyTensors() map[string]torch.Tensor {
	return lazyTensorMap("weight", l.Weight, "bias", l.Bias)
}

// lazySize is in_features, from the weight (out_features, in_features).
func (l *LinearModule) lazySize(shapes map[string][]int64) (int64, bool, error) {
	w, ok := shapes["weight"]
	if !ok {
		return 0, false, nil
	}
	if len(w) != 2 || w[0] != l.OutFeatures {
		return 0, false, fmt.Errorf("weight of shape %v, want (%d, in_features)", w, l.OutFeatures)
	}
	return w[1], true, nil
}

func (l *LinearModule) lazyShapes(in int64) map[string][]int64 {
	return map[string][]int64{"weight": {l.OutFeatures, in}, "bias": {l.OutFeatures}}
}

func (l *LinearModule) materializeAt(in int64, reset bool) error {
	return l.lazyInit.run(func() error { return l.materialize(in, reset) })
}
