#!/bin/bash
# measure.sh times one epoch of this Go program, of the Go+ main job
# (examples/fashion_mnist, the same model) and of pytorch_twin.py, taking
# turns, ROUNDS times (default 2), and prints wall time and peak RSS of each
# run. The numbers in README.md come from it.
#
#   examples/fashion_mnist_go/measure.sh 2
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/fm_go" ./examples/fashion_mnist_go
go run ./cmd/gop-torch build -o "$tmp/fm_gop" ./examples/fashion_mnist
run() { # name command...
	local name=$1
	shift
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >"$tmp/log" 2>&1 || {
		cat "$tmp/log" >&2
		return 1
	}
	read -r wall rss <"$tmp/time"
	printf "%-8s whole run %6.1f s  peak RSS %5.0f MB  %s\n" "$name" "$wall" "$((rss / 1024))" \
		"$(grep -Eo 'epoch 1[: ].*' "$tmp/log" | tail -1 | cut -c1-90)"
}
for r in $(seq "$rounds"); do
	echo "round $r"
	run Go "$tmp/fm_go" -epochs 1 -checkpoint "$tmp/go.safetensors"
	run Go+ "$tmp/fm_gop" -epochs 1 -checkpoint "$tmp/gop.safetensors"
	run PyTorch /usr/bin/python3 examples/fashion_mnist_go/pytorch_twin.py --epochs 1 --cosine
done
