package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codeLines counts the lines of a Go+ or Python file that are neither
// blank nor comments (// and # lines, and Python's docstrings).
func codeLines(t *testing.T, path string) int {
	t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(t, err)
	n, doc := 0, false
	for _, l := range strings.Split(string(src), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, `"""`) {
			if !doc && len(l) > 3 && strings.HasSuffix(l, `"""`) {
				continue // a one-line docstring
			}
			doc = !doc
			continue
		}
		if doc || l == "" || strings.HasPrefix(l, "//") || strings.HasPrefix(l, "#") {
			continue
		}
		n++
	}
	return n
}

// TestShorterThanPyTorch checks the claim of README.md: the Go+ model and
// training script together are shorter than the PyTorch script that does
// the same, and the README states both counts.
func TestShorterThanPyTorch(t *testing.T) {
	script := codeLines(t, "main_train.gox")
	model := codeLines(t, "cnn/Net_model.gox")
	python := codeLines(t, "pytorch_equivalent.py")
	t.Logf("Go+: %d (script) + %d (model) = %d lines; PyTorch: %d lines", script, model, script+model, python)
	assert.Less(t, script+model, python)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	want := fmt.Sprintf("| Go+: `main_train.gox` + `cnn/Net_model.gox` | %d + %d = %d |\n| PyTorch: `pytorch_equivalent.py` | %d |",
		script, model, script+model, python)
	assert.Contains(t, string(readme), want, "README.md states the counts")
}
