package nn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gotorch/gotorch/nn"
	"github.com/gotorch/gotorch/torch"
)

func TestFractionalMaxPoolErrors(t *testing.T) {
	panicMsg := func(f func()) (msg string) {
		defer func() {
			if e, ok := recover().(*torch.Error); ok {
				msg = e.Msg
			}
		}()
		f()
		return ""
	}
	assert.Equal(t, "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio",
		panicMsg(func() { nn.FractionalMaxPool2d(2) }))
	assert.Equal(t, "only one of output_size and output_ratio may be specified",
		panicMsg(func() { nn.FractionalMaxPool3d(2, nn.WithOutputSize(2), nn.WithOutputRatio(0.5)) }))
	assert.Equal(t, "output_ratio must be between 0 and 1 (got 1.5)",
		panicMsg(func() { nn.FractionalMaxPool2d(2, nn.WithOutputRatio(1.5)) }))
	var m *nn.FractionalMaxPool2dModule
	_, err := m.TryForward(torch.Zeros([]int64{1, 1, 4, 4}))
	assert.Error(t, err)
	_, err = nn.FractionalMaxPool2d(2, nn.WithOutputSize(2)).TryForward(torch.Zeros([]int64{4}))
	assert.ErrorContains(t, err, "expected a 3D or 4D input, got 1D")
	assert.Empty(t, nn.FractionalMaxPool2d(2, nn.WithOutputSize(2)).StateDict())
	assert.Equal(t, "FractionalMaxPool3d()", nn.FractionalMaxPool3d(2, nn.WithOutputSize(2)).String())
}
