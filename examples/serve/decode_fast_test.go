package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flatBody is {"image": [...]} with the given numbers as written.
func flatBody(nums []string) []byte {
	return []byte(`{"image": [` + strings.Join(nums, ", ") + `]}`)
}

func validNums() []string {
	nums := make([]string, Side*Side)
	for i := range nums {
		nums[i] = []string{"0", "1", "0.5", "1e-3", "0.25E+0", "-0", "0.9999"}[i%7]
	}
	return nums
}

// TestFlatJSONMatchesTheFullDecoder: the fast path reads the common
// request as the full decoder does, and leaves every other body to it.
func TestFlatJSONMatchesTheFullDecoder(t *testing.T) {
	body := flatBody(validNums())
	fast, ok := decodeFlatJSON(body)
	require.True(t, ok)
	full, err := decodeJSONFull(body)
	require.NoError(t, err)
	assert.Equal(t, full, fast)
	px, err := decodeJSON(jsonBody(testImage()))
	require.NoError(t, err)
	assert.Equal(t, testImage(), px)

	for name, nums := range map[string]func([]string) []string{
		"783 numbers":    func(n []string) []string { return n[1:] },
		"785 numbers":    func(n []string) []string { return append(n, "0") },
		"out of range":   func(n []string) []string { n[5] = "1.0001"; return n },
		"negative":       func(n []string) []string { n[5] = "-0.1"; return n },
		"leading zero":   func(n []string) []string { n[5] = "00.5"; return n },
		"bare dot":       func(n []string) []string { n[5] = ".5"; return n },
		"plus sign":      func(n []string) []string { n[5] = "+0.5"; return n },
		"hex float":      func(n []string) []string { n[5] = "0x1p-1"; return n },
		"NaN":            func(n []string) []string { n[5] = "NaN"; return n },
		"empty exponent": func(n []string) []string { n[5] = "1e"; return n },
		"string":         func(n []string) []string { n[5] = `"0.5"`; return n },
	} {
		_, ok := decodeFlatJSON(flatBody(nums(validNums())))
		assert.False(t, ok, name)
	}
	for _, body := range []string{
		`{"image": [` + strings.Join(validNums(), ",") + `], "x": 1}`,
		`{"IMAGE": [` + strings.Join(validNums(), ",") + `]}`,
		`{"image": [` + strings.Join(validNums(), ",") + `]} {}`,
		`{"image": [` + strings.Join(validNums(), ",") + `]`,
		`{"im\u0061ge": [` + strings.Join(validNums(), ",") + `]}`,
	} {
		_, ok := decodeFlatJSON([]byte(body))
		assert.False(t, ok, "%.40s...", body)
	}
}

// FuzzFlatJSON: whenever the fast path accepts a body, the full decoder
// accepts it too and gives the same pixels.
func FuzzFlatJSON(f *testing.F) {
	f.Add(flatBody(validNums()))
	f.Add(jsonBody(testImage()))
	f.Add([]byte(`{"image": [0, 1]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fast, ok := decodeFlatJSON(body)
		if !ok {
			return
		}
		full, err := decodeJSONFull(body)
		if err != nil {
			t.Fatalf("fast path accepted what the full decoder refuses (%v): %q", err, body)
		}
		if *fast != *full {
			t.Fatalf("fast and full decoders differ on %q", body)
		}
	})
}
