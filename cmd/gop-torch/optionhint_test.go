package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The options a function documents, in PyTorch's order, read from its
// source.
func TestDocumentedOptions(t *testing.T) {
	assert.Equal(t, []docOption{{"optim", "WithNormType"}, {"optim", "WithErrorIfNonfinite"}},
		documentedOptions(modulePath+"/nn/utils", "ClipGradNorm_"))
	assert.Equal(t, []docOption{{"", "WithP"}, {"", "WithTraining"}},
		documentedOptions(modulePath+"/nn/functional", "Dropout"))
	// A method of torch.Tensor in the generated ops.
	assert.Equal(t, []docOption{{"", "WithDevice"}}, documentedOptions(modulePath+"/torch", "PinMemory"))
	assert.Empty(t, documentedOptions(modulePath+"/torch", "NoSuchFunction"))
}

// Messages that are not about an option are left alone, as are all
// messages without an importer.
func TestOptionHintLeavesOtherErrors(t *testing.T) {
	for _, msg := range []string{
		`cannot use "three" (type untyped string) as type int in argument to epochs "three"`,
		`undefined: y`,
	} {
		assert.Equal(t, msg, optionHint(nil, msg))
	}
	m := optionArg.FindStringSubmatch(`cannot use 2.0 (type untyped float) as type github.com/gotorch/gotorch/nn/optim.Option in argument to utils.clipGradNorm_`)
	if assert.NotNil(t, m) {
		assert.Equal(t, []string{"2.0", "untyped float", "github.com/gotorch/gotorch/nn/optim", "Option", "utils.", "clipGradNorm_"}, m[1:])
	}
	m = optionArg.FindStringSubmatch(`cannot use p (variable of type float64) as functional.Option value in argument to F.Dropout`)
	if assert.NotNil(t, m) {
		assert.Equal(t, []string{"p", "float64", "functional", "Option", "F.", "Dropout"}, m[1:])
	}
}
