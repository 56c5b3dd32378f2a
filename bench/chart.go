package main

import (
	"fmt"
	"image/color"
	"math"
	"os"

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
// each interleaved workload and for start-up.
func ratioPlot(r *results) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "Median time relative to C++ (lower is faster)"
	p.Y.Label.Text = "time / C++ time"
	var names []string
	type col struct {
		name string
		vals plotter.Values
	}
	cols := []col{{name: "go"}, {name: "gop"}, {name: "python"}}
	add := func(name string, get func(im string) float64) {
		names = append(names, name)
		for i := range cols {
			v := get(cols[i].name)
			if math.IsNaN(v) {
				v = 0
			}
			cols[i].vals = append(cols[i].vals, v)
		}
	}
	for _, j := range jobs {
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
	w := vg.Points(7)
	for i, c := range cols {
		if _, ok := r.impl(c.name); !ok {
			continue
		}
		bars, err := plotter.NewBarChart(c.vals, w)
		if err != nil {
			return nil, err
		}
		bars.LineStyle.Width = 0
		bars.Color = implColors[c.name]
		bars.Offset = vg.Length(i-1) * w
		p.Add(bars)
		p.Legend.Add(label(c.name), bars)
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
	p.X.Tick.Label.Rotation = math.Pi / 5
	p.X.Tick.Label.XAlign = draw.XRight
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	return p, nil
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
