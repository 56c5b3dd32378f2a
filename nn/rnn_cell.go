package nn

import (
	"fmt"
	"math"

	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// RNNCellSettings are the settings of RNNCell, LSTMCell and GRUCell.
type RNNCellSettings struct {
	InputSize, HiddenSize int64
	Bias                  bool // bias_ih and bias_hh (WithBias, default true)
}

// RNNCellModule is one step of an Elman RNN with tanh or ReLU
// (torch.nn.RNNCell): h' = act(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh).
type RNNCellModule struct {
	Module
	WeightIh torch.Tensor // (hidden_size, input_size)
	WeightHh torch.Tensor // (hidden_size, hidden_size)
	BiasIh   torch.Tensor // (hidden_size); undefined with WithBias(false)
	BiasHh   torch.Tensor // (hidden_size); undefined with WithBias(false)
	RNNCellSettings
	Nonlinearity string // "tanh" or "relu" (WithNonlinearity, default "tanh")
}

// LSTMCellModule is one step of an LSTM (torch.nn.LSTMCell). Its weights
// stack the input, forget, cell and output gates: (4*hidden_size, *).
type LSTMCellModule struct {
	Module
	WeightIh, WeightHh torch.Tensor
	BiasIh, BiasHh     torch.Tensor
	RNNCellSettings
}

// GRUCellModule is one step of a GRU (torch.nn.GRUCell). Its weights stack
// the reset, update and new gates: (3*hidden_size, *).
type GRUCellModule struct {
	Module
	WeightIh, WeightHh torch.Tensor
	BiasIh, BiasHh     torch.Tensor
	RNNCellSettings
}

// cellWeights parses the options and makes the four weights of a cell
// with gates*hiddenSize rows, drawn from U(-1/√hiddenSize, 1/√hiddenSize)
// as PyTorch does.
func cellWeights(mode string, gates, inputSize, hiddenSize int64, opts []Option, extra ...string) (s RNNCellSettings, a layerArgs, w [4]torch.Tensor) {
	a = mustParseArgs(mode, opts, append([]string{"bias", "dtype", "device"}, extra...)...)
	s = RNNCellSettings{InputSize: inputSize, HiddenSize: hiddenSize, Bias: a.bool("bias", true)}
	if inputSize < 0 || hiddenSize <= 0 {
		panic(layerError(mode, "input_size must be non-negative and hidden_size positive, got %d and %d", inputSize, hiddenSize))
	}
	stdv := 1 / math.Sqrt(float64(hiddenSize))
	factory := a.factory()
	param := func(shape ...int64) torch.Tensor {
		return torch.Empty(shape, factory...).Uniform_(torch.WithFrom(-stdv), torch.WithTo(stdv)).SetRequiresGrad(true)
	}
	w[0], w[1] = param(gates*hiddenSize, inputSize), param(gates*hiddenSize, hiddenSize)
	if s.Bias {
		w[2], w[3] = param(gates*hiddenSize), param(gates*hiddenSize)
	}
	return s, a, w
}

// RNNCell returns an Elman RNN cell.
//
// Options: WithBias (true), WithNonlinearity ("tanh"), WithDtype,
// WithDevice.
//
//	cell := nn.RNNCell(10, 20)
//	h := cell.Forward(x)     // zero state
//	h = cell.Forward(x, h)
func RNNCell(inputSize, hiddenSize int64, opts ...Option) *RNNCellModule {
	s, a, w := cellWeights("RNNCell", 1, inputSize, hiddenSize, opts, "nonlinearity")
	m := &RNNCellModule{WeightIh: w[0], WeightHh: w[1], BiasIh: w[2], BiasHh: w[3], RNNCellSettings: s,
		Nonlinearity: a.str("nonlinearity", "tanh")}
	if m.Nonlinearity != "tanh" && m.Nonlinearity != "relu" {
		panic(layerError("RNNCell", "Unknown nonlinearity: %s", m.Nonlinearity))
	}
	m.Init(m)
	return m
}

// LSTMCell returns an LSTM cell.
//
// Options: WithBias (true), WithDtype, WithDevice.
//
//	cell := nn.LSTMCell(10, 20)
//	h, c := cell.Forward(x)       // zero state
//	h, c = cell.Forward(x, h, c)
func LSTMCell(inputSize, hiddenSize int64, opts ...Option) *LSTMCellModule {
	s, _, w := cellWeights("LSTMCell", 4, inputSize, hiddenSize, opts)
	m := &LSTMCellModule{WeightIh: w[0], WeightHh: w[1], BiasIh: w[2], BiasHh: w[3], RNNCellSettings: s}
	m.Init(m)
	return m
}

// GRUCell returns a GRU cell.
//
// Options: WithBias (true), WithDtype, WithDevice.
//
//	cell := nn.GRUCell(10, 20)
//	h := cell.Forward(x, h)
func GRUCell(inputSize, hiddenSize int64, opts ...Option) *GRUCellModule {
	s, _, w := cellWeights("GRUCell", 3, inputSize, hiddenSize, opts)
	m := &GRUCellModule{WeightIh: w[0], WeightHh: w[1], BiasIh: w[2], BiasHh: w[3], RNNCellSettings: s}
	m.Init(m)
	return m
}

// cellExtraRepr prints the settings as PyTorch's RNNCellBase.extra_repr.
func cellExtraRepr(s RNNCellSettings, nonlinearity string) string {
	r := fmt.Sprintf("%d, %d", s.InputSize, s.HiddenSize)
	if !s.Bias {
		r += ", bias=False"
	}
	if nonlinearity != "" && nonlinearity != "tanh" {
		r += ", nonlinearity=" + nonlinearity
	}
	return r
}

// ExtraRepr is "10, 20" or "10, 20, bias=False, nonlinearity=relu".
func (m *RNNCellModule) ExtraRepr() string { return cellExtraRepr(m.RNNCellSettings, m.Nonlinearity) }

// ExtraRepr is "10, 20" or "10, 20, bias=False".
func (m *LSTMCellModule) ExtraRepr() string { return cellExtraRepr(m.RNNCellSettings, "") }

// ExtraRepr is "10, 20" or "10, 20, bias=False".
func (m *GRUCellModule) ExtraRepr() string { return cellExtraRepr(m.RNNCellSettings, "") }

// cellInput checks x and the states as PyTorch's cells do and adds the
// batch dimension to unbatched input. It returns the batched input and
// states (zeros where none are given), and whether x was batched.
func cellInput(mode string, s RNNCellSettings, x torch.Tensor, hx []torch.Tensor, n int, made *temps.List) (torch.Tensor, []torch.Tensor, bool) {
	if !x.Defined() {
		panic(layerError(mode, "input is an undefined tensor"))
	}
	if x.Dim() != 1 && x.Dim() != 2 {
		panic(layerError(mode, "Expected input to be 1D or 2D, got %dD instead", x.Dim()))
	}
	if len(hx) != 0 && len(hx) != n {
		panic(layerError(mode, "Forward takes the input and optionally %d state tensors, got %d", n, len(hx)))
	}
	batched := x.Dim() == 2
	if !batched {
		x = made.Add(x.Unsqueeze(0))
	}
	if x.Size(1) != s.InputSize {
		panic(layerError(mode, "input has inconsistent input_size: got %d expected %d", x.Size(1), s.InputSize))
	}
	states := make([]torch.Tensor, n)
	for i := range states {
		if len(hx) == 0 {
			states[i] = made.Add(torch.Zeros([]int64{x.Size(0), s.HiddenSize}, torch.WithDtype(x.DType()), torch.WithDevice(x.Device())))
			continue
		}
		h := hx[i]
		if !h.Defined() {
			panic(layerError(mode, "hidden state %d is an undefined tensor", i))
		}
		if want := 1 + int64(boolInt(batched)); h.Dim() != want {
			panic(layerError(mode, "Expected hidden to be %dD for %dD input, got %dD instead", want, want, h.Dim()))
		}
		if !batched {
			h = made.Add(h.Unsqueeze(0))
		}
		if exp := []int64{x.Size(0), s.HiddenSize}; !equalShape(h.Shape(), exp) {
			panic(layerError(mode, "hidden state %d has shape %v, expected %v", i, h.Shape(), exp))
		}
		states[i] = h
	}
	return x, states, batched
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func cellBias(bih, bhh torch.Tensor) []torch.Option {
	if !bih.Defined() {
		return nil
	}
	return []torch.Option{torch.WithBIh(bih), torch.WithBHh(bhh)}
}

// unbatch drops the batch dimension of a cell's result for unbatched
// input.
func unbatch(h torch.Tensor, batched bool) torch.Tensor {
	if batched {
		return h
	}
	u := h.SqueezeDim(0)
	h.Free()
	return u
}

// Forward runs one step on x, (batch, input_size) or (input_size), from
// h, of shape (batch, hidden_size) or (hidden_size), or zeros when h is
// absent. It returns h'. It panics with a *torch.Error on bad input;
// TryForward returns it.
func (m *RNNCellModule) Forward(x torch.Tensor, h ...torch.Tensor) torch.Tensor {
	return must(m.TryForward(x, h...))
}

// TryForward is Forward that returns its error.
func (m *RNNCellModule) TryForward(x torch.Tensor, h ...torch.Tensor) (out torch.Tensor, err error) {
	if m == nil {
		return out, nilLayer(m)
	}
	err = rnnCatchError(func() {
		mustModule(m)
		var made temps.List
		xb, hs, batched := cellInput("RNNCell", m.RNNCellSettings, x, h, 1, &made)
		run := torch.RnnTanhCell
		if m.Nonlinearity == "relu" {
			run = torch.RnnReluCell
		}
		out = unbatch(run(xb, hs[0], m.WeightIh, m.WeightHh, cellBias(m.BiasIh, m.BiasHh)...), batched)
		made.Free(out)
	})
	return out, err
}

// Forward runs one step on x, (batch, input_size) or (input_size), from
// the states h and c, each (batch, hidden_size) or (hidden_size), or zeros
// when absent. It returns h' and c'. It panics with a *torch.Error on bad
// input; TryForward returns it.
func (m *LSTMCellModule) Forward(x torch.Tensor, hc ...torch.Tensor) (h, c torch.Tensor) {
	h, c, err := m.TryForward(x, hc...)
	if err != nil {
		panic(err)
	}
	return h, c
}

// TryForward is Forward that returns its error.
func (m *LSTMCellModule) TryForward(x torch.Tensor, hc ...torch.Tensor) (h, c torch.Tensor, err error) {
	if m == nil {
		return h, c, nilLayer(m)
	}
	err = rnnCatchError(func() {
		mustModule(m)
		var made temps.List
		xb, hs, batched := cellInput("LSTMCell", m.RNNCellSettings, x, hc, 2, &made)
		h, c = torch.LstmCell(xb, hs, m.WeightIh, m.WeightHh, cellBias(m.BiasIh, m.BiasHh)...)
		h, c = unbatch(h, batched), unbatch(c, batched)
		made.Free(h, c)
	})
	return h, c, err
}

// Forward runs one step on x, (batch, input_size) or (input_size), from
// h, of shape (batch, hidden_size) or (hidden_size), or zeros when h is
// absent. It returns h'. It panics with a *torch.Error on bad input;
// TryForward returns it.
func (m *GRUCellModule) Forward(x torch.Tensor, h ...torch.Tensor) torch.Tensor {
	return must(m.TryForward(x, h...))
}

// TryForward is Forward that returns its error.
func (m *GRUCellModule) TryForward(x torch.Tensor, h ...torch.Tensor) (out torch.Tensor, err error) {
	if m == nil {
		return out, nilLayer(m)
	}
	err = rnnCatchError(func() {
		mustModule(m)
		var made temps.List
		xb, hs, batched := cellInput("GRUCell", m.RNNCellSettings, x, h, 1, &made)
		out = unbatch(torch.GruCell(xb, hs[0], m.WeightIh, m.WeightHh, cellBias(m.BiasIh, m.BiasHh)...), batched)
		made.Free(out)
	})
	return out, err
}
