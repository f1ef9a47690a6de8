# The two commands: `make run` and `make test`. Plain `make` builds.
# Everything goes through CMake presets (CMakePresets.json).
JOBS ?= $(shell nproc)
RUN_ARGS ?=

.PHONY: all build bootstrap configure run test test-asan test-tsan bench format tidy clean

all: build

bootstrap:
	@scripts/bootstrap

configure: bootstrap
	@cmake --preset release >/dev/null

build: configure
	@cmake --build --preset release -j $(JOBS)

# Builds Release and starts satord in the foreground, in memory:
# gRPC on 127.0.0.1:50051, metrics on 127.0.0.1:9464.
run: build
	build/bin/satord --grpc_address=127.0.0.1:50051 \
	  --metrics_address=127.0.0.1:9464 $(RUN_ARGS)

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

bench: build
	@scripts/run-benchmarks build

format:
	@git ls-files '*.h' '*.cc' | xargs clang-format -i

tidy: configure
	@git ls-files '*.cc' | grep -v '^tests/\|^bench/' | \
	  xargs clang-tidy -p build --quiet

clean:
	rm -rf build build-dev build-asan build-tsan
