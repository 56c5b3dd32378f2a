# GoTorch. The two commands:
#
#   make train   the main job: the Go+ training script examples/fashion_mnist
#   make test    go vet and go test -race -short over the whole module
#   make test-long  the tests that -short skips or shortens (CI runs both)
#
# Both first run scripts/setup.sh, which installs the missing Debian packages
# (as root or with passwordless sudo; otherwise it prints the apt-get command).
#
# To build against another libtorch than Debian's libtorch-dev, set LIBTORCH
# to its folder (the official libtorch zip unpacked, or a pip install's
# .../site-packages/torch): make LIBTORCH=/opt/libtorch test. For plain go
# commands, eval "$(make -s env LIBTORCH=/opt/libtorch)" first.

GO ?= go
SETUP ?= scripts/setup.sh
# The main job.
TRAIN ?= $(GO) run ./cmd/gop-torch run ./examples/fashion_mnist

# LIBTORCH_USE_PYTORCH=1: take the libtorch of the PyTorch that python3
# imports (a pip wheel), as tch-rs's variable of that name does. Python runs
# from /: here, one without PyTorch would import ./torch as a namespace
# package instead of failing.
ifeq ($(LIBTORCH_USE_PYTORCH),1)
LIBTORCH := $(shell cd / && $(or $(PYTHON),python3) -c 'import os, torch; print(os.path.dirname(torch.__file__))' 2>/dev/null)
ifeq ($(LIBTORCH),)
$(error LIBTORCH_USE_PYTORCH=1, but $(or $(PYTHON),python3) cannot import torch)
endif
endif

ifdef LIBTORCH
override LIBTORCH := $(abspath $(LIBTORCH))
export LIBTORCH
export CGO_CPPFLAGS := -I$(LIBTORCH)/include -I$(LIBTORCH)/include/torch/csrc/api/include
export CGO_LDFLAGS := -L$(LIBTORCH)/lib -Wl,-rpath,$(LIBTORCH)/lib
# Builds of libtorch differ in libstdc++'s string ABI (pip wheels and the
# "pre-cxx11" zips use the old one); take it from the libtorch's own CMake
# config so that std::string crosses the boundary intact.
CXX11_ABI := $(shell sed -n 's/.*-D_GLIBCXX_USE_CXX11_ABI=\([01]\).*/\1/p' $(LIBTORCH)/share/cmake/Torch/TorchConfig.cmake 2>/dev/null | head -n1)
ifneq ($(CXX11_ABI),)
export CGO_CXXFLAGS := -g -O2 -D_GLIBCXX_USE_CXX11_ABI=$(CXX11_ABI)
endif
endif

# The libtorch version the headers say, as one number (2.6.0 is 20600),
# passed to the C++ as GOTORCH_LIBTORCH: Go's build cache does not hash the
# system headers, but it does hash CGO_CPPFLAGS, so a libtorch-dev upgrade
# changes the flags and rebuilds the bindings instead of linking objects
# compiled against the old headers; cgotorch/internal.h stops a build whose
# flag and headers disagree. Plain go commands get it from make env.
TORCH_VERSION_H := $(firstword $(wildcard $(if $(LIBTORCH),$(LIBTORCH)/include/torch/csrc/api/include/torch/version.h) \
	/usr/include/torch/csrc/api/include/torch/version.h))
GOTORCH_LIBTORCH := $(shell sed -n 's/^\#define TORCH_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' $(TORCH_VERSION_H) 2>/dev/null | \
	awk 'NR==1{v=$$1*10000} NR==2{v+=$$1*100} NR==3{v+=$$1} END{if (NR==3) print v}')
ifneq ($(GOTORCH_LIBTORCH),)
export CGO_CPPFLAGS := $(strip $(filter-out -DGOTORCH_LIBTORCH=%,$(CGO_CPPFLAGS)) -DGOTORCH_LIBTORCH=$(GOTORCH_LIBTORCH))
# libtorch 2.14's headers require C++20 (#error otherwise); 1.13's and 2.6's
# compile under either. The #cgo lines name no -std, so this one holds; older
# libtorch keeps the compiler's default, C++17.
ifeq ($(shell [ $(GOTORCH_LIBTORCH) -ge 20700 ] && echo yes),yes)
export CGO_CXXFLAGS := $(strip $(CGO_CXXFLAGS) -std=c++20)
endif
endif

# CUDA. A libtorch built with CUDA has libtorch_cuda.so beside
# libtorch_cpu.so (a LIBTORCH zip, a pip PyTorch, Debian's contrib
# libtorch-cuda-dev). Its CUDA kernels register only if the library is
# loaded, and nothing in GoTorch calls into it directly, so it is linked with
# --no-as-needed (as tch-rs does); without that, CUDA is silently "not
# available". With the CUDA toolkit's headers also at hand (CUDA_HOME,
# /usr/local/cuda, a pip wheel's nvidia/*/include, /usr/include),
# -DGOTORCH_CUDA compiles the parts of cgotorch/cuda that need them (the
# caching allocator's statistics). CUDA=0 keeps the build CPU-only; a plain
# go build without make env is always CPU-only (docs/gpu.md).
TORCH_LIBDIR := $(if $(LIBTORCH),$(LIBTORCH)/lib,$(patsubst %/,%,$(dir $(firstword $(wildcard /usr/lib/*/libtorch_cpu.so)))))
ifneq ($(CUDA),0)
TORCH_CUDA_LIB := $(firstword $(wildcard $(TORCH_LIBDIR)/libtorch_cuda.so))
endif
ifneq ($(TORCH_CUDA_LIB),)
export CGO_LDFLAGS := $(strip $(CGO_LDFLAGS) -Wl,--no-as-needed -ltorch_cuda -lc10_cuda -Wl,--as-needed)
CUDA_INCLUDE := $(patsubst %/cuda_runtime_api.h,%,$(firstword $(wildcard \
	$(if $(CUDA_HOME),$(CUDA_HOME)/include/cuda_runtime_api.h) /usr/local/cuda/include/cuda_runtime_api.h \
	$(if $(LIBTORCH),$(LIBTORCH)/../nvidia/*/include/cuda_runtime_api.h) /usr/include/cuda_runtime_api.h)))
ifneq ($(CUDA_INCLUDE),)
export CGO_CPPFLAGS := $(strip $(CGO_CPPFLAGS) -DGOTORCH_CUDA $(if $(filter /usr/include,$(CUDA_INCLUDE)),,-I$(abspath $(CUDA_INCLUDE))))
endif
endif

# The C++ of the bindings, compiled once (issue 38). cgo compiles a
# package's C++ as part of the package, so the go command compiled it again
# for -race, for every checkout path and for every test that builds a
# module: 3.5 CPU-minutes each time. scripts/prebuilt.sh compiles it into
# one shared library per content, in ~/.cache/gotorch/cgo-<hash>, and the
# targets below build with -tags gotorch_prebuilt, which leaves the .cc
# files out of the Go packages and links that library (cgotorch/prebuilt.go
# and its twins). make test after make train compiles no C++. Plain go
# commands, make env and make leakcheck (-asan instruments the C++) build
# as before.
PREBUILT_ENV = CGO_CPPFLAGS='$(CGO_CPPFLAGS)' CGO_CXXFLAGS='$(CGO_CXXFLAGS)' CGO_LDFLAGS='$(LIBTORCH_LDFLAGS)'
LIBTORCH_LDFLAGS := $(CGO_LDFLAGS)
PREBUILT_DIR := $(shell $(PREBUILT_ENV) scripts/prebuilt.sh --dir 2>/dev/null)
PREBUILT_TARGETS = train test test-long test-all
$(PREBUILT_TARGETS): export GOFLAGS += -tags=gotorch_prebuilt
$(PREBUILT_TARGETS): export CGO_LDFLAGS += -L$(PREBUILT_DIR) -Wl,-rpath,$(PREBUILT_DIR)
# BUILD_PREBUILT builds the library if this source has none yet (a recipe's first
# line; it fails if the sources changed since make started).
BUILD_PREBUILT = $(PREBUILT_ENV) GOTORCH_PREBUILT_EXPECT='$(PREBUILT_DIR)' scripts/prebuilt.sh >/dev/null

.PHONY: train test setup check-libtorch env test-debian13 prebuilt

train: setup
	$(BUILD_PREBUILT)
	$(TRAIN)

# make test is the newcomer's check: every package under the race
# detector, in -short mode, where the tests that need minutes (saves past
# 4 GiB, the one-minute stress run, the DDP training job, building XGo and
# running the examples, ...) skip or shorten themselves: about 8 minutes on
# a 2-core machine after make train (README). make test-long runs the rest:
# every test of the packages that have a -short switch, without -short.
# CI runs both.
#
# -ldflags=-w: the 45 test binaries that link libtorch under -race are
# linked without DWARF (stack traces come from the symbol table and stay
# whole): 4.4 instead of 6.2 s a link here.
test: setup
	$(BUILD_PREBUILT)
	$(GO) vet ./...
	$(GO) test -race -short -ldflags=-w -timeout 30m ./...

LONG_PKGS = $(sort $(patsubst %/,./%,$(dir $(shell grep -rl --include='*_test.go' 'testing.Short()' . | sed 's|^\./||'))))
.PHONY: test-long
test-long: setup
	$(BUILD_PREBUILT)
	$(GO) test -race -timeout 40m $(LONG_PKGS)

# Short runs of the fuzz targets under the fuzzing engine (docs/robustness.md),
# FUZZTIME each. make test runs their seed corpora (go test does); this is
# not part of it because fuzzing instruments every package, the C++ of the
# bindings included, and that build alone takes minutes on a cold cache.
# FUZZTIME is a count of executions (Nx), not a duration: Go 1.26's fuzzing
# coordinator can report its own -fuzztime deadline as a failure, "context
# deadline exceeded" with no failing input (golang/go#75804, fixed in Go
# 1.27), and a count has no deadline. CI (.ci/run) runs 300x per target.
# Longer runs: make fuzz-short FUZZTIME=200000x.
FUZZTIME ?= 1000x
FUZZ_TARGETS = ./internal/robustness:FuzzOps ./internal/robustness:FuzzHostileArgs ./torch:FuzzDecode \
	./internal/robustness:FuzzLoadCheckpoint ./torch/safetensors:FuzzParse \
	./data:FuzzDecodeIDX ./data:FuzzDecodeCIFAR10 ./torch/pt:FuzzPickle ./torch/pt:FuzzDecode \
	./examples/serve:FuzzDecodeBody ./torch/aoti:FuzzParseInputSpec ./examples/serve/batcher:FuzzBatcher \
	./torch/jit:FuzzArchive ./torch/jit:FuzzValues ./examples/serve:FuzzFlatJSON
.PHONY: fuzz-short
fuzz-short:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz: $$name in $$pkg, $(FUZZTIME)"; \
		$(GO) test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -parallel 2 || exit 1; \
	done

# Native leaks: the tests under AddressSanitizer, whose LeakSanitizer
# reports C and C++ memory still allocated and unreferenced at exit
# (docs/robustness.md). The two RSS tests are skipped: ASan's quarantine
# holds freed memory.
.PHONY: leakcheck
leakcheck:
	$(GO) test -asan -count=1 ./torch -skip 'TestTrainingLoopReturnsToBaseline|TestLargeLoopRSSWithinBudget'
	$(GO) test -asan -count=1 ./torch/safetensors ./nn/... ./data ./internal/robustness

setup:
	$(SETUP)

# The bindings' shared library alone (see PREBUILT_DIR above).
prebuilt:
	$(PREBUILT_ENV) scripts/prebuilt.sh

# One clear line instead of a C++ error wall when libtorch is missing.
check-libtorch:
	scripts/libtorch-check.sh

# Shell lines that make plain go build/test/run use $(LIBTORCH):
#   eval "$(make -s env LIBTORCH=/opt/libtorch)"
env:
ifdef LIBTORCH
	@echo "export LIBTORCH='$(LIBTORCH)'"
endif
ifneq ($(CGO_LDFLAGS),)
ifneq ($(PREBUILT),1)
	@echo "export CGO_LDFLAGS='$(CGO_LDFLAGS)'"
endif
endif
ifneq ($(CGO_CXXFLAGS),)
	@echo "export CGO_CXXFLAGS='$(CGO_CXXFLAGS)'"
endif
	@echo "export CGO_CPPFLAGS='$(CGO_CPPFLAGS)'"
ifeq ($(PREBUILT),1)
# make -s env PREBUILT=1: plain go commands that link the bindings' shared
# library as make test does, and reuse its build cache (CI's steps after
# make test). It builds the library first if needed; the sources must not
# change afterwards, or the go commands link a stale one.
	@$(BUILD_PREBUILT)
	@echo "export GOFLAGS='$(strip $(GOFLAGS) -tags=gotorch_prebuilt)'"
	@echo "export CGO_LDFLAGS='$(strip $(LIBTORCH_LDFLAGS) -L$(PREBUILT_DIR) -Wl,-rpath,$(PREBUILT_DIR))'"
endif

# The whole suite (make test-all) against Debian 13's libtorch 2.6, in a Debian 13 root kept
# in /var/cache/gotorch/debian13 (scripts/debian13.sh builds it the first
# time, in a few minutes, and whenever its package list changes). Needs root.
test-debian13:
	scripts/debian13.sh run make test-all

# Every test without -short, in one go test run (make test-debian13 runs it
# in the root, where make test and make test-long would build twice).
.PHONY: test-all
test-all: setup
	$(BUILD_PREBUILT)
	$(GO) vet ./...
	$(GO) test -race -timeout 60m ./...

# Benchmarks beside C++ libtorch and Python PyTorch (bench/): builds the
# workers, runs them interleaved and writes docs/benchmarks.md and its
# chart. BENCH='-quick' for a smoke run, BENCH='-rounds 4' and so on.
.PHONY: bench
bench:
	$(GO) run ./bench $(BENCH)
