package nn

// The dropout layers are in dropout_gen.go, written from a table by
// internal/genlayers; these are their shared parts.

func dropoutP(layer string, opts []Option) float64 {
	var a layerArgs
	a.parse(layer, opts, "p")
	p := a.float("p", 0.5)
	if p < 0 || p > 1 {
		layerPanic(layer, "dropout probability has to be between 0 and 1, but got %s", pyFloat(p))
	}
	return p
}

func dropoutRepr(p float64) string { return "p=" + pyFloat(p) + ", inplace=False" }
