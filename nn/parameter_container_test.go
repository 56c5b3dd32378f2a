package nn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

// ParamHolderModule is modules.py's ParamHolder: a ParameterList and a
// ParameterDict in a module, drawn in the same order.
type ParamHolderModule struct {
	nn.Module
	Plist *nn.ParameterListModule
	Pdict *nn.ParameterDictModule
}

func newParamHolder() *ParamHolderModule {
	h := &ParamHolderModule{Plist: nn.ParameterList(torch.Randn([]int64{3, 4}).SetRequiresGrad(true), torch.Randn([]int64{4}))}
	shift := torch.Randn([]int64{4})
	h.Pdict = nn.ParameterDict(map[string]torch.Tensor{"shift": shift, "scale": torch.Randn([]int64{4})})
	h.Init(h)
	return h
}

func (h *ParamHolderModule) Forward(x torch.Tensor) torch.Tensor {
	return x.Matmul(h.Plist.Get(0)).Add(h.Plist.Get(1)).Mul(h.Pdict.Get("scale")).Add(h.Pdict.Get("shift"))
}

func init() {
	layerCases["parameter_list_dict"] = layerCase{build: func() nn.Moduler { return newParamHolder() },
		call: func(m nn.Moduler, i layIn) (layOut, error) {
			return layOut{m.(*ParamHolderModule).Forward(i["x"])}, nil
		}}
}

func TestParameterList(t *testing.T) {
	leaf := torch.Ones([]int64{2}).SetRequiresGrad(true)
	plain := torch.Zeros([]int64{3})
	l := nn.ParameterList(leaf, plain)
	require.Equal(t, 2, l.Len())
	assert.True(t, l.Get(0) == leaf, "a leaf that requires grad is held as it is")
	p := l.Get(-1)
	assert.False(t, p == plain, "a plain tensor becomes a new parameter")
	assert.True(t, p.RequiresGrad() && p.IsLeaf())
	assert.False(t, plain.RequiresGrad(), "the tensor given is left alone, as nn.Parameter(t) leaves t")
	// The parameter shares the tensor's data, as nn.Parameter does.
	torch.NoGrad(func() { p.FillScalar_(torch.S(5)) })
	assert.Equal(t, []float32{5, 5, 5}, plain.Float32s())

	computed := leaf.MulScalar(torch.S(2)) // not a leaf: detached
	l.Append(computed).Extend(torch.Tensor{}, torch.Ones([]int64{1}))
	assert.Equal(t, 5, l.Len())
	assert.True(t, l.Get(2).IsLeaf())
	assert.Equal(t, []string{"0", "1", "2", "4"}, names(l.NamedParameters()), "None takes an index but is not registered")
	l.Set(-2, torch.Zeros([]int64{2, 2}))
	assert.Equal(t, []int64{2, 2}, l.Get(3).Shape())
	assert.Equal(t, []string{"0", "1", "2", "3", "4"}, names(l.NamedParameters()))

	var te *torch.Error
	err := catchPanic(func() { l.Get(5) })
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "nn.ParameterList", te.Op)
	assert.Contains(t, te.Msg, "index 5 is out of range")
	assert.Error(t, catchPanic(func() { l.Get(-6) }))
	assert.Error(t, catchPanic(func() { l.Set(7, leaf) }))
	err = catchPanic(func() { l.Append(torch.FromSlice([]int64{1, 2})) })
	require.ErrorAs(t, err, &te, "an integer tensor cannot be a parameter")
	assert.Contains(t, te.Msg, "entry 5")
	assert.Equal(t, 5, l.Len(), "a failed Append adds nothing")

	var nilList *nn.ParameterListModule
	assert.Error(t, catchPanic(func() { nilList.Len() }))
	assert.Equal(t, "ParameterList()", nn.ParameterList().String())
}

func TestParameterDict(t *testing.T) {
	d := nn.ParameterDict(map[string]torch.Tensor{"b": torch.Zeros([]int64{2}), "a": torch.Ones([]int64{3})})
	assert.Equal(t, []string{"a", "b"}, d.Keys(), "a map's keys are sorted, as PyTorch sorts a plain dict's")
	d.Update(nn.Named{Name: "z", Tensor: torch.Ones([]int64{1})}, nn.Named{Name: "c", Tensor: torch.Ones([]int64{1})})
	assert.Equal(t, []string{"a", "b", "z", "c"}, d.Keys(), "Update keeps its order")
	d.Set("b", torch.Ones([]int64{4}))
	assert.Equal(t, []string{"a", "b", "z", "c"}, d.Keys(), "replacing keeps the place")
	assert.Equal(t, []int64{4}, d.Get("b").Shape())
	assert.True(t, d.Get("b").RequiresGrad())
	assert.False(t, d.Get("nope").Defined(), "a missing key is None")
	assert.True(t, d.Contains("z"))
	assert.False(t, d.Contains("nope"))
	assert.Equal(t, []string{"a", "b", "z", "c"}, names(d.NamedParameters()))
	assert.Len(t, d.Values(), 4)

	z := d.Get("z")
	assert.True(t, d.Pop("z") == z)
	assert.Equal(t, []string{"a", "b", "c"}, d.Keys())
	assert.Equal(t, 3, d.Len())

	var te *torch.Error
	require.ErrorAs(t, catchPanic(func() { d.Pop("z") }), &te)
	assert.Contains(t, te.Msg, `no key "z" (keys: a, b, c)`)
	require.ErrorAs(t, catchPanic(func() { d.Set("", torch.Ones([]int64{1})) }), &te)
	assert.Contains(t, te.Msg, `parameter name can't be empty string ""`)
	require.ErrorAs(t, catchPanic(func() { d.Set("a.b", torch.Ones([]int64{1})) }), &te)
	assert.Contains(t, te.Msg, `parameter name can't contain "."`)
	require.ErrorAs(t, catchPanic(func() { d.Set("i", torch.FromSlice([]int64{1})) }), &te)
	assert.Contains(t, te.Msg, "entry i")
	assert.Equal(t, []string{"a", "b", "c"}, d.Keys(), "failed Sets add nothing")

	d.Clear()
	assert.Equal(t, 0, d.Len())
	assert.Empty(t, d.StateDict())
	assert.Equal(t, "ParameterDict()", d.String())
}

// TestParameterContainersLoad loads a state dict into a module holding
// both, strictly, and checks that wrong keys are reported.
func TestParameterContainersLoad(t *testing.T) {
	torch.ManualSeed(3)
	src := newParamHolder()
	dst := newParamHolder()
	require.NoError(t, dst.LoadStateDict(src.StateDict(), true))
	for _, n := range src.NamedParameters() {
		assert.Equal(t, n.Tensor.Float32s(), dst.StateDict()[n.Name].Float32s(), n.Name)
	}
	sd := src.StateDict()
	sd["plist.2"] = sd["plist.1"]
	delete(sd, "pdict.scale")
	var se *nn.StateDictError
	require.ErrorAs(t, dst.LoadStateDict(sd, true), &se)
	assert.Equal(t, []string{"pdict.scale"}, se.Missing)
	assert.Equal(t, []string{"plist.2"}, se.Unexpected)
}

// catchPanic returns what f panics with, as an error, or nil.
func catchPanic(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(error)
			if !ok {
				panic(r)
			}
			err = e
		}
	}()
	f()
	return nil
}
