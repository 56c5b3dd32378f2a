#!/bin/bash
# setup.sh: make this Debian 12 machine ready to build, test and train with
# GoTorch. Safe to run again: it only acts on what is missing.
#
#   scripts/setup.sh                 packages for building, testing, training
#   scripts/setup.sh --with-python   also python3-torch, the reference PyTorch
#                                    that the golden-data generators and the
#                                    comparison benchmarks run (/usr/bin/python3);
#                                    the Go tests read committed JSON and do not
#                                    need it
#   scripts/setup.sh --with-browser  also chromium (and a font), for examples/serve's test of
#                                    its page in headless Chromium (skipped
#                                    without it)
#
# Packages: g++ (cgo), libtorch-dev (skipped when LIBTORCH is set),
# libopenblas0-openmp (the BLAS chosen in docs/blas.md), dataset-fashion-mnist,
# libgloo-dev (the Gloo headers that torch/distributed compiles against),
# iproute2 (ip: torch/distributed's network-namespace test, run as root).
# Missing ones are installed with apt-get when running as root or with
# passwordless sudo; otherwise the script prints the apt-get command and
# exits 1. It then points the libblas.so.3, liblapack.so.3 and
# libopenblas.so.0 alternatives at OpenBLAS's OpenMP build (docs/blas.md).
set -euo pipefail

# The BLAS that docs/blas.md measured best for libtorch's training steps.
BLAS_VARIANT=openmp
BLAS_PKG=libopenblas0-$BLAS_VARIANT

with_python=0 with_browser=0
for arg in "$@"; do
	case $arg in
	--with-python) with_python=1 ;;
	--with-browser) with_browser=1 ;;
	-h | --help)
		sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "setup.sh: unknown argument $arg (try --help)" >&2
		exit 2
		;;
	esac
done

here=$(cd "$(dirname "$0")" && pwd)
say() { echo "setup: $*"; }
die() { echo "setup: $*" >&2; exit 1; }

[ -r /etc/debian_version ] && command -v dpkg-query >/dev/null ||
	die "this script knows Debian's packages only (Debian 12); install libtorch, g++ and OpenBLAS yourself and set LIBTORCH"

# How to run a command as root: directly, through passwordless sudo, or not.
if [ "$(id -u)" = 0 ]; then
	as_root=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
	as_root=(sudo -n)
else
	as_root=(none)
fi

pkgs=(g++ "$BLAS_PKG" dataset-fashion-mnist libgloo-dev iproute2)
if [ -n "${LIBTORCH:-}" ]; then
	say "LIBTORCH=$LIBTORCH: using it instead of Debian's libtorch-dev"
else
	pkgs+=(libtorch-dev)
fi
[ $with_python = 1 ] && pkgs+=(python3-torch python3-torchvision)
[ $with_browser = 1 ] && pkgs+=(chromium fonts-dejavu-core) # without any font, headless chromium aborts

installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }
missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
	if [ "${as_root[0]:-}" = none ]; then
		echo "setup: missing Debian packages: ${missing[*]}" >&2
		echo "setup: run as root:  apt-get update && DEBIAN_FRONTEND=noninteractive ${cmd[*]}" >&2
		exit 1
	fi
	say "installing ${missing[*]}"
	"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
	"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "${cmd[@]}" </dev/null
fi

# Point the three BLAS alternatives at the chosen OpenBLAS build. libtorch
# loads libblas.so.3 and liblapack.so.3; they load libopenblas.so.0 by its
# soname, so all three must move together.
arch=$(gcc -print-multiarch 2>/dev/null || true)
arch=${arch:-$(uname -m)-linux-gnu}
blas_dir=/usr/lib/$arch/openblas-$BLAS_VARIANT
for g in libblas.so.3 liblapack.so.3 libopenblas.so.0; do
	name=$g-$arch
	want=$blas_dir/$g
	[ -e "$want" ] || die "$want is missing although $BLAS_PKG is installed"
	now=$(update-alternatives --query "$name" 2>/dev/null | sed -n 's/^Value: //p')
	[ "$now" = "$want" ] && continue
	if [ "${as_root[0]:-}" = none ]; then
		echo "setup: warning: $name points at ${now:-nothing}, not $want; as root run: update-alternatives --set $name $want" >&2
	else
		say "update-alternatives --set $name $want"
		"${as_root[@]}" update-alternatives --set "$name" "$want" >/dev/null
	fi
done

"$here/libtorch-check.sh"

command -v go >/dev/null ||
	die "no go on PATH: install Go >= 1.24 from https://go.dev/dl/ (Debian 12's golang-go is 1.19, too old)"
say "ready ($(go version | cut -d' ' -f3), BLAS openblas-$BLAS_VARIANT${LIBTORCH:+, LIBTORCH=$LIBTORCH})"
