# The two commands: `make run` and `make test`. Plain `make` builds
# everything. Everything goes through CMake presets (CMakePresets.json):
# `make run` installs only the packages satord needs (scripts/bootstrap run)
# and builds only satord and satorctl (preset run); `make test` and
# `make bench` install their own packages and build everything (preset
# release). Both presets share build/, so switching is incremental.
JOBS ?= $(shell nproc)
RUN_ARGS ?=

.PHONY: all build bootstrap bootstrap-run configure configure-run build-run run test test-asan test-tsan test-portable bench plots fuzz soak format format-check tidy tidy-changed clean

all: build

bootstrap:
	@scripts/bootstrap

bootstrap-run:
	@scripts/bootstrap run

configure: bootstrap
	@cmake --preset release >/dev/null

configure-run: bootstrap-run
	@cmake --preset run >/dev/null

build: configure
	@cmake --build --preset release -j $(JOBS)

build-run: configure-run
	@cmake --build --preset run -j $(JOBS)

# Builds Release and starts satord in the foreground, in memory:
# gRPC on 127.0.0.1:50051, metrics and the scene viewer on 127.0.0.1:9464
# (http://127.0.0.1:9464/debug/scenes).
run: build-run
	build/bin/satord --grpc_address=127.0.0.1:50051 \
	  --metrics_address=127.0.0.1:9464 --debug_pages $(RUN_ARGS)

test: build
	ctest --preset release -j $(JOBS)

test-asan: bootstrap
	@cmake --preset asan >/dev/null
	@cmake --build --preset asan -j $(JOBS)
	ctest --preset asan -j $(JOBS)

test-tsan: bootstrap
	@cmake --preset tsan >/dev/null
	@cmake --build --preset tsan -j $(JOBS)
	ctest --preset tsan -j $(JOBS)

# The core built with its vector type as plain C++ (core/src/simd/float4.h).
test-portable: bootstrap
	@cmake --preset portable >/dev/null
	@cmake --build --preset portable -j $(JOBS)
	ctest --preset portable -j $(JOBS)

bench: build
	@scripts/run-benchmarks build

# PNG plots for docs/PERFORMANCE.md (docs/img/): an open-loop latency sweep of
# satord (about a minute) and, from `make bench`'s JSON, the core against its
# peers. Installs gnuplot-nox if missing.
plots: build
	@[ -n "$$(ls build/bench/*.json 2>/dev/null)" ] || scripts/run-benchmarks build
	@scripts/plots/latency-sweep build
	@scripts/plots/make-plots build docs/img

format:
	@git ls-files '*.h' '*.cc' | xargs clang-format -i

# Fails, naming the files, when any C++ file differs from clang-format's output.
format-check: bootstrap
	@git ls-files '*.h' '*.cc' | xargs clang-format --dry-run -Werror

# clang-tidy on every source (tidy) or on those changed since .ci/tidy-base
# (tidy-changed, the CI stage); both need the generated proto headers.
tidy: configure
	@cmake --build --preset release --target sator_proto >/dev/null
	@scripts/tidy $(JOBS)

tidy-changed: configure
	@cmake --build --preset release --target sator_proto >/dev/null
	@scripts/tidy $(JOBS) --since $$(cat .ci/tidy-base)

clean:
	rm -rf build build-dev build-asan build-tsan build-fuzz

# Fuzzing (clang + libFuzzer, ASan+UBSan): builds every fuzz target and runs
# each for FUZZ_SECONDS from its seed corpus; crashes land in build-fuzz/.
FUZZ_SECONDS ?= 60
fuzz: bootstrap
	@CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
	  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" -DSATOR_FUZZ=ON \
	  "-DSATOR_SANITIZE=address;undefined" -DSATOR_BUILD_BENCHMARKS=OFF \
	  -DSATOR_WITH_ORACLES=OFF -DSATOR_ONLY_DIRS=tests/fuzz >/dev/null
	@cmake --build build-fuzz -j $(JOBS) --target sator_fuzzers
	@scripts/run-fuzzers build-fuzz $(FUZZ_SECONDS)

# Soak (docs/OPERATIONS.md): a fixed-rate mixed load on a fresh satord for
# SOAK_SECONDS; fails on any error or RSS growth above 5% after warm-up.
SOAK_SECONDS ?= 60
soak: configure
	@cmake --build build -j $(JOBS) --target satord sator-soak
	@build/bin/sator-soak --satord=build/bin/satord --duration=$(SOAK_SECONDS)s
