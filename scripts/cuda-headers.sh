#!/bin/bash
# cuda-headers.sh: compile GoTorch's CUDA C++ (cgotorch/cuda/cuda.cc,
# cgotorch/amp/amp.cc, bench/cxx/work.cc's -DBENCH_CUDA part) against a
# libtorch with CUDA, syntax only (nothing is linked or run, no GPU
# needed): Debian 13 contrib's libtorch-cuda-dev 2.6.0 and the CUDA toolkit's
# headers from non-free's nvidia-cuda-dev, both downloaded with a private apt
# configuration (nothing is installed) and unpacked into a cache folder. The
# compiles run in the Debian 13 root of scripts/debian13.sh (g++ 14); they
# cover both builds: with -DGOTORCH_CUDA (the caching allocator's
# statistics, c10/cuda headers) and without. Where scripts/libtorch-headers.sh
# left newer headers in the root (sid's 2.14.1, which include c10/cuda),
# the CUDA builds are compiled against them too.
#
#   scripts/cuda-headers.sh            download once, then compile
#
# The headers are kept in the root, /opt/gotorch-cuda-headers (as
# scripts/libtorch-headers.sh keeps its own), so CI downloads them once.
# nvidia-cuda-dev is about 0.9 GB to download (once); only its
# usr/include is kept. The Go test cgotorch/cuda TestSyntaxAgainstCUDAHeaders
# runs the same compiles with the host's g++ when that folder exists.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=$("$here/scripts/debian13.sh" path)
"$here/scripts/debian13.sh" ensure
dest=/opt/gotorch-cuda-headers # inside the root
host=$root$dest
say() { echo "cuda-headers: $*" >&2; }

if [ ! -f "$host/.done" ]; then
	# shellcheck source=scripts/apt-private.sh
	. "$here/scripts/apt-private.sh"
	apt_private trixie main contrib non-free
	say "downloading trixie's libtorch-cuda-dev and nvidia-cuda-dev (once, about 0.9 GB)"
	(cd "$apt_work/debs" && apt-get "${apt_o[@]}" download libtorch-cuda-dev nvidia-cuda-dev >/dev/null 2>&1) ||
		{ say "download failed"; exit 1; }
	rm -rf "$host"
	mkdir -p "$host/torch" "$host/cuda"
	dpkg -x "$apt_work"/debs/libtorch-cuda-dev_*.deb "$host/torch"
	dpkg-deb --fsys-tarfile "$apt_work"/debs/nvidia-cuda-dev_*.deb | tar -x -C "$host/cuda" --wildcards './usr/include/*'
	inc=$(dirname "$(find "$host/cuda" -name cuda_runtime_api.h | head -1)")
	[ -f "$inc/cuda_runtime_api.h" ] || { say "no cuda_runtime_api.h in nvidia-cuda-dev"; exit 1; }
	echo "${inc#"$host"/}" >"$host/cuda-include"
	touch "$host/.done"
fi
cuda_inc=$dest/$(cat "$host/cuda-include")
torch_inc=$dest/torch/usr/include
[ -d "$host/torch/usr/include/c10/cuda" ] || { say "no c10/cuda headers in $host/torch/usr/include"; exit 1; }
compile() {
	# $1: extra flags, $2: the file, $3: libtorch's include folder, $4: the
	# C++ standard. Runs where g++ 14 and the tree are.
	local inc=${3:-$torch_inc}
	local cmd="g++ -std=${4:-c++17} -fsyntax-only -Wall -Wno-comment -Wno-deprecated-declarations -Wno-unused-function $1 \
		-isystem $inc -isystem $inc/torch/csrc/api/include -Icgotorch ${2:-cgotorch/cuda/cuda.cc}"
	"$here/scripts/debian13.sh" run bash -c "$cmd"
}
t0=$(date +%s)
say "compiling cgotorch/cuda/cuda.cc against libtorch-cuda-dev 2.6's headers, without -DGOTORCH_CUDA"
compile ""
say "... and with -DGOTORCH_CUDA and the CUDA headers in ${cuda_inc#"$dest"/}"
compile "-DGOTORCH_CUDA -isystem $cuda_inc"
say "... and cgotorch/amp/amp.cc (autocast, 2.6's device-generic API)"
compile "" cgotorch/amp/amp.cc
bench="-DBENCH_CUDA -isystem $cuda_inc -Wno-unused-variable -Wno-sign-compare"
say "... and the benchmark's C++ worker with -DBENCH_CUDA (its peak-memory reads)"
compile "$bench" bench/cxx/work.cc

# Newer libtorch: the headers scripts/libtorch-headers.sh keeps (sid's
# 2.14.1) include c10/cuda but not the one header CMake writes for a CUDA
# build, c10/cuda/impl/cuda_cmake_macros.h (C10_CUDA_BUILD_SHARED_LIBS);
# it is written here into a folder of its own.
macros=/opt/gotorch-cuda-macros # inside the root
mkdir -p "$root$macros/c10/cuda/impl"
printf '#pragma once\n#define C10_CUDA_BUILD_SHARED_LIBS\n' >"$root$macros/c10/cuda/impl/cuda_cmake_macros.h"
for newer in "$root"/opt/libtorch-headers-*/usr/include; do
	[ -d "$newer/c10/cuda" ] || continue
	inc=${newer#"$root"}
	say "cgotorch/cuda/cuda.cc and bench/cxx/work.cc with CUDA against ${inc%/usr/include} (C++20)"
	compile "-DGOTORCH_CUDA -isystem $cuda_inc -isystem $macros" cgotorch/cuda/cuda.cc "$inc" c++20
	compile "$bench -isystem $macros" bench/cxx/work.cc "$inc" c++20
done
say "the CUDA C++ compiles ($(($(date +%s) - t0)) s)"
