// Package progress shows the progress of a training epoch on the terminal:
// samples done, loss, throughput (samples per second) and time left.
//
//	bar := progress.New(train.Len(), progress.Options{Description: fmt.Sprintf("epoch %d", epoch)})
//	for loader.Scan() {
//		x, y := loader.Batch()
//		loss := step(x, y)
//		bar.Add(int(x.Size(0)), loss.Item())
//	}
//	stats := bar.Finish()
//	log.Print(stats) // 60000 samples in 12s (5000 samples/s), loss 0.4321
//
// It draws with github.com/schollz/progressbar. It stays quiet, counting
// but drawing nothing, when its output is a file that is not a terminal
// (a log, a pipe, go test), when Options.Quiet is set, or when the
// environment variable GOTORCH_NO_PROGRESS is set to anything but "" or
// "0". It is a package of its own, beside data, so that loading data does
// not pull in a terminal library.
package progress

import (
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// EnvNoProgress is the environment variable that silences every bar.
const EnvNoProgress = "GOTORCH_NO_PROGRESS"

// Options configure a Bar.
type Options struct {
	// Description comes before the bar, for example "epoch 3".
	Description string
	// Writer receives the bar; nil means os.Stdout. A writer that is an
	// *os.File (or has an Fd method) gets the bar only if it is a
	// terminal; any other writer always gets it.
	Writer io.Writer
	// Quiet draws nothing.
	Quiet bool
	// Width is the width of the bar in characters; 0 means 30.
	Width int
	// Throttle is the least time between two redraws; 0 means 100ms.
	Throttle time.Duration
}

// Bar is the progress of one epoch. It is not safe for concurrent use.
type Bar struct {
	bar     *progressbar.ProgressBar // nil when quiet
	desc    string
	total   int64
	start   time.Time
	samples int64
	lossSum float64 // sum over samples of the batch loss
	lossN   int64   // samples with a loss
	last    float64
	done    bool
	stats   Stats
}

// New starts a bar for an epoch of total samples. A total that is not
// positive gives a quiet bar, which still counts.
func New(total int, opts Options) *Bar {
	b := &Bar{desc: opts.Description, total: int64(total), start: time.Now(), last: math.NaN()}
	w := opts.Writer
	if w == nil {
		w = os.Stdout
	}
	if opts.Quiet || total <= 0 || !visible(w) {
		return b
	}
	width := opts.Width
	if width <= 0 {
		width = 30
	}
	throttle := opts.Throttle
	if throttle <= 0 {
		throttle = 100 * time.Millisecond
	}
	b.bar = progressbar.NewOptions64(int64(total),
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(opts.Description),
		progressbar.OptionSetWidth(width),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("samples"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(throttle),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	)
	return b
}

// visible reports whether a bar should be drawn on w.
func visible(w io.Writer) bool {
	if v := os.Getenv(EnvNoProgress); v != "" && v != "0" {
		return false
	}
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		return term.IsTerminal(int(f.Fd()))
	}
	return true
}

// Visible reports whether the bar draws.
func (b *Bar) Visible() bool { return b.bar != nil }

// Add counts a batch of samples and its loss, the mean over the batch as
// a loss function returns it; a NaN loss counts the samples alone.
func (b *Bar) Add(samples int, loss float64) {
	if b.done || samples <= 0 {
		return
	}
	b.samples += int64(samples)
	if !math.IsNaN(loss) {
		b.lossSum += loss * float64(samples)
		b.lossN += int64(samples)
		b.last = loss
	}
	if b.bar != nil {
		if b.lossN > 0 {
			b.bar.Describe(fmt.Sprintf("%s loss %.4f (mean %.4f)", b.desc, b.last, b.lossSum/float64(b.lossN)))
		}
		n := int64(samples)
		if b.samples > b.total { // more than announced: keep the bar at its end
			n = max(0, n-(b.samples-b.total))
		}
		_ = b.bar.Add64(n)
	}
}

// Stats returns the statistics so far.
func (b *Bar) Stats() Stats {
	if b.done {
		return b.stats
	}
	s := Stats{Samples: b.samples, Total: b.total, Elapsed: time.Since(b.start), Loss: math.NaN(), LastLoss: b.last}
	if b.lossN > 0 {
		s.Loss = b.lossSum / float64(b.lossN)
	}
	if sec := s.Elapsed.Seconds(); sec > 0 {
		s.Throughput = float64(s.Samples) / sec
	}
	if s.Throughput > 0 && s.Total > s.Samples {
		s.ETA = time.Duration(float64(s.Total-s.Samples) / s.Throughput * float64(time.Second))
	}
	return s
}

// Finish ends the bar and its line and returns the epoch's statistics. A
// bar finished before all its samples were added (an epoch cut short)
// stays where it was. Calling it again returns the same statistics.
func (b *Bar) Finish() Stats {
	if b.done {
		return b.stats
	}
	b.stats = b.Stats()
	b.done = true
	if b.bar != nil {
		if b.samples >= b.total {
			_ = b.bar.Finish()
		} else {
			_ = b.bar.Exit()
		}
	}
	return b.stats
}

// Stats are the statistics of an epoch.
type Stats struct {
	Samples    int64         // samples added
	Total      int64         // samples announced
	Elapsed    time.Duration // since New
	Throughput float64       // samples per second
	ETA        time.Duration // estimated time left, 0 when done
	Loss       float64       // mean loss per sample, NaN if none was given
	LastLoss   float64       // the last batch's loss, NaN if none
}

// String summarizes the statistics on one line, for logs.
func (s Stats) String() string {
	out := fmt.Sprintf("%d samples in %s (%.0f samples/s)", s.Samples, s.Elapsed.Round(time.Millisecond), s.Throughput)
	if !math.IsNaN(s.Loss) {
		out += fmt.Sprintf(", loss %.4f", s.Loss)
	}
	return out
}
