//go:build !race

package torch_test

const raceEnabled = false
