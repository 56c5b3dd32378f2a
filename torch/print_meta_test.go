package torch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gotorch/gotorch/torch"
)

// TestPrintMeta checks the repr of meta tensors, which have no data,
// against what PyTorch 1.13 prints (checked with /usr/bin/python3's torch).
func TestPrintMeta(t *testing.T) {
	meta := torch.WithDevice(torch.Device{Type: torch.MetaDevice, Index: -1})
	cases := []struct {
		t    torch.Tensor
		want string
	}{
		{torch.Ones([]int64{2, 3}, meta), "tensor(..., device='meta', size=(2, 3))"},
		{torch.Ones([]int64{3}, meta, torch.WithDtype(torch.Float64)), "tensor(..., device='meta', size=(3,), dtype=torch.float64)"},
		{torch.Ones([]int64{}, meta), "tensor(..., device='meta', size=())"},
		{torch.Ones([]int64{0}, meta), "tensor(..., device='meta', size=(0,))"},
		{torch.Ones([]int64{2}, meta, torch.WithRequiresGrad(true)), "tensor(..., device='meta', size=(2,), requires_grad=True)"},
		{torch.Ones([]int64{2}, meta, torch.WithRequiresGrad(true)).Mul(torch.Ones([]int64{2}, meta)), "tensor(..., device='meta', size=(2,), grad_fn=<MulBackward0>)"},
		{torch.Ones([]int64{2}, meta, torch.WithDtype(torch.Int64)), "tensor(..., device='meta', size=(2,), dtype=torch.int64)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.t.String())
	}
}
