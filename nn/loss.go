package nn

// The losses of torch.nn are written by go run ./internal/genlayers from
// its table into loss_gen.go: each keeps its settings as fields named
// after PyTorch's keywords, prints as PyTorch does ("MSELoss()"), and
// computes with its nn/functional form (MSELoss with F.MseLoss, …), which
// checks the reduction when it runs, as PyTorch does. Adding a loss is one
// entry in that table (and its F function).

// lossArgs parses a loss's options: allowed and reduction.
func lossArgs(layer string, opts []Option, allowed ...string) layerArgs {
	var a layerArgs
	a.parse(layer, opts, append(allowed, "reduction")...)
	return a
}

// checkMultiMarginLoss checks MultiMarginLoss's p and weight, as
// PyTorch's __init__ does.
func checkMultiMarginLoss(a *layerArgs) {
	const layer = "MultiMarginLoss"
	if p := a.float("p", 1); p != 1 && p != 2 {
		layerPanic(layer, "only p == 1 and p == 2 supported")
	}
	if w := a.tensor("weight"); w.Defined() && w.Dim() != 1 {
		layerPanic(layer, "weight must be one-dimensional")
	}
}
