package nn

import (
	"fmt"

	"github.com/gotorch/gotorch/torch"
)

// FlattenModule flattens the dimensions StartDim to EndDim into one
// (torch.nn.Flatten).
type FlattenModule struct {
	Module
	StartDim, EndDim int64
}

// Flatten returns a FlattenModule.
//
// Options: WithStartDim (1), WithEndDim (-1).
func Flatten(opts ...Option) *FlattenModule {
	var a layerArgs
	a.parse("Flatten", opts, "start_dim", "end_dim")
	m := &FlattenModule{StartDim: a.int("start_dim", 1), EndDim: a.int("end_dim", -1)}
	m.Init(m)
	return m
}

// Forward flattens x.
func (m *FlattenModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *FlattenModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return x.TryFlatten(torch.WithStartDim(m.StartDim), torch.WithEndDim(m.EndDim))
}

// ExtraRepr is "start_dim=1, end_dim=-1".
func (m *FlattenModule) ExtraRepr() string {
	return fmt.Sprintf("start_dim=%d, end_dim=%d", m.StartDim, m.EndDim)
}

// UnflattenModule splits dimension Dim into the sizes UnflattenedSize
// (torch.nn.Unflatten).
type UnflattenModule struct {
	Module
	Dim             int64
	UnflattenedSize []int64
}

// Unflatten returns an UnflattenModule.
func Unflatten(dim int64, unflattenedSize []int64) *UnflattenModule {
	m := &UnflattenModule{Dim: dim, UnflattenedSize: append([]int64(nil), unflattenedSize...)}
	m.Init(m)
	return m
}

// Forward unflattens x.
func (m *UnflattenModule) Forward(x torch.Tensor) torch.Tensor { return must(m.TryForward(x)) }

// TryForward is Forward that returns its error.
func (m *UnflattenModule) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if m == nil {
		return torch.Tensor{}, nilLayer(m)
	}
	return torch.TryUnflatten(x, m.Dim, m.UnflattenedSize)
}

// ExtraRepr is "dim=1, unflattened_size=(2, 3)".
func (m *UnflattenModule) ExtraRepr() string {
	return fmt.Sprintf("dim=%d, unflattened_size=%s", m.Dim, pyTuple(m.UnflattenedSize))
}
