//go:build race

package torch_test

// raceEnabled: the race detector's shadow memory grows with the run, so
// RSS checks are skipped under -race.
const raceEnabled = true
