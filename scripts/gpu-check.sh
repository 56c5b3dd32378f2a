#!/bin/bash
# gpu-check.sh: GoTorch's GPU check, for a machine with an NVIDIA GPU and a
# pip PyTorch with CUDA but no Go and no network (docs/gpu.md). It builds
# GoTorch against that PyTorch's libtorch (CUDA linked with --no-as-needed,
# -DGOTORCH_CUDA where the CUDA headers are), runs every CUDA test, the
# CUDA-side checks of torch/amp, data and the out-of-memory path, a short
# per-op and training-step timing beside PyTorch's, the GPU benchmark (go run
# ./bench -device cuda: C++, Go, Go+ and Python workers interleaved on cuda:0,
# with peak memory, ResNet-18, GPT-2 generation and BERT included; report in
# $OUT/bench-gpu.md) and the main job for one epoch on the GPU. Logs go to
# $OUT (default /tmp/out).
#
# Before, on a machine with Go, from the project's root:
#   ../shared/tools/device-pack.sh ./torch/... ./nn/... ./data ./classfile ./cmd/gop-torch ./internal/gen ./bench/cmd/gowork ./bench/gopwork
# which writes .device-carry/ (a trimmed Go, a module proxy folder, the
# generator), and the benchmark harness built here (its chart's modules,
# about 27 MB, do not fit in the carry; the harness is pure Go):
#   CGO_ENABLED=0 go build -trimpath -ldflags=-s -o .device-carry/bench ./bench && gzip -9f .device-carry/bench
# Then on the GPU machine, from the project's root:
#   bash scripts/gpu-check.sh
# The whole check keeps to GPU_CHECK_SECONDS (default 540: one 10-minute
# device call, with room to spare): the steps run most useful first (the
# build, the per-op split of the GPU time, the CUDA tests, the short
# timings, the benchmark, the main job), each under a timeout of what is
# left, and a step that does not fit is skipped, saying so.
# Set REGEN=0 to keep the committed bindings (only for a PyTorch whose ops
# match them); BENCH_ONLY=parts to run only some of the benchmark's parts
# (its -only: ops, mlp, cnn, transformer, models); FASHION_MNIST=DIR for
# Fashion-MNIST's four .gz files when /usr/share/datasets/fashion-mnist is
# missing (the main job is skipped, saying so, without them).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
O=${OUT:-/tmp/out}
mkdir -p "$O"
t0=$(date +%s)
log() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$O/gpu-check.log"; }
fails=0
budget=${GPU_CHECK_SECONDS:-540}
left() { echo $((budget - ($(date +%s) - t0))); }
step() { # step NAME MIN CMD...: runs CMD under a timeout of the time left,
	# logs to $O/NAME.log and counts failures; skips it if under MIN
	# seconds are left
	local name=$1 min=$2 rc
	shift 2
	last=skipped
	if [ "$(left)" -lt "$min" ]; then
		log "$name: SKIPPED: $(left) s left of $budget, it needs about $min"
		return
	fi
	log "$name: $*"
	timeout -k 10 "$(left)" "$@" >"$O/$name.log" 2>&1
	rc=$?
	last=$rc
	if [ "$rc" = 0 ]; then
		log "$name: ok"
	else
		[ "$rc" = 124 ] && log "$name: out of time"
		log "$name: FAILED (rc $rc), see $name.log"
		fails=$((fails + 1))
	fi
	tail -5 "$O/$name.log" | sed 's/^/    /' | tee -a "$O/gpu-check.log"
}

# Go: the machine's, or the one device-pack.sh carried.
carry=$root/.device-carry
if ! command -v go >/dev/null; then
	[ -f "$carry/go.tar.gz" ] || { log "no go and no $carry/go.tar.gz: run device-pack.sh first"; exit 1; }
	mkdir -p /tmp/dgo && tar -xzf "$carry/go.tar.gz" -C /tmp/dgo || exit 1
	export PATH=/tmp/dgo/go/bin:$PATH GOROOT=/tmp/dgo/go
fi
if [ -d "$carry/mc" ]; then
	export GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=file://$carry/mc GOSUMDB=off \
		GOMODCACHE=/tmp/dgo/mc GOCACHE=/tmp/dgo/cache
fi
PY=${PYTHON:-python3}
# pyc runs Python code away from the project's root: there, a Python
# without PyTorch would import the project's torch/ folder as a namespace
# package and report a torch with no __file__ instead of its absence.
pyc() { (cd / && "$PY" -c "$1"); }
TD=$(pyc 'import torch, os; print(os.path.dirname(torch.__file__))') || { log "python3 cannot import torch"; exit 1; }
log "$(go version); g++ $(g++ -dumpversion); torch $(pyc 'import torch; print(torch.__version__, "cuda", torch.version.cuda)') at $TD; $(nproc) cpus"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | tee -a "$O/gpu-check.log"
nvidia-smi >"$O/nvidia-smi.txt" 2>&1

# Regenerate the bindings from this PyTorch's declarations (the committed
# ones are libtorch 1.13's).
if [ "${REGEN:-1}" = 1 ]; then
	TG=$(pyc 'import torchgen, os; print(os.path.dirname(torchgen.__file__))')
	if [ -x "$carry/gen" ]; then
		step regen 30 bash -c "cd internal/gen && '$carry/gen' -root ../.. -python $PY -aten '$TG/packaged/ATen'"
	else
		step regen 30 bash -c "cd internal/gen && go run . -root ../.. -python $PY -aten '$TG/packaged/ATen'"
	fi
fi

# The build flags: make env where make is, the same by hand otherwise.
if command -v make >/dev/null; then
	eval "$(make -s env LIBTORCH="$TD")"
else
	ABI=$(pyc 'import torch; print(int(torch.compiled_with_cxx11_abi()))')
	V=$(sed -n 's/^#define TORCH_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' "$TD/include/torch/csrc/api/include/torch/version.h" |
		awk 'NR==1{v=$1*10000} NR==2{v+=$1*100} NR==3{v+=$1} END{print v}')
	inc=""
	for d in "${CUDA_HOME:-/nonexistent}/include" /usr/local/cuda/include "$TD"/../nvidia/*/include; do
		[ -f "$d/cuda_runtime_api.h" ] && { inc="-DGOTORCH_CUDA -I$d"; break; }
	done
	std=""
	[ "$V" -ge 20700 ] && std=-std=c++20
	export CGO_CPPFLAGS="-I$TD/include -I$TD/include/torch/csrc/api/include -DGOTORCH_LIBTORCH=$V $inc"
	export CGO_CXXFLAGS="-g -O2 -D_GLIBCXX_USE_CXX11_ABI=$ABI $std"
	export CGO_LDFLAGS="-L$TD/lib -Wl,-rpath,$TD/lib -Wl,--no-as-needed -ltorch_cuda -lc10_cuda -Wl,--as-needed"
fi
log "CGO_CPPFLAGS=$CGO_CPPFLAGS"
log "CGO_CXXFLAGS=${CGO_CXXFLAGS:-}"
log "CGO_LDFLAGS=${CGO_LDFLAGS:-}"
export GOMAXPROCS=${GOMAXPROCS:-$(nproc)}

step build 60 go build ./torch/... ./nn/... ./data ./classfile
[ "$last" = 0 ] || { log "no build: nothing else can run"; exit 1; }

# Where GoTorch's per-op time on the GPU goes (issue #22: 9.8 µs per 4×4 add
# against C++'s 5.74 µs): torch's 4×4 benchmarks on cuda:0, which split it
# into libtorch without Go (CxxDirect), one cgo call (Binding,
# BindingLocked) and GoTorch's handles (Free, Auto, AutoLocked, AutoExact),
# then a CPU profile of the Auto case (Go's side; C++ shows as cgocall).
step perop-split 60 env GOTORCH_BENCH_DEVICE=cuda go test -run '^$' -bench '^Benchmark(Add4x4|MM4x4|Add4x4Floor)$' \
	-benchtime 20000x -count 3 ./torch
step perop-profile 40 bash -c "GOTORCH_BENCH_DEVICE=cuda go test -run '^\$' -bench '^BenchmarkAdd4x4\$/^Auto\$' -benchtime 200000x \
	-cpuprofile '$O/add4-auto.prof' -o /tmp/dgo-torch.test ./torch && go tool pprof -top -nodecount 40 '$O/add4-auto.prof'"

step cuda-tests 40 go test -count=1 -v ./torch/cuda
step amp-tests 30 go test -count=1 -v ./torch/amp
step oom-tests 40 go test -count=1 -v -run 'OOM|OutOfMemory|DeviceMemory' ./torch
step data-tests 30 go test -count=1 -v -run 'PinMemory|LoaderDevice' ./data
step classfile-tests 60 go test -count=1 -v -run 'Amp|Device' ./classfile

# Timing: 4x4 add and mm per op and an MLP step, Go and Python, on cuda:0.
step timing-go 30 go run ./scripts/gpucheck
step timing-py 20 $PY scripts/gpucheck/ops.py

# The GPU benchmark: the four workers of bench/ (the C++ one compiled here
# against this PyTorch's libtorch, CUDA linked, -DBENCH_CUDA where the CUDA
# headers are) take turns on cuda:0. It starts no job after its time limit
# (what is left, less about 2 minutes for the main job) and reports the
# rounds it finished. The harness: carried (above) or built here. Its
# models part (issue #35: ResNet-18 at batch 1 and 32 and a training step,
# GPT-2 small generating 64 tokens with the cache, BERT-base at 8 x 128)
# runs in the C++, Go and Python workers; Python's ResNet-18 needs
# torchvision beside PyTorch (the job reports its absence and the others
# run), GPT-2 and BERT are models/text/testdata/gen.py's.
if [ -f "$carry/bench.gz" ]; then
	mkdir -p /tmp/dgo && gzip -dc "$carry/bench.gz" >/tmp/dgo/bench-harness && chmod +x /tmp/dgo/bench-harness
	harness=(/tmp/dgo/bench-harness)
else
	harness=(go run ./bench)
fi
blimit=$(($(left) - 150))
step bench-gpu 120 env LIBTORCH="$TD" "${harness[@]}" -device cuda -rounds "${BENCH_ROUNDS:-3}" -reps 2 -warmup 1 \
	${BENCH_ONLY:+-only "$BENCH_ONLY"} -time-limit "$((blimit > 60 ? blimit : 60))s" -python "$PY" -out "$O/bench-gpu.md"

# The main job, one epoch, on the GPU (device "auto" picks it).
fm=/usr/share/datasets/fashion-mnist
if [ ! -f "$fm/train-images-idx3-ubyte.gz" ] && [ -n "${FASHION_MNIST:-}" ]; then
	mkdir -p "$fm" && cp "$FASHION_MNIST"/*.gz "$fm"/
fi
if [ -f "$fm/train-images-idx3-ubyte.gz" ]; then
	step main-job 60 go run ./cmd/gop-torch run ./examples/fashion_mnist -epochs 1
else
	log "main-job: SKIPPED: no Fashion-MNIST in $fm (set FASHION_MNIST=DIR)"
fi
log "done: $fails failed step(s); logs in $O"
[ "$fails" = 0 ]
