package classfile

import (
	"fmt"
	"math"
	"os"

	"github.com/gotorch/gotorch/progress"
)

// isTerminal reports whether f is a character device, a terminal.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// bar adapts a progress.Bar to the loaders: Next counts a batch when the
// next one comes (or the epoch ends), so that the loss that Step recorded
// for it goes with it.
type bar struct {
	b        *progress.Bar
	training bool
	pending  int     // samples of the batch in progress
	loss     float64 // its loss, NaN until Step records it
	done     bool
}

// newBar starts a bar on stderr for an epoch of total samples.
func newBar(label string, total int, training bool) *bar {
	return &bar{
		b:        progress.New(total, progress.Options{Description: label, Writer: os.Stderr}),
		training: training,
		loss:     math.NaN(),
	}
}

// advance starts a batch of n samples, counting the one before.
func (b *bar) advance(n int) {
	b.flush()
	b.pending = n
}

func (b *bar) flush() {
	if b.pending > 0 {
		b.b.Add(b.pending, b.loss)
	}
	b.pending, b.loss = 0, math.NaN()
}

// addLoss records the loss of the batch in progress.
func (b *bar) addLoss(v float64) { b.loss = v }

// clear erases the bar's line, so that a log line can take it; the bar
// comes back at its next redraw.
func (b *bar) clear() {
	if !b.done && b.b.Visible() {
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
}

func (b *bar) finish() {
	if b.done {
		return
	}
	b.flush()
	b.b.Finish()
	b.done = true
}
