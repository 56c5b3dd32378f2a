// Command loadchart draws the chart of docs/serving.md from the results
// that examples/serve/loadtest.sh writes: requests per second and p99
// latency against the number of connections, the Go server beside the
// Python one, the median over the rounds with each round's points.
//
//	go run ./examples/serve/loadchart -in loadtest.tsv -out docs/serving.png
//
// It also prints the table of medians, in Markdown.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"image/color"
	"io"
	"log"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/gotorch/gotorch/internal/atomicfile"
)

// run is one wrk run: one line of loadtest.tsv.
type run struct {
	server      string
	round, conn int
	rps         float64
	p50, p99    float64 // milliseconds
	non2xx      int
}

var colors = map[string]color.Color{
	"go":     color.RGBA{R: 0x00, G: 0x7d, B: 0x9c, A: 0xff},
	"python": color.RGBA{R: 0xe3, G: 0x8d, B: 0x2c, A: 0xff},
}

var names = map[string]string{"go": "Go (examples/serve)", "python": "Python (server.py)"}

func main() {
	in := flag.String("in", "loadtest.tsv", "results written by loadtest.sh")
	out := flag.String("out", "docs/serving.png", "chart to write (PNG)")
	flag.Parse()
	f, err := os.Open(*in)
	if err != nil {
		log.Fatal(err)
	}
	runs, err := parse(f)
	f.Close()
	if err != nil {
		log.Fatalf("%s: %v", *in, err)
	}
	table(os.Stdout, runs)
	if err := chart(runs, *out); err != nil {
		log.Fatal(err)
	}
}

// parse reads the TSV: a header line, then server, round, connections,
// requests/s, p50 ms, p99 ms, non-2xx responses (later columns ignored).
func parse(r io.Reader) ([]run, error) {
	var runs []run
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		f := strings.Split(sc.Text(), "\t")
		if line == 1 || len(f) == 1 && f[0] == "" {
			continue
		}
		if len(f) < 7 {
			return nil, fmt.Errorf("line %d: %d columns, want at least 7", line, len(f))
		}
		var x run
		var errs [6]error
		x.server = f[0]
		x.round, errs[0] = strconv.Atoi(f[1])
		x.conn, errs[1] = strconv.Atoi(f[2])
		x.rps, errs[2] = strconv.ParseFloat(f[3], 64)
		x.p50, errs[3] = strconv.ParseFloat(f[4], 64)
		x.p99, errs[4] = strconv.ParseFloat(f[5], 64)
		x.non2xx, errs[5] = strconv.Atoi(f[6])
		for _, e := range errs {
			if e != nil {
				return nil, fmt.Errorf("line %d: %v", line, e)
			}
		}
		if names[x.server] == "" {
			return nil, fmt.Errorf("line %d: unknown server %q (want go or python)", line, x.server)
		}
		runs = append(runs, x)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("no runs")
	}
	return runs, nil
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// group collects a metric by server and connections.
func group(runs []run, metric func(run) float64) map[string]map[int][]float64 {
	g := map[string]map[int][]float64{}
	for _, r := range runs {
		if g[r.server] == nil {
			g[r.server] = map[int][]float64{}
		}
		g[r.server][r.conn] = append(g[r.server][r.conn], metric(r))
	}
	return g
}

func conns(runs []run) []int {
	var cs []int
	for _, r := range runs {
		if !slices.Contains(cs, r.conn) {
			cs = append(cs, r.conn)
		}
	}
	sort.Ints(cs)
	return cs
}

// table prints the medians per connection count, and Go's ratios.
func table(w io.Writer, runs []run) {
	rps := group(runs, func(r run) float64 { return r.rps })
	p50 := group(runs, func(r run) float64 { return r.p50 })
	p99 := group(runs, func(r run) float64 { return r.p99 })
	bad := group(runs, func(r run) float64 { return float64(r.non2xx) })
	fmt.Fprintln(w, "| connections | Go req/s | Python req/s | Go ÷ Python | Go p50 / p99 (ms) | Python p50 / p99 (ms) | rounds | non-2xx (Go, Python) |")
	fmt.Fprintln(w, "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, c := range conns(runs) {
		g, p := rps["go"][c], rps["python"][c]
		if len(g) == 0 || len(p) == 0 {
			continue
		}
		sum := func(v []float64) (s float64) {
			for _, x := range v {
				s += x
			}
			return s
		}
		fmt.Fprintf(w, "| %d | %.0f | %.0f | %.2f× | %.2f / %.2f | %.2f / %.2f | %d, %d | %.0f, %.0f |\n", c,
			median(g), median(p), median(g)/median(p),
			median(p50["go"][c]), median(p99["go"][c]), median(p50["python"][c]), median(p99["python"][c]),
			len(g), len(p), sum(bad["go"][c]), sum(bad["python"][c]))
	}
}

// panel plots one metric against connections: a line through the medians
// and a dot for each round.
func panel(runs []run, title, ylabel string, logY bool, metric func(run) float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "connections (log scale)"
	p.Y.Label.Text = ylabel
	p.X.Scale = plot.LogScale{}
	var ticks []plot.Tick
	for _, c := range conns(runs) {
		ticks = append(ticks, plot.Tick{Value: float64(c), Label: strconv.Itoa(c)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	g := group(runs, metric)
	for _, server := range []string{"go", "python"} {
		var line, dots plotter.XYs
		for _, c := range conns(runs) {
			vs := g[server][c]
			if len(vs) == 0 {
				continue
			}
			line = append(line, plotter.XY{X: float64(c), Y: median(vs)})
			for _, v := range vs {
				dots = append(dots, plotter.XY{X: float64(c), Y: v})
			}
		}
		if len(line) == 0 {
			continue
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = colors[server], vg.Points(2)
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: colors[server], Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		p.Add(l, sc)
		p.Legend.Add(names[server], l)
	}
	p.Y.Min = 0
	if logY {
		lo := math.Inf(1)
		for _, r := range runs {
			lo = math.Min(lo, metric(r))
		}
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		p.Y.Min = lo / 1.5
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	return p, nil
}

func chart(runs []run, path string) error {
	tp, err := panel(runs, "Throughput (higher is better)", "requests per second", false, func(r run) float64 { return r.rps })
	if err != nil {
		return err
	}
	lp, err := panel(runs, "p99 latency (lower is better)", "milliseconds (log scale)", true, func(r run) float64 { return r.p99 })
	if err != nil {
		return err
	}
	img := vgimg.New(12*vg.Inch, 4.5*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Inch / 4, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	tp.Draw(tiles.At(dc, 0, 0))
	lp.Draw(tiles.At(dc, 1, 0))
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
		return err
	})
}
