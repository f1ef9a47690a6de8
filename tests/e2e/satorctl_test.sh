#!/usr/bin/env bash
# satorctl against the real satord: ping, health, generic JSON calls, pair
# queries remote and --local (which must agree), and clear errors.
set -euo pipefail
satord=$1
satorctl=$2
work=$(mktemp -d)
# shellcheck source=satord_lib.sh
source "$(dirname "$0")/satord_lib.sh"
start_satord "${satord}" "${work}"
ctl() { "${satorctl}" --target="127.0.0.1:${port}" --deadline=10s "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

# --help: every command on a line of its own, then satorctl's flags.
help=$("${satorctl}" --help 2>&1) || true
for command in ping health call pair scene bodies query help; do
  [[ $(grep -cE "^  ${command} +[a-z]" <<<"${help}") == 1 ]] || fail "--help: no line for ${command}: ${help}"
done
[[ ${help} != *'No flags matched'* ]] || fail "--help lists no flags: ${help}"
[[ ${help} == *'--target'* && ${help} == *'--scene'* ]] || fail "--help misses flags: ${help}"
[[ $("${satorctl}" help scene) == *'scene create'* ]] || fail "help scene"
if out=$("${satorctl}" help nosuch 2>&1); then fail "help nosuch accepted"; fi
[[ ${out} == *"unknown command 'nosuch'"* ]] || fail "help nosuch: ${out}"

[[ $(ctl ping --payload=hi) == *'"payload":"hi"'* ]] || fail ping
[[ $(ctl health --service=sator.v1.QueryService) == '{"status":"SERVING"}' ]] || fail health

# A unit square against a circle of radius 0.5 centred 0.8 away: the circle
# reaches 0.3, the square's edge is at 0.5, so the depth is 0.2 along +x.
request='{"shape_a":{"box2d":{"half_extents":{"x":0.5,"y":0.5}}},
          "shape_b":{"circle":{"radius":0.5}},
          "pose_b":{"position":{"x":0.8}},"contact":{}}'
remote=$(ctl call sator.v1.QueryService/PairQuery --json="${request}")
[[ ${remote} == *'"overlapping":true'* && ${remote} == *'"normal":{"x":1}'* ]] || fail "call: ${remote}"
[[ ${remote} =~ \"depth\":0\.(2|19999) ]] || fail "depth: ${remote}"
echo "${request}" > "${work}/pair.json"
[[ $(ctl pair --file="${work}/pair.json") == "${remote}" ]] || fail "pair --file differs from call"
[[ $("${satorctl}" pair --local --file=- < "${work}/pair.json") == "${remote}" ]] || fail "pair --local differs from the server"

# Errors: exit 1 with the code and the field path.
if out=$(ctl pair --json='{"shape_a":{"circle":{"radius":"NaN"}},"shape_b":{"circle":{"radius":1}},"overlap":{}}' 2>&1); then
  fail "NaN radius accepted: ${out}"; fi
[[ ${out} == *'INVALID_ARGUMENT: shape_a.circle.radius: not finite'* ]] || fail "NaN message: ${out}"
if out=$(ctl call sator.v1.NoSuchService/Nope --json='{}' 2>&1); then fail "unknown method"; fi
[[ ${out} == *NOT_FOUND* ]] || fail "unknown method message: ${out}"
if out=$(ctl call sator.v1.QueryService/PairQuery --json='{"shape_a": 7}' 2>&1); then fail "bad JSON"; fi
[[ ${out} == *'INVALID_ARGUMENT: request is not a valid sator.v1.PairQueryRequest'* ]] || fail "bad JSON message: ${out}"
if out=$(ctl call sator.v1.QueryService/Session --json='{}' 2>&1); then fail "streaming"; fi
[[ ${out} == *UNIMPLEMENTED* ]] || fail "streaming message: ${out}"
echo "satorctl: all checks passed"
