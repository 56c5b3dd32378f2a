#!/bin/bash
# libtorch-check.sh: fail with one clear line when the libtorch that cgo will
# use is not there, instead of a wall of C++ compiler errors.
#
#   scripts/libtorch-check.sh            Debian's libtorch-dev (the default)
#   LIBTORCH=/opt/libtorch scripts/libtorch-check.sh
#
# With LIBTORCH set it checks the layout the Makefile relies on (the official
# libtorch zip, or a pip install's site-packages/torch folder):
# $LIBTORCH/include/ATen/ATen.h and $LIBTORCH/lib/libtorch_cpu.so.
set -euo pipefail

fail() { echo "gotorch: $*" >&2; exit 1; }

if ! command -v "${CXX:-g++}" >/dev/null 2>&1; then
	fail "no C++ compiler (${CXX:-g++}) for cgo: apt-get install g++ (or run scripts/setup.sh)"
fi

if [ -n "${LIBTORCH:-}" ]; then
	[ -d "$LIBTORCH" ] || fail "LIBTORCH=$LIBTORCH is not a directory"
	[ -f "$LIBTORCH/include/ATen/ATen.h" ] ||
		fail "LIBTORCH=$LIBTORCH has no include/ATen/ATen.h: point it at the unzipped libtorch folder (or a pip install's .../site-packages/torch)"
	[ -f "$LIBTORCH/include/torch/csrc/api/include/torch/torch.h" ] ||
		fail "LIBTORCH=$LIBTORCH has no include/torch/csrc/api/include/torch/torch.h: not a complete libtorch"
	[ -e "$LIBTORCH/lib/libtorch_cpu.so" ] ||
		fail "LIBTORCH=$LIBTORCH has no lib/libtorch_cpu.so: point it at the unzipped libtorch folder (or a pip install's .../site-packages/torch)"
	exit 0
fi

[ -f /usr/include/ATen/ATen.h ] && [ -f /usr/include/torch/csrc/api/include/torch/torch.h ] ||
	fail "libtorch headers not found: install Debian's libtorch-dev (scripts/setup.sh does it), or set LIBTORCH=/path/to/libtorch"
lib=$("${CXX:-g++}" -print-file-name=libtorch_cpu.so)
[ "$lib" != libtorch_cpu.so ] ||
	fail "libtorch_cpu.so not found by the linker: install Debian's libtorch-dev (scripts/setup.sh does it), or set LIBTORCH=/path/to/libtorch"
