package nn

import (
	"fmt"
	"math"
	"runtime"
	"strconv"

	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// RNNSettings are the settings of RNN, LSTM and GRU, named after
// PyTorch's constructor keywords and set by the With options; their
// defaults are PyTorch's.
type RNNSettings struct {
	NumLayers     int64   // num_layers (WithNumLayers, default 1)
	Bias          bool    // bias: bias_ih_l*/bias_hh_l* weights (WithBias, default true)
	BatchFirst    bool    // batch_first: input and output are (batch, seq, feature) (WithBatchFirst)
	Dropout       float64 // dropout on the outputs of every layer but the last, in training (WithDropout, default 0)
	Bidirectional bool    // bidirectional: a second, reversed direction per layer (WithBidirectional)
	ProjSize      int64   // LSTM's proj_size: project h to this size; 0 is off (WithProjSize)
}

// LSTMModule is a multi-layer long short-term memory RNN (torch.nn.LSTM),
// running libtorch's fused at::lstm.
//
// Its weights are FlatWeights, named as in PyTorch (weight_ih_l0,
// weight_hh_l0, bias_ih_l0, bias_hh_l0, [weight_hr_l0,] then the same with
// _reverse for the backward direction, then layer 1, …), so state dicts
// load both ways.
type LSTMModule struct {
	Module
	InputSize, HiddenSize int64
	RNNSettings
	// FlatWeights are the weights in PyTorch's order (_flat_weights); they
	// are the module's parameters, and Forward passes them to at::lstm.
	FlatWeights []Named `gotorch:"name="`
}

// GRUModule is a multi-layer gated recurrent unit RNN (torch.nn.GRU),
// running libtorch's fused at::gru. Its weights are named as LSTM's.
type GRUModule struct {
	Module
	InputSize, HiddenSize int64
	RNNSettings
	// FlatWeights are the weights in PyTorch's order (_flat_weights).
	FlatWeights []Named `gotorch:"name="`
}

// RNNModule is a multi-layer Elman RNN with tanh or ReLU (torch.nn.RNN),
// running libtorch's fused at::rnn_tanh or at::rnn_relu. Its weights are
// named as LSTM's.
type RNNModule struct {
	Module
	InputSize, HiddenSize int64
	RNNSettings
	Nonlinearity string // "tanh" or "relu" (WithNonlinearity, default "tanh")
	// FlatWeights are the weights in PyTorch's order (_flat_weights).
	FlatWeights []Named `gotorch:"name="`
}

// LSTM returns an LSTM with input_size inputSize and hidden_size
// hiddenSize, its weights drawn from U(-1/√hiddenSize, 1/√hiddenSize) as
// PyTorch does. It panics on invalid settings, as PyTorch raises.
//
// Options: WithNumLayers (1), WithBias (true), WithBatchFirst (false),
// WithDropout (0), WithBidirectional (false), WithProjSize (0), WithDtype,
// WithDevice.
//
//	lstm := nn.LSTM(10, 20, nn.WithNumLayers(2), nn.WithBatchFirst(true))
//	out, hn, cn := lstm.Forward(x)          // zero initial state
//	out, hn, cn = lstm.Forward(x, h0, c0)   // given initial state
func LSTM(inputSize, hiddenSize int64, opts ...Option) *LSTMModule {
	o, a := rnnSetup("LSTM", inputSize, hiddenSize, opts)
	m := &LSTMModule{InputSize: inputSize, HiddenSize: hiddenSize, RNNSettings: o}
	m.FlatWeights = rnnWeights(4, inputSize, hiddenSize, o, a)
	m.Init(m)
	return m
}

// GRU returns a GRU with input_size inputSize and hidden_size hiddenSize,
// its weights drawn from U(-1/√hiddenSize, 1/√hiddenSize) as PyTorch does.
// It panics on invalid settings.
//
// Options: WithNumLayers (1), WithBias (true), WithBatchFirst (false),
// WithDropout (0), WithBidirectional (false), WithDtype, WithDevice.
//
//	gru := nn.GRU(10, 20)
//	out, hn := gru.Forward(x)      // zero initial state
//	out, hn = gru.Forward(x, h0)   // given initial state
func GRU(inputSize, hiddenSize int64, opts ...Option) *GRUModule {
	o, a := rnnSetup("GRU", inputSize, hiddenSize, opts)
	m := &GRUModule{InputSize: inputSize, HiddenSize: hiddenSize, RNNSettings: o}
	m.FlatWeights = rnnWeights(3, inputSize, hiddenSize, o, a)
	m.Init(m)
	return m
}

// RNN returns an Elman RNN with input_size inputSize and hidden_size
// hiddenSize, its weights drawn from U(-1/√hiddenSize, 1/√hiddenSize) as
// PyTorch does. It panics on invalid settings.
//
// Options: WithNonlinearity ("tanh"), WithNumLayers (1), WithBias (true),
// WithBatchFirst (false), WithDropout (0), WithBidirectional (false),
// WithDtype, WithDevice.
//
//	rnn := nn.RNN(10, 20, nn.WithNonlinearity("relu"))
//	out, hn := rnn.Forward(x)
func RNN(inputSize, hiddenSize int64, opts ...Option) *RNNModule {
	o, a := rnnSetup("RNN", inputSize, hiddenSize, opts)
	m := &RNNModule{InputSize: inputSize, HiddenSize: hiddenSize, RNNSettings: o, Nonlinearity: a.str("nonlinearity", "tanh")}
	if m.Nonlinearity != "tanh" && m.Nonlinearity != "relu" {
		panic(layerError("RNN", "Unknown nonlinearity '%s'. Select from 'tanh' or 'relu'.", m.Nonlinearity))
	}
	m.FlatWeights = rnnWeights(1, inputSize, hiddenSize, o, a)
	m.Init(m)
	return m
}

// rnnSetup parses and checks the settings, panicking as PyTorch raises.
func rnnSetup(mode string, inputSize, hiddenSize int64, opts []Option) (RNNSettings, layerArgs) {
	allowed := []string{"num_layers", "bias", "batch_first", "dropout", "bidirectional", "proj_size", "dtype", "device"}
	if mode == "RNN" {
		allowed = append(allowed, "nonlinearity")
	}
	a := mustParseArgs(mode, opts, allowed...)
	o := RNNSettings{
		NumLayers:     a.int("num_layers", 1),
		Bias:          a.bool("bias", true),
		BatchFirst:    a.bool("batch_first", false),
		Dropout:       a.float("dropout", 0),
		Bidirectional: a.bool("bidirectional", false),
		ProjSize:      a.int("proj_size", 0),
	}
	switch {
	case inputSize < 0:
		panic(layerError(mode, "input_size must be non-negative, got %d", inputSize))
	case hiddenSize <= 0:
		panic(layerError(mode, "hidden_size must be greater than zero, got %d", hiddenSize))
	case o.NumLayers <= 0:
		panic(layerError(mode, "num_layers must be greater than zero, got %d", o.NumLayers))
	case !(o.Dropout >= 0 && o.Dropout <= 1):
		panic(layerError(mode, "dropout should be a number in range [0, 1] representing the probability of an element being zeroed, got %v", o.Dropout))
	case o.ProjSize < 0:
		panic(layerError(mode, "proj_size should be a positive integer or zero to disable projections"))
	case o.ProjSize > 0 && mode != "LSTM":
		panic(layerError(mode, "proj_size argument is only supported for LSTM, not RNN or GRU"))
	case o.ProjSize >= hiddenSize:
		panic(layerError(mode, "proj_size has to be smaller than hidden_size"))
	}
	return o, a
}

// rnnWeights creates the flat weights of an RNN with gates*hiddenSize
// gate rows, initialized from U(-1/√hiddenSize, 1/√hiddenSize).
func rnnWeights(gates, inputSize, hiddenSize int64, o RNNSettings, a layerArgs) []Named {
	dirs := int64(1)
	if o.Bidirectional {
		dirs = 2
	}
	realHidden := hiddenSize
	if o.ProjSize > 0 {
		realHidden = o.ProjSize
	}
	stdv := 1 / math.Sqrt(float64(hiddenSize))
	factory := a.factory()
	param := func(shape ...int64) torch.Tensor {
		return torch.Empty(shape, factory...).Uniform_(torch.WithFrom(-stdv), torch.WithTo(stdv)).SetRequiresGrad(true)
	}
	gate := gates * hiddenSize
	var ws []Named
	for layer := int64(0); layer < o.NumLayers; layer++ {
		for dir := int64(0); dir < dirs; dir++ {
			in := inputSize
			if layer > 0 {
				in = realHidden * dirs
			}
			sfx := strconv.FormatInt(layer, 10)
			if dir == 1 {
				sfx += "_reverse"
			}
			ws = append(ws, Named{"weight_ih_l" + sfx, param(gate, in)}, Named{"weight_hh_l" + sfx, param(gate, realHidden)})
			if o.Bias {
				ws = append(ws, Named{"bias_ih_l" + sfx, param(gate)}, Named{"bias_hh_l" + sfx, param(gate)})
			}
			if o.ProjSize > 0 {
				ws = append(ws, Named{"weight_hr_l" + sfx, param(o.ProjSize, hiddenSize)})
			}
		}
	}
	return ws
}

// rnnExtraRepr prints the settings as PyTorch's RNNBase.extra_repr.
func rnnExtraRepr(inputSize, hiddenSize int64, o RNNSettings) string {
	s := fmt.Sprintf("%d, %d", inputSize, hiddenSize)
	if o.ProjSize != 0 {
		s += fmt.Sprintf(", proj_size=%d", o.ProjSize)
	}
	if o.NumLayers != 1 {
		s += fmt.Sprintf(", num_layers=%d", o.NumLayers)
	}
	if !o.Bias {
		s += ", bias=False"
	}
	if o.BatchFirst {
		s += ", batch_first=True"
	}
	if o.Dropout != 0 {
		s += ", dropout=" + pyFloat(o.Dropout)
	}
	if o.Bidirectional {
		s += ", bidirectional=True"
	}
	return s // PyTorch's RNN does not print its nonlinearity
}

// ExtraRepr prints the settings as PyTorch does: "10, 20, num_layers=2".
func (m *LSTMModule) ExtraRepr() string {
	return rnnExtraRepr(m.InputSize, m.HiddenSize, m.RNNSettings)
}

// ExtraRepr prints the settings as PyTorch does: "10, 20, num_layers=2".
func (m *GRUModule) ExtraRepr() string { return rnnExtraRepr(m.InputSize, m.HiddenSize, m.RNNSettings) }

// ExtraRepr prints the settings as PyTorch does: "10, 20, num_layers=2"
// (PyTorch prints no nonlinearity).
func (m *RNNModule) ExtraRepr() string {
	return rnnExtraRepr(m.InputSize, m.HiddenSize, m.RNNSettings)
}

// Param returns the weight named name (weight_ih_l0, bias_hh_l1_reverse,
// …), or an undefined tensor if there is none.
func (m *RNNModule) Param(name string) torch.Tensor { return rnnFindNamed(m.FlatWeights, name) }

// Param returns the weight named name (weight_ih_l0, bias_hh_l1_reverse,
// …), or an undefined tensor if there is none.
func (m *LSTMModule) Param(name string) torch.Tensor { return rnnFindNamed(m.FlatWeights, name) }

// Param returns the weight named name (weight_ih_l0, bias_hh_l1_reverse,
// …), or an undefined tensor if there is none.
func (m *GRUModule) Param(name string) torch.Tensor { return rnnFindNamed(m.FlatWeights, name) }

func rnnFindNamed(ns []Named, name string) torch.Tensor {
	for _, n := range ns {
		if n.Name == name {
			return n.Tensor
		}
	}
	return torch.Tensor{}
}

// Forward runs the LSTM over x, of shape (seq, batch, input_size), or
// (batch, seq, input_size) with BatchFirst, or (seq, input_size)
// unbatched. hx is empty (zero initial state) or h0 and c0, of shapes
// (num_layers*directions, batch, proj_size or hidden_size) and
// (num_layers*directions, batch, hidden_size), without the batch dimension
// for unbatched input. It returns the output of the last layer for every
// step and the final hidden and cell states h_n and c_n. It panics with
// an error on bad input; TryForward returns it.
func (m *LSTMModule) Forward(x torch.Tensor, hx ...torch.Tensor) (out, hn, cn torch.Tensor) {
	mustModule(m)
	if len(hx) != 0 && len(hx) != 2 {
		panic(fmt.Errorf("nn.LSTM: Forward takes the input and optionally (h0, c0), got %d state tensors", len(hx)))
	}
	realHidden := m.HiddenSize
	if m.ProjSize > 0 {
		realHidden = m.ProjSize
	}
	r := rnnPrepare("LSTM", x, hx, m.InputSize, []int64{realHidden, m.HiddenSize}, m.RNNSettings, []string{"hx", "cx"})
	out, hn, cn = torch.Lstm(r.x, r.hx, rnnFlat("LSTM", m.FlatWeights), m.Bias, m.NumLayers, m.Dropout,
		m.IsTraining(), m.Bidirectional, m.BatchFirst)
	if !r.batched {
		o, h, c := out, hn, cn
		out, hn, cn = o.SqueezeDim(r.batchDim), h.SqueezeDim(1), c.SqueezeDim(1)
		o.Free()
		h.Free()
		c.Free()
	}
	r.free(x, hx)
	return out, hn, cn
}

// TryForward is Forward that returns its error: a *torch.Error from
// libtorch, or an error naming the bad shape or argument.
func (m *LSTMModule) TryForward(x torch.Tensor, hx ...torch.Tensor) (out, hn, cn torch.Tensor, err error) {
	err = rnnCatchError(func() { out, hn, cn = m.Forward(x, hx...) })
	return
}

// Forward runs the GRU over x, of shape (seq, batch, input_size), or
// (batch, seq, input_size) with BatchFirst, or (seq, input_size)
// unbatched. h0 is absent (zero initial state) or of shape
// (num_layers*directions, batch, hidden_size), without the batch dimension
// for unbatched input. It returns the output of the last layer for every
// step and the final hidden state h_n. It panics with an error on bad
// input; TryForward returns it.
func (m *GRUModule) Forward(x torch.Tensor, h0 ...torch.Tensor) (out, hn torch.Tensor) {
	mustModule(m)
	if len(h0) > 1 {
		panic(fmt.Errorf("nn.GRU: Forward takes the input and optionally h0, got %d state tensors", len(h0)))
	}
	r := rnnPrepare("GRU", x, h0, m.InputSize, []int64{m.HiddenSize}, m.RNNSettings, []string{"hx"})
	out, hn = torch.Gru(r.x, r.hx[0], rnnFlat("GRU", m.FlatWeights), m.Bias, m.NumLayers, m.Dropout,
		m.IsTraining(), m.Bidirectional, m.BatchFirst)
	if !r.batched {
		o, h := out, hn
		out, hn = o.SqueezeDim(r.batchDim), h.SqueezeDim(1)
		o.Free()
		h.Free()
	}
	r.free(x, h0)
	return out, hn
}

// TryForward is Forward that returns its error: a *torch.Error from
// libtorch, or an error naming the bad shape or argument.
func (m *GRUModule) TryForward(x torch.Tensor, h0 ...torch.Tensor) (out, hn torch.Tensor, err error) {
	err = rnnCatchError(func() { out, hn = m.Forward(x, h0...) })
	return
}

// Forward runs the RNN over x, of shape (seq, batch, input_size), or
// (batch, seq, input_size) with BatchFirst, or (seq, input_size)
// unbatched. h0 is absent (zero initial state) or of shape
// (num_layers*directions, batch, hidden_size), without the batch dimension
// for unbatched input. It returns the output of the last layer for every
// step and the final hidden state h_n. It panics with an error on bad
// input; TryForward returns it.
func (m *RNNModule) Forward(x torch.Tensor, h0 ...torch.Tensor) (out, hn torch.Tensor) {
	mustModule(m)
	if len(h0) > 1 {
		panic(fmt.Errorf("nn.RNN: Forward takes the input and optionally h0, got %d state tensors", len(h0)))
	}
	r := rnnPrepare("RNN", x, h0, m.InputSize, []int64{m.HiddenSize}, m.RNNSettings, []string{"hx"})
	run := torch.RnnTanh
	if m.Nonlinearity == "relu" {
		run = torch.RnnRelu
	}
	out, hn = run(r.x, r.hx[0], rnnFlat("RNN", m.FlatWeights), m.Bias, m.NumLayers, m.Dropout,
		m.IsTraining(), m.Bidirectional, m.BatchFirst)
	if !r.batched {
		o, h := out, hn
		out, hn = o.SqueezeDim(r.batchDim), h.SqueezeDim(1)
		o.Free()
		h.Free()
	}
	r.free(x, h0)
	return out, hn
}

// TryForward is Forward that returns its error: a *torch.Error from
// libtorch, or an error naming the bad shape or argument.
func (m *RNNModule) TryForward(x torch.Tensor, h0 ...torch.Tensor) (out, hn torch.Tensor, err error) {
	err = rnnCatchError(func() { out, hn = m.Forward(x, h0...) })
	return
}

type rnnInput struct {
	x        torch.Tensor
	hx       []torch.Tensor
	batched  bool
	batchDim int64
}

// free frees the tensors that rnnPrepare made, once the RNN has run: an
// unsqueezed input or state, or a zero state. x and hx are the caller's,
// which rnnPrepare may have passed on unchanged; they are kept.
func (r rnnInput) free(x torch.Tensor, hx []torch.Tensor) {
	caller := append([]torch.Tensor{x}, hx...)
	temps.Free(r.x, caller...)
	for _, h := range r.hx {
		temps.Free(h, caller...)
	}
}

// rnnPrepare checks the input and the initial states as PyTorch's
// RNNBase.forward does, adds the batch dimension to unbatched input, and
// makes zero states when none are given. sizes are the last dimensions of
// the states.
func rnnPrepare(mode string, x torch.Tensor, hx []torch.Tensor, inputSize int64, sizes []int64, o RNNSettings, names []string) rnnInput {
	if !x.Defined() {
		panic(fmt.Errorf("nn.%s: input is an undefined tensor", mode))
	}
	r := rnnInput{batched: x.Dim() == 3}
	if o.BatchFirst {
		r.batchDim = 0
	} else {
		r.batchDim = 1
	}
	switch x.Dim() {
	case 3:
		r.x = x
	case 2:
		r.x = x.Unsqueeze(r.batchDim)
	default:
		panic(fmt.Errorf("nn.%s: input must have 2 (unbatched) or 3 (batched) dimensions, got %d (shape %v)", mode, x.Dim(), x.Shape()))
	}
	if got := r.x.Size(-1); got != inputSize {
		panic(fmt.Errorf("nn.%s: input.size(-1) must be equal to input_size. Expected %d, got %d", mode, inputSize, got))
	}
	batch := r.x.Size(r.batchDim)
	dirs := int64(1)
	if o.Bidirectional {
		dirs = 2
	}
	if len(hx) == 0 {
		for _, s := range sizes {
			r.hx = append(r.hx, r.x.NewZeros([]int64{o.NumLayers * dirs, batch, s}))
		}
		return r
	}
	want := int64(3)
	if !r.batched {
		want = 2
	}
	for i, h := range hx {
		if !h.Defined() {
			panic(fmt.Errorf("nn.%s: %s is an undefined tensor", mode, names[i]))
		}
		if h.Dim() != want {
			kind := "batched 3-D"
			if !r.batched {
				kind = "unbatched 2-D"
			}
			panic(fmt.Errorf("nn.%s: for %s input, %s should also be %d-D but got %d-D", mode, kind, names[i], want, h.Dim()))
		}
		if !r.batched {
			h = h.Unsqueeze(1)
		}
		exp := []int64{o.NumLayers * dirs, batch, sizes[i]}
		if !equalShape(h.Shape(), exp) {
			got := h.Shape()
			if !r.batched {
				exp, got = []int64{exp[0], exp[2]}, []int64{got[0], got[2]}
			}
			panic(fmt.Errorf("nn.%s: expected %s of size %v, got %v", mode, names[i], exp, got))
		}
		r.hx = append(r.hx, h)
	}
	return r
}

// rnnFlat returns the weight tensors, checking that none was dropped.
func rnnFlat(mode string, ws []Named) []torch.Tensor {
	out := make([]torch.Tensor, len(ws))
	for i, w := range ws {
		if !w.Tensor.Defined() {
			panic(fmt.Errorf("nn.%s: weight %s is an undefined tensor", mode, w.Name))
		}
		out[i] = w.Tensor
	}
	return out
}

// rnnCatchError runs f and returns the error it panicked with. Runtime errors
// (bugs, not bad input) and non-error panics go on panicking.
func rnnCatchError(f func()) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if _, isRuntime := r.(runtime.Error); !isRuntime {
			if e, ok := r.(error); ok {
				err = e
				return
			}
		}
		panic(r)
	}()
	f()
	return nil
}
