package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckNesting(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("(", n) + "1" + strings.Repeat(")", n) }
	for _, tc := range []struct {
		name, src, err string
	}{
		{"shallow", "x := " + deep(maxNesting) + "\n", ""},
		{"too deep", "// a comment (((\nx := " + deep(maxNesting+1) + "\n",
			"f.gox:2:1006: brackets nested more than 1000 deep"},
		{"200,000 deep", "echo " + deep(200_000), "f.gox:1:1006: brackets nested"},
		{"brackets in strings and comments", `s := "` + strings.Repeat("(", 5000) + `"` + "\n" +
			"r := `" + strings.Repeat("[", 5000) + "`\n/* " + strings.Repeat("{", 5000) + " */\n" +
			"c := '('\nd := \"\\\"(\"\n", ""},
		{"mixed kinds", strings.Repeat("[{(", 334) + strings.Repeat(")}]", 334), "f.gox:1:1001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkNesting("f.gox", []byte(tc.src))
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}
