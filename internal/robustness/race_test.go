//go:build race

package robustness

// raceEnabled makes helper builds use the race detector too, so that they
// share the build cache with go test -race.
const raceEnabled = true
