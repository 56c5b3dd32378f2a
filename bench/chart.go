package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

var implColors = map[string]color.Color{
	"cxx":    color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff},
	"go":     color.RGBA{R: 0x00, G: 0x7d, B: 0x9c, A: 0xff},
	"gop":    color.RGBA{R: 0x7f, G: 0xc4, B: 0x4e, A: 0xff},
	"python": color.RGBA{R: 0xe3, G: 0x8d, B: 0x2c, A: 0xff},
}

// ratioPlot is the median time of Go, Go+ and Python relative to C++ for
// each interleaved workload and for start-up, on a logarithmic scale.
func ratioPlot(r *results) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Median time relative to C++ (lower is faster)"
	p.Y.Label.Text = "time / C++ time (log scale)"
	var names []string
	type point struct {
		x     int
		ratio float64
	}
	pts := map[string][]point{}
	lo, hi := 1.0, 1.0
	add := func(name string, get func(im string) float64) {
		for _, im := range []string{"go", "gop", "python"} {
			if v := get(im); !math.IsNaN(v) && v > 0 {
				pts[im] = append(pts[im], point{len(names), v})
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		names = append(names, name)
	}
	for _, j := range cpuJobs() {
		if r.Samples[j.Name] == nil {
			continue
		}
		add(j.Name, func(im string) float64 { return r.medianRatio(j.Name, im, "cxx") })
	}
	if len(r.Startup) > 0 {
		cxx := summarize(r.Startup["cxx"]).Median
		add("start-up", func(im string) float64 { return ratio(summarize(r.Startup[im]).Median, cxx) })
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("nothing measured")
	}
	shapes := map[string]draw.GlyphDrawer{"go": draw.CircleGlyph{}, "gop": draw.TriangleGlyph{}, "python": draw.BoxGlyph{}}
	offsets := map[string]float64{"go": -0.2, "gop": 0, "python": 0.2}
	for _, im := range []string{"go", "gop", "python"} {
		if len(pts[im]) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(pts[im]))
		for i, pt := range pts[im] {
			xys[i] = plotter.XY{X: float64(pt.x) + offsets[im], Y: pt.ratio}
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: implColors[im], Radius: vg.Points(4), Shape: shapes[im]}
		p.Add(sc)
		p.Legend.Add(label(im), sc)
	}
	one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(len(names)) - 0.5, Y: 1}})
	if err != nil {
		return nil, err
	}
	one.Color = implColors["cxx"]
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(one)
	p.Legend.Add("C++ = 1", one)
	p.Legend.Top = true
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5
	p.X.Tick.Label.Rotation = math.Pi / 5
	p.X.Tick.Label.XAlign = draw.XRight
	p.Y.Scale = plot.LogScale{}
	p.Y.Min, p.Y.Max = lo/1.25, hi*1.6
	p.Y.Tick.Marker = ratioTicks{}
	p.Add(plotter.NewGrid())
	return p, nil
}

// ratioTicks marks 1-2-5 steps on a logarithmic ratio axis.
type ratioTicks struct{}

func (ratioTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v >= min && v <= max {
				ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64) + "×"})
			}
		}
	}
	return ts
}

// rssPlot is RSS over the long training run, one line per worker.
func rssPlot(r *results) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("RSS over %d MLP training steps", r.Config.RSSSteps)
	p.X.Label.Text = "step"
	p.Y.Label.Text = "RSS (MiB)"
	n := 0
	for _, im := range r.Impls {
		pts := r.RSS[im.Name]
		if len(pts) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(pts))
		for i, pt := range pts {
			xys[i] = plotter.XY{X: float64(pt.Step), Y: float64(pt.RSS) / (1 << 20)}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color = implColors[im.Name]
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(im.Label, l)
		n++
	}
	if n == 0 {
		return nil, nil
	}
	p.Y.Min = 0
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p, nil
}

// writeChart draws the ratio plot and, when there was an RSS run, the RSS
// plot beside it, into a PNG file.
func writeChart(r *results, path string) error {
	rp, err := ratioPlot(r)
	if err != nil {
		return err
	}
	plots := []*plot.Plot{rp}
	if mp, err := rssPlot(r); err != nil {
		return err
	} else if mp != nil {
		plots = append(plots, mp)
	}
	width := 7 * vg.Inch * vg.Length(len(plots))
	img := vgimg.New(width, 4.5*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Inch / 4, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(8)}
	for i, p := range plots {
		p.Draw(tiles.At(dc, i, 0))
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
