package text

import (
	"fmt"

	"github.com/gotorch/gotorch/nn"
	nninit "github.com/gotorch/gotorch/nn/init"
	"github.com/gotorch/gotorch/torch"
)

// Conv1D is transformers' Conv1D (pytorch_utils.Conv1D), the linear
// layer of GPT-2: y = x·W + b with the weight stored (in, out), the
// transpose of nn.Linear's, as OpenAI's checkpoints store it. Its
// constructor takes transformers' arguments in transformers' order: nf
// outputs, nx inputs.
type Conv1D struct {
	nn.Module
	Weight torch.Tensor // (nx, nf): in, out
	Bias   torch.Tensor // (nf)
	NF, NX int64
}

// NewConv1D returns a Conv1D from nx to nf features, its weight drawn
// from N(0, 0.02) and its bias zero, as transformers does.
func NewConv1D(nf, nx int64) *Conv1D {
	if nf < 0 || nx < 0 {
		panic(&torch.Error{Op: "text.Conv1D", Msg: fmt.Sprintf("nf and nx must be non-negative, got %d and %d", nf, nx)})
	}
	c := &Conv1D{
		NF: nf, NX: nx,
		Weight: torch.Empty([]int64{nx, nf}).SetRequiresGrad(true),
		Bias:   torch.Zeros([]int64{nf}).SetRequiresGrad(true),
	}
	nninit.Normal_(c.Weight, nninit.WithStd(0.02))
	c.Init(c)
	return c
}

// Forward applies the layer to x (*, nx): addmm(bias, x.view(-1, nx),
// weight), viewed back to (*, nf).
func (c *Conv1D) Forward(x torch.Tensor) torch.Tensor {
	y, err := c.TryForward(x)
	must(err)
	return y
}

// TryForward is Forward that returns its error.
func (c *Conv1D) TryForward(x torch.Tensor) (torch.Tensor, error) {
	if c == nil {
		return torch.Tensor{}, fmt.Errorf("text: nil *Conv1D: %w", nn.ErrUninitialized)
	}
	if !x.Defined() || x.Dim() < 1 || x.Size(-1) != c.NX {
		shape := "undefined"
		if x.Defined() {
			shape = fmt.Sprint(x.Shape())
		}
		return torch.Tensor{}, modelError("Conv1D", ErrInput, "input must be (*, nx=%d), got %s", c.NX, shape)
	}
	shape := x.Shape()
	shape[len(shape)-1] = c.NF
	x2, err := x.TryReshape([]int64{-1, c.NX})
	if err != nil {
		return torch.Tensor{}, err
	}
	defer x2.Free()
	y, err := torch.TryAddmm(c.Bias, x2, c.Weight)
	if err != nil {
		return torch.Tensor{}, err
	}
	defer y.Free()
	return y.TryView(shape)
}

// ExtraRepr is transformers' "nf=2304, nx=768".
func (c *Conv1D) ExtraRepr() string { return fmt.Sprintf("nf=%d, nx=%d", c.NF, c.NX) }
