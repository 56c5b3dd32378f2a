package nn

import (
	"math"
	"slices"

	"github.com/gotorch/gotorch/nn/internal/temps"
	"github.com/gotorch/gotorch/torch"
)

// WithDivValue is AdaptiveLogSoftmaxWithLoss's div_value (default 4): the
// hidden size of cluster i's projection is in_features // div_value^(i+1).
func WithDivValue(v float64) Option { return Option{name: "div_value", f: v} }

// WithHeadBias is AdaptiveLogSoftmaxWithLoss's head_bias (default false):
// whether the head has a bias.
func WithHeadBias(on bool) Option { return Option{name: "head_bias", b: on} }

// AdaptiveLogSoftmaxWithLossModule is the efficient softmax approximation
// of Grave et al. (torch.nn.AdaptiveLogSoftmaxWithLoss): the classes below
// Cutoffs[0] (the shortlist) and one entry per cluster are scored by Head;
// the classes of cluster i, Cutoffs[i] … Cutoffs[i+1]-1, by Tail's i-th
// Sequential(Linear(in_features, hsz), Linear(hsz, size of the cluster)),
// both without bias, hsz being in_features // div_value^(i+1).
//
// Its parameters have PyTorch's names (head.weight, head.bias with
// WithHeadBias(true), tail.0.0.weight, tail.0.1.weight, …), so a state
// dict saved by PyTorch loads strictly.
//
// Forward returns each example's log-probability of its target and the
// mean negative log-likelihood; LogProb returns the log-probabilities of
// every class, and Predict the most probable class.
type AdaptiveLogSoftmaxWithLossModule struct {
	Module
	InFeatures, NClasses int64
	// Cutoffs are the cutoffs given followed by NClasses, as PyTorch's
	// self.cutoffs.
	Cutoffs       []int64
	DivValue      float64
	HeadBias      bool
	ShortlistSize int64 // Cutoffs[0]
	NClusters     int64 // len(Cutoffs) - 1
	HeadSize      int64 // ShortlistSize + NClusters
	Head          *LinearModule
	Tail          *ModuleListModule // of *SequentialModule, one per cluster
}

// AdaptiveLogSoftmaxWithLoss returns an AdaptiveLogSoftmaxWithLossModule
// for inputs of inFeatures features and nClasses classes, split by
// cutoffs: unique, increasing, each between 1 and nClasses-1. Its
// parameters are drawn as PyTorch draws them: the head's Linear first,
// then each cluster's two.
//
// Options: WithDivValue (4), WithHeadBias (false), WithDtype, WithDevice.
func AdaptiveLogSoftmaxWithLoss(inFeatures, nClasses int64, cutoffs []int64, opts ...Option) *AdaptiveLogSoftmaxWithLossModule {
	const name = "AdaptiveLogSoftmaxWithLoss"
	a := mustParseArgs(name, opts, "div_value", "head_bias", "dtype", "device")
	if len(cutoffs) == 0 || !slices.IsSorted(cutoffs) || cutoffs[0] <= 0 || cutoffs[len(cutoffs)-1] > nClasses-1 ||
		len(slices.Compact(slices.Clone(cutoffs))) != len(cutoffs) {
		layerPanic(name, "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, "+
			"where each value is between 1 and n_classes-1 (got %v with n_classes=%d)", cutoffs, nClasses)
	}
	if inFeatures < 0 {
		layerPanic(name, "in_features must be non-negative, got %d", inFeatures)
	}
	m := &AdaptiveLogSoftmaxWithLossModule{
		InFeatures: inFeatures, NClasses: nClasses, Cutoffs: append(slices.Clone(cutoffs), nClasses),
		DivValue: a.float("div_value", 4), HeadBias: a.bool("head_bias", false),
	}
	m.ShortlistSize = m.Cutoffs[0]
	m.NClusters = int64(len(m.Cutoffs) - 1)
	m.HeadSize = m.ShortlistSize + m.NClusters
	factory := a.pick("dtype", "device")
	m.Head = Linear(inFeatures, m.HeadSize, append([]Option{WithBias(m.HeadBias)}, factory...)...)
	noBias := append([]Option{WithBias(false)}, factory...)
	var tail []Moduler
	for i := range m.NClusters {
		hsz := pyFloorDiv(float64(inFeatures), math.Pow(m.DivValue, float64(i+1)))
		if math.IsNaN(hsz) || math.IsInf(hsz, 0) || hsz < 0 {
			layerPanic(name, "div_value %s gives cluster %d a hidden size of %s (in_features // div_value**%d)",
				pyFloat(m.DivValue), i, pyFloat(hsz), i+1)
		}
		osz := m.Cutoffs[i+1] - m.Cutoffs[i]
		tail = append(tail, Sequential(Linear(inFeatures, int64(hsz), noBias...), Linear(int64(hsz), osz, noBias...)))
	}
	m.Tail = ModuleList(tail...)
	m.Init(m)
	return m
}

// pyFloorDiv is Python's a // b for floats, which is not always
// floor(a/b): 1 // 0.1 is 9.0.
func pyFloorDiv(a, b float64) float64 {
	mod := math.Mod(a, b)
	div := (a - mod) / b
	if mod != 0 && (b < 0) != (mod < 0) {
		div--
	}
	if div == 0 {
		return math.Copysign(0, a/b)
	}
	f := math.Floor(div)
	if div-f > 0.5 {
		f++
	}
	return f
}

// ResetParameters draws the head's and the clusters' weights again.
func (m *AdaptiveLogSoftmaxWithLossModule) ResetParameters() {
	mustModule(m)
	m.Head.ResetParameters()
	for i := range m.NClusters {
		in, out, err := m.cluster(i)
		if err != nil {
			panic(err)
		}
		in.ResetParameters()
		out.ResetParameters()
	}
}

// cluster returns cluster i's two Linear layers.
func (m *AdaptiveLogSoftmaxWithLossModule) cluster(i int64) (*LinearModule, *LinearModule, error) {
	bad := layerError("AdaptiveLogSoftmaxWithLoss", "tail.%d is not the Sequential of two Linear layers that the constructor made", i)
	if m.Tail == nil || int64(len(m.Tail.Items)) <= i {
		return nil, nil, bad
	}
	s, ok := m.Tail.Items[i].(*SequentialModule)
	if !ok || s == nil || len(s.Layers) != 2 {
		return nil, nil, bad
	}
	in, ok1 := s.Layers[0].(*LinearModule)
	out, ok2 := s.Layers[1].(*LinearModule)
	if !ok1 || !ok2 {
		return nil, nil, bad
	}
	return in, out, nil
}

// clusterLogProb is log_softmax(tail[i](x), 1), made of temporaries in tmp
// but for the result.
func (m *AdaptiveLogSoftmaxWithLossModule) clusterLogProb(tmp *temps.List, i int64, x torch.Tensor) torch.Tensor {
	in, out, err := m.cluster(i)
	if err != nil {
		panic(err)
	}
	h := tmp.Add(must(in.TryForward(x)))
	return tmp.Add(must(out.TryForward(h))).LogSoftmax(1)
}

// Forward returns output, each example's log-probability of its target,
// and loss, the mean of -output, for input (N, in_features) and target (N)
// of class indices, or input (in_features) and a 0-D target.
func (m *AdaptiveLogSoftmaxWithLossModule) Forward(input, target torch.Tensor) (output, loss torch.Tensor) {
	output, loss, err := m.TryForward(input, target)
	if err != nil {
		panic(err)
	}
	return output, loss
}

// TryForward is Forward that returns its error.
func (m *AdaptiveLogSoftmaxWithLossModule) TryForward(input, target torch.Tensor) (output, loss torch.Tensor, err error) {
	const name = "AdaptiveLogSoftmaxWithLoss"
	if m == nil {
		return output, loss, nilLayer(m)
	}
	if !input.Defined() || !target.Defined() {
		return output, loss, layerError(name, "input or target is an undefined tensor (the zero Tensor{})")
	}
	switch target.Dim() {
	case 1:
		if input.Dim() == 0 || input.Shape()[0] != target.Shape()[0] {
			return output, loss, layerError(name, "Input and target should have the same size in the batch dimension (input %v, target %v).", input.Shape(), target.Shape())
		}
		if input.Dim() != 2 {
			return output, loss, layerError(name, "1D target tensor expects 2D input tensors, but found inputs with size %v", input.Shape())
		}
	case 0:
		if input.Dim() != 1 {
			return output, loss, layerError(name, "0D target tensor expects 1D input tensors, but found inputs with size %v", input.Shape())
		}
	default:
		return output, loss, layerError(name, "0D or 1D target tensor expected, multi-target not supported (target %v)", target.Shape())
	}
	if err := m.checkFeatures(input); err != nil {
		return output, loss, err
	}
	if target.DType() != torch.Int64 {
		return output, loss, layerError(name, "target must be an int64 tensor of class indices, got %s", target.DType())
	}
	tv, err := torch.TryToSlice[int64](target)
	if err != nil {
		return output, loss, err
	}
	// The rows of each part, shortlist first, and the head's column that
	// each row's target falls in.
	bounds := append([]int64{0}, m.Cutoffs...)
	rows := make([][]int64, len(bounds)-1)
	gather := make([]int64, len(tv))
	used := 0
	for r, v := range tv {
		for i := range rows {
			if v >= bounds[i] && v < bounds[i+1] {
				rows[i] = append(rows[i], int64(r))
				gather[r] = v
				if i > 0 {
					gather[r] = m.ShortlistSize + int64(i) - 1
				}
				used++
				break
			}
		}
	}
	if used != len(tv) {
		return output, loss, layerError(name, "Target values should be in [0, %d], but values in range [%d, %d] were found. ",
			m.NClasses-1, slices.Min(tv), slices.Max(tv))
	}
	batched := target.Dim() == 1
	output, err = temps.Run([]torch.Tensor{input, target}, func(tmp *temps.List) torch.Tensor {
		t := tmp.Add
		dev := input.Device()
		x := input
		if !batched {
			x = t(input.Unsqueeze(0))
		}
		out := t(x.NewZeros([]int64{int64(len(tv))}))
		for i := 1; i < len(rows); i++ {
			if len(rows[i]) == 0 {
				continue
			}
			idx := t(t(torch.FromSlice(rows[i])).To(dev))
			rel := make([]int64, len(rows[i]))
			for k, r := range rows[i] {
				rel[k] = tv[r] - bounds[i]
			}
			relT := t(t(torch.FromSlice(rel, int64(len(rel)), 1)).To(dev))
			lp := t(m.clusterLogProb(tmp, int64(i-1), t(x.IndexSelect(0, idx))))
			local := t(t(lp.Gather(1, relT)).SqueezeDim(1))
			out = t(out.IndexCopy(0, idx, local))
		}
		head := t(t(must(m.Head.TryForward(x))).LogSoftmax(1))
		g := t(t(torch.FromSlice(gather, int64(len(gather)), 1)).To(dev))
		out = t(out.Add(t(t(head.Gather(1, g)).Squeeze())))
		loss = t(out.Neg()).Mean() // not a temporary: a result
		if !batched {
			return out.SqueezeDim(0)
		}
		return out // recorded, but temps.Run keeps its result
	})
	if err != nil && loss.Defined() {
		loss.Free()
		loss = torch.Tensor{}
	}
	return output, loss, err
}

// checkFeatures checks that input's last dimension has InFeatures.
func (m *AdaptiveLogSoftmaxWithLossModule) checkFeatures(input torch.Tensor) error {
	s := input.Shape()
	if len(s) == 0 || s[len(s)-1] != m.InFeatures {
		return layerError("AdaptiveLogSoftmaxWithLoss", "input %v does not end in in_features=%d", s, m.InFeatures)
	}
	return nil
}

// check2D checks LogProb's and Predict's input, (N, in_features).
func (m *AdaptiveLogSoftmaxWithLossModule) check2D(input torch.Tensor) error {
	if m == nil {
		return nilLayer(m)
	}
	if !input.Defined() {
		return layerError("AdaptiveLogSoftmaxWithLoss", "input is an undefined tensor (the zero Tensor{})")
	}
	if input.Dim() != 2 {
		return layerError("AdaptiveLogSoftmaxWithLoss", "expected a 2D input (N, in_features), got %v", input.Shape())
	}
	return m.checkFeatures(input)
}

// fullLogProb is PyTorch's _get_full_log_prob: the log-probabilities of
// every class, (N, n_classes), from input and the head's output.
func (m *AdaptiveLogSoftmaxWithLossModule) fullLogProb(tmp *temps.List, input, headOut torch.Tensor) torch.Tensor {
	t := tmp.Add
	head := t(headOut.LogSoftmax(1))
	parts := []torch.Tensor{t(head.Narrow(1, 0, m.ShortlistSize))}
	for i := range m.NClusters {
		lp := t(m.clusterLogProb(tmp, i, input))
		col := t(t(head.Select(1, m.ShortlistSize+i)).Unsqueeze(1))
		parts = append(parts, t(lp.Add(col)))
	}
	return torch.Cat(parts, torch.WithDim(1))
}

// LogProb returns the log-probabilities of every class, (N, n_classes),
// for input (N, in_features).
func (m *AdaptiveLogSoftmaxWithLossModule) LogProb(input torch.Tensor) torch.Tensor {
	return must(m.TryLogProb(input))
}

// TryLogProb is LogProb that returns its error.
func (m *AdaptiveLogSoftmaxWithLossModule) TryLogProb(input torch.Tensor) (torch.Tensor, error) {
	if err := m.check2D(input); err != nil {
		return torch.Tensor{}, err
	}
	return temps.Run([]torch.Tensor{input}, func(tmp *temps.List) torch.Tensor {
		return m.fullLogProb(tmp, input, tmp.Add(must(m.Head.TryForward(input))))
	})
}

// Predict returns the most probable class of each example, (N) int64, for
// input (N, in_features): LogProb(input).Argmax(dim 1), computing the
// clusters only for the examples whose head's best is a cluster, as
// PyTorch does.
func (m *AdaptiveLogSoftmaxWithLossModule) Predict(input torch.Tensor) torch.Tensor {
	return must(m.TryPredict(input))
}

// TryPredict is Predict that returns its error.
func (m *AdaptiveLogSoftmaxWithLossModule) TryPredict(input torch.Tensor) (torch.Tensor, error) {
	if err := m.check2D(input); err != nil {
		return torch.Tensor{}, err
	}
	return temps.Run([]torch.Tensor{input}, func(tmp *temps.List) torch.Tensor {
		t := tmp.Add
		headOut := t(must(m.Head.TryForward(input)))
		best := t(headOut.Argmax(torch.WithDim(1)))
		cls := torch.ToSlice[int64](best)
		var rows []int64
		for r, c := range cls {
			if c >= m.ShortlistSize {
				rows = append(rows, int64(r))
			}
		}
		switch len(rows) {
		case 0:
			return best.Clone()
		case len(cls):
			return t(m.fullLogProb(tmp, input, headOut)).Argmax(torch.WithDim(1))
		}
		idx := t(t(torch.FromSlice(rows)).To(input.Device()))
		lp := t(m.fullLogProb(tmp, t(input.IndexSelect(0, idx)), t(headOut.IndexSelect(0, idx))))
		return best.IndexCopy(0, idx, t(lp.Argmax(torch.WithDim(1))))
	})
}
