package nn

import (
	"fmt"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// The lazy convolutions: LazyConv1d, 2d, 3d and LazyConvTranspose1d, 2d,
// 3d infer in_channels from the channel dimension of their first input,
// (N, C_in, ...) or (C_in, ...); see lazy.go.

func newLazyConv[D Dim](out int64, kernel []int64, opts []Option) *ConvModule[D] {
	layer := "Lazy" + familyName[D]("Conv")
	a := convArgs(layer, opts)
	m := &ConvModule[D]{ConvSettings: newConvSettings(layer, rankOf[D](), 0, out, kernel, a), lazyInit: newLazy()}
	m.Weight = a.placeholder(true)
	if a.bool("bias", true) {
		m.Bias = a.placeholder(true)
	}
	m.Init(m)
	return m
}

// LazyConv1d returns a Conv1d whose in_channels the first forward infers
// (torch.nn.LazyConv1d); it takes Conv1d's options. Unlike PyTorch, which
// fails only at the forward, an out_channels that groups does not divide
// is an error here.
func LazyConv1d[K IntOrTuple](outChannels int64, kernelSize K, opts ...Option) *Conv1dModule {
	return newLazyConv[D1](outChannels, F.Ints(kernelSize), opts)
}

// LazyConv2d returns a Conv2d whose in_channels the first forward infers;
// see LazyConv1d.
func LazyConv2d[K IntOrTuple](outChannels int64, kernelSize K, opts ...Option) *Conv2dModule {
	return newLazyConv[D2](outChannels, F.Ints(kernelSize), opts)
}

// LazyConv3d returns a Conv3d whose in_channels the first forward infers;
// see LazyConv1d.
func LazyConv3d[K IntOrTuple](outChannels int64, kernelSize K, opts ...Option) *Conv3dModule {
	return newLazyConv[D3](outChannels, F.Ints(kernelSize), opts)
}

// infer materializes a lazy convolution for x.
func (m *ConvModule[D]) infer(x torch.Tensor) error {
	in, err := lazyChannels(m.reprName(), x, rankOf[D]())
	if err != nil {
		return err
	}
	return m.materialize(in, true)
}

func (m *ConvModule[D]) materialize(in int64, reset bool) error {
	if in%m.Groups != 0 {
		return layerError(m.reprName(), "in_channels must be divisible by groups")
	}
	shapes := m.lazyShapes(in)
	if err := materializeWeightBias(m.Weight, m.Bias, shapes); err != nil {
		return err
	}
	m.InChannels = in
	if reset && in != 0 { // PyTorch's lazy reset_parameters skips in_channels 0
		m.ResetParameters()
	}
	return nil
}

func (m *ConvModule[D]) lazyTensors() map[string]torch.Tensor {
	return lazyTensorMap("weight", m.Weight, "bias", m.Bias)
}

// lazySize is in_channels, from the weight (out_channels,
// in_channels/groups, kernel...).
func (m *ConvModule[D]) lazySize(shapes map[string][]int64) (int64, bool, error) {
	w, ok := shapes["weight"]
	if !ok {
		return 0, false, nil
	}
	want := append([]int64{m.OutChannels, -1}, m.KernelSize...)
	if !matchShape(w, want) {
		return 0, false, fmt.Errorf("weight of shape %v, want %v with in_channels/groups for -1", w, want)
	}
	return w[1] * m.Groups, true, nil
}

func (m *ConvModule[D]) lazyShapes(in int64) map[string][]int64 {
	return map[string][]int64{"weight": append([]int64{m.OutChannels, in / m.Groups}, m.KernelSize...),
		"bias": {m.OutChannels}}
}

func (m *ConvModule[D]) materializeAt(in int64, reset bool) error {
	return m.lazyInit.run(func() error { return m.materialize(in, reset) })
}

func newLazyConvTranspose[D Dim](out int64, kernel []int64, opts []Option) *ConvTransposeModule[D] {
	s, a := newConvTransposeSettings("Lazy"+familyName[D]("ConvTranspose"), rankOf[D](), 0, out, kernel, opts)
	m := &ConvTransposeModule[D]{ConvTransposeSettings: s, Weight: a.placeholder(true), lazyInit: newLazy()}
	if a.bool("bias", true) {
		m.Bias = a.placeholder(true)
	}
	m.Init(m)
	return m
}

// LazyConvTranspose1d returns a ConvTranspose1d whose in_channels the
// first forward infers (torch.nn.LazyConvTranspose1d); it takes
// ConvTranspose1d's options.
func LazyConvTranspose1d[K IntOrTuple](outChannels int64, kernelSize K, opts ...Option) *ConvTranspose1dModule {
	return newLazyConvTranspose[D1](outChannels, F.Ints(kernelSize), opts)
}

// LazyConvTranspose2d returns a ConvTranspose2d whose in_channels the
// first forward infers; see LazyConvTranspose1d.
func LazyConvTranspose2d[K IntOrTuple](outChannels int64, kernelSize K, opts ...Option) *ConvTranspose2dModule {
	return newLazyConvTranspose[D2](outChannels, F.Ints(kernelSize), opts)
}

// LazyConvTranspose3d returns a ConvTranspose3d whose in_channels the
// first forward infers; see LazyConvTranspose1d.
func LazyConvTranspose3d[K IntOrTuple](outChannels int64, kernelSize K, opts ...Option) *ConvTranspose3dModule {
	return newLazyConvTranspose[D3](outChannels, F.Ints(kernelSize), opts)
}

// infer materializes a lazy transposed convolution for x.
func (m *ConvTransposeModule[D]) infer(x torch.Tensor) error {
	in, err := lazyChannels(m.reprName(), x, rankOf[D]())
	if err != nil {
		return err
	}
	return m.materialize(in, true)
}

func (m *ConvTransposeModule[D]) materialize(in int64, reset bool) error {
	if in%m.Groups != 0 {
		return layerError(m.reprName(), "in_channels must be divisible by groups")
	}
	if err := materializeWeightBias(m.Weight, m.Bias, m.lazyShapes(in)); err != nil {
		return err
	}
	m.InChannels = in
	if reset && in != 0 { // PyTorch's lazy reset_parameters skips in_channels 0
		m.ResetParameters()
	}
	return nil
}

func (m *ConvTransposeModule[D]) lazyTensors() map[string]torch.Tensor {
	return lazyTensorMap("weight", m.Weight, "bias", m.Bias)
}

// lazySize is in_channels, from the weight (in_channels,
// out_channels/groups, kernel...).
func (m *ConvTransposeModule[D]) lazySize(shapes map[string][]int64) (int64, bool, error) {
	w, ok := shapes["weight"]
	if !ok {
		return 0, false, nil
	}
	want := append([]int64{-1, m.OutChannels / m.Groups}, m.KernelSize...)
	if !matchShape(w, want) {
		return 0, false, fmt.Errorf("weight of shape %v, want %v with in_channels for -1", w, want)
	}
	if w[0]%m.Groups != 0 {
		return 0, false, fmt.Errorf("weight of shape %v: in_channels must be divisible by groups (%d)", w, m.Groups)
	}
	return w[0], true, nil
}

func (m *ConvTransposeModule[D]) lazyShapes(in int64) map[string][]int64 {
	return map[string][]int64{"weight": append([]int64{in, m.OutChannels / m.Groups}, m.KernelSize...),
		"bias": {m.OutChannels}}
}

func (m *ConvTransposeModule[D]) materializeAt(in int64, reset bool) error {
	return m.lazyInit.run(func() error { return m.materialize(in, reset) })
}
