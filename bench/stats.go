package main

import (
	"fmt"
	"math"
	"slices"
)

// summary describes a sample: its size and order statistics.
type summary struct {
	N                     int
	Min, Median, P90, Max float64
	Mean                  float64
}

// summarize returns the summary of xs; the zero summary for no values.
// The median of an even count is the mean of the two middle values; P90
// is the nearest-rank 90th percentile.
func summarize(xs []float64) summary {
	if len(xs) == 0 {
		return summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	sum := 0.0
	for _, v := range s {
		sum += v
	}
	rank := int(math.Ceil(0.9*float64(n))) - 1
	return summary{N: n, Min: s[0], Median: med, P90: s[max(rank, 0)], Max: s[n-1], Mean: sum / float64(n)}
}

// ok reports whether the summary has values.
func (s summary) ok() bool { return s.N > 0 }

// ratio is a/b, NaN when either is missing or b is zero.
func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return a / b
}

// target is one goal the harness checks.
type target struct {
	Name     string  // what is checked, in words
	Measured float64 // the measured value, NaN when it could not be
	Limit    float64
	AtMost   bool   // the measured value must be ≤ Limit (else ≥)
	Unit     string // "×", " ms", "%"
	// Paired, for a ratio of times, is the same ratio taken round by
	// round and its median over the rounds (results.pairedRatio); NaN
	// where it could not be. Checked is Measured; Paired is shown beside.
	Paired    float64
	HasPaired bool
}

// paired returns t with its per-round ratio.
func (t target) paired(v float64) target {
	t.Paired, t.HasPaired = v, true
	return t
}

// pass reports whether the target is met; false when nothing was measured.
func (t target) pass() bool {
	if math.IsNaN(t.Measured) {
		return false
	}
	if t.AtMost {
		return t.Measured <= t.Limit
	}
	return t.Measured >= t.Limit
}

// verdict is PASS, MISS or "n/a" (nothing measured).
func (t target) verdict() string {
	switch {
	case math.IsNaN(t.Measured):
		return "n/a"
	case t.pass():
		return "PASS"
	}
	return "MISS"
}

// margin says by how much the target is met or missed, relative to the
// limit: "18% under the limit", "45% short".
func (t target) margin() string {
	if math.IsNaN(t.Measured) || t.Limit == 0 {
		return "not measured"
	}
	d := (t.Measured - t.Limit) / math.Abs(t.Limit) * 100
	if t.Unit == "%" {
		// a percentage's margin is in percentage points
		d = t.Measured - t.Limit
		if t.AtMost && d <= 0 {
			return fmt.Sprintf("%.1f points under the limit", math.Abs(d))
		} else if t.AtMost {
			return fmt.Sprintf("%.1f points over the limit", d)
		}
	}
	switch {
	case t.AtMost && d <= 0:
		return fmt.Sprintf("%.0f%% under the limit", math.Abs(d))
	case t.AtMost:
		return fmt.Sprintf("%.0f%% over the limit", d)
	case d >= 0:
		return fmt.Sprintf("%.0f%% above the minimum", d)
	}
	return fmt.Sprintf("%.0f%% short of the minimum", -d)
}

// String is the target's one-line report.
func (t target) String() string {
	op := "≥"
	if t.AtMost {
		op = "≤"
	}
	return fmt.Sprintf("%-4s %s: %s (target %s %s; %s)", t.verdict(), t.Name, fmtValue(t.Measured, t.Unit), op, fmtValue(t.Limit, t.Unit), t.margin())
}

func fmtValue(v float64, unit string) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	switch unit {
	case "×":
		return fmt.Sprintf("%.2f×", v)
	case "%":
		return fmt.Sprintf("%+.1f%%", v)
	case " ms":
		return fmt.Sprintf("%.3f ms", v)
	}
	return fmt.Sprintf("%.3g%s", v, unit)
}

// fmtDuration formats nanoseconds with a unit suited to its size.
func fmtDuration(ns float64) string {
	switch {
	case math.IsNaN(ns) || ns <= 0:
		return "n/a"
	case ns < 1e3:
		return fmt.Sprintf("%.0f ns", ns)
	case ns < 1e4:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	case ns < 1e6:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	case ns < 1e7:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	case ns < 1e9:
		return fmt.Sprintf("%.1f ms", ns/1e6)
	}
	return fmt.Sprintf("%.2f s", ns/1e9)
}

// fmtRatio formats a ratio, "n/a" for NaN.
func fmtRatio(r float64) string {
	if math.IsNaN(r) {
		return "n/a"
	}
	return fmt.Sprintf("%.2f×", r)
}

// fmtBytes formats a byte count in MiB.
func fmtBytes(b float64) string {
	if math.IsNaN(b) || b < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", b/(1<<20))
}
