package nn

// The dropout layers are in dropout_gen.go, written from a table by
// internal/genlayers; these are their shared parts.

func dropoutP(layer string, opts []Option) float64 {
	a := layerArgs{p: 0.5}
	a.parse(layer, opts, "p")
	if a.p < 0 || a.p > 1 {
		layerPanic(layer, "dropout probability has to be between 0 and 1, but got %s", pyFloat(a.p))
	}
	return a.p
}

func dropoutRepr(p float64) string { return "p=" + pyFloat(p) + ", inplace=False" }
