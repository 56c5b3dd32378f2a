package nn

import (
	"fmt"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// The padding layers, one generic family per mode (torch.nn.ConstantPad1d
// to ReplicationPad3d, and ZeroPad2d). Padding is given as PyTorch takes
// it: one number for every side, or (left, right) for the last
// dimension, then (top, bottom), then (front, back); it is kept expanded,
// as PyTorch keeps it.

// padding expands one number to the 2·D sides of a D-dimensional pad.
func padding[D Dim](p []int64) []int64 { return dims(p, 2*rankOf[D]()) }

// ConstantPadModule pads the last D dimensions with Value
// (torch.nn.ConstantPad1d, 2d and 3d).
type ConstantPadModule[D Dim] struct {
	Module
	Padding []int64
	Value   float64
}

type (
	ConstantPad1dModule = ConstantPadModule[D1] // (N, C, W) or (C, W)
	ConstantPad2dModule = ConstantPadModule[D2] // (N, C, H, W) or (C, H, W)
	ConstantPad3dModule = ConstantPadModule[D3] // (N, C, D, H, W) or (C, D, H, W)
)

func newConstantPad[D Dim](padding_ []int64, value float64) *ConstantPadModule[D] {
	m := &ConstantPadModule[D]{Padding: padding[D](padding_), Value: value}
	m.Init(m)
	return m
}

// ConstantPad1d returns a ConstantPad1dModule: ConstantPad1d(2, 3.5).
func ConstantPad1d[P IntOrTuple](padding P, value float64) *ConstantPad1dModule {
	return newConstantPad[D1](F.Ints(padding), value)
}

// ConstantPad2d returns a ConstantPad2dModule.
func ConstantPad2d[P IntOrTuple](padding P, value float64) *ConstantPad2dModule {
	return newConstantPad[D2](F.Ints(padding), value)
}

// ConstantPad3d returns a ConstantPad3dModule.
func ConstantPad3d[P IntOrTuple](padding P, value float64) *ConstantPad3dModule {
	return newConstantPad[D3](F.Ints(padding), value)
}

// Forward pads x.
func (m *ConstantPadModule[D]) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *ConstantPadModule[D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryPad(x, m.Padding, F.WithMode("constant"), F.WithValue(m.Value))
}

func (m *ConstantPadModule[D]) reprName() string { return familyName[D]("ConstantPad") }

// ExtraRepr is "padding=(1, 1), value=0.0".
func (m *ConstantPadModule[D]) ExtraRepr() string {
	return fmt.Sprintf("padding=%s, value=%s", pyTuple(m.Padding), pyFloat(m.Value))
}

// ZeroPad2dModule pads the last two dimensions with zeros
// (torch.nn.ZeroPad2d).
type ZeroPad2dModule struct {
	Module
	Padding []int64
}

// ZeroPad2d returns a ZeroPad2dModule.
func ZeroPad2d[P IntOrTuple](padding_ P) *ZeroPad2dModule {
	m := &ZeroPad2dModule{Padding: padding[D2](F.Ints(padding_))}
	m.Init(m)
	return m
}

// Forward pads x.
func (m *ZeroPad2dModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *ZeroPad2dModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryPad(x, m.Padding)
}

// ExtraRepr is "(1, 1, 1, 1)".
func (m *ZeroPad2dModule) ExtraRepr() string { return pyTuple(m.Padding) }

// ReflectionPadModule pads the last D dimensions with their reflection
// (torch.nn.ReflectionPad1d, 2d and 3d).
type ReflectionPadModule[D Dim] struct {
	Module
	Padding []int64
}

type (
	ReflectionPad1dModule = ReflectionPadModule[D1] // (N, C, W) or (C, W)
	ReflectionPad2dModule = ReflectionPadModule[D2] // (N, C, H, W) or (C, H, W)
	ReflectionPad3dModule = ReflectionPadModule[D3] // (N, C, D, H, W) or (C, D, H, W)
)

func newReflectionPad[D Dim](p []int64) *ReflectionPadModule[D] {
	m := &ReflectionPadModule[D]{Padding: padding[D](p)}
	m.Init(m)
	return m
}

// ReflectionPad1d returns a ReflectionPad1dModule.
func ReflectionPad1d[P IntOrTuple](padding P) *ReflectionPad1dModule {
	return newReflectionPad[D1](F.Ints(padding))
}

// ReflectionPad2d returns a ReflectionPad2dModule.
func ReflectionPad2d[P IntOrTuple](padding P) *ReflectionPad2dModule {
	return newReflectionPad[D2](F.Ints(padding))
}

// ReflectionPad3d returns a ReflectionPad3dModule.
func ReflectionPad3d[P IntOrTuple](padding P) *ReflectionPad3dModule {
	return newReflectionPad[D3](F.Ints(padding))
}

// Forward pads x.
func (m *ReflectionPadModule[D]) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *ReflectionPadModule[D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryPad(x, m.Padding, F.WithMode("reflect"))
}

func (m *ReflectionPadModule[D]) reprName() string { return familyName[D]("ReflectionPad") }

// ExtraRepr is "(1, 1)".
func (m *ReflectionPadModule[D]) ExtraRepr() string { return pyTuple(m.Padding) }

// ReplicationPadModule pads the last D dimensions by repeating their
// edges (torch.nn.ReplicationPad1d, 2d and 3d).
type ReplicationPadModule[D Dim] struct {
	Module
	Padding []int64
}

type (
	ReplicationPad1dModule = ReplicationPadModule[D1] // (N, C, W) or (C, W)
	ReplicationPad2dModule = ReplicationPadModule[D2] // (N, C, H, W) or (C, H, W)
	ReplicationPad3dModule = ReplicationPadModule[D3] // (N, C, D, H, W) or (C, D, H, W)
)

func newReplicationPad[D Dim](p []int64) *ReplicationPadModule[D] {
	m := &ReplicationPadModule[D]{Padding: padding[D](p)}
	m.Init(m)
	return m
}

// ReplicationPad1d returns a ReplicationPad1dModule.
func ReplicationPad1d[P IntOrTuple](padding P) *ReplicationPad1dModule {
	return newReplicationPad[D1](F.Ints(padding))
}

// ReplicationPad2d returns a ReplicationPad2dModule.
func ReplicationPad2d[P IntOrTuple](padding P) *ReplicationPad2dModule {
	return newReplicationPad[D2](F.Ints(padding))
}

// ReplicationPad3d returns a ReplicationPad3dModule.
func ReplicationPad3d[P IntOrTuple](padding P) *ReplicationPad3dModule {
	return newReplicationPad[D3](F.Ints(padding))
}

// Forward pads x.
func (m *ReplicationPadModule[D]) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *ReplicationPadModule[D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return F.TryPad(x, m.Padding, F.WithMode("replicate"))
}

func (m *ReplicationPadModule[D]) reprName() string { return familyName[D]("ReplicationPad") }

// ExtraRepr is "(1, 1)".
func (m *ReplicationPadModule[D]) ExtraRepr() string { return pyTuple(m.Padding) }
