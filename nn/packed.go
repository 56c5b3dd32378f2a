package nn

import (
	"fmt"

	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// PackedSequence is a batch of sequences of different lengths packed
// time step by time step (torch.nn.utils.rnn.PackedSequence), as
// PackPaddedSequence makes it and the recurrent layers' ForwardPacked take
// it.
type PackedSequence struct {
	// Data holds the steps of every sequence: first step 0 of each
	// sequence, longest first, then step 1 of those at least 2 long, and
	// so on; (sum of lengths, *).
	Data torch.Tensor
	// BatchSizes is the number of sequences at each step, an int64 CPU
	// tensor.
	BatchSizes torch.Tensor
	// SortedIndices is the batch order of Data (the longest sequence
	// first), and UnsortedIndices its inverse; both are undefined when the
	// batch was sorted (enforce_sorted).
	SortedIndices, UnsortedIndices torch.Tensor
}

// PackPaddedSequence packs input, a padded batch of shape (T, B, *) or
// (B, T, *) with WithBatchFirst(true), whose sequences have the lengths
// given (torch.nn.utils.rnn.pack_padded_sequence). The lengths must be
// decreasing unless WithEnforceSorted(false) is given; then the batch is
// sorted and the order kept in the result. Gradients flow back to input.
// It panics with a *torch.Error on bad input; TryPackPaddedSequence
// returns it.
//
// Options: WithBatchFirst (false), WithEnforceSorted (true).
//
//	p := nn.PackPaddedSequence(x, []int64{5, 3, 2})
//	out, hn, cn := lstm.ForwardPacked(p)
//	y, lengths := nn.PadPackedSequence(out)
func PackPaddedSequence(input torch.Tensor, lengths []int64, opts ...Option) *PackedSequence {
	p, err := TryPackPaddedSequence(input, lengths, opts...)
	if err != nil {
		panic(err)
	}
	return p
}

// TryPackPaddedSequence is PackPaddedSequence that returns its error.
func TryPackPaddedSequence(input torch.Tensor, lengths []int64, opts ...Option) (*PackedSequence, error) {
	const op = "PackPaddedSequence"
	a, err := parseArgs(op, opts, "batch_first", "enforce_sorted")
	if err != nil {
		return nil, err
	}
	batchFirst, enforceSorted := a.bool("batch_first", false), a.bool("enforce_sorted", true)
	if !input.Defined() {
		return nil, layerError(op, "input is an undefined tensor")
	}
	batchDim := int64(1)
	if batchFirst {
		batchDim = 0
	}
	if input.Dim() < 2 {
		return nil, layerError(op, "input must have at least 2 dimensions (T, B, *), got shape %v", input.Shape())
	}
	if b := input.Size(batchDim); int64(len(lengths)) != b {
		return nil, layerError(op, "expected %d lengths, one per sequence of the batch, got %d", b, len(lengths))
	}
	steps := input.Size(1 - batchDim)
	for i, l := range lengths {
		if l <= 0 || l > steps {
			return nil, layerError(op, "length %d of sequence %d is not in [1, %d]", l, i, steps)
		}
		if enforceSorted && i > 0 && l > lengths[i-1] {
			return nil, layerError(op, "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if you do not need ONNX exportability.")
		}
	}
	var p PackedSequence
	err = rnnCatchError(func() {
		lens := torch.FromSlice(append([]int64(nil), lengths...), int64(len(lengths)))
		x := input
		if !enforceSorted {
			sorted, idx := lens.Sort(torch.WithDescending(true))
			lens.Free()
			lens = sorted
			// The indices live on the input's device, as PyTorch's; the
			// lengths and batch sizes stay on the CPU.
			if dev := input.Device(); dev != torch.CPU {
				onDev := idx.To(dev)
				idx.Free()
				idx = onDev
			}
			p.SortedIndices = idx
			p.UnsortedIndices = invertPermutation(idx)
			x = torch.IndexSelect(input, batchDim, idx)
		}
		p.Data, p.BatchSizes = torch.InternalPackPaddedSequence(x, lens, batchFirst)
		lens.Free()
		temps.Free(x, input, p.Data)
	})
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// invertPermutation is PyTorch's rnn.invert_permutation.
func invertPermutation(perm torch.Tensor) torch.Tensor {
	out := torch.EmptyLike(perm)
	ar := torch.Arange(torch.S(perm.Numel()), torch.WithDtype(torch.Int64), torch.WithDevice(perm.Device()))
	r := torch.Scatter(out, 0, perm, ar)
	out.Free()
	ar.Free()
	return r
}

// PadPackedSequence unpacks p into a padded batch (T, B, *), or (B, T, *)
// with WithBatchFirst(true), in the batch order that PackPaddedSequence
// was given, and returns it with the length of each sequence
// (torch.nn.utils.rnn.pad_packed_sequence). It panics with a *torch.Error
// on bad input; TryPadPackedSequence returns it.
//
// Options: WithBatchFirst (false), WithPaddingValue (0), WithTotalLength
// (the longest sequence).
func PadPackedSequence(p *PackedSequence, opts ...Option) (torch.Tensor, []int64) {
	out, lengths, err := TryPadPackedSequence(p, opts...)
	if err != nil {
		panic(err)
	}
	return out, lengths
}

// TryPadPackedSequence is PadPackedSequence that returns its error.
func TryPadPackedSequence(p *PackedSequence, opts ...Option) (out torch.Tensor, lengths []int64, err error) {
	const op = "PadPackedSequence"
	a, err := parseArgs(op, opts, "batch_first", "padding_value", "total_length")
	if err != nil {
		return out, nil, err
	}
	if err := p.check(op); err != nil {
		return out, nil, err
	}
	batchFirst := a.bool("batch_first", false)
	maxLen := p.BatchSizes.Size(0)
	total := a.int("total_length", maxLen)
	if total < maxLen {
		return out, nil, layerError(op, "Expected total_length to be at least the length of the longest sequence in input, but got total_length=%d and max sequence length being %d", total, maxLen)
	}
	err = rnnCatchError(func() {
		padded, lens := torch.InternalPadPackedSequence(p.Data, p.BatchSizes, batchFirst, torch.S(a.float("padding_value", 0)), total)
		lengths = lens.Int64s()
		lens.Free()
		out = padded
		if p.UnsortedIndices.Defined() {
			batchDim := int64(1)
			if batchFirst {
				batchDim = 0
			}
			out = torch.IndexSelect(padded, batchDim, p.UnsortedIndices)
			padded.Free()
			sorted := lengths
			lengths = make([]int64, len(sorted))
			idx := p.UnsortedIndices.To(torch.CPU)
			for i, j := range idx.Int64s() {
				lengths[i] = sorted[j]
			}
			temps.Free(idx, p.UnsortedIndices)
		}
	})
	return out, lengths, err
}

// check says what is wrong with p, if anything.
func (p *PackedSequence) check(op string) error {
	switch {
	case p == nil:
		return layerError(op, "nil *PackedSequence")
	case !p.Data.Defined() || !p.BatchSizes.Defined():
		return layerError(op, "PackedSequence with an undefined Data or BatchSizes (use PackPaddedSequence)")
	case p.BatchSizes.Dim() != 1 || p.BatchSizes.DType() != torch.Int64:
		return layerError(op, "PackedSequence.BatchSizes must be a 1-D int64 tensor, got %v %v", p.BatchSizes.DType(), p.BatchSizes.Shape())
	case p.SortedIndices.Defined() != p.UnsortedIndices.Defined():
		return layerError(op, "PackedSequence has only one of SortedIndices and UnsortedIndices")
	}
	return nil
}

// packedRun runs a recurrent layer over p: it checks the input size,
// makes zero states or puts the given ones in p's sorted batch order, and
// after run puts the final states back in the caller's order.
func packedRun(mode string, p *PackedSequence, hx []torch.Tensor, inputSize int64, sizes []int64, o RNNSettings, names []string,
	run func(data torch.Tensor, hx []torch.Tensor) (torch.Tensor, []torch.Tensor)) (*PackedSequence, []torch.Tensor) {
	if err := p.check(mode); err != nil {
		panic(err)
	}
	if p.Data.Dim() != 2 {
		panic(fmt.Errorf("nn.%s: packed input must be 2-D (steps, input_size), got shape %v", mode, p.Data.Shape()))
	}
	if got := p.Data.Size(-1); got != inputSize {
		panic(fmt.Errorf("nn.%s: input.size(-1) must be equal to input_size. Expected %d, got %d", mode, inputSize, got))
	}
	dirs := int64(1)
	if o.Bidirectional {
		dirs = 2
	}
	batch := int64(p.BatchSizes.Int64s()[0])
	var states []torch.Tensor
	var made temps.List
	for i, s := range sizes {
		exp := []int64{o.NumLayers * dirs, batch, s}
		if len(hx) == 0 {
			states = append(states, made.Add(p.Data.NewZeros(exp)))
			continue
		}
		h := hx[i]
		if !h.Defined() {
			panic(fmt.Errorf("nn.%s: %s is an undefined tensor", mode, names[i]))
		}
		if !equalShape(h.Shape(), exp) {
			panic(fmt.Errorf("nn.%s: expected %s of size %v, got %v", mode, names[i], exp, h.Shape()))
		}
		if p.SortedIndices.Defined() {
			h = made.Add(torch.IndexSelect(h, 1, p.SortedIndices))
		}
		states = append(states, h)
	}
	data, hn := run(p.Data, states)
	made.Free(append([]torch.Tensor{data}, hn...)...)
	if p.UnsortedIndices.Defined() {
		for i, h := range hn {
			hn[i] = torch.IndexSelect(h, 1, p.UnsortedIndices)
			h.Free()
		}
	}
	return &PackedSequence{Data: data, BatchSizes: p.BatchSizes, SortedIndices: p.SortedIndices, UnsortedIndices: p.UnsortedIndices}, hn
}

// ForwardPacked runs the LSTM over packed sequences (PyTorch's forward of
// a PackedSequence). hx is empty (zero initial state) or h0 and c0 of
// shapes (num_layers*directions, batch, proj_size or hidden_size) and
// (num_layers*directions, batch, hidden_size), in the order of the batch
// given to PackPaddedSequence. It returns the packed output and the final
// states, in that order too. It panics with an error on bad input;
// TryForwardPacked returns it.
func (m *LSTMModule) ForwardPacked(p *PackedSequence, hx ...torch.Tensor) (out *PackedSequence, hn, cn torch.Tensor) {
	mustModule(m)
	if len(hx) != 0 && len(hx) != 2 {
		panic(fmt.Errorf("nn.LSTM: ForwardPacked takes the input and optionally (h0, c0), got %d state tensors", len(hx)))
	}
	realHidden := m.HiddenSize
	if m.ProjSize > 0 {
		realHidden = m.ProjSize
	}
	out, h := packedRun("LSTM", p, hx, m.InputSize, []int64{realHidden, m.HiddenSize}, m.RNNSettings, []string{"hx", "cx"},
		func(data torch.Tensor, hx []torch.Tensor) (torch.Tensor, []torch.Tensor) {
			o, h, c := torch.LstmData(data, p.BatchSizes, hx, rnnFlat("LSTM", m.FlatWeights), m.Bias, m.NumLayers, m.Dropout,
				m.IsTraining(), m.Bidirectional)
			return o, []torch.Tensor{h, c}
		})
	return out, h[0], h[1]
}

// TryForwardPacked is ForwardPacked that returns its error.
func (m *LSTMModule) TryForwardPacked(p *PackedSequence, hx ...torch.Tensor) (out *PackedSequence, hn, cn torch.Tensor, err error) {
	err = rnnCatchError(func() { out, hn, cn = m.ForwardPacked(p, hx...) })
	return
}

// ForwardPacked runs the GRU over packed sequences. h0 is absent (zero
// initial state) or (num_layers*directions, batch, hidden_size) in the
// order of the batch given to PackPaddedSequence. It returns the packed
// output and the final hidden state. It panics with an error on bad
// input; TryForwardPacked returns it.
func (m *GRUModule) ForwardPacked(p *PackedSequence, h0 ...torch.Tensor) (out *PackedSequence, hn torch.Tensor) {
	mustModule(m)
	if len(h0) > 1 {
		panic(fmt.Errorf("nn.GRU: ForwardPacked takes the input and optionally h0, got %d state tensors", len(h0)))
	}
	out, h := packedRun("GRU", p, h0, m.InputSize, []int64{m.HiddenSize}, m.RNNSettings, []string{"hx"},
		func(data torch.Tensor, hx []torch.Tensor) (torch.Tensor, []torch.Tensor) {
			o, h := torch.GruData(data, p.BatchSizes, hx[0], rnnFlat("GRU", m.FlatWeights), m.Bias, m.NumLayers, m.Dropout,
				m.IsTraining(), m.Bidirectional)
			return o, []torch.Tensor{h}
		})
	return out, h[0]
}

// TryForwardPacked is ForwardPacked that returns its error.
func (m *GRUModule) TryForwardPacked(p *PackedSequence, h0 ...torch.Tensor) (out *PackedSequence, hn torch.Tensor, err error) {
	err = rnnCatchError(func() { out, hn = m.ForwardPacked(p, h0...) })
	return
}

// ForwardPacked runs the RNN over packed sequences, as GRU's
// ForwardPacked does.
func (m *RNNModule) ForwardPacked(p *PackedSequence, h0 ...torch.Tensor) (out *PackedSequence, hn torch.Tensor) {
	mustModule(m)
	if len(h0) > 1 {
		panic(fmt.Errorf("nn.RNN: ForwardPacked takes the input and optionally h0, got %d state tensors", len(h0)))
	}
	run := torch.RnnTanhData
	if m.Nonlinearity == "relu" {
		run = torch.RnnReluData
	}
	out, h := packedRun("RNN", p, h0, m.InputSize, []int64{m.HiddenSize}, m.RNNSettings, []string{"hx"},
		func(data torch.Tensor, hx []torch.Tensor) (torch.Tensor, []torch.Tensor) {
			o, h := run(data, p.BatchSizes, hx[0], rnnFlat("RNN", m.FlatWeights), m.Bias, m.NumLayers, m.Dropout,
				m.IsTraining(), m.Bidirectional)
			return o, []torch.Tensor{h}
		})
	return out, h[0]
}

// TryForwardPacked is ForwardPacked that returns its error.
func (m *RNNModule) TryForwardPacked(p *PackedSequence, h0 ...torch.Tensor) (out *PackedSequence, hn torch.Tensor, err error) {
	err = rnnCatchError(func() { out, hn = m.ForwardPacked(p, h0...) })
	return
}
