package nn

import (
	"fmt"

	F "github.com/gotorch/gotorch/nn/functional"
	"github.com/gotorch/gotorch/torch"
)

// The padding layers (torch.nn.ConstantPad1d to ReplicationPad3d, and
// ZeroPad2d): the generic family ConstantPadModule, and PadModule, whose
// mode (Reflect or Replicate) makes ReflectionPad and ReplicationPad. Padding is given as PyTorch takes
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

// Reflect and Replicate are the modes of PadModule, the padding family
// that pads from the input's own edges: Reflect mirrors the input at its
// edges (ReflectionPad), Replicate repeats the edges (ReplicationPad).
type (
	Reflect   struct{}
	Replicate struct{}
)

func (Reflect) padMode() (mode, family string)   { return "reflect", "ReflectionPad" }
func (Replicate) padMode() (mode, family string) { return "replicate", "ReplicationPad" }

// PadMode is the constraint of PadModule's mode.
type PadMode interface {
	Reflect | Replicate
	padMode() (mode, family string)
}

// PadModule pads the last D dimensions from the input's own values, as
// mode M says (torch.nn.ReflectionPad1d, 2d and 3d, and
// torch.nn.ReplicationPad1d, 2d and 3d).
type PadModule[M PadMode, D Dim] struct {
	Module
	Padding []int64
}

// ReflectionPadModule pads the last D dimensions with their reflection
// (torch.nn.ReflectionPad1d, 2d and 3d).
type ReflectionPadModule[D Dim] = PadModule[Reflect, D]

// ReplicationPadModule pads the last D dimensions by repeating their
// edges (torch.nn.ReplicationPad1d, 2d and 3d).
type ReplicationPadModule[D Dim] = PadModule[Replicate, D]

type (
	ReflectionPad1dModule  = PadModule[Reflect, D1]   // (N, C, W) or (C, W)
	ReflectionPad2dModule  = PadModule[Reflect, D2]   // (N, C, H, W) or (C, H, W)
	ReflectionPad3dModule  = PadModule[Reflect, D3]   // (N, C, D, H, W) or (C, D, H, W)
	ReplicationPad1dModule = PadModule[Replicate, D1] // (N, C, W) or (C, W)
	ReplicationPad2dModule = PadModule[Replicate, D2] // (N, C, H, W) or (C, H, W)
	ReplicationPad3dModule = PadModule[Replicate, D3] // (N, C, D, H, W) or (C, D, H, W)
)

func newPad[M PadMode, D Dim](p []int64) *PadModule[M, D] {
	m := &PadModule[M, D]{Padding: padding[D](p)}
	m.Init(m)
	return m
}

// ReflectionPad1d returns a ReflectionPad1dModule.
func ReflectionPad1d[P IntOrTuple](padding P) *ReflectionPad1dModule {
	return newPad[Reflect, D1](F.Ints(padding))
}

// ReflectionPad2d returns a ReflectionPad2dModule.
func ReflectionPad2d[P IntOrTuple](padding P) *ReflectionPad2dModule {
	return newPad[Reflect, D2](F.Ints(padding))
}

// ReflectionPad3d returns a ReflectionPad3dModule.
func ReflectionPad3d[P IntOrTuple](padding P) *ReflectionPad3dModule {
	return newPad[Reflect, D3](F.Ints(padding))
}

// ReplicationPad1d returns a ReplicationPad1dModule.
func ReplicationPad1d[P IntOrTuple](padding P) *ReplicationPad1dModule {
	return newPad[Replicate, D1](F.Ints(padding))
}

// ReplicationPad2d returns a ReplicationPad2dModule.
func ReplicationPad2d[P IntOrTuple](padding P) *ReplicationPad2dModule {
	return newPad[Replicate, D2](F.Ints(padding))
}

// ReplicationPad3d returns a ReplicationPad3dModule.
func ReplicationPad3d[P IntOrTuple](padding P) *ReplicationPad3dModule {
	return newPad[Replicate, D3](F.Ints(padding))
}

// Forward pads x.
func (m *PadModule[M, D]) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *PadModule[M, D]) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	var mode M
	name, _ := mode.padMode()
	return F.TryPad(x, m.Padding, F.WithMode(name))
}

func (m *PadModule[M, D]) reprName() string {
	var mode M
	_, family := mode.padMode()
	return familyName[D](family)
}

// ExtraRepr is "(1, 1)".
func (m *PadModule[M, D]) ExtraRepr() string { return pyTuple(m.Padding) }
