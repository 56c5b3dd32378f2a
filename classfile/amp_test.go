package classfile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gotorch/gotorch/classfile"
	"github.com/gotorch/gotorch/torch"
)

func TestAmpAndAutoDevice(t *testing.T) {
	var tr classfile.Trainer
	if torch.CUDAIsAvailable() {
		assert.Equal(t, torch.CUDA(0), tr.Device__0())
	} else {
		assert.Equal(t, torch.CPU, tr.Device__0(), "device auto without a GPU")
	}
	tr.Device__1("cpu")
	assert.Equal(t, torch.CPU, tr.Device__0())
	tr.Device__1("auto")
	assert.Equal(t, torch.CUDAIsAvailable(), tr.Device__0().Type == torch.CUDADevice)

	assert.Equal(t, "off", tr.Amp__0())
	tr.Amp__1("bf16")
	assert.Equal(t, "bf16", tr.Amp__0())
	tr.Amp__1("off")
	assert.Equal(t, "off", tr.Amp__0())
	assert.PanicsWithError(t, `classfile: amp "int8": want "bf16", "fp16" or "off"`, func() { tr.Amp__1("int8") })

	// The -amp flag overrides the script.
	var fl classfile.Trainer
	err := fl.ParseFlags([]string{"-amp", "bf16"})
	assert.NoError(t, err)
	fl.Amp__1("off")
	assert.Equal(t, "bf16", fl.Amp__0())
}
