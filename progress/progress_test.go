package progress

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBarDrawsOnAWriter(t *testing.T) {
	t.Setenv(EnvNoProgress, "")
	var out bytes.Buffer
	b := New(100, Options{Description: "epoch 1", Writer: &out, Throttle: time.Nanosecond})
	require.True(t, b.Visible())
	for i := 0; i < 10; i++ {
		b.Add(10, 1/float64(i+1))
	}
	s := b.Finish()
	text := out.String()
	assert.Contains(t, text, "epoch 1 loss 0.1000 (mean 0.2929)")
	assert.Contains(t, text, "100/100")
	assert.Contains(t, text, "samples/s")
	assert.Contains(t, text, "100%")
	assert.True(t, strings.HasSuffix(text, "\n"), "the line ends")
	assert.Equal(t, int64(100), s.Samples)
	assert.InDelta(t, 0.2929, s.Loss, 1e-4)
	assert.Equal(t, 0.1, s.LastLoss)
	assert.Positive(t, s.Throughput)
	assert.Zero(t, s.ETA)
	assert.Equal(t, s, b.Finish(), "Finish again returns the same")
}

func TestBarIsQuiet(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "log")
	require.NoError(t, err)
	defer f.Close()
	var buf bytes.Buffer
	for _, tc := range []struct {
		name string
		env  string
		opts Options
	}{
		{"not a terminal", "", Options{Writer: f}},
		{"asked", "", Options{Writer: &buf, Quiet: true}},
		{"environment", "1", Options{Writer: &buf}},
		{"no total", "", Options{Writer: &buf}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvNoProgress, tc.env)
			total := 10
			if tc.name == "no total" {
				total = 0
			}
			b := New(total, tc.opts)
			assert.False(t, b.Visible())
			b.Add(4, 2)
			b.Add(6, math.NaN())
			s := b.Finish()
			assert.Equal(t, int64(10), s.Samples, "quiet bars still count")
			assert.Equal(t, 2.0, s.Loss)
		})
	}
	assert.Zero(t, buf.Len())
	fi, err := f.Stat()
	require.NoError(t, err)
	assert.Zero(t, fi.Size())
}

func TestBarCutShort(t *testing.T) {
	t.Setenv(EnvNoProgress, "0")
	var out bytes.Buffer
	b := New(100, Options{Writer: &out})
	b.Add(30, 0.5)
	time.Sleep(20 * time.Millisecond)
	s := b.Stats()
	assert.Equal(t, int64(30), s.Samples)
	assert.Positive(t, s.ETA, "time left for 70 samples")
	b.Finish()
	assert.True(t, strings.HasSuffix(out.String(), "\n"))
	assert.NotContains(t, out.String(), "100%")
	b.Add(10, 1) // ignored after Finish
	assert.Equal(t, int64(30), b.Stats().Samples)
}

func TestBarMoreThanAnnounced(t *testing.T) {
	var out bytes.Buffer
	t.Setenv(EnvNoProgress, "")
	b := New(10, Options{Writer: &out})
	b.Add(8, 1)
	b.Add(8, 1)
	assert.Equal(t, int64(16), b.Finish().Samples)
}

func TestStatsString(t *testing.T) {
	s := Stats{Samples: 60000, Elapsed: 12 * time.Second, Throughput: 5000, Loss: 0.43214}
	assert.Equal(t, "60000 samples in 12s (5000 samples/s), loss 0.4321", s.String())
	s.Loss = math.NaN()
	assert.Equal(t, "60000 samples in 12s (5000 samples/s)", s.String())
}
