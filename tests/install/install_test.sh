#!/usr/bin/env bash
# Installs Sator into a scratch prefix, checks the package's files, builds
# examples/ from a separate build tree against it, runs the installed build of
# the quickstart example against the installed satord, and builds and runs a
# game server's unit test that uses the installed mock (mock_consumer/).
#
#   install_test.sh <sator build dir> <sator source dir> <scratch dir>
#                   <sanitizers, e.g. "address;undefined" or ""> <c++ compiler>
set -euo pipefail

build_dir=$1
source_dir=$2
work=$3
sanitize=$4
cxx=$5

# The scratch dir stays at a fixed place inside the build tree, so the
# examples' objects hit the shared ccache from one run to the next.
rm -rf "${work}/prefix" "${work}/satord"
mkdir -p "${work}"
prefix=${work}/prefix
satord_pid=
cleanup() {
  if [[ -n ${satord_pid} ]]; then kill -9 "${satord_pid}" 2>/dev/null || true; fi
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

cmake --install "${build_dir}" --prefix "${prefix}" >"${work}/install.log"

# The package's files.
for file in \
  include/sator/client/client.h include/sator/client/sharding.h \
  include/sator/client/sharding_connection.h \
  include/sator/client/mocks/mock_connection.h \
  include/sator/core/pose.h include/sator/core/vec.h \
  include/sator/core/collide2d/shapes2d.h \
  lib/libsator_client.a lib/libsator_proto.a lib/libsator_convert.a \
  lib/cmake/sator/satorConfig.cmake lib/cmake/sator/satorConfigVersion.cmake \
  lib/cmake/sator/satorTargets.cmake bin/satord bin/satorctl; do
  [[ -e ${prefix}/${file} ]] || fail "cmake --install did not install ${file}"
done
# No protobuf or gRPC type in the client's public headers.
if grep -rlE '#include "(grpcpp/|google/protobuf/|sator/v1/)|\.pb\.h"' \
  "${prefix}/include/sator/client"; then
  fail "a public client header includes protobuf or gRPC headers"
fi

# examples/, configured and built on their own against the prefix. Warnings
# as errors in the consumer's own code.
flags="-Wall -Wextra -Werror"
link_flags=""
if [[ -n ${sanitize} ]]; then
  sanitizers=${sanitize//;/,}
  flags+=" -fsanitize=${sanitizers} -fno-omit-frame-pointer"
  link_flags="-fsanitize=${sanitizers}"
fi
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S "${source_dir}/examples" -B "${work}/examples-build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="${cxx}" \
  -DCMAKE_PREFIX_PATH="${prefix}" "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="${flags}" -DCMAKE_EXE_LINKER_FLAGS="${link_flags}" \
  >"${work}/configure.log" 2>&1 || { cat "${work}/configure.log"; fail "configure"; }
grep -q "sator" "${work}/examples-build/CMakeCache.txt" || fail "no sator in cache"
grep -q "^sator_DIR:PATH=${prefix}/lib/cmake/sator" \
  "${work}/examples-build/CMakeCache.txt" ||
  fail "examples/ did not find the installed package (sator_DIR)"
cmake --build "${work}/examples-build" -j 2 >"${work}/build.log" 2>&1 ||
  { cat "${work}/build.log"; fail "build"; }

# A game server's unit test on sator::client_mocks, no server needed.
rm -rf "${work}/mock-src"
mkdir -p "${work}/mock-src"
cp "${source_dir}/tests/install/mock_consumer/consumer.cmake" \
  "${work}/mock-src/CMakeLists.txt"
cp "${source_dir}/tests/install/mock_consumer/game_logic_test.cc" \
  "${work}/mock-src/"
cmake -S "${work}/mock-src" -B "${work}/mock-build" \
  -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="${cxx}" \
  -DCMAKE_PREFIX_PATH="${prefix}" "${launcher[@]}" \
  -DCMAKE_CXX_FLAGS="${flags}" -DCMAKE_EXE_LINKER_FLAGS="${link_flags}" \
  >"${work}/mock-configure.log" 2>&1 ||
  { cat "${work}/mock-configure.log"; fail "configure mock_consumer"; }
cmake --build "${work}/mock-build" -j 2 >"${work}/mock-build.log" 2>&1 ||
  { cat "${work}/mock-build.log"; fail "build mock_consumer"; }
"${work}/mock-build/game_logic_test" >"${work}/mock-test.log" 2>&1 ||
  { cat "${work}/mock-test.log"; fail "mock_consumer's test"; }
grep -q "2 tests.*PASSED\|PASSED.*2 tests" "${work}/mock-test.log" ||
  { cat "${work}/mock-test.log"; fail "mock_consumer ran no tests"; }

# The installed satord on a free loopback port, and the installed quickstart
# against it.
mkdir -p "${work}/satord"
"${prefix}/bin/satord" --grpc_address=127.0.0.1:0 --metrics_address= \
  --port_file="${work}/satord/ports.json" >"${work}/satord/log" 2>&1 &
satord_pid=$!
for _ in $(seq 1 200); do
  [[ -s ${work}/satord/ports.json ]] && break
  kill -0 "${satord_pid}" 2>/dev/null || { cat "${work}/satord/log"; fail "satord exited"; }
  sleep 0.1
done
[[ -s ${work}/satord/ports.json ]] || fail "satord wrote no port file in 20 s"
port=$(sed -E 's/.*"grpc_port":([0-9]+).*/\1/' "${work}/satord/ports.json")
output=$(timeout 60 "${work}/examples-build/quickstart" "127.0.0.1:${port}") ||
  fail "quickstart exited with $?: ${output}"
echo "${output}"
[[ ${output} == *"overlapping=1"* ]] || fail "quickstart output: ${output}"
echo "PASS: installed package builds examples/ and quickstart runs"
