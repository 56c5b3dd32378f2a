package torch_test

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gotorch/gotorch/torch"
)

// restoreDeterministic puts the deterministic-algorithm flags back as they
// were when the test ends: they are global.
func restoreDeterministic(t *testing.T) {
	on, warn := torch.AreDeterministicAlgorithmsEnabled(), torch.IsDeterministicAlgorithmsWarnOnlyEnabled()
	t.Cleanup(func() { torch.UseDeterministicAlgorithms(on, torch.WithWarnOnly(warn)) })
}

// TestDeterministicDebugMode sets each of PyTorch's debug modes, by int and
// by name, and checks the flags and the mode read back against PyTorch's
// (testdata/globals.json).
func TestDeterministicDebugMode(t *testing.T) {
	restoreDeterministic(t)
	g := loadGlobalsGolden(t)
	require.Len(t, g.DebugModes, 6)
	for _, m := range g.DebugModes {
		mode := m.Mode
		if f, ok := mode.(float64); ok {
			mode = int(f)
		}
		// Start from the opposite of what the mode sets, so that a mode
		// that changed nothing fails.
		torch.UseDeterministicAlgorithms(!m.Enabled, torch.WithWarnOnly(!m.WarnOnly))
		torch.SetDeterministicDebugMode(mode)
		assert.Equal(t, m.Enabled, torch.AreDeterministicAlgorithmsEnabled(), "mode %v: are_deterministic_algorithms_enabled", mode)
		assert.Equal(t, m.WarnOnly, torch.IsDeterministicAlgorithmsWarnOnlyEnabled(), "mode %v: warn_only", mode)
		assert.Equal(t, m.Get, torch.GetDeterministicDebugMode(), "mode %v: get_deterministic_debug_mode", mode)
	}
	torch.UseDeterministicAlgorithms(true, torch.WithWarnOnly(true))
	assert.Equal(t, g.WarnOnlyMode, torch.GetDeterministicDebugMode())
	assert.Equal(t, torch.DeterministicDebugWarn, torch.GetDeterministicDebugMode())
	torch.UseDeterministicAlgorithms(true) // warn_only defaults to false
	assert.False(t, torch.IsDeterministicAlgorithmsWarnOnlyEnabled())
	assert.Equal(t, torch.DeterministicDebugError, torch.GetDeterministicDebugMode())
}

// TestDeterministicAlgorithmsGlobal checks that the setting is the
// process's, not the OS thread's: a goroutine locked to another thread
// sees it, and an op there still computes PyTorch's result (index_add_ with
// a repeated index, deterministic on the CPU).
func TestDeterministicAlgorithmsGlobal(t *testing.T) {
	restoreDeterministic(t)
	g := loadGlobalsGolden(t)
	torch.UseDeterministicAlgorithms(false)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	torch.UseDeterministicAlgorithms(true)
	type seen struct {
		on, warn bool
		sum      []float64
		err      error
	}
	done := make(chan seen)
	go func() {
		runtime.LockOSThread() // another thread than the test's
		defer runtime.UnlockOSThread()
		var s seen
		s.on, s.warn = torch.AreDeterministicAlgorithmsEnabled(), torch.IsDeterministicAlgorithmsWarnOnlyEnabled()
		x := torch.Zeros([]int64{4})
		_, s.err = x.TryIndexAdd_(0, torch.FromSlice([]int64{1, 1, 3}), torch.FromSlice([]float32{1.5, 2, 4}))
		if s.err == nil {
			s.sum = x.Float64s()
		}
		done <- s
	}()
	s := <-done
	assert.True(t, s.on, "another thread sees use_deterministic_algorithms(True)")
	assert.False(t, s.warn)
	require.NoError(t, s.err, "index_add_ on the CPU is deterministic")
	assert.Equal(t, g.IndexAdd, s.sum)
}

// TestDeterministicBadInput checks the errors of modes and options that
// PyTorch refuses, and that they leave the setting as it was.
func TestDeterministicBadInput(t *testing.T) {
	restoreDeterministic(t)
	torch.UseDeterministicAlgorithms(true, torch.WithWarnOnly(true))
	for _, c := range []struct {
		mode any
		msg  string
	}{
		{3, "expected 0, 1, or 2, but got 3"},
		{-1, "expected 0, 1, or 2, but got -1"},
		{"Warn", "expected one of `default`, `warn`, `error`, but got \"Warn\""},
		{1.0, "must be a string or an int, but got float64"},
		{nil, "must be a string or an int, but got <nil>"},
	} {
		err := torch.TrySetDeterministicDebugMode(c.mode)
		require.Error(t, err, "mode %v", c.mode)
		assert.Contains(t, err.Error(), "set_deterministic_debug_mode")
		assert.Contains(t, err.Error(), c.msg)
		assert.Equal(t, torch.DeterministicDebugWarn, torch.GetDeterministicDebugMode(), "mode %v changed the setting", c.mode)
	}
	assert.PanicsWithError(t, "torch.set_deterministic_debug_mode: invalid value of debug_mode, expected 0, 1, or 2, but got 7",
		func() { torch.SetDeterministicDebugMode(7) })
	err := torch.TryUseDeterministicAlgorithms(false, torch.WithCheckNan(true))
	require.Error(t, err)
	assert.Equal(t, "torch.use_deterministic_algorithms: unexpected option check_nan", err.Error())
	assert.True(t, torch.AreDeterministicAlgorithmsEnabled(), "a bad option changed the setting")
}
